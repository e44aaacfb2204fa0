use dsh_kit::prelude::*;

#[derive(ToolArgs)]
struct Point(i32, i32);

fn main() {}
