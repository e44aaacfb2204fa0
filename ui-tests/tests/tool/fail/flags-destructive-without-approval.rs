use dsh_kit::prelude::*;

/// Delete a file.
#[tool(destructive, requires_approval = false)]
async fn delete(path: String) -> String {
    path
}

fn main() {}
