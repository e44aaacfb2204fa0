use dsh_kit::prelude::*;

#[derive(ToolOutput)]
struct Page {
    text: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    title: Option<String>,
}

fn main() {}
