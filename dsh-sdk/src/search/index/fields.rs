//! The text a tool gives each of its fields.

use serde_json::Value;

use super::field::Field;
use super::tuning::{
    MAX_DEFINITIONS, MAX_INDEXED_CHOICES, MAX_PROPERTIES, MAX_SCHEMA_DEPTH, MAX_VARIANTS,
};
use crate::tool::ToolInfo;

/// Calls `add` with each field of a tool and a text in it.
pub(super) fn document(tool: &ToolInfo, add: &mut impl FnMut(Field, &str)) {
    let def = tool.definition();
    add(Field::Name, def.name());
    for alias in def.aliases() {
        add(Field::Name, alias);
    }
    add(Field::Description, def.description());
    let mut budget = MAX_PROPERTIES;
    parameters(tool.input_schema(), 0, &mut budget, add);
}

/// Adds the names and descriptions of a schema's properties, and of the
/// properties of objects nested in them, to the parameter fields.
fn parameters(schema: &Value, depth: usize, budget: &mut usize, add: &mut impl FnMut(Field, &str)) {
    if let Value::Object(schema) = schema {
        nested(&Keywords::of(schema), depth, budget, add);
    }
}

/// The keywords of one schema that [`parameters`] reads, found in one pass
/// over its keys rather than a lookup each.
#[derive(Default)]
struct Keywords<'a> {
    properties: Option<&'a serde_json::Map<String, Value>>,
    description: Option<&'a str>,
    choices: Option<&'a [Value]>,
    definitions: Option<&'a serde_json::Map<String, Value>>,
    /// `items` and `additionalProperties`.
    inner: [Option<&'a Value>; 2],
    /// `anyOf`, `oneOf` and `allOf`.
    variants: [Option<&'a [Value]>; 3],
}

impl<'a> Keywords<'a> {
    fn of(schema: &'a serde_json::Map<String, Value>) -> Self {
        let mut found = Keywords::default();
        for (key, value) in schema {
            match (key.as_str(), value) {
                ("properties", Value::Object(map)) => found.properties = Some(map),
                ("description", Value::String(text)) => found.description = Some(text),
                ("enum", Value::Array(values)) => found.choices = Some(values),
                ("$defs", Value::Object(map)) => found.definitions = Some(map),
                ("items", _) => found.inner[0] = Some(value),
                ("additionalProperties", _) => found.inner[1] = Some(value),
                ("anyOf", Value::Array(values)) => found.variants[0] = Some(values),
                ("oneOf", Value::Array(values)) => found.variants[1] = Some(values),
                ("allOf", Value::Array(values)) => found.variants[2] = Some(values),
                _ => {}
            }
        }
        found
    }
}

/// [`parameters`] of a schema at `depth` whose keywords are `schema`.
fn nested(
    schema: &Keywords<'_>,
    depth: usize,
    budget: &mut usize,
    add: &mut impl FnMut(Field, &str),
) {
    if depth > MAX_SCHEMA_DEPTH {
        return;
    }
    if let Some(properties) = schema.properties {
        for (name, property) in properties {
            if *budget == 0 {
                return;
            }
            *budget -= 1;
            add(Field::Parameter, name);
            let Value::Object(property) = property else {
                continue;
            };
            let property = Keywords::of(property);
            if let Some(description) = property.description {
                add(Field::ParameterText, description);
            }
            for value in property
                .choices
                .unwrap_or_default()
                .iter()
                .take(MAX_INDEXED_CHOICES)
            {
                if let Value::String(value) = value {
                    add(Field::ParameterText, value);
                }
            }
            nested(&property, depth + 1, budget, add);
        }
    }
    if depth == 0
        && let Some(definitions) = schema.definitions
    {
        for definition in definitions.values().take(MAX_DEFINITIONS) {
            parameters(definition, depth + 1, budget, add);
        }
    }
    for inner in schema.inner.into_iter().flatten() {
        parameters(inner, depth + 1, budget, add);
    }
    for variants in schema.variants.into_iter().flatten() {
        for variant in variants.iter().take(MAX_VARIANTS) {
            parameters(variant, depth + 1, budget, add);
        }
    }
}
