use dsh_kit::prelude::*;

/// Write a file.
#[tool(scopes = ["files:write", "", "files read", "say\"hi\"", "files:write", 42])]
async fn write_file(path: String) -> String {
    path
}

fn main() {}
