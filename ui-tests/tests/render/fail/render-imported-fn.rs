use std::fs::read_to_string;

use dsh_kit::prelude::*;

#[derive(Deserialize, JsonSchema)]
struct ReadArgs {
    path: String,
}

#[render]
fn read_text(args: &ReadArgs, _: &String) -> Vec<ContentBlock> {
    vec![ContentBlock::text(read_to_string(&args.path).unwrap_or_default())]
}

fn main() {}
