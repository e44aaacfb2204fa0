use dsh_kit::prelude::*;

struct ReadError;

mod read {
    pub type Result<T> = std::result::Result<T, super::ReadError>;
}

/// Read a file.
#[tool]
async fn read_file(path: String) -> read::Result<String> {
    Ok(path)
}

fn main() {}
