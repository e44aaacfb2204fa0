use dsh_kit::prelude::*;

#[derive(ToolArgs)]
struct SearchArgs {
    #[serde(alias = "q")]
    query: String,
}

fn main() {}
