use dsh_sdk::prelude::*;

/// Greet someone.
#[tool]
struct Greet {
    name: String,
}

fn main() {}
