use dsh_kit::prelude::*;

/// Read a file.
#[tool(read_only, name = "read", read_only = false, name = "cat")]
async fn read_file(path: String) -> String {
    path
}

fn main() {}
