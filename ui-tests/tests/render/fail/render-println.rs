use dsh_kit::prelude::*;

#[derive(Deserialize, JsonSchema)]
struct ReadArgs {
    path: String,
}

#[render]
fn read_text(args: &ReadArgs, value: &String) -> Vec<ContentBlock> {
    println!("rendering {}", args.path);
    eprint!("{value}");
    vec![ContentBlock::text(value.clone())]
}

fn main() {}
