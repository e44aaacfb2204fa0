use dsh_kit::prelude::*;

#[tool(read_onyl, category = "fs")]
fn greet<T>(name: &mut String, exec: Exec) -> String {
    format!("Hello, {name}, from {}!", exec.tool_name())
}

fn main() {}
