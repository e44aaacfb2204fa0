use dsh_kit::prelude::*;

/// Read a file.
#[tool(
    name = read_file,
    title,
    aliases = "cat",
    render = "read_text",
    max_result_chars = 0,
    timeout_ms = -5,
)]
async fn read_file(path: String) -> String {
    path
}

fn main() {}
