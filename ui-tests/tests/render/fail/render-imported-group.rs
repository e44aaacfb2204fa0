use std::fs::{self, read_to_string};

use dsh_kit::prelude::*;

#[derive(Deserialize, JsonSchema)]
struct ReadArgs {
    path: String,
}

#[render]
fn read_text(args: &ReadArgs, _: &String) -> Vec<ContentBlock> {
    let exists = fs::exists(&args.path).unwrap_or(false);
    let text = read_to_string(&args.path).unwrap_or_default();
    vec![ContentBlock::text(format!("{exists}: {text}"))]
}

fn main() {}
