//! Reading a schema (its types, properties, literals, whether it takes
//! `null`) and writing what a dialect cannot say into its description.

use serde_json::{Value, json};

use super::Object;
use super::walk::resolve;
use crate::value::schema::pointer::unescape;

/// Keys that only annotate: a `$ref` with just these beside it is a plain
/// reference, not an intersection.
pub(super) const ANNOTATIONS: &[&str] = &[
    "description",
    "title",
    "default",
    "examples",
    "example",
    "$comment",
    "deprecated",
    "readOnly",
    "writeOnly",
];

/// The one value a schema allows, if it is a `const` or a one-value `enum`.
pub(super) fn single_literal(schema: &Value) -> Option<Value> {
    let map = schema.as_object()?;
    if let Some(value) = map.get("const") {
        return Some(value.clone());
    }
    match map.get("enum") {
        Some(Value::Array(values)) if values.len() == 1 => Some(values[0].clone()),
        _ => None,
    }
}

pub(super) fn literal_values(map: &Object) -> Option<Vec<Value>> {
    if let Some(value) = map.get("const") {
        return Some(vec![value.clone()]);
    }
    map.get("enum").and_then(Value::as_array).cloned()
}

/// Whether a schema constrains objects: `type` object, or object keywords without a `type`.
pub(super) fn is_object_schema(map: &Object) -> bool {
    match map.get("type") {
        Some(Value::String(kind)) => kind == "object",
        Some(Value::Array(kinds)) => kinds.iter().any(|kind| kind == "object"),
        Some(_) => false,
        None => [
            "properties",
            "additionalProperties",
            "patternProperties",
            "required",
        ]
        .iter()
        .any(|key| map.contains_key(*key)),
    }
}

pub(super) fn type_names(map: &Object) -> Option<Vec<String>> {
    match map.get("type")? {
        Value::String(name) => Some(vec![name.clone()]),
        Value::Array(names) => Some(
            names
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect(),
        ),
        _ => None,
    }
}

pub(super) fn properties_of(map: &Object) -> Option<&Object> {
    map.get("properties").and_then(Value::as_object)
}

pub(super) fn required_names(map: &Object) -> Vec<String> {
    map.get("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .map(str::to_owned)
        .collect()
}

/// Whether `schema` lets `null` through.
pub(super) fn admits_null(schema: &Value, root: &Value, depth: usize) -> bool {
    if depth > 16 {
        return false;
    }
    let Value::Object(map) = schema else {
        return schema == &Value::Bool(true);
    };
    if let Some(kind) = map.get("type") {
        let nullable = match kind {
            Value::String(name) => name == "null",
            Value::Array(names) => names.iter().any(|name| name == "null"),
            _ => false,
        };
        if !nullable {
            return false;
        }
    }
    if let Some(Value::Array(values)) = map.get("enum")
        && !values.contains(&Value::Null)
    {
        return false;
    }
    if map.get("const").is_some_and(|value| !value.is_null()) || map.contains_key("not") {
        return false;
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(Value::Array(branches)) = map.get(key)
            && !branches
                .iter()
                .any(|branch| admits_null(branch, root, depth + 1))
        {
            return false;
        }
    }
    if let Some(Value::Array(branches)) = map.get("allOf")
        && !branches
            .iter()
            .all(|branch| admits_null(branch, root, depth + 1))
    {
        return false;
    }
    if let Some(Value::String(reference)) = map.get("$ref") {
        return resolve(root, reference).is_some_and(|target| admits_null(target, root, depth + 1));
    }
    true
}

pub(super) fn types_overlap(left: &[String], right: &[String]) -> bool {
    left.iter().any(|l| {
        right.iter().any(|r| {
            l == r || (l == "integer" && r == "number") || (l == "number" && r == "integer")
        })
    })
}

pub(super) fn is_null_schema(schema: &Value) -> bool {
    schema.as_object().is_some_and(|map| {
        map.get("type") == Some(&json!("null"))
            && map
                .keys()
                .all(|key| key == "type" || ANNOTATIONS.contains(&key.as_str()))
    })
}

pub(super) fn definition_name(reference: &str) -> String {
    match reference.rsplit_once('/') {
        Some((_, name)) if reference != "#" => unescape(name).into_owned(),
        _ => "the root schema".to_owned(),
    }
}

/// Appends `lines` to the schema's description, one per line.
pub(super) fn describe(map: &mut Object, lines: impl IntoIterator<Item = String>) {
    let mut text = match map.get("description") {
        Some(Value::String(text)) => text.clone(),
        _ => String::new(),
    };
    let before = text.len();
    for line in lines {
        if !text.is_empty() {
            text.push('\n');
        }
        text.push_str(&line);
    }
    if text.len() != before {
        map.insert("description".into(), Value::String(text));
    }
}

/// `key: value` for a description: strings bare, anything else as JSON.
pub(super) fn show(key: &str, value: &Value) -> String {
    format!("{key}: {}", plain(value))
}

pub(super) fn plain(value: &Value) -> String {
    match readable(value) {
        Value::String(text) => text,
        other => other.to_string(),
    }
}

/// `value` with each bare `{"$ref": "#/$defs/Name"}` written as `Name`: the
/// definitions may be inlined away, and the name is what a reader wants.
pub(super) fn readable(value: &Value) -> Value {
    match value {
        Value::Object(map) => match map.get("$ref") {
            Some(Value::String(reference)) if map.len() == 1 => {
                Value::String(definition_name(reference))
            }
            _ => Value::Object(
                map.iter()
                    .map(|(key, value)| (key.clone(), readable(value)))
                    .collect(),
            ),
        },
        Value::Array(items) => Value::Array(items.iter().map(readable).collect()),
        other => other.clone(),
    }
}
