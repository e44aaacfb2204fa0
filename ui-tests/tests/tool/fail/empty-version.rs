use dsh_kit::prelude::*;

/// Read a file.
#[tool(version = " ")]
async fn read_file(path: String) -> String {
    path
}

fn main() {}
