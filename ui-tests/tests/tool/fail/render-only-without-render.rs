use dsh_kit::prelude::*;

/// Say hello.
#[tool(read_only, render_only)]
async fn greet(name: String) -> String {
    format!("Hello, {name}!")
}

fn main() {}
