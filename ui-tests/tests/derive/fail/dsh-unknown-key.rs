use dsh_kit::prelude::*;

#[derive(ToolArgs)]
#[dsh(krate = "dsh_kit")]
struct Args {
    /// A text
    text: String,
}

fn main() {}
