use dsh_kit::prelude::*;

#[derive(ToolArgs)]
#[serde(untagged)]
enum Target {
    Path { path: String },
    Url { url: String },
}

fn main() {}
