use dsh_kit::prelude::*;

#[derive(Deserialize, JsonSchema)]
struct ReadArgs {
    path: String,
}

/// Read a file.
#[tool]
async fn read_file(args: ReadArgs, more: ReadArgs) -> String {
    args.path + &more.path
}

fn main() {}
