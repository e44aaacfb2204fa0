use dsh_kit::prelude::*;

#[tool(read_only)]
async fn greet(name: String) -> String {
    format!("Hello, {name}!")
}

fn main() {}
