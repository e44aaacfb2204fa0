use dsh_kit::prelude::*;

#[derive(Deserialize, JsonSchema)]
struct ReadArgs {
    path: String,
}

use std::time::{Instant, SystemTime};

#[render]
fn read_text(args: &ReadArgs, value: &String) -> Vec<ContentBlock> {
    let now = SystemTime::now();
    let start = Instant::now();
    vec![ContentBlock::text(format!("{}: {value} {now:?} {start:?}", args.path))]
}

fn main() {}
