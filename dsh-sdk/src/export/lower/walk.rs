//! Visiting the subschemas of a schema, and following its local `$ref`s.

use std::collections::{BTreeMap, BTreeSet};

use schemars::Schema;
use schemars::transform::Transform;
use serde_json::{Map, Value, json};

use super::{Note, NoteKind};
use crate::value::schema::pointer::escape;

/// Subschema keywords holding one schema.
pub(super) const SCHEMA_KEYWORDS: &[&str] = &[
    "additionalProperties",
    "items",
    "contains",
    "not",
    "if",
    "then",
    "else",
    "propertyNames",
    "unevaluatedProperties",
    "unevaluatedItems",
    "contentSchema",
    "additionalItems",
];
/// Subschema keywords holding an array of schemas.
pub(super) const SCHEMA_ARRAYS: &[&str] = &["prefixItems", "allOf", "anyOf", "oneOf"];
/// Subschema keywords holding a map of schemas.
pub(super) const SCHEMA_MAPS: &[&str] = &[
    "properties",
    "patternProperties",
    "$defs",
    "definitions",
    "dependentSchemas",
];

/// Calls `visit` with every subschema directly under `schema`, and its
/// pointer below `pointer`.
pub(super) fn each_child(
    schema: &mut Value,
    pointer: &str,
    visit: &mut dyn FnMut(&mut Value, &str),
) {
    let Value::Object(map) = schema else { return };
    for (key, value) in map.iter_mut() {
        let here = format!("{pointer}/{}", escape(key));
        if SCHEMA_MAPS.contains(&key.as_str()) {
            if let Value::Object(entries) = value {
                for (name, child) in entries.iter_mut() {
                    visit(child, &format!("{here}/{}", escape(name)));
                }
            }
        } else if SCHEMA_ARRAYS.contains(&key.as_str()) || (key == "items" && value.is_array()) {
            if let Value::Array(items) = value {
                for (index, child) in items.iter_mut().enumerate() {
                    visit(child, &format!("{here}/{index}"));
                }
            }
        } else if SCHEMA_KEYWORDS.contains(&key.as_str()) {
            visit(value, &here);
        }
    }
}

/// The subschemas directly under `schema`, with their pointers.
pub(super) fn children<'a>(schema: &'a Value, pointer: &str) -> Vec<(String, &'a Value)> {
    let mut found = Vec::new();
    let Value::Object(map) = schema else {
        return found;
    };
    for (key, value) in map {
        let here = format!("{pointer}/{}", escape(key));
        if SCHEMA_MAPS.contains(&key.as_str()) {
            if let Value::Object(entries) = value {
                for (name, child) in entries {
                    found.push((format!("{here}/{}", escape(name)), child));
                }
            }
        } else if SCHEMA_ARRAYS.contains(&key.as_str()) || (key == "items" && value.is_array()) {
            if let Value::Array(items) = value {
                for (index, child) in items.iter().enumerate() {
                    found.push((format!("{here}/{index}"), child));
                }
            }
        } else if SCHEMA_KEYWORDS.contains(&key.as_str()) {
            found.push((here, value));
        }
    }
    found
}

/// Runs one of schemars' transforms (which walk the subschemas themselves)
/// over `schema`; a value that is not a schema is left as it is.
pub(super) fn apply(schema: &mut Value, mut transform: impl Transform) {
    if let Ok(schema) = <&mut Schema>::try_from(schema) {
        transform.transform(schema);
    }
}

/// Visits `schema`, then its subschemas (so what `visit` adds is visited too).
pub(super) fn walk(schema: &mut Value, pointer: &str, visit: &mut dyn FnMut(&mut Value, &str)) {
    visit(schema, pointer);
    each_child(schema, pointer, &mut |child, at| walk(child, at, visit));
}

/// Visits every object schema from the root down, with its pointer: the
/// walk of the passes that rewrite schemas in place.
pub(super) fn walk_objects(
    schema: &mut Value,
    visit: &mut dyn FnMut(&mut Map<String, Value>, &str),
) {
    walk(schema, "", &mut |node, at| {
        if let Value::Object(map) = node {
            visit(map, at);
        }
    });
}

/// Visits `schema` and every subschema under it, read-only.
pub(super) fn walk_ref(schema: &Value, pointer: &str, visit: &mut dyn FnMut(&Value, &str)) {
    visit(schema, pointer);
    for (at, child) in children(schema, pointer) {
        walk_ref(child, &at, visit);
    }
}

/// The schema a local `$ref` (`#`, `#/$defs/Name`) points to.
pub(super) fn resolve<'a>(root: &'a Value, reference: &str) -> Option<&'a Value> {
    let fragment = reference.strip_prefix('#')?;
    if fragment.is_empty() {
        Some(root)
    } else {
        root.pointer(fragment)
    }
}

pub(super) fn unresolved(reference: &str) -> Note {
    Note::new(
        "",
        NoteKind::Narrowed,
        format!("`$ref: {reference}` does not resolve to a local definition: dropped"),
    )
}

/// The object form of the boolean schema `valid`: `{}` for `true`,
/// `{"not": {}}` for `false`.
pub(super) fn boolean_schema(valid: bool) -> Value {
    if valid {
        json!({})
    } else {
        json!({ "not": {} })
    }
}

/// A copy of `schema` without its definitions (a resolved root).
pub(super) fn without_defs(schema: &Value) -> Value {
    match schema {
        Value::Object(map) => Value::Object(
            map.iter()
                .filter(|(key, _)| {
                    !matches!(key.as_str(), "$defs" | "definitions" | "$schema" | "$id")
                })
                .map(|(key, value)| (key.clone(), value.clone()))
                .collect(),
        ),
        Value::Bool(valid) => boolean_schema(*valid),
        _ => json!({}),
    }
}

/// `branch` with a `$ref` of its own resolved, its siblings on top; a
/// reference in `keep` (one on a cycle, where resolving inside a walk would
/// never end) stays as it is.
pub(super) fn dereference(branch: Value, root: &Value, keep: &BTreeSet<String>) -> Value {
    let mut current = branch;
    for _ in 0..8 {
        let Value::Object(mut map) = current else {
            return current;
        };
        let reference = match map.get("$ref") {
            Some(Value::String(reference)) if !keep.contains(reference) => reference.clone(),
            _ => return Value::Object(map),
        };
        let Some(target) = resolve(root, &reference) else {
            return Value::Object(map);
        };
        map.remove("$ref");
        let Value::Object(mut target) = without_defs(target) else {
            return Value::Object(map);
        };
        for (key, value) in map {
            target.insert(key, value);
        }
        current = Value::Object(target);
    }
    current
}

/// The local references that lie on a cycle (a definition that reaches itself).
pub(super) fn recursive_refs(schema: &Value) -> BTreeSet<String> {
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    // Every reference anywhere, definitions included (one may loop on itself
    // without the root ever pointing at it).
    let mut pending: Vec<String> = refs_in(schema, false).into_iter().collect();
    while let Some(reference) = pending.pop() {
        if graph.contains_key(&reference) {
            continue;
        }
        let targets = match resolve(schema, &reference) {
            Some(target) => refs_in(target, reference == "#"),
            None => BTreeSet::new(),
        };
        pending.extend(targets.iter().cloned());
        graph.insert(reference, targets);
    }
    graph
        .keys()
        .filter(|start| {
            let mut seen = BTreeSet::new();
            let mut stack: Vec<&String> = graph[*start].iter().collect();
            while let Some(next) = stack.pop() {
                if next == *start {
                    return true;
                }
                if seen.insert(next)
                    && let Some(targets) = graph.get(next)
                {
                    stack.extend(targets.iter());
                }
            }
            false
        })
        .cloned()
        .collect()
}

/// The `$ref`s under `schema` (outside its definitions when `skip_defs`).
pub(super) fn refs_in(schema: &Value, skip_defs: bool) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    walk_ref(schema, "", &mut |node, at| {
        if skip_defs && (at.starts_with("/$defs/") || at.starts_with("/definitions/")) {
            return;
        }
        if let Some(Value::String(reference)) = node.get("$ref") {
            found.insert(reference.clone());
        }
    });
    found
}

/// Whether `schema` holds a `$ref` to one of `targets`.
pub(super) fn refers_to_any(schema: &Value, targets: &BTreeSet<String>) -> bool {
    let mut found = false;
    walk_ref(schema, "", &mut |node, _| {
        if let Some(Value::String(reference)) = node.get("$ref") {
            found |= targets.contains(reference);
        }
    });
    found
}
