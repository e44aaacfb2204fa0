use dsh_kit::prelude::*;

#[derive(ToolOutput)]
struct Page {
    text: String,
    #[serde(skip_deserializing)]
    bytes: usize,
}

fn main() {}
