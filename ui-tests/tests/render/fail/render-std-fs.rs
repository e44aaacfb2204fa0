use dsh_kit::prelude::*;

#[derive(Deserialize, JsonSchema)]
struct ReadArgs {
    path: String,
}

#[render]
fn read_text(args: &ReadArgs, _value: &String) -> Vec<ContentBlock> {
    let text = std::fs::read_to_string(&args.path).unwrap_or_default();
    vec![ContentBlock::text(text)]
}

fn main() {}
