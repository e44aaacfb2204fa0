use dsh_kit::prelude::*;

#[derive(ToolArgs)]
struct CopyArgs {
    path: String,
    #[serde(rename = "path")]
    target: String,
}

fn main() {}
