use dsh_kit::prelude::*;

/// Add two numbers.
#[tool]
async fn add((a, b): (i64, i64), _: bool) -> i64 {
    a + b
}

fn main() {}
