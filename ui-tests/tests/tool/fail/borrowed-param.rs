use dsh_kit::prelude::*;

/// Greet someone.
#[tool]
async fn greet(name: Option<&str>) -> String {
    format!("Hello, {}!", name.unwrap_or("you"))
}

fn main() {}
