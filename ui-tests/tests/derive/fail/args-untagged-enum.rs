use dsh_sdk::prelude::*;

#[derive(ToolArgs)]
#[serde(untagged)]
enum Target {
    Path { path: String },
    Url { url: String },
}

fn main() {}
