use dsh_sdk::prelude::*;

#[derive(ToolArgs)]
struct Query(String);

fn main() {}
