use dsh_kit::prelude::*;

/// Read a file.
#[tool(category = "filesytem")]
async fn read_file(path: String) -> String {
    path
}

fn main() {}
