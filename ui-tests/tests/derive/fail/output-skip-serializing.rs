use dsh_sdk::prelude::*;

#[derive(ToolOutput)]
struct Page {
    text: String,
    #[serde(skip_serializing)]
    bytes: usize,
}

fn main() {}
