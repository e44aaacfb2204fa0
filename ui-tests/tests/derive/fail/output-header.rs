use dsh_kit::prelude::*;

#[derive(ToolOutput)]
struct Routed {
    /// Not an argument
    #[dsh(header = "Region")]
    region: String,
}

fn main() {}
