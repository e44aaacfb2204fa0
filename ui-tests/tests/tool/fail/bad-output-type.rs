use dsh_kit::prelude::*;

/// Read a file.
#[tool(output_type = "json")]
async fn read_file(path: String) -> String {
    path
}

fn main() {}
