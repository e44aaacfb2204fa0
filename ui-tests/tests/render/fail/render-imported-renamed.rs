use std::env::var as getenv;

use dsh_kit::prelude::*;

#[derive(Deserialize, JsonSchema)]
struct GreetArgs {
    name: String,
}

#[render]
fn greet_text(args: &GreetArgs, _: &String) -> Vec<ContentBlock> {
    let host = getenv("HOSTNAME").unwrap_or_default();
    vec![ContentBlock::text(format!("hello {} from {host}", args.name))]
}

fn main() {}
