use dsh_kit::prelude::*;

const LIMIT: u32 = 10;

/// Read a file.
#[tool(example(path = "a", path = "b", limit = LIMIT, size = 1 + 1))]
async fn read(path: String, limit: u32, size: u32) -> String {
    format!("{path}{limit}{size}")
}

/// Read a file.
#[tool(example = "path")]
async fn read_again(path: String) -> String {
    path
}

fn main() {}
