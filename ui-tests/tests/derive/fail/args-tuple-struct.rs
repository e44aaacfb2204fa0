use dsh_sdk::prelude::*;

#[derive(ToolArgs)]
struct Point(i32, i32);

fn main() {}
