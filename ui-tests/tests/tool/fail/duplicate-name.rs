use dsh_kit::prelude::*;

/// Read a file.
#[tool(name = "read")]
async fn read_file(path: String) -> String {
    path
}

/// Read a page.
#[tool(name = "read")]
async fn read_page(url: String) -> String {
    url
}

fn main() {}
