use dsh_kit::prelude::*;

#[derive(Deserialize, JsonSchema)]
struct ReadArgs {
    path: String,
}

#[render]
fn read_text(args: &ReadArgs, _value: &String) -> Vec<ContentBlock> {
    use std::fs::{self, read_to_string};
    let text = fs::read(&args.path).unwrap_or_default();
    let more = read_to_string(&args.path).unwrap_or_default();
    vec![ContentBlock::text(format!("{} {more}", text.len()))]
}

fn main() {}
