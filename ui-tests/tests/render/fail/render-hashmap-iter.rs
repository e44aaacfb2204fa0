use dsh_kit::prelude::*;

#[derive(Deserialize, JsonSchema)]
struct ReadArgs {
    path: String,
}

/// Read a file.
#[tool(render = read_text)]
async fn read_file(args: ReadArgs) -> String {
    args.path
}


use std::collections::HashMap;

#[render]
fn read_text(args: &ReadArgs, value: &String) -> Vec<ContentBlock> {
    let mut counts: HashMap<char, usize> = HashMap::new();
    for ch in value.chars() {
        *counts.entry(ch).or_default() += 1;
    }
    let mut text = args.path.clone();
    for (ch, count) in &counts {
        text.push_str(&format!(" {ch}={count}"));
    }
    vec![ContentBlock::text(text)]
}

fn main() {}
