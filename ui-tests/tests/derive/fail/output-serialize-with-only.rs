use dsh_kit::prelude::*;

fn upper<S: serde::Serializer>(text: &str, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(&text.to_uppercase())
}

#[derive(ToolOutput)]
struct Page {
    #[serde(serialize_with = "upper")]
    text: String,
}

fn main() {}
