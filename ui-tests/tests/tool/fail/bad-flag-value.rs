use dsh_kit::prelude::*;

/// Read a file.
#[tool(read_only = "yes", destructive(true), idempotent = 1)]
async fn read_file(path: String) -> String {
    path
}

fn main() {}
