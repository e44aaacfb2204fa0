use dsh_kit::prelude::*;

#[derive(ToolArgs)]
struct GreetArgs<'a> {
    name: &'a str,
}

fn main() {}
