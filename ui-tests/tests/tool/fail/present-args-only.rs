use dsh_kit::prelude::*;

/// Run a command (pretend).
#[tool(present = running)]
async fn run(command: String) -> String {
    command
}

#[present]
fn running(args: &RunArgs) -> Card {
    Card::generic(args.command.clone(), json!({}), None)
}

fn main() {}
