use dsh_sdk::prelude::*;

#[derive(ToolArgs)]
struct SearchArgs {
    #[serde(alias = "q")]
    query: String,
}

fn main() {}
