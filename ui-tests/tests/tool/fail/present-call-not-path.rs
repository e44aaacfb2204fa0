use dsh_kit::prelude::*;

/// Run a command (pretend).
#[tool(present_call = "running")]
async fn run(command: String) -> String {
    command
}

fn main() {}
