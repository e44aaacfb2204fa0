use dsh_kit::prelude::*;

#[derive(ToolOutput)]
struct Page {
    #[serde(rename(serialize = "body"))]
    text: String,
}

fn main() {}
