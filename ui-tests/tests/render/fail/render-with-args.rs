use dsh_kit::prelude::*;

#[derive(Deserialize, JsonSchema)]
struct ReadArgs {
    path: String,
}

#[render(pure)]
fn read_text(args: &ReadArgs, value: &String) -> Vec<ContentBlock> {
    vec![ContentBlock::text(format!("{}: {value}", args.path))]
}

fn main() {}
