use dsh_kit::prelude::*;

#[derive(ToolOutput)]
#[serde(rename_all(serialize = "camelCase"))]
struct Page {
    page_text: String,
}

fn main() {}
