use dsh_kit::prelude::*;

/// Read a file.
#[tool]
async fn read_file(args: String) -> String {
    args
}

fn main() {}
