use dsh_kit::prelude::*;

/// Greet someone.
#[tool]
fn greet(name: String) -> String {
    format!("Hello, {name}!")
}

fn main() {}
