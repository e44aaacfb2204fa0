use dsh_kit::prelude::*;

/// Copy a file.
#[tool]
async fn copy(
    /// Where from
    path: String,
    /// Where to
    #[serde(rename(deserialize = "path"))]
    to: String,
) -> String {
    format!("{path} {to}")
}

fn main() {}
