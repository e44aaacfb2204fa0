use dsh_kit::prelude::*;

/// Run a command (pretend).
#[tool(present_call = finished)]
async fn run(command: String) -> String {
    command
}

#[present]
fn finished(args: &RunArgs, value: &String) -> Card {
    Card::generic(args.command.clone(), json!({}), Some(json!(value)))
}

fn main() {}
