use dsh_kit::prelude::*;

/// Copy a file.
#[tool]
async fn copy(
    /// Where from
    #[serde(rename = "path")]
    from: String,
    /// Where to
    #[serde(rename = "path")]
    to: String,
) -> String {
    format!("{from} {to}")
}

fn main() {}
