//! Renamed parameters, each under a name of its own.

use dsh_kit::prelude::*;

/// Copy a file.
#[tool]
async fn copy(
    /// Where from
    #[serde(rename = "from")]
    source: String,
    /// Where to
    #[serde(rename = "to")]
    target: String,
    /// What the model calls `type`
    #[serde(rename = "type", default)]
    kind: Option<String>,
    /// A name another parameter had in Rust, not in JSON
    #[serde(rename = "overwrite")]
    source_overwrite: bool,
) -> String {
    format!("{source} {target} {kind:?} {source_overwrite}")
}

fn main() {
    let schema = serde_json::to_value(schemars::schema_for!(CopyArgs)).unwrap();
    let properties = schema["properties"].as_object().unwrap();
    let mut names: Vec<&str> = properties.keys().map(String::as_str).collect();
    names.sort_unstable();
    assert_eq!(names, ["from", "overwrite", "to", "type"]);
}
