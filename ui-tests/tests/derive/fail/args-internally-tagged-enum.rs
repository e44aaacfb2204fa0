use dsh_sdk::prelude::*;

#[derive(ToolArgs)]
#[serde(tag = "kind")]
enum Target {
    Path { path: String },
    Url { url: String },
}

fn main() {}
