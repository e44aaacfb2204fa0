use dsh_kit::prelude::*;

/// Greet someone.
#[tool]
async fn greet(name: String, exec: &mut Exec) -> String {
    format!("Hello, {name}, from {}!", exec.tool_name())
}

fn main() {}
