use dsh_kit::prelude::*;

#[derive(Deserialize)]
struct ReadArgs {
    path: String,
}

/// Read a file.
#[tool]
async fn read_file(args: ReadArgs) -> String {
    args.path
}

fn main() {}
