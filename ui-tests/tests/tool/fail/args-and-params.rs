use dsh_kit::prelude::*;

#[derive(Deserialize, JsonSchema)]
struct ReadArgs {
    path: String,
}

/// Read a file.
#[tool]
async fn read_file(args: ReadArgs, limit: u32) -> String {
    format!("{} {limit}", args.path)
}

fn main() {}
