//! Serde attributes under which an output reads back what it writes: the
//! derive accepts them, and the value survives the trip.

use dsh_kit::prelude::*;

#[derive(ToolOutput, Debug, PartialEq, Default)]
#[serde(rename_all(serialize = "camelCase", deserialize = "camelCase"))]
struct Report {
    line_count: u32,
    #[serde(rename(serialize = "path", deserialize = "path"))]
    file: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    warning: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    notes: Vec<String>,
    #[serde(skip)]
    cached: u32,
    #[serde(skip_serializing, skip_deserializing)]
    scratch: u32,
    state: State,
}

#[derive(ToolOutput, Debug, PartialEq, Default)]
#[serde(rename_all = "snake_case")]
enum State {
    #[default]
    NotStarted,
    #[serde(rename = "done")]
    Finished,
}

#[derive(ToolOutput, Debug, PartialEq, Default)]
#[serde(default)]
struct Sparse {
    #[serde(skip_serializing_if = "String::is_empty")]
    name: String,
    count: u32,
}

fn round_trip<T>(value: &T) -> T
where
    T: Serialize + for<'de> Deserialize<'de>,
{
    serde_json::from_value(serde_json::to_value(value).unwrap()).unwrap()
}

fn main() {
    let report = Report {
        line_count: 3,
        file: "a.txt".into(),
        warning: None,
        notes: vec!["short".into()],
        cached: 0,
        scratch: 0,
        state: State::Finished,
    };
    let json = serde_json::to_value(&report).unwrap();
    assert_eq!(json["lineCount"], 3);
    assert_eq!(json["path"], "a.txt");
    assert_eq!(json["state"], "done");
    assert!(json.get("warning").is_none());
    assert_eq!(round_trip(&report), report);
    let sparse = Sparse { name: String::new(), count: 2 };
    assert_eq!(round_trip(&sparse), sparse);
}
