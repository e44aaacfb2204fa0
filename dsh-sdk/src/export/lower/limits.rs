//! The size and complexity limits the providers document for strict mode.

use std::collections::HashMap;

use serde_json::Value;

use super::shape::{is_object_schema, required_names};
use super::walk::{children, resolve, walk_ref, without_defs};
use super::{Note, NoteKind};

/// OpenAI strict mode's documented limits: 5,000 object properties and 10
/// levels of object nesting, 1,000 enum values, 120,000 characters of
/// property names, definition names, enum and const values, and 15,000
/// characters for one string enum of more than 250 values.
pub(super) fn check_openai_limits(schema: &mut Value, notes: &mut Vec<Note>) {
    let mut properties = 0usize;
    let mut enum_values = 0usize;
    let mut characters = 0usize;
    walk_ref(schema, "", &mut |node, at| {
        let Value::Object(map) = node else { return };
        if let Some(Value::Object(names)) = map.get("properties") {
            properties += names.len();
            characters += names.keys().map(|name| name.chars().count()).sum::<usize>();
        }
        for key in ["$defs", "definitions"] {
            if let Some(Value::Object(names)) = map.get(key) {
                characters += names.keys().map(|name| name.chars().count()).sum::<usize>();
            }
        }
        if let Some(Value::Array(values)) = map.get("enum") {
            enum_values += values.len();
            let length: usize = values
                .iter()
                .filter_map(Value::as_str)
                .map(|value| value.chars().count())
                .sum();
            characters += length;
            if values.len() > 250 && values.iter().all(Value::is_string) && length > 15_000 {
                notes.push(Note::new(
                    at,
                    NoteKind::Refused,
                    format!("a string enum of {} values is {length} characters long; OpenAI allows 15,000 past 250 values", values.len()),
                ));
            }
        }
        if let Some(Value::String(value)) = map.get("const") {
            characters += value.chars().count();
        }
    });
    let depth = object_depth(schema, schema, &mut Vec::new(), &mut HashMap::new());
    let checks = [
        (properties, 5_000, "object properties"),
        (depth, 10, "levels of object nesting"),
        (enum_values, 1_000, "enum values"),
        (
            characters,
            120_000,
            "characters of names, enum and const values",
        ),
    ];
    for (count, limit, what) in checks {
        if count > limit {
            notes.push(Note::new(
                "",
                NoteKind::Refused,
                format!("{count} {what}: OpenAI strict mode allows {limit}"),
            ));
        }
    }
}

/// How deep objects nest in `schema`, following `$ref`s (a recursive one
/// counts once), the root object being level 1.
pub(super) fn object_depth(
    schema: &Value,
    root: &Value,
    stack: &mut Vec<String>,
    memo: &mut HashMap<String, usize>,
) -> usize {
    let Value::Object(map) = schema else { return 0 };
    let own = usize::from(is_object_schema(map));
    let mut deepest = 0;
    if let Some(Value::String(reference)) = map.get("$ref")
        && !stack.contains(reference)
    {
        let depth = match memo.get(reference) {
            Some(depth) => *depth,
            None => {
                let depth = match resolve(root, reference) {
                    Some(target) => {
                        stack.push(reference.clone());
                        let target = without_defs(target);
                        let depth = object_depth(&target, root, stack, memo);
                        stack.pop();
                        depth
                    }
                    None => 0,
                };
                memo.insert(reference.clone(), depth);
                depth
            }
        };
        deepest = deepest.max(depth);
    }
    for (at, child) in children(schema, "") {
        if at.starts_with("/$defs/") || at.starts_with("/definitions/") {
            continue;
        }
        deepest = deepest.max(object_depth(child, root, stack, memo));
    }
    own + deepest
}

/// Anthropic strict tool use's documented complexity limits, as far as one
/// tool alone can break them: 24 optional parameters and 16 parameters with
/// union types (`anyOf` or a type array) across the strict tools of a
/// request. The per-request budget over several tools is the export's.
pub(super) fn check_anthropic_limits(schema: &mut Value, notes: &mut Vec<Note>) {
    let (optional, unions) = anthropic_costs(schema);
    if optional > ANTHROPIC_OPTIONAL_BUDGET {
        notes.push(Note::new(
            "",
            NoteKind::Refused,
            format!("{optional} optional parameters: Anthropic strict tool use allows {ANTHROPIC_OPTIONAL_BUDGET} per request"),
        ));
    }
    if unions > ANTHROPIC_UNION_BUDGET {
        notes.push(Note::new(
            "",
            NoteKind::Refused,
            format!("{unions} parameters with union types: Anthropic strict tool use allows {ANTHROPIC_UNION_BUDGET} per request"),
        ));
    }
}

/// Strict tools per Anthropic request.
pub(crate) const ANTHROPIC_STRICT_TOOLS: usize = 20;
/// Optional parameters across the strict tools of an Anthropic request.
pub(crate) const ANTHROPIC_OPTIONAL_BUDGET: usize = 24;
/// Union-typed parameters across the strict tools of an Anthropic request.
pub(crate) const ANTHROPIC_UNION_BUDGET: usize = 16;

/// The optional and union-typed parameters of a lowered schema, as Anthropic counts them.
pub(crate) fn anthropic_costs(schema: &Value) -> (usize, usize) {
    let mut optional = 0;
    let mut unions = 0;
    walk_ref(schema, "", &mut |node, _| {
        let Value::Object(map) = node else { return };
        let Some(Value::Object(properties)) = map.get("properties") else {
            return;
        };
        let required = required_names(map);
        for (name, property) in properties {
            if !required.contains(name) {
                optional += 1;
            }
            let union = property.get("anyOf").is_some()
                || property.get("type").is_some_and(Value::is_array);
            if union {
                unions += 1;
            }
        }
    });
    (optional, unions)
}
