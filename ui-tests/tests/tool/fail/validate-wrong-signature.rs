use dsh_kit::prelude::*;

/// Greet someone.
#[tool(validate = check)]
async fn greet(name: String) -> String {
    format!("Hello, {name}!")
}

fn check(name: &String) -> bool {
    !name.is_empty()
}

fn main() {}
