//! JSON Schemas: generated from types, compiled once, and the violations they report.

use std::fmt;

use jsonschema::error::ValidationErrorKind;
use jsonschema::{ValidationError, Validator};
use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde_json::Value;

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

/// A schema compiled for validation, with the text it came from.
pub(crate) struct Compiled {
    pub(crate) schema: Value,
    validator: Validator,
}

impl Compiled {
    /// Checks the schema against the 2020-12 meta-schema, then compiles it.
    pub(crate) fn new(schema: Value) -> Result<Self, String> {
        if let Err(error) = jsonschema::draft202012::meta::validate(&schema) {
            let pointer = error.instance_path().to_string();
            // The meta-schema's `anyOf` for `type` says nothing of what it takes.
            let about_type = pointer.ends_with("/type")
                && matches!(error.kind(), ValidationErrorKind::AnyOf { .. });
            let expected = if about_type {
                "; `type` takes one of \"array\", \"boolean\", \"integer\", \"null\", \"number\", \"object\", \"string\", or an array of them"
            } else {
                ""
            };
            return Err(format!("{}: {error}{expected}", pointer_or_root(&pointer)));
        }
        // Formats (`date`, `email`, `uuid`, …) are asserted: the model learns
        // which field is malformed before serde would say it less precisely.
        let validator = jsonschema::draft202012::options()
            .should_validate_formats(true)
            .build(&schema)
            .map_err(|error| error.to_string())?;
        Ok(Compiled { schema, validator })
    }

    /// Every violation of `instance`, sorted by pointer so the text is stable.
    pub(crate) fn violations(&self, instance: &Value) -> Vec<Violation> {
        if self.validator.is_valid(instance) {
            return Vec::new();
        }
        let mut violations: Vec<Violation> = self
            .validator
            .iter_errors(instance)
            .map(Violation::from_error)
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
    fn from_error(error: ValidationError<'_>) -> Self {
        let path = error.instance_path().to_string();
        match error.kind() {
            ValidationErrorKind::Required { property } => Violation {
                pointer: format!("{path}/{}", pointer_token(property)),
                message: "required property missing".to_owned(),
            },
            ValidationErrorKind::AdditionalProperties { unexpected } => Violation {
                pointer: path,
                message: format!(
                    "unexpected {} {}",
                    if unexpected.len() == 1 {
                        "property"
                    } else {
                        "properties"
                    },
                    unexpected
                        .iter()
                        .map(|name| format!("`{name}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            },
            _ => Violation {
                pointer: path,
                message: error.to_string(),
            },
        }
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

/// Escapes a property name as one JSON-pointer token (RFC 6901).
fn pointer_token(property: &Value) -> String {
    let name = match property {
        Value::String(name) => name.clone(),
        other => other.to_string(),
    };
    name.replace('~', "~0").replace('/', "~1")
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
        assert!(error.starts_with("/type: "), "{error}");
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
