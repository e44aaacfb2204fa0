use dsh_kit::prelude::*;

#[derive(ToolArgs)]
struct Query(String);

fn main() {}
