use dsh_sdk::prelude::*;

/// Greet someone.
#[tool]
#[tool]
async fn greet(name: String) -> String {
    name
}

fn main() {}
