use dsh_sdk::prelude::*;

#[derive(ToolOutput)]
struct Page {
    #[serde(rename(serialize = "body"))]
    text: String,
}

fn main() {}
