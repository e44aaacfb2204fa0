use dsh_kit::prelude::*;

struct Path(String);

/// Read a file.
#[tool]
async fn read_file(path: Path) -> String {
    path.0
}

fn main() {}
