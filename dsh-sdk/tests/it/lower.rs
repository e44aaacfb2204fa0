//! Provider schema lowering: every lowered schema checked against its
//! provider's published constraint list, written here as data, with the
//! argument types that make lowering hard; a few exact outputs as reviewed
//! snapshots; arguments still validated against the canonical schema.
//!
//! To review a change to a snapshot, run with `UPDATE_SNAPSHOTS=1`, read the
//! diff of `tests/snapshots/lower/`, and commit it.

use std::collections::{BTreeSet, HashMap};
use std::path::PathBuf;

use chrono::{DateTime, NaiveDate, Utc};
use dsh_kit::Registry;
use dsh_kit::ToolInfo;
use dsh_kit::export::Format;
use dsh_kit::export::lower::{self, Lowered, NoteKind};
use dsh_kit::prelude::*;
use serde_json::Value;

// ---------------------------------------------------------------------------
// Tools whose arguments make lowering hard
// ---------------------------------------------------------------------------

/// A shape, externally tagged (serde's default): a string or a one-key object.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
#[allow(dead_code)]
enum Shape {
    Circle { radius: f64 },
    Square(f64),
    Point,
    Segment(i32, i32),
}

/// What happened, internally tagged.
#[derive(Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[allow(dead_code)]
enum Event {
    Created { at: DateTime<Utc> },
    Deleted,
    Moved(Move),
}

#[derive(Deserialize, JsonSchema)]
#[allow(dead_code)]
struct Move {
    /// Where to
    to: String,
}

/// An edit, adjacently tagged.
#[derive(Deserialize, JsonSchema)]
#[serde(tag = "op", content = "value", rename_all = "snake_case")]
#[allow(dead_code)]
enum Patch {
    Set(String),
    Shift { by: i64 },
    Clear,
}

/// A tree of labels.
#[derive(Deserialize, JsonSchema)]
#[allow(dead_code)]
struct Node {
    label: String,
    children: Vec<Node>,
}

#[derive(Deserialize, JsonSchema)]
#[allow(dead_code)]
struct ScheduleArgs {
    /// A note for the log
    note: Option<String>,
    /// The area it covers
    shape: Shape,
    /// What triggers it
    event: Option<Event>,
    /// Edits to apply
    patches: Vec<Patch>,
    /// Labels by key
    labels: HashMap<String, Move>,
    /// The plan, as a tree
    plan: Node,
    /// First day
    day: NaiveDate,
    /// Last moment
    until: Option<DateTime<Utc>>,
    /// From 1 (urgent) to 10
    #[schemars(range(min = 1, max = 10))]
    priority: u8,
    /// A URL-safe name
    #[schemars(regex(pattern = r"^[a-z][a-z0-9-]*$"))]
    slug: String,
    /// One to five tags
    #[schemars(length(min = 1, max = 5))]
    tags: Vec<String>,
    /// Only say what would happen
    #[serde(default)]
    dry_run: bool,
}

/// Schedule a job.
#[tool]
async fn schedule(args: ScheduleArgs) -> String {
    args.slug
}

/// How to sort the results (internally tagged).
#[derive(Deserialize, JsonSchema)]
#[serde(tag = "by", rename_all = "snake_case")]
#[allow(dead_code)]
enum Order {
    Name,
    Modified { newest_first: bool },
}

/// A kind of file.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
#[allow(dead_code)]
enum Kind {
    File,
    Directory,
}

#[derive(Deserialize, JsonSchema)]
#[allow(dead_code)]
struct SearchArgs {
    /// What to look for
    #[schemars(length(min = 1))]
    query: String,
    /// At most this many results
    #[schemars(range(min = 1, max = 500))]
    limit: Option<u32>,
    /// Modified on or after
    since: Option<NaiveDate>,
    /// Only this kind
    kind: Option<Kind>,
    /// The order of the results
    order: Order,
}

/// Search files.
#[tool(read_only)]
async fn search_files(args: SearchArgs) -> Vec<String> {
    vec![args.query]
}

/// Count words.
#[tool]
async fn tally(
    /// Counts by word
    counts: HashMap<String, u32>,
) -> u32 {
    counts.values().sum()
}

/// Print an outline.
#[tool]
async fn outline(
    /// The outline
    tree: Node,
) -> String {
    tree.label
}

/// Check the service is up.
#[tool]
async fn ping() -> String {
    "pong".into()
}

#[derive(Deserialize, JsonSchema)]
#[allow(dead_code)]
struct ListArgs {
    /// At most this many lines
    #[schemars(range(min = 0))]
    limit: Option<i64>,
    /// Show hidden files
    #[serde(default)]
    all: bool,
}

/// List a directory.
#[tool]
async fn list(args: ListArgs) -> String {
    format!("limit={:?} all={}", args.limit, args.all)
}

fn registry() -> Registry {
    let registry = Registry::new();
    registry.register::<schedule>().unwrap();
    registry.register::<search_files>().unwrap();
    registry.register::<tally>().unwrap();
    registry.register::<outline>().unwrap();
    registry.register::<ping>().unwrap();
    registry.register::<list>().unwrap();
    registry
}

fn tool(registry: &Registry, name: &str) -> ToolInfo {
    registry.get(name).unwrap()
}

// ---------------------------------------------------------------------------
// Each provider's published constraint list, as data
// ---------------------------------------------------------------------------

/// What a provider documents about the schemas it takes.
struct Rules {
    format: Format,
    /// The lowered schema is JSON Schema 2020-12 (else Gemini's OpenAPI subset).
    json_schema: bool,
    /// The keywords a schema may use.
    keywords: &'static [&'static str],
    /// The `type` names.
    types: &'static [&'static str],
    /// Whether `type` may be an array.
    type_arrays: bool,
    /// The `format`s taken, if not any.
    formats: Option<&'static [&'static str]>,
    /// The `enum`/`const` values taken.
    literal: fn(&Value) -> bool,
    /// The largest `minItems`.
    max_min_items: Option<u64>,
    /// Every object has `additionalProperties: false`.
    objects_closed: bool,
    /// Every property is in `required`.
    all_required: bool,
    /// Every schema says its type (`type`, `anyOf`, `$ref`, `enum` or `const`).
    typed: bool,
    /// What may stand beside `$ref`.
    refs: Refs,
    /// How recursion may appear.
    recursion: Recursion,
    /// No backreferences, lookaround or word boundaries in `pattern`.
    simple_patterns: bool,
}

#[derive(PartialEq)]
enum Refs {
    /// `$ref` alone.
    Alone,
    /// `$ref` beside `$`-keywords only.
    DollarSiblings,
    /// No `$ref` (nor `$defs`) at all.
    None,
}

#[derive(PartialEq)]
enum Recursion {
    Allowed,
    /// Only through properties that are not required.
    OptionalOnly,
    None,
}

const JSON_TYPES: &[&str] = &[
    "string", "number", "integer", "boolean", "object", "array", "null",
];

/// OpenAI, "Structured model outputs" › "Supported schemas": the supported
/// types (String, Number, Boolean, Integer, Object, Array, Enum, anyOf), the
/// supported string (`pattern`, `format`), number (`multipleOf`, `maximum`,
/// `exclusiveMaximum`, `minimum`, `exclusiveMinimum`) and array (`minItems`,
/// `maxItems`) properties, definitions and recursion; "Root objects must not
/// be anyOf", "All fields must be required", "additionalProperties: false
/// must always be set in objects". `$ref` stands alone (OpenAI's SDK).
const OPENAI_STRICT: Rules = Rules {
    format: Format::OpenAiStrict,
    json_schema: true,
    keywords: &[
        "type",
        "description",
        "title",
        "properties",
        "required",
        "additionalProperties",
        "items",
        "anyOf",
        "enum",
        "const",
        "$ref",
        "$defs",
        "pattern",
        "format",
        "multipleOf",
        "maximum",
        "exclusiveMaximum",
        "minimum",
        "exclusiveMinimum",
        "minItems",
        "maxItems",
    ],
    types: JSON_TYPES,
    type_arrays: true,
    formats: Some(&[
        "date-time",
        "time",
        "date",
        "duration",
        "email",
        "hostname",
        "ipv4",
        "ipv6",
        "uuid",
    ]),
    literal: |_| true,
    max_min_items: None,
    objects_closed: true,
    all_required: true,
    typed: true,
    refs: Refs::Alone,
    recursion: Recursion::Allowed,
    simple_patterns: false,
};

/// Anthropic, "Structured outputs" › "JSON Schema limitations" (which strict
/// tool use shares): basic types; `enum` of strings, numbers, bools or nulls;
/// `const`; `anyOf`, `allOf`; local `$ref`/`$defs`; `default`; `required`;
/// `additionalProperties` set to `false`; ten string formats; `minItems` of 0
/// or 1; no recursive schemas, no numeric or string-length constraints; simple
/// regexes only.
const ANTHROPIC_STRICT: Rules = Rules {
    format: Format::AnthropicStrict,
    json_schema: true,
    keywords: &[
        "type",
        "description",
        "properties",
        "required",
        "additionalProperties",
        "items",
        "anyOf",
        "allOf",
        "enum",
        "const",
        "$ref",
        "$defs",
        "default",
        "format",
        "pattern",
        "minItems",
    ],
    types: JSON_TYPES,
    type_arrays: true,
    formats: Some(&[
        "date-time",
        "time",
        "date",
        "duration",
        "email",
        "hostname",
        "uri",
        "ipv4",
        "ipv6",
        "uuid",
    ]),
    literal: |value| !value.is_array() && !value.is_object(),
    max_min_items: Some(1),
    objects_closed: true,
    all_required: false,
    typed: true,
    refs: Refs::Alone,
    recursion: Recursion::None,
    simple_patterns: true,
};

/// Gemini API reference, `FunctionDeclaration.parametersJsonSchema` /
/// `responseJsonSchema`: "only the following properties are supported: $id,
/// $defs, $ref, $anchor, type, format, title, description, enum (for strings
/// and numbers), items, prefixItems, minItems, maxItems, minimum, maximum,
/// anyOf, oneOf (interpreted the same as anyOf), properties,
/// additionalProperties, required", plus `propertyOrdering`. "Cyclic references
/// … may only be used within non-required properties." "If $ref is set on a
/// sub-schema, no other properties, except for those starting as a $, may be set."
const GEMINI: Rules = Rules {
    format: Format::Gemini,
    json_schema: true,
    keywords: &[
        "$id",
        "$defs",
        "$ref",
        "$anchor",
        "type",
        "format",
        "title",
        "description",
        "enum",
        "items",
        "prefixItems",
        "minItems",
        "maxItems",
        "minimum",
        "maximum",
        "anyOf",
        "oneOf",
        "properties",
        "additionalProperties",
        "required",
        "propertyOrdering",
    ],
    types: JSON_TYPES,
    type_arrays: true,
    formats: None,
    literal: |value| value.is_string() || value.is_number(),
    max_min_items: None,
    objects_closed: false,
    all_required: false,
    typed: false,
    refs: Refs::DollarSiblings,
    recursion: Recursion::OptionalOnly,
    simple_patterns: false,
};

/// Gemini API reference, `Schema`, "a select subset of an OpenAPI 3.0 schema
/// object": `type` (one of the `Type` enum: STRING, NUMBER, INTEGER, BOOLEAN,
/// ARRAY, OBJECT, NULL), `format` (float, double; int32, int64; enum,
/// date-time), `title`, `description`, `nullable`, `enum` (of strings),
/// `maxItems`, `minItems`, `properties`, `required`, `minProperties`,
/// `maxProperties`, `minLength`, `maxLength`, `pattern`, `example`, `anyOf`,
/// `propertyOrdering`, `default`, `items`, `minimum`, `maximum`. No `$ref`, no
/// `additionalProperties`, no `const`, no type arrays.
const GEMINI_OPENAPI: Rules = Rules {
    format: Format::GeminiOpenApi,
    json_schema: false,
    keywords: &[
        "type",
        "format",
        "title",
        "description",
        "nullable",
        "enum",
        "maxItems",
        "minItems",
        "properties",
        "required",
        "minProperties",
        "maxProperties",
        "minLength",
        "maxLength",
        "pattern",
        "example",
        "anyOf",
        "propertyOrdering",
        "default",
        "items",
        "minimum",
        "maximum",
    ],
    types: &[
        "STRING", "NUMBER", "INTEGER", "BOOLEAN", "ARRAY", "OBJECT", "NULL",
    ],
    type_arrays: false,
    formats: Some(&["float", "double", "int32", "int64", "enum", "date-time"]),
    literal: Value::is_string,
    max_min_items: None,
    objects_closed: false,
    all_required: false,
    typed: true,
    refs: Refs::None,
    recursion: Recursion::None,
    simple_patterns: false,
};

const ALL_RULES: [&Rules; 4] = [&OPENAI_STRICT, &ANTHROPIC_STRICT, &GEMINI, &GEMINI_OPENAPI];

/// The subschemas directly under `schema`, with their pointers.
fn subschemas<'a>(schema: &'a Value, pointer: &str) -> Vec<(String, &'a Value)> {
    let mut found = Vec::new();
    let Some(map) = schema.as_object() else {
        return found;
    };
    for (key, value) in map {
        let here = format!("{pointer}/{key}");
        match key.as_str() {
            "properties" | "$defs" | "definitions" | "patternProperties" => {
                for (name, child) in value.as_object().into_iter().flatten() {
                    found.push((format!("{here}/{name}"), child));
                }
            }
            "anyOf" | "oneOf" | "allOf" | "prefixItems" => {
                for (index, child) in value.as_array().into_iter().flatten().enumerate() {
                    found.push((format!("{here}/{index}"), child));
                }
            }
            "items" | "not" | "if" | "then" | "else" | "contains" | "propertyNames" => {
                found.push((here, value));
            }
            "additionalProperties" | "unevaluatedProperties" if value.is_object() => {
                found.push((here, value));
            }
            _ => {}
        }
    }
    found
}

fn each_schema(schema: &Value, pointer: &str, visit: &mut dyn FnMut(&Value, &str)) {
    visit(schema, pointer);
    for (at, child) in subschemas(schema, pointer) {
        each_schema(child, &at, visit);
    }
}

fn refs_under(schema: &Value) -> BTreeSet<String> {
    let mut refs = BTreeSet::new();
    each_schema(schema, "", &mut |node, _| {
        if let Some(Value::String(reference)) = node.get("$ref") {
            refs.insert(reference.clone());
        }
    });
    refs
}

/// Every way `schema` breaks `rules`, each with its pointer.
fn violations(schema: &Value, rules: &Rules) -> Vec<String> {
    let mut found = Vec::new();
    let mut fail = |at: &str, what: String| found.push(format!("{at}: {what}"));

    // The root: an object, not a combination (OpenAI "Root objects must not be
    // anyOf and must be an object"; Anthropic refuses all three at the root).
    let root_type = schema.get("type").and_then(Value::as_str).unwrap_or("");
    if !root_type.eq_ignore_ascii_case("object") {
        fail("", format!("root type is `{root_type}`, not object"));
    }
    for key in ["anyOf", "oneOf", "allOf", "$ref"] {
        if schema.get(key).is_some() {
            fail("", format!("`{key}` at the root"));
        }
    }

    // Recursion: which definitions reach themselves.
    let recursive: BTreeSet<String> = schema
        .get("$defs")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .map(|(name, _)| format!("#/$defs/{name}"))
        .filter(|start| {
            let mut seen = BTreeSet::new();
            let mut pending = vec![start.clone()];
            while let Some(next) = pending.pop() {
                let Some(body) = schema.pointer(next.trim_start_matches('#')) else {
                    continue;
                };
                for reference in refs_under(body) {
                    if reference == *start {
                        return true;
                    }
                    if seen.insert(reference.clone()) {
                        pending.push(reference);
                    }
                }
            }
            false
        })
        .collect();
    if rules.recursion == Recursion::None
        && (!recursive.is_empty() || refs_under(schema).contains("#"))
    {
        fail("", format!("recursive definitions {recursive:?}"));
    }

    each_schema(schema, "", &mut |node, at| {
        let Some(map) = node.as_object() else {
            fail(at, "a boolean schema".into());
            return;
        };
        for key in map.keys() {
            if !rules.keywords.contains(&key.as_str()) {
                fail(at, format!("keyword `{key}` is not in the list"));
            }
        }
        match map.get("type") {
            Some(Value::String(name)) if !rules.types.contains(&name.as_str()) => {
                fail(at, format!("type `{name}`"))
            }
            Some(Value::Array(names)) if !rules.type_arrays => {
                fail(at, format!("type array {names:?}"))
            }
            Some(Value::Array(names)) => {
                for name in names {
                    if !name.as_str().is_some_and(|n| rules.types.contains(&n)) {
                        fail(at, format!("type `{name}`"));
                    }
                }
            }
            _ => {}
        }
        if rules.typed
            && !["type", "anyOf", "$ref", "enum", "const"]
                .iter()
                .any(|key| map.contains_key(*key))
        {
            fail(at, "no type".into());
        }
        if let (Some(Value::String(format)), Some(formats)) = (map.get("format"), rules.formats)
            && !formats.contains(&format.as_str())
        {
            fail(at, format!("format `{format}`"));
        }
        for value in map
            .get("enum")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .chain(map.get("const"))
        {
            if !(rules.literal)(value) {
                fail(at, format!("literal {value}"));
            }
        }
        if let (Some(max), Some(n)) = (
            rules.max_min_items,
            map.get("minItems").and_then(Value::as_u64),
        ) && n > max
        {
            fail(at, format!("minItems {n}"));
        }
        if rules.simple_patterns
            && let Some(Value::String(pattern)) = map.get("pattern")
        {
            for complex in ["(?=", "(?!", "(?<=", "(?<!", "\\b", "\\B", "\\1"] {
                if pattern.contains(complex) {
                    fail(at, format!("pattern uses `{complex}`"));
                }
            }
        }
        let is_object = map.get("type").is_some_and(|t| {
            t.as_str().is_some_and(|t| t.eq_ignore_ascii_case("object"))
                || t.as_array()
                    .is_some_and(|ts| ts.iter().any(|t| t == "object"))
        });
        if rules.objects_closed
            && is_object
            && map.get("additionalProperties") != Some(&Value::Bool(false))
        {
            fail(at, "an object without `additionalProperties: false`".into());
        }
        if let Some(properties) = map.get("properties").and_then(Value::as_object) {
            let required: Vec<&str> = map
                .get("required")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .collect();
            for name in properties.keys() {
                if rules.all_required && !required.contains(&name.as_str()) {
                    fail(at, format!("property `{name}` is not required"));
                }
            }
            if rules.recursion == Recursion::OptionalOnly && at.starts_with("/$defs/") {
                for name in &required {
                    let loops = properties
                        .get(*name)
                        .is_some_and(|property| !refs_under(property).is_disjoint(&recursive));
                    if loops {
                        fail(
                            at,
                            format!("required `{name}` leads back into a recursive schema"),
                        );
                    }
                }
            }
        }
        if map.contains_key("$ref") {
            let siblings: Vec<&String> = map.keys().filter(|key| *key != "$ref").collect();
            match rules.refs {
                Refs::None => fail(at, "a `$ref`".into()),
                Refs::Alone if !siblings.is_empty() => {
                    fail(at, format!("`$ref` beside {siblings:?}"))
                }
                Refs::DollarSiblings if siblings.iter().any(|key| !key.starts_with('$')) => {
                    fail(at, format!("`$ref` beside {siblings:?}"))
                }
                _ => {}
            }
        }
    });
    found
}

// ---------------------------------------------------------------------------
// Every lowered schema keeps to its provider's rules
// ---------------------------------------------------------------------------

#[test]
fn every_lowered_schema_keeps_to_its_providers_published_rules() {
    let registry = registry();
    let mut broken = Vec::new();
    for tool in registry.tools() {
        for rules in ALL_RULES {
            let lowered = lower::lower(tool.input_schema(), rules.format);
            for violation in violations(&lowered.schema, rules) {
                broken.push(format!("{} {:?} {violation}", tool.name(), rules.format));
            }
            if rules.json_schema
                && let Err(error) = jsonschema::draft202012::meta::validate(&lowered.schema)
            {
                broken.push(format!(
                    "{} {:?}: not JSON Schema 2020-12: {error}",
                    tool.name(),
                    rules.format
                ));
            }
        }
    }
    assert!(broken.is_empty(), "{}", broken.join("\n"));
}

#[test]
fn the_checker_catches_what_the_canonical_schema_breaks() {
    // The rules are not vacuous: the canonical schema of `schedule` breaks
    // every provider's list.
    let registry = registry();
    let canonical = tool(&registry, "schedule").input_schema().clone();
    for rules in ALL_RULES {
        assert!(
            !violations(&canonical, rules).is_empty(),
            "{:?} takes the canonical schema as it is",
            rules.format
        );
    }
}

#[test]
fn exported_entries_have_each_providers_shape() {
    let registry = registry();
    let keys =
        |entry: &Value| -> Vec<String> { entry.as_object().unwrap().keys().cloned().collect() };
    let search = |format| {
        registry
            .export(format)
            .as_array()
            .unwrap()
            .iter()
            .find(|entry| {
                entry
                    .get("name")
                    .or_else(|| entry.pointer("/function/name"))
                    == Some(&json!("search_files"))
            })
            .cloned()
            .unwrap()
    };
    let openai = search(Format::OpenAiStrict);
    assert_eq!(keys(&openai), ["function", "type"]);
    assert_eq!(
        keys(&openai["function"]),
        ["description", "name", "parameters", "strict"]
    );
    assert_eq!(openai["function"]["strict"], json!(true));
    let anthropic = search(Format::AnthropicStrict);
    assert_eq!(
        keys(&anthropic),
        ["description", "input_schema", "name", "strict"]
    );
    assert_eq!(anthropic["strict"], json!(true));
    assert_eq!(
        keys(&search(Format::Gemini)),
        ["description", "name", "parametersJsonSchema"]
    );
    assert_eq!(
        keys(&search(Format::GeminiOpenApi)),
        ["description", "name", "parameters"]
    );
}

// ---------------------------------------------------------------------------
// What each provider loses, and says so
// ---------------------------------------------------------------------------

fn notes(lowered: &Lowered) -> Vec<String> {
    lowered
        .notes
        .iter()
        .map(|note| format!("{:?} {note}", note.kind))
        .collect()
}

fn has(lowered: &Lowered, expected: &str) {
    let notes = notes(lowered);
    assert!(
        notes.iter().any(|note| note == expected),
        "no note `{expected}` among:\n{}",
        notes.join("\n")
    );
}

#[test]
fn openai_strict_keeps_ranges_patterns_and_lengths_and_narrows_only_the_map() {
    let registry = registry();
    let lowered = lower::openai_strict(tool(&registry, "schedule").input_schema());
    let schema = &lowered.schema;
    assert_eq!(
        schema.pointer("/properties/priority/minimum"),
        Some(&json!(1))
    );
    assert_eq!(
        schema.pointer("/properties/priority/maximum"),
        Some(&json!(10))
    );
    assert_eq!(
        schema.pointer("/properties/slug/pattern"),
        Some(&json!("^[a-z][a-z0-9-]*$"))
    );
    assert_eq!(schema.pointer("/properties/tags/minItems"), Some(&json!(1)));
    assert_eq!(schema.pointer("/properties/tags/maxItems"), Some(&json!(5)));
    assert_eq!(
        schema.pointer("/properties/day/format"),
        Some(&json!("date"))
    );
    // Recursion stays a reference: strict mode supports it.
    assert_eq!(
        schema.pointer("/$defs/Node/properties/children/items"),
        Some(&json!({ "$ref": "#/$defs/Node" }))
    );
    // A `$ref` with a description is wrapped.
    assert_eq!(
        schema.pointer("/properties/shape"),
        Some(
            &json!({ "anyOf": [{ "$ref": "#/$defs/Shape" }], "description": "The area it covers" })
        )
    );
    assert_eq!(
        notes(&lowered),
        [
            "Narrowed /properties/labels: properties beyond the listed ones (a map) cannot be described in strict mode: the object is closed, and the schema of the others is in the description"
        ]
    );
    assert_eq!(
        schema.pointer("/properties/labels/description"),
        Some(&json!("Labels by key\nadditionalProperties: Move"))
    );
    assert!(!lowered.strict_usable());
}

#[test]
fn nested_enums_with_data_lower_to_disjoint_alternatives() {
    let registry = registry();
    let lowered = lower::openai_strict(tool(&registry, "schedule").input_schema());
    let defs = &lowered.schema["$defs"];
    // Externally tagged: a string or a closed one-key object.
    assert_eq!(
        defs["Shape"]["anyOf"][0],
        json!({ "type": "string", "enum": ["point"] })
    );
    // Internally tagged, with a newtype variant: the tag merged into the struct.
    assert_eq!(
        defs["Event"]["anyOf"][2],
        json!({
            "type": "object",
            "properties": {
                "kind": { "type": "string", "const": "moved" },
                "to": { "type": "string", "description": "Where to" }
            },
            "required": ["kind", "to"],
            "additionalProperties": false
        })
    );
    // Adjacently tagged: tag and content.
    assert_eq!(
        defs["Patch"]["anyOf"][1]["required"],
        json!(["op", "value"])
    );
    // `oneOf` → `anyOf` lost nothing: the alternatives are told apart by their tags.
    assert!(
        lowered
            .notes
            .iter()
            .all(|note| !note.message.contains("oneOf"))
    );
}

#[test]
fn anthropic_strict_moves_numbers_and_lengths_into_descriptions_and_cuts_recursion() {
    let registry = registry();
    let lowered = lower::anthropic_strict(tool(&registry, "schedule").input_schema());
    let schema = &lowered.schema;
    assert_eq!(
        schema.pointer("/properties/priority"),
        Some(
            &json!({ "type": "integer", "description": "From 1 (urgent) to 10\nmaximum: 10\nminimum: 1" })
        )
    );
    assert_eq!(
        schema.pointer("/properties/tags/description"),
        Some(&json!("One to five tags\nmaxItems: 5"))
    );
    assert_eq!(schema.pointer("/properties/tags/minItems"), Some(&json!(1)));
    assert!(schema.get("$defs").is_none(), "every definition is inlined");
    has(
        &lowered,
        "Narrowed /$defs/Node: recursion through `Node` is cut after 3 levels: deeper values cannot be sent",
    );
    has(
        &lowered,
        "Described /properties/priority: `maximum` is not supported: moved into the description",
    );
    // The serde-default field keeps its default and stays optional.
    assert_eq!(
        schema.pointer("/properties/dry_run/default"),
        Some(&json!(false))
    );
    let required = schema["required"].as_array().unwrap();
    assert!(!required.contains(&json!("dry_run")));
    // `Option` fields are required (nullable): the optional budget is spared.
    assert!(required.contains(&json!("note")));
}

#[test]
fn anthropic_strict_refuses_complex_regexes_and_large_min_items() {
    let lowered = lower::anthropic_strict(&json!({
        "type": "object",
        "properties": {
            "word": { "type": "string", "pattern": "^(?!admin)\\w+$" },
            "code": { "type": "string", "pattern": "^[A-Z]{3}-\\d{2,4}$" },
            "pairs": { "type": "array", "items": { "type": "string" }, "minItems": 2 }
        },
        "required": ["word", "code", "pairs"]
    }));
    assert_eq!(
        lowered.schema["properties"],
        json!({
            "word": { "type": "string", "description": "pattern: ^(?!admin)\\w+$" },
            "code": { "type": "string", "pattern": "^[A-Z]{3}-\\d{2,4}$" },
            "pairs": {
                "type": "array",
                "items": { "type": "string" },
                "minItems": 1,
                "description": "minItems: 2"
            }
        })
    );
    assert_eq!(
        notes(&lowered),
        [
            "Described /properties/pairs: `minItems` above 1 is not supported: lowered, and the bound moved into the description",
            "Described /properties/word: `pattern` is not supported: moved into the description",
        ]
    );
}

#[test]
fn gemini_keeps_json_schema_and_unrolls_recursion_only_through_optional_properties() {
    let registry = registry();
    let lowered = lower::gemini(tool(&registry, "schedule").input_schema());
    let schema = &lowered.schema;
    assert_eq!(
        schema.pointer("/$defs/Node/required"),
        Some(&json!(["label"]))
    );
    assert_eq!(
        schema.pointer("/$defs/Node/description"),
        Some(&json!("A tree of labels.\nrequired: children"))
    );
    // `const` is a one-value enum; `null` is out of enums.
    assert_eq!(
        schema.pointer("/$defs/Event/anyOf/1/properties/kind"),
        Some(&json!({ "type": "string", "enum": ["deleted"] }))
    );
    has(
        &lowered,
        "Described /properties/slug: `pattern` is not supported: moved into the description",
    );
    has(
        &lowered,
        "Described /$defs/Node/properties/children: required, but leads back into a recursive schema, which Gemini unrolls only through optional properties: moved into the description",
    );
}

#[test]
fn gemini_openapi_inlines_writes_nullable_and_upper_case_types() {
    let registry = registry();
    let lowered = lower::gemini_openapi(tool(&registry, "schedule").input_schema());
    let schema = &lowered.schema;
    assert_eq!(
        schema.pointer("/properties/note"),
        Some(&json!({ "type": "STRING", "nullable": true, "description": "A note for the log" }))
    );
    assert_eq!(
        schema.pointer("/properties/until"),
        Some(
            &json!({ "type": "STRING", "format": "date-time", "nullable": true, "description": "Last moment" })
        )
    );
    // `Option<enum>`: the alternatives, nullable.
    assert_eq!(
        schema.pointer("/properties/event/nullable"),
        Some(&json!(true))
    );
    assert_eq!(
        schema.pointer("/properties/event/anyOf/0/properties/kind"),
        Some(&json!({ "type": "STRING", "enum": ["created"] }))
    );
    // A map keeps its value schema as text.
    assert_eq!(
        schema.pointer("/properties/labels"),
        Some(&json!({
            "type": "OBJECT",
            "description": "Labels by key\nadditionalProperties: Move"
        }))
    );
    // `date` is not a format Gemini documents for strings.
    assert_eq!(
        schema.pointer("/properties/day"),
        Some(&json!({ "type": "STRING", "description": "First day\nformat: date" }))
    );
    has(
        &lowered,
        "Narrowed /$defs/Node: recursion through `Node` is cut after 3 levels: deeper values cannot be sent",
    );
    let depth = (0..)
        .scan(schema.pointer("/properties/plan"), |node, _| {
            let current = (*node)?;
            *node = current.pointer("/properties/children/items");
            Some(current)
        })
        .count();
    assert_eq!(depth, 4, "three levels of `Node`, then the stub");
}

// ---------------------------------------------------------------------------
// Arguments are validated against the canonical schema, never a lowered one
// ---------------------------------------------------------------------------

#[tokio::test]
async fn a_field_openai_strict_makes_required_and_nullable_may_still_be_left_out() {
    let registry = registry();
    let lowered = lower::openai_strict(tool(&registry, "list").input_schema());
    // `limit: Option<i64>` takes `null` already, so requiring it changes
    // nothing; `all` has a serde default and does not take `null`, so it
    // stays non-nullable (the canonical schema would refuse a `null`), and its
    // default is in its description. (`int64` is an annotation no validator
    // asserts: strict mode drops it.)
    assert_eq!(
        lowered.schema,
        json!({
            "type": "object",
            "properties": {
                "limit": { "type": ["integer", "null"], "minimum": 0, "description": "At most this many lines" },
                "all": { "type": "boolean", "description": "Show hidden files\ndefault: false" }
            },
            "required": ["all", "limit"],
            "additionalProperties": false
        })
    );
    assert!(lowered.strict_compatible());

    // The canonical schema still takes the field missing…
    let result = registry.call("list", json!({})).await;
    assert!(!result.is_error(), "{}", result.text());
    assert_eq!(result.text(), "limit=None all=false");
    // …or null, as strict mode may send it…
    let result = registry
        .call("list", json!({ "limit": null, "all": true }))
        .await;
    assert_eq!(result.text(), "limit=None all=true");
    // …and still enforces what the lowered schema only describes.
    let result = registry.call("list", json!({ "limit": -1 })).await;
    assert!(result.is_error());
    assert_eq!(
        result.text(),
        "invalid arguments for `list`: /limit: -1 is less than the minimum of 0"
    );
}

#[tokio::test]
async fn a_constraint_moved_into_the_description_is_still_enforced() {
    let registry = registry();
    let lowered = lower::anthropic_strict(tool(&registry, "search_files").input_schema());
    assert_eq!(
        lowered.schema.pointer("/properties/query/description"),
        Some(&json!("What to look for\nminLength: 1"))
    );
    let result = registry
        .call(
            "search_files",
            json!({ "query": "", "order": { "by": "name" } }),
        )
        .await;
    assert!(result.is_error());
    assert!(result.text().contains("/query"), "{}", result.text());
}

// ---------------------------------------------------------------------------
// Exports and compatibility reports
// ---------------------------------------------------------------------------

#[test]
fn strict_exports_fall_back_for_tools_strict_mode_would_keep_from_valid_arguments() {
    let registry = registry();
    let export = registry.export(Format::OpenAiStrict);
    let entry = |name: &str| {
        export
            .as_array()
            .unwrap()
            .iter()
            .find(|entry| entry["function"]["name"] == json!(name))
            .cloned()
            .unwrap()
    };
    // A map: strict mode could only send `{}`; the canonical schema goes,
    // non-strict, without the non-standard `format` schemars gave the count.
    assert_eq!(entry("tally")["function"]["strict"], json!(false));
    let mut canonical = tool(&registry, "tally").input_schema().clone();
    let count = &mut canonical["properties"]["counts"]["additionalProperties"];
    assert_eq!(count["format"], json!("uint32"));
    count.as_object_mut().unwrap().remove("format");
    assert_eq!(&entry("tally")["function"]["parameters"], &canonical);
    // Moved constraints only: strict, with the lowered schema.
    assert_eq!(entry("search_files")["function"]["strict"], json!(true));
    assert_eq!(entry("outline")["function"]["strict"], json!(true));

    let export = registry.export(Format::AnthropicStrict);
    let strict: Vec<(&str, bool)> = export
        .as_array()
        .unwrap()
        .iter()
        .map(|entry| {
            (
                entry["name"].as_str().unwrap(),
                entry.get("strict").is_some(),
            )
        })
        .collect();
    assert_eq!(
        strict,
        [
            ("list", true),
            ("outline", false),
            ("ping", true),
            ("schedule", false),
            ("search_files", true),
            ("tally", false),
        ]
    );
}

#[test]
fn the_compatibility_report_says_why_tool_by_tool() {
    let registry = registry();
    let report = registry.compatibility(Format::OpenAiStrict);
    let by_tool: Vec<(&str, bool, bool)> = report
        .iter()
        .map(|entry| {
            (
                entry.tool.as_str(),
                entry.lowered.strict_compatible(),
                entry.lowered.strict_usable(),
            )
        })
        .collect();
    assert_eq!(
        by_tool,
        [
            ("list", true, true),
            ("outline", true, true),
            ("ping", true, true),
            ("schedule", false, false),
            ("search_files", false, true),
            ("tally", false, false),
        ]
    );
    let search = &report[4];
    assert_eq!(
        search
            .lowered
            .notes
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>(),
        ["/properties/query: `minLength` is not supported: moved into the description"]
    );
    assert!(
        search
            .lowered
            .notes
            .iter()
            .all(|note| note.kind == NoteKind::Described)
    );
    // Formats that take the canonical schema lose nothing.
    assert!(
        registry
            .compatibility(Format::OpenAi)
            .iter()
            .all(|entry| entry.lowered.strict_compatible())
    );
}

/// Generates `n` trivial tools, for the per-request budget.
macro_rules! tools {
    ($($name:ident)*) => {
        $(
            /// A trivial tool.
            #[tool]
            async fn $name() -> String {
                String::new()
            }
        )*
        fn register_many(registry: &Registry) {
            $(registry.register::<$name>().unwrap();)*
        }
    };
}

tools!(t01 t02 t03 t04 t05 t06 t07 t08 t09 t10 t11 t12 t13 t14 t15 t16 t17 t18 t19 t20 t21);

#[test]
fn anthropic_strict_keeps_to_the_per_request_budget_in_list_order() {
    let registry = Registry::new();
    register_many(&registry);
    let export = registry.export(Format::AnthropicStrict);
    let strict: Vec<bool> = export
        .as_array()
        .unwrap()
        .iter()
        .map(|entry| entry.get("strict") == Some(&json!(true)))
        .collect();
    assert_eq!(strict.iter().filter(|strict| **strict).count(), 20);
    assert!(!strict[20], "the 21st tool goes out without `strict`");
}

#[test]
fn gemini_refuses_names_that_do_not_start_with_a_letter() {
    /// Starts with a digit.
    #[tool(name = "2fa")]
    async fn two_factor() -> String {
        String::new()
    }
    let registry = Registry::new();
    registry.register::<two_factor>().unwrap();
    let report = registry.compatibility(Format::GeminiOpenApi);
    assert_eq!(
        report[0].lowered.notes[0].to_string(),
        "/: the name `2fa` must start with a letter or an underscore for Gemini"
    );
    assert!(
        registry.compatibility(Format::OpenAiStrict)[0]
            .lowered
            .strict_compatible()
    );
}

#[test]
fn new_exports_are_byte_identical_whatever_the_registration_order() {
    let forward = registry();
    let backward = Registry::new();
    backward.register::<list>().unwrap();
    backward.register::<ping>().unwrap();
    backward.register::<outline>().unwrap();
    backward.register::<tally>().unwrap();
    backward.register::<search_files>().unwrap();
    backward.register::<schedule>().unwrap();
    for format in [
        Format::OpenAiStrict,
        Format::AnthropicStrict,
        Format::Gemini,
        Format::GeminiOpenApi,
    ] {
        assert_eq!(
            forward.export_json(format),
            backward.export_json(format),
            "{format:?}"
        );
    }
}

// ---------------------------------------------------------------------------
// Reviewed snapshots of exact lowered schemas
// ---------------------------------------------------------------------------

fn snapshot(name: &str, actual: &Value) -> Option<String> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/snapshots/lower")
        .join(format!("{name}.json"));
    let actual = serde_json::to_string_pretty(actual).unwrap() + "\n";
    if std::env::var_os("UPDATE_SNAPSHOTS").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &actual).unwrap();
        return None;
    }
    let expected = std::fs::read_to_string(&path)
        .unwrap_or_else(|error| panic!("{}: {error}; run with UPDATE_SNAPSHOTS=1", path.display()));
    (actual != expected).then(|| format!("{name}:\n{actual}"))
}

#[test]
fn lowered_schemas_match_the_reviewed_snapshots() {
    let registry = registry();
    let mut stale = Vec::new();
    for (tool_name, formats) in [
        (
            "search_files",
            &[
                ("openai_strict", Format::OpenAiStrict),
                ("anthropic_strict", Format::AnthropicStrict),
                ("gemini", Format::Gemini),
                ("gemini_openapi", Format::GeminiOpenApi),
            ][..],
        ),
        ("outline", &[("gemini_openapi", Format::GeminiOpenApi)][..]),
    ] {
        let tool = tool(&registry, tool_name);
        for (format_name, format) in formats {
            let lowered = lower::lower(tool.input_schema(), *format);
            let actual = json!({
                "schema": lowered.schema,
                "notes": lowered.notes.iter().map(|note| format!("{:?} {note}", note.kind)).collect::<Vec<_>>(),
            });
            stale.extend(snapshot(&format!("{tool_name}.{format_name}"), &actual));
        }
    }
    assert!(
        stale.is_empty(),
        "lowered schemas differ from tests/snapshots/lower (run with UPDATE_SNAPSHOTS=1 and review the diff):\n{}",
        stale.join("\n")
    );
}

// ---------------------------------------------------------------------------
// Limits
// ---------------------------------------------------------------------------

#[test]
fn limits_are_diagnosed() {
    let mut properties = serde_json::Map::new();
    for index in 0..5_001 {
        properties.insert(format!("p{index}"), json!({ "type": "string" }));
    }
    let names: Vec<&String> = properties.keys().collect();
    let wide = json!({ "type": "object", "properties": properties, "required": names });
    let lowered = lower::openai_strict(&wide);
    assert_eq!(
        notes(&lowered),
        ["Refused /: 5001 object properties: OpenAI strict mode allows 5000"]
    );
    assert!(!lowered.strict_usable());

    let mut deep = json!({ "type": "object", "properties": {} });
    for _ in 0..10 {
        deep = json!({ "type": "object", "properties": { "next": deep }, "required": ["next"] });
    }
    assert_eq!(
        notes(&lower::openai_strict(&deep)),
        ["Refused /: 11 levels of object nesting: OpenAI strict mode allows 10"]
    );

    let mut many = serde_json::Map::new();
    for index in 0..25 {
        many.insert(format!("p{index}"), json!({ "type": "string" }));
    }
    assert_eq!(
        notes(&lower::anthropic_strict(
            &json!({ "type": "object", "properties": many })
        )),
        ["Refused /: 25 optional parameters: Anthropic strict tool use allows 24 per request"]
    );
}

// ---------------------------------------------------------------------------
// Lowering is total
// ---------------------------------------------------------------------------

const LOWERINGS: [fn(&Value) -> Lowered; 5] = [
    lower::openai_strict,
    lower::anthropic,
    lower::anthropic_strict,
    lower::gemini,
    lower::gemini_openapi,
];

#[test]
fn odd_schemas_lower_without_panicking() {
    let odd = [
        json!(true),
        json!(false),
        json!(null),
        json!(3),
        json!("object"),
        json!([]),
        json!({}),
        json!({ "type": "object" }),
        json!({ "type": 5, "properties": [], "required": "a", "anyOf": [], "$ref": 7 }),
        json!({ "properties": { "a": true, "b": false, "c": {} }, "x-vendor": { "deep": [1, 2] } }),
        json!({ "type": "object", "properties": { "a": { "$ref": "#/$defs/Missing" } } }),
        json!({ "type": "object", "properties": { "a": { "$ref": "https://example.com/s.json" } } }),
        json!({ "$defs": { "A": { "$ref": "#/$defs/A" } }, "type": "object", "properties": { "a": { "$ref": "#/$defs/A" } } }),
        json!({ "$defs": { "A": { "$ref": "#/$defs/B" }, "B": { "$ref": "#/$defs/A" } }, "type": "object", "properties": { "a": { "$ref": "#/$defs/A" } } }),
        json!({ "type": "object", "properties": { "self": { "$ref": "#" } }, "required": ["self"] }),
        json!({ "$ref": "#" }),
        json!({ "allOf": [{ "type": "string" }, { "type": "integer" }] }),
        json!({ "type": "object", "allOf": [{ "allOf": [{ "allOf": [{ "properties": { "a": { "type": "string", "minLength": 2 } } }] }] }], "properties": { "a": { "type": "string", "minLength": 1 } } }),
        json!({ "type": "object", "anyOf": [true, false, { "type": "null" }] }),
        json!({ "type": "object", "properties": { "t": { "prefixItems": [{ "type": "string" }, { "type": "integer" }], "items": false } } }),
        json!({ "type": "object", "properties": { "e": { "enum": [[1], { "a": 1 }, true, null, 1.5, "x"] }, "c": { "const": { "k": [] } } } }),
        json!({ "type": "object", "properties": { "x": { "not": { "type": "string" }, "if": {}, "then": {}, "else": false } } }),
        json!({ "type": "object", "patternProperties": { "^x-": { "type": "string" } }, "propertyNames": { "maxLength": 3 }, "dependentRequired": { "a": ["b"] } }),
        json!({ "type": "object", "properties": { "p": { "type": "string", "pattern": "(a)\\1{1000}" } } }),
        json!({ "type": "object", "properties": { "a": { "oneOf": [{ "$ref": "#/nope" }, { "type": "string" }], "anyOf": [{ "minLength": 1 }, { "maxLength": 3 }] } } }),
    ];
    for schema in &odd {
        for lowering in LOWERINGS {
            let lowered = lowering(schema);
            // An object schema comes out, or a note says why not (plain
            // Anthropic keeps the schema as it is).
            assert!(
                lowered.schema.is_object() || !lowered.notes.is_empty(),
                "{schema} lowered to {}",
                lowered.schema
            );
        }
    }
}

#[test]
fn well_formed_schemas_stay_json_schema_and_random_ones_never_panic() {
    // A tiny deterministic generator of schema-shaped JSON (xorshift).
    struct Random(u64);
    impl Random {
        fn next(&mut self, below: u64) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0 % below
        }
        fn schema(&mut self, depth: u32) -> Value {
            if depth == 0 || self.next(6) == 0 {
                return match self.next(9) {
                    0 => json!(true),
                    1 => json!({ "type": "string", "minLength": 1, "pattern": "^a" }),
                    2 => json!({ "type": ["integer", "null"], "minimum": 0, "maximum": 9 }),
                    3 => json!({ "enum": ["a", 1, null] }),
                    4 => json!({ "$ref": "#/$defs/D" }),
                    5 => json!({ "$ref": "#" }),
                    6 => json!({ "type": "object", "additionalProperties": true }),
                    7 => json!({ "type": "string", "format": "email", "default": "a@b.c" }),
                    _ => json!({ "const": "k" }),
                };
            }
            let mut map = serde_json::Map::new();
            match self.next(7) {
                0 => {
                    map.insert("type".into(), json!("object"));
                    let mut properties = serde_json::Map::new();
                    for index in 0..self.next(4) {
                        properties.insert(format!("p{index}"), self.schema(depth - 1));
                    }
                    if self.next(2) == 0 {
                        map.insert(
                            "required".into(),
                            json!(properties.keys().take(1).collect::<Vec<_>>()),
                        );
                    }
                    map.insert("properties".into(), Value::Object(properties));
                    if self.next(3) == 0 {
                        map.insert("additionalProperties".into(), self.schema(depth - 1));
                    }
                }
                1 => {
                    map.insert("type".into(), json!("array"));
                    map.insert("items".into(), self.schema(depth - 1));
                    map.insert("maxItems".into(), json!(self.next(5)));
                }
                2 => {
                    map.insert(
                        "prefixItems".into(),
                        json!([self.schema(depth - 1), self.schema(depth - 1)]),
                    );
                }
                3 => {
                    map.insert(
                        "oneOf".into(),
                        json!([self.schema(depth - 1), self.schema(depth - 1)]),
                    );
                }
                4 => {
                    map.insert(
                        "allOf".into(),
                        json!([self.schema(depth - 1), self.schema(depth - 1)]),
                    );
                }
                5 => {
                    map.insert(
                        "anyOf".into(),
                        json!([self.schema(depth - 1), { "type": "null" }]),
                    );
                }
                _ => {
                    map.insert("not".into(), self.schema(depth - 1));
                    map.insert("description".into(), json!("d"));
                }
            }
            Value::Object(map)
        }
    }
    let seed = std::env::var("LOWER_FUZZ_SEED")
        .ok()
        .and_then(|seed| seed.parse().ok())
        .unwrap_or(0x9e37_79b9_7f4a_7c15);
    let mut random = Random(seed);
    let mut broken = Vec::new();
    for _ in 0..200 {
        let mut schema = json!({
            "type": "object",
            "properties": { "a": random.schema(4), "b": random.schema(3) },
            "$defs": { "D": random.schema(3) }
        });
        if random.next(4) == 0 {
            schema["oneOf"] = json!([random.schema(2), random.schema(2)]);
        }
        let valid = jsonschema::draft202012::meta::validate(&schema).is_ok();
        for (index, lowering) in LOWERINGS.into_iter().enumerate() {
            let lowered = lowering(&schema);
            let json_schema = index != 4;
            if valid
                && json_schema
                && jsonschema::draft202012::meta::validate(&lowered.schema).is_err()
            {
                broken.push(format!(
                    "lowering {index} is not JSON Schema for {schema}:\n{}",
                    lowered.schema
                ));
            }
        }
        if valid {
            for rules in ALL_RULES {
                let lowered = lower::lower(&schema, rules.format);
                let found = violations(&lowered.schema, rules);
                if !found.is_empty() {
                    broken.push(format!(
                        "{:?} {found:?} for {schema}:\n{}",
                        rules.format, lowered.schema
                    ));
                }
            }
        }
    }
    assert!(
        broken.is_empty(),
        "{} failures, first:\n{}",
        broken.len(),
        broken
            .iter()
            .take(3)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n\n")
    );
}
