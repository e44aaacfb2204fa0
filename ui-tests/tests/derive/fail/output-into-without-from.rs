use dsh_kit::prelude::*;

#[derive(Clone, ToolOutput)]
#[serde(into = "String")]
struct Name {
    text: String,
}

impl From<Name> for String {
    fn from(name: Name) -> String {
        name.text
    }
}

fn main() {}
