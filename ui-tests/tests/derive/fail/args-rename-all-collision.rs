use dsh_kit::prelude::*;

#[derive(ToolArgs)]
#[serde(rename_all = "camelCase")]
struct SearchArgs {
    max_count: u32,
    #[serde(rename = "maxCount")]
    limit: u32,
}

fn main() {}
