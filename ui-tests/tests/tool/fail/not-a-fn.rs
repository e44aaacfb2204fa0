use dsh_kit::prelude::*;

/// Greet someone.
#[tool]
struct Greet {
    name: String,
}

fn main() {}
