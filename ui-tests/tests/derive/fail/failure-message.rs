use dsh_kit::prelude::*;

/// Each variant needs its message, as one string.
#[derive(ToolFailure, Debug)]
enum LookupError {
    #[error("no entry `{0}`")]
    Missing(String),
    Offline,
    #[error(404)]
    Status,
    #[error("first")]
    #[error("second")]
    Twice,
}

fn main() {}
