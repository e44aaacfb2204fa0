//! JSON Schemas: generated from types, compiled once, and the violations they report.

pub(crate) mod failure;
pub mod header;
pub mod limits;
pub(crate) mod pointer;
pub mod read_back;
pub(crate) mod suggest;
pub(crate) mod validator;

use std::fmt;

use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde_json::Value;

use self::validator::{ErrorKind, Refusal, ValidationError, Validator};

/// The input schema of `T`: what serde reads, JSON Schema 2020-12.
pub(crate) fn input_schema<T: JsonSchema>() -> Value {
    let mut schema = generate::<T>(SchemaSettings::draft2020_12().for_deserialize());
    if let Value::Object(map) = &mut schema {
        // The args struct's own doc comment ("the arguments of …") would
        // repeat the tool's description to the model; the fields' stay.
        map.remove("description");
    }
    schema
}

/// The output schema of `T`: what serde writes, JSON Schema 2020-12.
pub(crate) fn output_schema<T: JsonSchema>() -> Value {
    generate::<T>(SchemaSettings::draft2020_12().for_serialize())
}

/// Where `T` as written (`output`, its [`output_schema`]) does not read
/// back as `T`: its schema as serde reads it, compared with `output`;
/// `accepted` are the top-level names `T`'s `Deserialize` takes.
pub(crate) fn read_back_problem<T: JsonSchema>(
    output: &Value,
    accepted: &[&str],
) -> Option<read_back::ReadBackProblem> {
    let read = generate::<T>(SchemaSettings::draft2020_12().for_deserialize());
    read_back::problem(output, &read, accepted)
}

fn generate<T: JsonSchema>(settings: SchemaSettings) -> Value {
    let schema = settings.into_generator().into_root_schema_for::<T>();
    let mut value = schema.to_value();
    if let Value::Object(map) = &mut value {
        // The root's `$schema` and `title` (the Rust type's name) are noise in
        // a tool list: the name and description of the tool say it all.
        map.remove("$schema");
        map.remove("title");
    }
    value
}

/// Why a schema cannot be compiled for validation.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SchemaError {
    /// A `type` keyword names no JSON type.
    #[error(
        "{}: {message}; `type` takes one of \"array\", \"boolean\", \"integer\", \"null\", \"number\", \"object\", \"string\", or an array of them",
        pointer_or_root(pointer)
    )]
    UnknownType {
        /// Where the `type` keyword is, a JSON Pointer into the schema.
        pointer: String,
        /// What the meta-schema check said.
        message: String,
    },
    /// The schema breaks the JSON Schema 2020-12 meta-schema.
    #[error("{}: {message}", pointer_or_root(pointer))]
    NotJsonSchema {
        /// Where, a JSON Pointer into the schema.
        pointer: String,
        /// What the meta-schema check said.
        message: String,
    },
    /// The schema is well formed but cannot be built into a validator (a
    /// `$ref` that resolves nowhere, a `pattern` that is no regex).
    #[error("{message}")]
    Unbuildable {
        /// What the validator builder said.
        message: String,
    },
}

/// A schema compiled for validation, with the text it came from.
pub(crate) struct Compiled {
    pub(crate) schema: Value,
    validator: Validator,
}

impl Compiled {
    /// Checks the schema against the 2020-12 dialect, then compiles it.
    ///
    /// Formats (`date`, `email`, `uuid`, …) are asserted: the model learns
    /// which field is malformed before serde would say it less precisely.
    pub(crate) fn new(schema: Value) -> Result<Self, SchemaError> {
        let validator = Validator::new(&schema).map_err(|refusal| match refusal {
            Refusal::Meta(error) if error.about_type => SchemaError::UnknownType {
                pointer: error.pointer,
                message: error.message,
            },
            Refusal::Meta(error) => SchemaError::NotJsonSchema {
                pointer: error.pointer,
                message: error.message,
            },
            Refusal::Build(error) => SchemaError::Unbuildable {
                message: error.to_string(),
            },
        })?;
        Ok(Compiled { schema, validator })
    }

    /// Every violation of `instance`, sorted by pointer so the text is stable.
    pub(crate) fn violations(&self, instance: &Value) -> Vec<Violation> {
        if self.validator.is_valid(instance) {
            return Vec::new();
        }
        let mut violations: Vec<Violation> = self
            .validator
            .errors(instance)
            .into_iter()
            .flat_map(|error| Violation::from_error(error, &self.schema))
            .collect();
        violations.sort_by(|a, b| (&a.pointer, &a.message).cmp(&(&b.pointer, &b.message)));
        violations.dedup();
        violations
    }
}

/// One way a value breaks its schema: where, as a JSON pointer, and what.
///
/// Displays as `/limit: -1 is less than the minimum of 0`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violation {
    /// The JSON pointer of the offending value (`""` for the root).
    pub pointer: String,
    /// What is wrong with it.
    pub message: String,
}

impl Violation {
    /// The violations `error` stands for in `schema`: one per unknown
    /// property, with the closest known name, else one.
    fn from_error(error: ValidationError, schema: &Value) -> Vec<Self> {
        let path = error.instance_path;
        match error.kind {
            ErrorKind::Required { property } => vec![Violation {
                pointer: format!("{path}/{}", pointer::escape(&property)),
                message: "required property missing".to_owned(),
            }],
            ErrorKind::AdditionalProperties { unexpected } => {
                unknown_properties(&path, &unexpected, &error.schema_path, schema)
            }
            ErrorKind::Other => vec![Violation {
                pointer: path,
                message: error.message,
            }],
        }
    }
}

/// One violation per property in `unexpected` of the object at `path`,
/// each naming the closest property the object's schema (at
/// `schema_path`, ending in `/additionalProperties`, in `schema`) knows.
fn unknown_properties(
    path: &str,
    unexpected: &[String],
    schema_path: &str,
    schema: &Value,
) -> Vec<Violation> {
    // The object's schema: where `additionalProperties` sits.
    let object = schema_path
        .strip_suffix("/additionalProperties")
        .and_then(|at| schema.pointer(at));
    let known: Vec<&str> = object
        .and_then(|object| object.get("properties"))
        .and_then(Value::as_object)
        .map(|properties| properties.keys().map(String::as_str).collect())
        .unwrap_or_default();
    unexpected
        .iter()
        .map(|name| Violation {
            pointer: format!("{path}/{}", pointer::escape(name)),
            message: format!(
                "unknown property{}",
                crate::value::schema::suggest::hint(&crate::value::schema::suggest::closest(
                    name,
                    known.iter().copied()
                ))
            ),
        })
        .collect()
}

/// Closes the object schemas whose properties are all known, so that a
/// property they do not name is a violation: the root, and every object
/// reached through `properties`, `items` or `$defs` that lists its
/// properties, sets no `additionalProperties` of its own, and has no
/// applicator that could name more (`allOf`, `anyOf`, `oneOf`, `$ref`, `if`,
/// …, which `#[serde(flatten)]` of an enum writes). Objects inside those
/// applicators are left as they are: what they accept depends on the others.
pub(crate) fn close_objects(schema: &mut Value) {
    close(schema, true);
    if let Some(Value::Object(definitions)) = schema.get_mut("$defs") {
        for definition in definitions.values_mut() {
            close(definition, false);
        }
    }
}

fn close(schema: &mut Value, root: bool) {
    const OPEN: &[&str] = &[
        "additionalProperties",
        "unevaluatedProperties",
        "patternProperties",
        "propertyNames",
        "dependentSchemas",
        "allOf",
        "anyOf",
        "oneOf",
        "not",
        "if",
        "$ref",
        "$dynamicRef",
    ];
    let Value::Object(map) = schema else { return };
    let is_object = match map.get("type") {
        Some(Value::String(kind)) => kind == "object",
        Some(Value::Array(kinds)) => kinds.iter().any(|kind| kind == "object"),
        Some(_) => false,
        None => map.contains_key("properties"),
    };
    let knowable =
        (root || map.contains_key("properties")) && !OPEN.iter().any(|key| map.contains_key(*key));
    if is_object && knowable {
        map.insert("additionalProperties".to_owned(), Value::Bool(false));
    }
    if let Some(Value::Object(properties)) = map.get_mut("properties") {
        for property in properties.values_mut() {
            close(property, false);
        }
    }
    if let Some(items) = map.get_mut("items") {
        close(items, false);
    }
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", pointer_or_root(&self.pointer), self.message)
    }
}

/// Joins violations the way the model reads them: `a; b; c`.
pub(crate) fn describe(violations: &[Violation]) -> String {
    violations
        .iter()
        .map(Violation::to_string)
        .collect::<Vec<_>>()
        .join("; ")
}

fn pointer_or_root(pointer: &str) -> &str {
    if pointer.is_empty() { "/" } else { pointer }
}

/// What the root of a schema is, for messages: `an object`, `"type": "string"`.
pub(crate) fn root_kind(schema: &Value) -> Option<String> {
    match schema.get("type") {
        Some(Value::String(kind)) if kind == "object" => None,
        Some(kind) => Some(format!("`\"type\": {kind}`")),
        None if schema.get("properties").is_some() => None,
        None => Some("not an object (no `\"type\": \"object\"` at its root)".to_owned()),
    }
}

/// Models sometimes send the arguments object as a JSON string; accept it.
pub(crate) fn normalize_args(args: Value) -> Value {
    if let Value::String(text) = &args
        && let Ok(parsed @ Value::Object(_)) = serde_json::from_str::<Value>(text)
    {
        return parsed;
    }
    args
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn compiled(schema: Value) -> Compiled {
        Compiled::new(schema).unwrap()
    }

    #[test]
    fn reports_every_violation_with_its_pointer() {
        let schema = compiled(json!({
            "type": "object",
            "properties": {
                "path": { "type": "string" },
                "limit": { "type": "integer", "minimum": 0 }
            },
            "required": ["path"]
        }));
        let violations = schema.violations(&json!({ "limit": -1 }));
        assert_eq!(
            describe(&violations),
            "/limit: -1 is less than the minimum of 0; /path: required property missing"
        );
    }

    #[test]
    fn escapes_pointer_tokens() {
        let schema = compiled(json!({ "type": "object", "required": ["a/b~c"] }));
        assert_eq!(
            describe(&schema.violations(&json!({}))),
            "/a~1b~0c: required property missing"
        );
    }

    #[test]
    fn names_the_root() {
        let schema = compiled(json!({ "type": "object" }));
        assert_eq!(
            describe(&schema.violations(&json!(3))),
            r#"/: 3 is not of type "object""#
        );
    }

    #[test]
    fn refuses_a_schema_that_is_not_json_schema() {
        let error = Compiled::new(json!({ "type": "strin" })).err().unwrap();
        assert!(
            matches!(&error, SchemaError::UnknownType { pointer, .. } if pointer == "/type"),
            "{error:?}"
        );
        assert!(error.to_string().starts_with("/type: "), "{error}");
    }

    #[test]
    fn refuses_a_pattern_that_is_no_regex_as_unbuildable() {
        let error = Compiled::new(json!({ "type": "string", "pattern": "(" }))
            .err()
            .unwrap();
        assert!(
            matches!(error, SchemaError::Unbuildable { .. }),
            "{error:?}"
        );
    }

    #[test]
    fn a_subschema_naming_another_dialect_is_still_held_to_2020_12() {
        // Draft 7 takes an array of schemas for `items`; 2020-12 does not.
        let error = Compiled::new(json!({
            "type": "object",
            "properties": { "x": {
                "$schema": "http://json-schema.org/draft-07/schema#",
                "items": [{ "type": "string" }]
            } }
        }))
        .err()
        .unwrap();
        assert!(
            matches!(&error, SchemaError::NotJsonSchema { pointer, .. } if pointer == "/properties/x/items"),
            "{error:?}"
        );
    }

    #[test]
    fn root_kind_tells_objects_apart() {
        assert_eq!(root_kind(&json!({ "type": "object" })), None);
        assert_eq!(
            root_kind(&json!({ "type": "string" })).as_deref(),
            Some(r#"`"type": "string"`"#)
        );
    }
}
