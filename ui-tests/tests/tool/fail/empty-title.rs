use dsh_kit::prelude::*;

/// Read a file.
#[tool(title = "")]
async fn read_file(path: String) -> String {
    path
}

fn main() {}
