//! A tool's fields: the parts of it scored apart, and the text it gives each.

use std::ops::{Index, IndexMut};

use serde_json::Value;

use super::tuning::{
    MAX_DEFINITIONS, MAX_INDEXED_CHOICES, MAX_PROPERTIES, MAX_SCHEMA_DEPTH, MAX_VARIANTS,
};
use crate::tool::ToolInfo;

/// A part of a tool scored apart: its name (and aliases), its description,
/// its parameters' names, and their descriptions and allowed values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Field {
    Name,
    Description,
    Parameter,
    ParameterText,
}

impl Field {
    /// Every field, in the order scores are summed.
    pub(super) const ALL: [Field; 4] = [
        Field::Name,
        Field::Description,
        Field::Parameter,
        Field::ParameterText,
    ];
}

/// One value for each [`Field`].
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(super) struct PerField<T> {
    pub(super) name: T,
    pub(super) description: T,
    pub(super) parameter: T,
    pub(super) parameter_text: T,
}

impl<T> PerField<T> {
    /// Each field's value passed through `f`.
    pub(super) fn map<U>(self, mut f: impl FnMut(T) -> U) -> PerField<U> {
        PerField {
            name: f(self.name),
            description: f(self.description),
            parameter: f(self.parameter),
            parameter_text: f(self.parameter_text),
        }
    }
}

impl<T> Index<Field> for PerField<T> {
    type Output = T;

    fn index(&self, field: Field) -> &T {
        match field {
            Field::Name => &self.name,
            Field::Description => &self.description,
            Field::Parameter => &self.parameter,
            Field::ParameterText => &self.parameter_text,
        }
    }
}

impl<T> IndexMut<Field> for PerField<T> {
    fn index_mut(&mut self, field: Field) -> &mut T {
        match field {
            Field::Name => &mut self.name,
            Field::Description => &mut self.description,
            Field::Parameter => &mut self.parameter,
            Field::ParameterText => &mut self.parameter_text,
        }
    }
}

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
