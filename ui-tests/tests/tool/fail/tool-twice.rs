use dsh_kit::prelude::*;

/// Greet someone.
#[tool]
#[tool]
async fn greet(name: String) -> String {
    name
}

fn main() {}
