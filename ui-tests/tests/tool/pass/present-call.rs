use dsh_kit::card::TerminalCard;
use dsh_kit::prelude::*;
use dsh_kit::Registry;

/// Run a command (pretend).
#[tool(present_call = running, present = finished)]
async fn run(command: String) -> String {
    command
}

#[present]
fn running(args: &RunArgs) -> Card {
    Card::from(TerminalCard::new(args.command.clone()))
}

#[present]
fn finished(args: &RunArgs, value: &String) -> Card {
    Card::from(TerminalCard::new(args.command.clone()).stdout(value.clone()))
}

fn main() {
    let args = RunArgs {
        command: "ls".into(),
    };
    assert_eq!(<run as Tool>::present_call(&args), Some(running(&args)));
    let registry = Registry::new();
    let _run = registry.register::<run>().unwrap();
    assert_eq!(
        registry
            .get("run")
            .unwrap()
            .present_call(&json!({ "command": "ls" })),
        running(&args)
    );
}
