use dsh_sdk::prelude::*;

#[derive(ToolArgs)]
#[serde(transparent)]
struct Query {
    text: String,
}

fn main() {}
