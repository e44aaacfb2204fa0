use dsh_sdk::prelude::*;

#[derive(ToolArgs)]
enum Mode {
    Fast,
    Slow,
}

fn main() {}
