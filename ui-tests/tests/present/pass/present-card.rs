use dsh_kit::prelude::*;
use dsh_kit::Registry;

/// Run a command.
#[tool(present = run_card)]
async fn run(command: String) -> String {
    command
}

#[present]
fn run_card(args: &RunArgs, value: &String) -> Card {
    Card::generic(args.command.clone(), json!({ "command": args.command }), Some(json!(value)))
}

fn main() {
    let registry = Registry::new();
    let _run = registry.register::<run>().unwrap();
}
