use dsh_kit::prelude::*;

#[derive(Deserialize, JsonSchema)]
struct ReadArgs {
    path: String,
}

#[render]
fn read_text<T: ToString>(args: &ReadArgs, value: &T) -> Vec<ContentBlock> {
    vec![ContentBlock::text(format!("{}: {}", args.path, value.to_string()))]
}

fn main() {}
