use dsh_kit::prelude::*;

/// Run a command.
#[tool]
async fn run(args: Vec<String>) -> String {
    args.join(" ")
}

fn main() {}
