//! An output type whose serde forms disagree (written under one name, read
//! back under another) is refused when its tool is registered, naming the
//! tool, the field and the fix; symmetric forms register and round-trip.

use dsh_kit::prelude::*;
use dsh_kit::{ReadBackProblem, RegisterError, Registry};

#[derive(Serialize, Deserialize, JsonSchema)]
struct RenamedOneWay {
    #[serde(rename(serialize = "fullName"))]
    full_name: String,
}

/// Names someone.
#[tool]
async fn renamed_serialize() -> RenamedOneWay {
    RenamedOneWay {
        full_name: "Ada".into(),
    }
}

#[derive(Serialize, Deserialize, JsonSchema)]
struct ReadRenamed {
    #[serde(rename(deserialize = "fullName"))]
    full_name: String,
}

/// Names someone.
#[tool]
async fn renamed_deserialize() -> ReadRenamed {
    ReadRenamed {
        full_name: "Ada".into(),
    }
}

#[derive(Serialize, Deserialize, JsonSchema)]
#[serde(rename_all(serialize = "camelCase"))]
struct CasedOneWay {
    first_name: String,
}

/// Names someone.
#[tool]
async fn cased_serialize() -> CasedOneWay {
    CasedOneWay {
        first_name: "Ada".into(),
    }
}

#[derive(Serialize, Deserialize, JsonSchema)]
#[serde(rename_all(serialize = "SCREAMING_SNAKE_CASE"))]
enum Speed {
    Fast,
    Slow,
}

#[derive(Serialize, Deserialize, JsonSchema)]
struct Run {
    speed: Speed,
}

/// Runs.
#[tool]
async fn variant_cased() -> Run {
    Run { speed: Speed::Fast }
}

#[derive(Serialize, Deserialize, JsonSchema)]
struct Tags {
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tags: Vec<String>,
}

/// Tags.
#[tool]
async fn skipped_without_default() -> Tags {
    Tags { tags: Vec::new() }
}

#[derive(Serialize, Deserialize, JsonSchema)]
struct Inner {
    #[serde(rename(serialize = "zipCode"))]
    zip_code: String,
}

#[derive(Serialize, Deserialize, JsonSchema)]
struct Address {
    inner: Inner,
}

/// An address.
#[tool]
async fn nested() -> Address {
    Address {
        inner: Inner {
            zip_code: "1000".into(),
        },
    }
}

fn refusal<E: std::fmt::Debug>(result: Result<dsh_kit::ToolHandle, E>) -> E {
    result.expect_err("the tool should be refused")
}

#[test]
fn a_field_renamed_one_way_is_refused_naming_tool_field_and_fix() {
    let registry = Registry::new();
    let error = refusal(registry.register::<renamed_serialize>());
    let RegisterError::OutputNotReadBack { tool, problem, .. } = &error else {
        panic!("{error:?}");
    };
    assert_eq!(tool, "renamed_serialize");
    assert_eq!(
        problem,
        &ReadBackProblem::Renamed {
            place: "the output".into(),
            written: "fullName".into(),
            read: "full_name".into(),
        }
    );
    let message = error.to_string();
    assert!(message.contains("`renamed_serialize`"), "{message}");
    assert!(message.contains("RenamedOneWay"), "{message}");
    assert!(message.contains("#[serde(rename = \"…\")]"), "{message}");
    assert!(registry.get("renamed_serialize").is_none());

    let error = refusal(registry.register::<renamed_deserialize>());
    assert!(
        matches!(
            &error,
            RegisterError::OutputNotReadBack {
                problem: ReadBackProblem::Renamed { written, read, .. },
                ..
            } if written == "full_name" && read == "fullName"
        ),
        "{error:?}"
    );
}

#[test]
fn a_case_or_variant_renamed_one_way_is_refused() {
    let registry = Registry::new();
    let error = refusal(registry.register::<cased_serialize>());
    assert!(
        matches!(
            &error,
            RegisterError::OutputNotReadBack {
                problem: ReadBackProblem::Renamed { written, read, .. },
                ..
            } if written == "firstName" && read == "first_name"
        ),
        "{error:?}"
    );
    let error = refusal(registry.register::<variant_cased>());
    assert!(
        matches!(
            &error,
            RegisterError::OutputNotReadBack {
                problem: ReadBackProblem::ValueNotRead { place, value },
                ..
            } if place == "`Speed`" && value == "\"FAST\""
        ),
        "{error:?}"
    );
}

#[test]
fn a_field_skipped_when_written_but_required_when_read_is_refused() {
    let registry = Registry::new();
    let error = refusal(registry.register::<skipped_without_default>());
    assert!(
        matches!(
            &error,
            RegisterError::OutputNotReadBack {
                problem: ReadBackProblem::MaybeNotWritten { name, .. },
                ..
            } if name == "tags"
        ),
        "{error:?}"
    );
    assert!(error.to_string().contains("#[serde(default)]"), "{error}");
}

#[test]
fn a_nested_type_is_named_where_it_disagrees() {
    let registry = Registry::new();
    let error = refusal(registry.register::<nested>());
    assert!(
        matches!(
            &error,
            RegisterError::OutputNotReadBack {
                problem: ReadBackProblem::Renamed { place, written, .. },
                ..
            } if place == "`Inner`" && written == "zipCode"
        ),
        "{error:?}"
    );
}

#[derive(Serialize, Deserialize, JsonSchema, Debug, PartialEq)]
#[serde(rename_all = "camelCase")]
enum Level {
    VeryHigh,
    Low,
}

#[derive(Serialize, Deserialize, JsonSchema, Debug, PartialEq)]
#[serde(rename_all(serialize = "camelCase", deserialize = "camelCase"))]
struct Symmetric {
    #[serde(rename = "fullName")]
    full_name: String,
    #[serde(alias = "nick")]
    nick_name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    middle: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    tags: Vec<String>,
    #[serde(default)]
    level: Option<Level>,
    levels: Vec<Level>,
}

fn symmetric_value() -> Symmetric {
    Symmetric {
        full_name: "Ada".into(),
        nick_name: "A".into(),
        middle: None,
        tags: Vec::new(),
        level: Some(Level::VeryHigh),
        levels: vec![Level::Low],
    }
}

/// Describes someone.
#[tool]
async fn symmetric() -> Symmetric {
    symmetric_value()
}

#[tokio::test]
async fn symmetric_renames_register_and_read_back() {
    let registry = Registry::new();
    let _symmetric = registry.register::<symmetric>().unwrap();
    let result = registry.call("symmetric", json!({})).await;
    assert!(!result.is_error(), "{}", result.text());
    let value = result.value.clone().expect("a value");
    assert_eq!(value["fullName"], "Ada");
    assert_eq!(value["level"], "veryHigh");
    let read: Symmetric = serde_json::from_value(value).unwrap();
    assert_eq!(read, symmetric_value());
}

#[derive(Serialize, Deserialize, JsonSchema, Debug, PartialEq)]
struct RenamedWithAlias {
    #[serde(rename(serialize = "fullName"), alias = "fullName")]
    full_name: String,
}

/// Names someone, written under a name its alias reads back.
#[tool]
async fn renamed_with_alias() -> RenamedWithAlias {
    RenamedWithAlias {
        full_name: "Ada".into(),
    }
}

#[tokio::test]
async fn a_name_written_one_way_and_read_by_an_alias_reads_back() {
    let registry = Registry::new();
    let _tool = registry.register::<renamed_with_alias>().unwrap();
    let result = registry.call("renamed_with_alias", json!({})).await;
    assert!(!result.is_error(), "{}", result.text());
    let value = result.value.clone().expect("a value");
    assert_eq!(value, json!({ "fullName": "Ada" }));
    let read: RenamedWithAlias = serde_json::from_value(value).unwrap();
    assert_eq!(read.full_name, "Ada");
}
