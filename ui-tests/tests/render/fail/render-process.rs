use dsh_kit::prelude::*;

#[derive(Deserialize, JsonSchema)]
struct ReadArgs {
    path: String,
}

#[render]
fn read_text(args: &ReadArgs, value: &String) -> Vec<ContentBlock> {
    let id = std::process::id();
    vec![ContentBlock::text(format!("{}: {value} ({id})", args.path))]
}

fn main() {}
