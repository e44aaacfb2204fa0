use dsh_kit::prelude::*;

/// Greet someone.
#[tool]
async fn greet(name: &str) -> String {
    format!("Hello, {name}!")
}

fn main() {}
