use dsh_kit::prelude::*;

#[derive(Deserialize, JsonSchema)]
struct ReadArgs {
    path: String,
}

/// Read a file.
#[tool(present = read_card)]
async fn read_file(args: ReadArgs) -> String {
    args.path
}

#[render]
fn read_card(args: &ReadArgs, value: &String) -> Vec<ContentBlock> {
    vec![ContentBlock::text(format!("{}: {value}", args.path))]
}

fn main() {}
