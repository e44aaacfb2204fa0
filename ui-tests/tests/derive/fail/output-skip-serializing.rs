use dsh_kit::prelude::*;

#[derive(ToolOutput)]
struct Page {
    text: String,
    #[serde(skip_serializing)]
    bytes: usize,
}

fn main() {}
