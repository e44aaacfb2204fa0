//! Whether a document is a JSON Schema 2020-12 schema at all: each keyword
//! the dialect defines holds a value of the kind it takes, every subschema
//! included (a subschema naming another dialect is held to this one too).
//! Keywords it does not define are left alone, as the dialect allows.

use serde_json::Value;

use super::error::{counted, not_of_types};

/// Where a schema breaks the dialect, and how.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct MetaError {
    /// The JSON Pointer of the offending keyword's value.
    pub(crate) pointer: String,
    /// What is wrong with it.
    pub(crate) message: String,
    /// Whether it is a `type` naming no JSON type.
    pub(crate) about_type: bool,
}

/// The JSON types, in the order messages list them.
pub(crate) const TYPES: [&str; 7] = [
    "null", "boolean", "integer", "number", "string", "array", "object",
];

/// The first place `schema` breaks the 2020-12 dialect, if any.
pub(crate) fn check(schema: &Value) -> Result<(), MetaError> {
    let mut pointer = String::new();
    schema_at(schema, &mut pointer, 0)
}

/// Nesting past this is refused rather than walked.
const DEPTH: usize = 128;

fn fail(pointer: &str, message: String) -> Result<(), MetaError> {
    Err(MetaError {
        pointer: pointer.to_owned(),
        message,
        about_type: false,
    })
}

fn schema_at(value: &Value, pointer: &mut String, depth: usize) -> Result<(), MetaError> {
    let map = match value {
        Value::Bool(_) => return Ok(()),
        Value::Object(map) => map,
        other => return fail(pointer, not_of_types(other, &["boolean", "object"])),
    };
    if depth > DEPTH {
        return fail(pointer, format!("schema nested deeper than {DEPTH} levels"));
    }
    for (key, value) in map {
        let len = pointer.len();
        pointer.push('/');
        pointer.push_str(&crate::value::schema::pointer::escape(key));
        keyword(key, value, pointer, depth)?;
        pointer.truncate(len);
    }
    Ok(())
}

fn keyword(key: &str, value: &Value, pointer: &mut String, depth: usize) -> Result<(), MetaError> {
    match key {
        "$id" | "$ref" | "$dynamicRef" | "$schema" | "$comment" | "format" | "pattern"
        | "contentEncoding" | "contentMediaType" | "title" | "description" => {
            kind(value, pointer, "string")
        }
        "$anchor" | "$dynamicAnchor" => {
            kind(value, pointer, "string")?;
            let name = value.as_str().unwrap_or_default();
            if anchor_name(name) {
                Ok(())
            } else {
                fail(
                    pointer,
                    format!(r#"{value} does not match "^[A-Za-z_][-A-Za-z0-9._]*$""#),
                )
            }
        }
        "$defs" | "definitions" | "properties" | "patternProperties" | "dependentSchemas" => {
            kind(value, pointer, "object")?;
            for (name, schema) in value.as_object().into_iter().flatten() {
                let len = pointer.len();
                pointer.push('/');
                pointer.push_str(&crate::value::schema::pointer::escape(name));
                schema_at(schema, pointer, depth + 1)?;
                pointer.truncate(len);
            }
            Ok(())
        }
        "items"
        | "contains"
        | "additionalProperties"
        | "propertyNames"
        | "not"
        | "if"
        | "then"
        | "else"
        | "unevaluatedItems"
        | "unevaluatedProperties"
        | "contentSchema" => schema_at(value, pointer, depth + 1),
        "prefixItems" | "allOf" | "anyOf" | "oneOf" => {
            kind(value, pointer, "array")?;
            let items = value.as_array().map(Vec::as_slice).unwrap_or_default();
            if items.is_empty() {
                return fail(
                    pointer,
                    format!("{value} has less than {}", counted(1, "item", "items")),
                );
            }
            for (at, schema) in items.iter().enumerate() {
                let len = pointer.len();
                pointer.push('/');
                pointer.push_str(&at.to_string());
                schema_at(schema, pointer, depth + 1)?;
                pointer.truncate(len);
            }
            Ok(())
        }
        "type" => types(value, pointer),
        "enum" | "examples" => kind(value, pointer, "array"),
        "multipleOf" => {
            kind(value, pointer, "number")?;
            if value.as_f64().is_some_and(|n| n > 0.0) {
                Ok(())
            } else {
                fail(
                    pointer,
                    format!("{value} is less than or equal to the minimum of 0"),
                )
            }
        }
        "maximum" | "exclusiveMaximum" | "minimum" | "exclusiveMinimum" => {
            kind(value, pointer, "number")
        }
        "maxLength" | "minLength" | "maxItems" | "minItems" | "maxContains" | "minContains"
        | "maxProperties" | "minProperties" => count(value, pointer),
        "uniqueItems" | "deprecated" | "readOnly" | "writeOnly" => kind(value, pointer, "boolean"),
        "required" => names(value, pointer),
        "dependentRequired" => {
            kind(value, pointer, "object")?;
            for (name, names_value) in value.as_object().into_iter().flatten() {
                let len = pointer.len();
                pointer.push('/');
                pointer.push_str(&crate::value::schema::pointer::escape(name));
                names(names_value, pointer)?;
                pointer.truncate(len);
            }
            Ok(())
        }
        "$vocabulary" => {
            kind(value, pointer, "object")?;
            for (name, flag) in value.as_object().into_iter().flatten() {
                let len = pointer.len();
                pointer.push('/');
                pointer.push_str(&crate::value::schema::pointer::escape(name));
                kind(flag, pointer, "boolean")?;
                pointer.truncate(len);
            }
            Ok(())
        }
        _ => Ok(()),
    }
}

/// Whether `name` is a plain-name fragment: a letter or `_`, then letters,
/// digits, `-`, `.` and `_`.
fn anchor_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|first| first.is_ascii_alphabetic() || first == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_'))
}

/// Whether `value` is of the JSON type `expected`.
fn kind(value: &Value, pointer: &str, expected: &str) -> Result<(), MetaError> {
    let matches = match expected {
        "string" => value.is_string(),
        "object" => value.is_object(),
        "array" => value.is_array(),
        "number" => value.is_number(),
        "boolean" => value.is_boolean(),
        _ => true,
    };
    if matches {
        Ok(())
    } else {
        fail(pointer, not_of_types(value, &[expected]))
    }
}

/// A non-negative integer (`2.0` is one).
fn count(value: &Value, pointer: &str) -> Result<(), MetaError> {
    let Some(number) = value.as_f64() else {
        return fail(pointer, not_of_types(value, &["integer"]));
    };
    if number.fract() != 0.0 {
        return fail(pointer, not_of_types(value, &["integer"]));
    }
    if number < 0.0 {
        return fail(pointer, format!("{value} is less than the minimum of 0"));
    }
    Ok(())
}

/// An array of distinct strings.
fn names(value: &Value, pointer: &mut String) -> Result<(), MetaError> {
    kind(value, pointer, "array")?;
    let items = value.as_array().map(Vec::as_slice).unwrap_or_default();
    for (at, item) in items.iter().enumerate() {
        if !item.is_string() {
            let len = pointer.len();
            pointer.push('/');
            pointer.push_str(&at.to_string());
            let result = fail(pointer, not_of_types(item, &["string"]));
            pointer.truncate(len);
            return result;
        }
    }
    if !distinct(items) {
        return fail(pointer, format!("{value} has non-unique elements"));
    }
    Ok(())
}

fn distinct(items: &[Value]) -> bool {
    items
        .iter()
        .enumerate()
        .all(|(at, item)| !items[..at].contains(item))
}

/// A JSON type's name, or a non-empty array of distinct ones.
fn types(value: &Value, pointer: &str) -> Result<(), MetaError> {
    let named = |name: &Value| name.as_str().is_some_and(|name| TYPES.contains(&name));
    let good = match value {
        Value::String(_) => named(value),
        Value::Array(items) => !items.is_empty() && items.iter().all(named) && distinct(items),
        _ => false,
    };
    if good {
        return Ok(());
    }
    Err(MetaError {
        pointer: pointer.to_owned(),
        message: format!(
            "{value} is not valid under any of the schemas listed in the 'anyOf' keyword"
        ),
        about_type: true,
    })
}
