use dsh_kit::prelude::*;

#[derive(ToolArgs)]
enum Mode {
    Fast,
    Slow,
}

fn main() {}
