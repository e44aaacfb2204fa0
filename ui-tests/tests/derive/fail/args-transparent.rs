use dsh_kit::prelude::*;

#[derive(ToolArgs)]
#[serde(transparent)]
struct Query {
    text: String,
}

fn main() {}
