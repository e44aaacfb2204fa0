use dsh_sdk::prelude::*;

async fn greet(name: String) -> String {
    format!("Hello, {name}!")
}

fn main() {
    let registry = Registry::new();
    let _ = registry.register::<greet>();
}
