use dsh_kit::prelude::*;

#[derive(Deserialize, JsonSchema)]
struct ReadArgs {
    path: String,
}

#[render]
fn read_text(args: &ReadArgs, value: &String) -> Vec<ContentBlock> {
    let handle = tokio::runtime::Handle::try_current();
    vec![ContentBlock::text(format!("{}: {value} {}", args.path, handle.is_ok()))]
}

fn main() {}
