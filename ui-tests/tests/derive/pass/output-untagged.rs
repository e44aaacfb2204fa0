//! An untagged output enum whose variants each have a shape of their own
//! reads back the variant it wrote.

use dsh_kit::prelude::*;

#[derive(ToolOutput, Debug, PartialEq)]
#[serde(untagged)]
enum Lookup {
    Found { path: String, size: u64 },
    Many(Vec<String>),
    Note(String),
    Nothing,
}

fn main() {
    for value in [
        Lookup::Found { path: "a".into(), size: 1 },
        Lookup::Many(vec!["a".into(), "b".into()]),
        Lookup::Note("gone".into()),
        Lookup::Nothing,
    ] {
        let json = serde_json::to_value(&value).unwrap();
        let back: Lookup = serde_json::from_value(json).unwrap();
        assert_eq!(back, value);
    }
}
