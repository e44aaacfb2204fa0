use dsh_kit::prelude::*;

#[derive(ToolArgs)]
#[serde(tag = "kind")]
enum Target {
    Path { path: String },
    Url { url: String },
}

fn main() {}
