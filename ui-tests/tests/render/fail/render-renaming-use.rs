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

#[render]
fn read_text(args: &ReadArgs, value: &String) -> Vec<ContentBlock> {
    use std::time::Instant as Clock;
    let started = Clock::now();
    vec![ContentBlock::text(format!("{}: {value} {started:?}", args.path))]
}

fn main() {}
