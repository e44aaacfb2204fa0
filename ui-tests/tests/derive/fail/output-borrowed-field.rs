use dsh_kit::prelude::*;

#[derive(ToolOutput)]
struct Greeting<'a> {
    text: std::borrow::Cow<'a, str>,
}

fn main() {}
