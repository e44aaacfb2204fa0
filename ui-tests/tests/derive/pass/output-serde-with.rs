//! A field written through `#[serde(with = "module")]`, with
//! `#[schemars(with = "T")]` beside it saying what it is written as: the
//! schema shows `T`, and the value survives the trip.

use std::time::Duration;

use dsh_kit::prelude::*;

mod seconds {
    use std::time::Duration;

    pub fn serialize<S: serde::Serializer>(value: &Duration, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_u64(value.as_secs())
    }

    pub fn deserialize<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<Duration, D::Error> {
        <u64 as serde::Deserialize>::deserialize(deserializer).map(Duration::from_secs)
    }
}

#[derive(ToolOutput, Debug, PartialEq)]
struct Timing {
    #[serde(with = "seconds")]
    #[schemars(with = "i64")]
    elapsed: Duration,
    #[serde(with = "seconds")]
    #[schemars(schema_with = "seconds_schema")]
    budget: Duration,
}

fn seconds_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({ "type": "integer", "minimum": 0 })
}

fn main() {
    let timing = Timing {
        elapsed: Duration::from_secs(3),
        budget: Duration::from_secs(60),
    };
    let json = serde_json::to_value(&timing).unwrap();
    assert_eq!(json, serde_json::json!({ "elapsed": 3, "budget": 60 }));
    assert_eq!(serde_json::from_value::<Timing>(json).unwrap(), timing);
    let schema = serde_json::to_value(schemars::schema_for!(Timing)).unwrap();
    assert_eq!(schema["properties"]["elapsed"]["type"], "integer");
    assert_eq!(schema["properties"]["budget"]["minimum"], 0);
}
