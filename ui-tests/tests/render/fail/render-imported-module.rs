use std::fs;

use dsh_kit::prelude::*;

#[derive(Deserialize, JsonSchema)]
struct ReadArgs {
    path: String,
}

#[render]
fn read_text(args: &ReadArgs, _: &String) -> Vec<ContentBlock> {
    let size = fs::metadata(&args.path).map_or(0, |meta| meta.len());
    vec![ContentBlock::text(format!("{size} bytes"))]
}

fn main() {}
