use dsh_kit::prelude::*;

/// Greet the user by the name they give.
#[tool(read_only, ask_first)]
async fn greet(exec: &Exec) -> String {
    let _ = exec;
    "hello".to_owned()
}

fn main() {}
