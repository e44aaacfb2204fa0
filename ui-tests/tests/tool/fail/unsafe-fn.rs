use dsh_kit::prelude::*;

/// Greet someone.
#[tool]
async unsafe fn greet(name: String) -> String {
    format!("Hello, {name}!")
}

fn main() {}
