use dsh_kit::prelude::*;

/// Read a file.
#[tool(aliases = ["read_file", "read.file", "cat", "cat"])]
async fn read_file(path: String) -> String {
    path
}

fn main() {}
