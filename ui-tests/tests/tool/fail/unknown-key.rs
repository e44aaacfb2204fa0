use dsh_kit::prelude::*;

/// Read a file.
#[tool(readonly, rendr = read_text, colour = "blue")]
async fn read_file(path: String) -> String {
    path
}

fn main() {}
