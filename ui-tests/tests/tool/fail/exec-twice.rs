use dsh_kit::prelude::*;

/// Greet someone.
#[tool]
async fn greet(exec: &Exec, name: String, again: &Exec) -> String {
    format!("Hello, {name}, from {} and {}!", exec.tool_name(), again.tool_name())
}

fn main() {}
