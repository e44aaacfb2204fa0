use dsh_kit::prelude::*;

#[derive(Deserialize, JsonSchema)]
struct ReadArgs {
    path: String,
}

#[render]
fn read_text(args: &ReadArgs, value: &String) -> Vec<ContentBlock> {
    let user = std::env::var("USER").unwrap_or_default();
    vec![ContentBlock::text(format!("{}: {value} ({user})", args.path))]
}

fn main() {}
