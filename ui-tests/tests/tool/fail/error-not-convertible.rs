use dsh_kit::prelude::*;

struct ReadError;

/// Read a file.
#[tool]
async fn read_file(path: String) -> Result<String, ReadError> {
    Ok(path)
}

fn main() {}
