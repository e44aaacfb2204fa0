use dsh_kit::prelude::*;

/// Read a file.
#[tool(name = "read file")]
async fn read_file(path: String) -> String {
    path
}

fn main() {}
