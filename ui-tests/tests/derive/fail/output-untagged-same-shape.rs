use dsh_kit::prelude::*;

#[derive(ToolOutput)]
#[serde(untagged)]
enum Lookup {
    Found(String),
    Missing(String),
}

fn main() {}
