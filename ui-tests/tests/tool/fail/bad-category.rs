use dsh_sdk::prelude::*;

/// Read a file.
#[tool(category = "filesytem")]
async fn read_file(path: String) -> String {
    path
}

fn main() {}
