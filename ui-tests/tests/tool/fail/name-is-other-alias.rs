use dsh_kit::prelude::*;

/// Read a file.
#[tool(aliases = ["cat"])]
async fn read_file(path: String) -> String {
    path
}

/// Print a file.
#[tool]
async fn cat(path: String) -> String {
    path
}

fn main() {}
