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
fn read_text(args: &ReadArgs, value: &u64) -> Vec<ContentBlock> {
    vec![ContentBlock::text(format!("{}: {value}", args.path))]
}

fn main() {}
