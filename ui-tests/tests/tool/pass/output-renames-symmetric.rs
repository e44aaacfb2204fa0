//! An output type deriving serde's traits with renames that read back as
//! they are written registers and round-trips: `rename`, `rename_all`, the
//! two forms of a pair given alike, `alias`, `skip_serializing_if` with
//! `default`.

use dsh_kit::Registry;
use dsh_kit::prelude::*;

#[derive(Serialize, Deserialize, JsonSchema, PartialEq, Debug)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
enum Level {
    VeryHigh,
    Low,
}

#[derive(Serialize, Deserialize, JsonSchema, PartialEq, Debug)]
#[serde(rename_all(serialize = "camelCase", deserialize = "camelCase"))]
struct Profile {
    #[serde(rename = "name")]
    full_name: String,
    #[serde(alias = "nick")]
    nick_name: String,
    #[serde(rename(serialize = "lvl", deserialize = "lvl"))]
    level: Level,
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    tags: Vec<String>,
}

/// Describe someone.
#[tool]
async fn profile() -> Profile {
    Profile {
        full_name: "Ada".into(),
        nick_name: "A".into(),
        level: Level::VeryHigh,
        tags: Vec::new(),
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let registry = Registry::new();
    let _profile = registry.register::<profile>().unwrap();
    let result = registry.call("profile", json!({})).await;
    assert!(!result.is_error(), "{}", result.text());
    let value = result.value.clone().unwrap();
    assert_eq!(value, json!({ "name": "Ada", "nickName": "A", "lvl": "VERY_HIGH" }));
}
