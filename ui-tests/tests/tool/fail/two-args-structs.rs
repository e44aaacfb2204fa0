use dsh_kit::prelude::*;

#[derive(Deserialize, JsonSchema)]
struct ReadArgs {
    path: String,
}

#[derive(Deserialize, JsonSchema)]
struct Limits {
    max: u32,
}

/// Read a file.
#[tool]
async fn read_file(args: ReadArgs, Limits { max }: Limits) -> String {
    format!("{} {max}", args.path)
}

fn main() {}
