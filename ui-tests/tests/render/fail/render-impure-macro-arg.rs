use dsh_kit::prelude::*;

#[derive(Deserialize, JsonSchema)]
struct ReadArgs {
    path: String,
}

#[render]
fn read_text(args: &ReadArgs, value: &String) -> Vec<ContentBlock> {
    let text = format!("{}: {value} {:?}", args.path, std::env::current_dir());
    vec![ContentBlock::text(text)]
}

fn main() {}
