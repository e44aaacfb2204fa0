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

#[derive(ToolOutput)]
struct Timing {
    #[serde(with = "seconds")]
    elapsed: Duration,
}

fn main() {}
