use dsh_kit::prelude::*;

#[derive(Deserialize, JsonSchema)]
struct ReadArgs {
    path: String,
}

#[render]
fn read_text(args: &ReadArgs, value: &mut String) -> Vec<ContentBlock> {
    value.push_str(&args.path);
    vec![ContentBlock::text(value.clone())]
}

fn main() {}
