use dsh_kit::prelude::*;

/// Read a file.
#[tool]
async fn read_file(args: (String, u32)) -> String {
    args.0
}

fn main() {}
