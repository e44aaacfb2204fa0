//! Argument names the schema does not know are violations (with "did you
//! mean"), unless the schema cannot know them; and what exports say of it and
//! of schemars' number formats.

use std::collections::{BTreeMap, HashMap};

use dsh_kit::Registry;
use dsh_kit::export::Format;
use dsh_kit::prelude::*;
use serde_json::Value;

/// Search the notes.
#[tool(read_only)]
async fn search(
    /// What to look for
    query: String,
    /// How many notes to return
    limit: Option<u32>,
) -> String {
    format!("{query} {limit:?}")
}

#[tokio::test]
async fn an_unknown_property_is_a_violation_with_the_closest_name() {
    let registry = Registry::new();
    let _search = registry.register::<search>().unwrap();

    let result = registry
        .call("search", json!({ "query": "a", "limt": 1 }))
        .await;
    assert!(result.is_error());
    assert_eq!(
        result.text(),
        "invalid arguments for `search`: /limt: unknown property; did you mean `limit`?"
    );
    assert_eq!(
        result.failure.map(|failure| failure.cause),
        Some(dsh_kit::Cause::InvalidArguments)
    );

    // Reported with the others, in pointer order; a name near none, plainly.
    let result = registry
        .call("search", json!({ "limt": 1, "zzz": true }))
        .await;
    assert_eq!(
        result.text(),
        "invalid arguments for `search`: /limt: unknown property; did you mean `limit`?; \
         /query: required property missing; /zzz: unknown property"
    );

    let result = registry
        .call("search", json!({ "query": "a", "limit": 2 }))
        .await;
    assert_eq!(result.text(), "a Some(2)");
}

/// Say what time it is.
#[tool(read_only)]
async fn now() -> String {
    "noon".to_owned()
}

#[tokio::test]
async fn a_tool_without_arguments_names_each_one_it_was_sent() {
    let registry = Registry::new();
    let _now = registry.register::<now>().unwrap();
    let result = registry
        .call("now", json!({ "zone": "UTC", "format": "iso" }))
        .await;
    assert_eq!(
        result.text(),
        "invalid arguments for `now`: /format: unknown property; /zone: unknown property"
    );
    assert_eq!(registry.call("now", json!({})).await.text(), "noon");
}

#[derive(Deserialize, JsonSchema)]
struct Filter {
    /// A file extension
    ext: String,
}

#[derive(Deserialize, JsonSchema)]
struct ListArgs {
    /// Which files
    filter: Filter,
    /// Anything else, passed through
    #[serde(flatten)]
    rest: BTreeMap<String, Value>,
}

/// List files.
#[tool(read_only)]
async fn list(args: ListArgs) -> String {
    format!("{} {}", args.filter.ext, args.rest.len())
}

#[tokio::test]
async fn nested_objects_are_closed_and_open_ones_stay_open() {
    let registry = Registry::new();
    let _list = registry.register::<list>().unwrap();

    // A nested struct (a `$ref` into `$defs`) is closed too.
    let result = registry
        .call("list", json!({ "filter": { "extt": "rs" } }))
        .await;
    assert_eq!(
        result.text(),
        "invalid arguments for `list`: /filter/ext: required property missing; \
         /filter/extt: unknown property; did you mean `ext`?"
    );
    // A flattened map takes every other name: nothing is flagged there.
    let result = registry
        .call(
            "list",
            json!({ "filter": { "ext": "rs" }, "depth": 2, "hidden": true }),
        )
        .await;
    assert_eq!(result.text(), "rs 2");
    let schema = registry.get("list").unwrap().input_schema().clone();
    assert_ne!(schema["additionalProperties"], json!(false), "{schema}");
}

#[derive(Deserialize, JsonSchema)]
#[serde(tag = "mode", rename_all = "snake_case")]
enum Mode {
    Fast { depth: u32 },
    Slow,
}

#[derive(Deserialize, JsonSchema)]
struct ScanArgs {
    /// Where to scan
    path: String,
    #[serde(flatten)]
    mode: Mode,
}

/// Scan a directory.
#[tool(read_only)]
async fn scan(args: ScanArgs) -> String {
    match args.mode {
        Mode::Fast { depth } => format!("{} fast {depth}", args.path),
        Mode::Slow => format!("{} slow", args.path),
    }
}

#[tokio::test]
async fn a_flattened_enum_is_not_flagged() {
    let registry = Registry::new();
    let _scan = registry.register::<scan>().unwrap();
    // The root's properties are not all listed in one place: left open.
    let result = registry
        .call("scan", json!({ "path": "/", "mode": "fast", "depth": 2 }))
        .await;
    assert_eq!(result.text(), "/ fast 2");
}

#[derive(Deserialize, JsonSchema)]
struct TagArgs {
    /// The tag
    tag: String,
}

/// Tolerates whatever else a client sends.
struct Lenient;

impl Tool for Lenient {
    type Args = TagArgs;
    type Output = String;
    const DEFINITION: ToolDef = ToolDef::builder("lenient", "Echo a tag, ignoring the rest.")
        .allow_unknown_args(true)
        .build();

    async fn execute(args: TagArgs, _exec: &Exec) -> Result<String, ToolError> {
        Ok(args.tag)
    }
}

#[tokio::test]
async fn a_tool_may_accept_unknown_properties() {
    let registry = Registry::new();
    let _lenient = registry.register::<Lenient>().unwrap();
    let result = registry
        .call("lenient", json!({ "tag": "t", "extra": 1 }))
        .await;
    assert!(!result.is_error(), "{}", result.text());
    assert_eq!(result.text(), "t");
    let export = registry.export(Format::Anthropic);
    assert!(
        export[0]["input_schema"]
            .get("additionalProperties")
            .is_none()
    );
}

#[test]
fn exports_say_unknown_properties_are_refused() {
    let registry = Registry::new();
    let _search = registry.register::<search>().unwrap();
    assert_eq!(
        registry.export(Format::Anthropic)[0]["input_schema"]["additionalProperties"],
        json!(false)
    );
    assert_eq!(
        registry.export(Format::OpenAi)[0]["function"]["parameters"]["additionalProperties"],
        json!(false)
    );
    assert_eq!(
        registry.export(Format::Mcp)[0]["inputSchema"]["additionalProperties"],
        json!(false)
    );
    assert_eq!(
        registry.export(Format::Gemini)[0]["parametersJsonSchema"]["additionalProperties"],
        json!(false)
    );
    // OpenAI strict mode closes objects anyway: unchanged, and still strict.
    let strict = registry.export(Format::OpenAiStrict);
    assert_eq!(strict[0]["function"]["strict"], json!(true));
    assert_eq!(
        strict[0]["function"]["parameters"]["additionalProperties"],
        json!(false)
    );
}

#[derive(Serialize, Deserialize, JsonSchema)]
struct Sizes {
    count: u32,
    offset: i64,
    ratio: f64,
    small: u8,
    total: usize,
    weights: HashMap<String, f32>,
}

/// Measure things.
#[tool(read_only)]
async fn measure(
    /// How many
    count: u32,
    /// From where
    offset: i64,
    /// How much
    ratio: f64,
    /// When, as a UUID
    id: Option<String>,
) -> Sizes {
    let _ = id;
    Sizes {
        count,
        offset,
        ratio,
        small: 0,
        total: 0,
        weights: HashMap::new(),
    }
}

/// Every `format` value in `schema`, with its pointer.
fn formats(schema: &Value, at: &str, found: &mut Vec<(String, String)>) {
    match schema {
        Value::Object(map) => {
            for (key, value) in map {
                if key == "format"
                    && let Value::String(format) = value
                {
                    found.push((at.to_owned(), format.clone()));
                }
                formats(value, &format!("{at}/{key}"), found);
            }
        }
        Value::Array(items) => {
            for (index, item) in items.iter().enumerate() {
                formats(item, &format!("{at}/{index}"), found);
            }
        }
        _ => {}
    }
}

#[tokio::test]
async fn non_standard_formats_stay_in_the_canonical_schema_and_leave_every_export() {
    let registry = Registry::new();
    let _measure = registry.register::<measure>().unwrap();
    let tool = registry.get("measure").unwrap();
    let mut canonical = Vec::new();
    formats(tool.input_schema(), "", &mut canonical);
    formats(tool.output_schema(), "", &mut canonical);
    let canonical: Vec<&str> = canonical.iter().map(|(_, f)| f.as_str()).collect();
    for format in ["uint32", "int64", "double", "uint8", "uint", "float"] {
        assert!(canonical.contains(&format), "{format} in {canonical:?}");
    }
    // The canonical schema still validates what it says.
    let result = registry
        .call("measure", json!({ "count": -1, "offset": 0, "ratio": 0.5 }))
        .await;
    assert!(
        result
            .text()
            .contains("/count: -1 is less than the minimum of 0"),
        "{}",
        result.text()
    );

    for format in [
        Format::Anthropic,
        Format::AnthropicStrict,
        Format::OpenAi,
        Format::OpenAiStrict,
        Format::Gemini,
        Format::Mcp,
    ] {
        let mut found = Vec::new();
        formats(&registry.export(format), "", &mut found);
        assert!(found.is_empty(), "{format:?} exports {found:?}");
    }
    // Gemini's OpenAPI `parameters` defines `int32`, `int64`, `float` and
    // `double` itself: those it keeps, and no others.
    let mut found = Vec::new();
    formats(&registry.export(Format::GeminiOpenApi), "", &mut found);
    assert!(
        found
            .iter()
            .all(|(_, format)| ["int32", "int64", "float", "double"].contains(&format.as_str())),
        "{found:?}"
    );
}
