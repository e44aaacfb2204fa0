use dsh_kit::prelude::*;

/// Greet someone.
#[tool(output_type = "empty")]
async fn greet(name: String) -> String {
    format!("Hello, {name}!")
}

fn main() {}
