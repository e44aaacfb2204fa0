use dsh_kit::Registry;

async fn greet(name: String) -> String {
    format!("Hello, {name}!")
}

fn main() {
    let registry = Registry::new();
    let _ = registry.register::<greet>();
}
