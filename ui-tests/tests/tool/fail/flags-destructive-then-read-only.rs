use dsh_kit::prelude::*;

/// Delete a file.
#[tool(destructive, read_only)]
async fn delete(path: String) -> String {
    path
}

fn main() {}
