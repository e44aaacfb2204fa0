use dsh_kit::prelude::*;

/// Read a file.
#[tool(example(pth = "src/lib.rs"), example(path = "a", colour = "red"))]
async fn read(path: String, limit: Option<u32>) -> String {
    format!("{path}{limit:?}")
}

/// Say hello.
#[tool(example(name = "Ada"))]
async fn hello() -> String {
    "hello".to_owned()
}

/// Count lines.
#[tool(example(n = 2))]
async fn count_lines(#[serde(alias = "n")] count: u32) -> String {
    count.to_string()
}

fn main() {}
