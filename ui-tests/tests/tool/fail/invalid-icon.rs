use dsh_kit::prelude::*;

/// Read a file.
#[tool(icons = ["http://example.com/read.svg", "read.png", "data:image/png;base64,AA==", "data:image/png;base64,AA=="])]
async fn read_file(path: String) -> String {
    path
}

fn main() {}
