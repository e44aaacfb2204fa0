//! Merging what must all hold into one schema: `allOf`, `$ref` siblings that
//! constrain, and the alternatives of a root `anyOf`/`oneOf`.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Value, json};

use super::shape::{
    ANNOTATIONS, describe, is_object_schema, literal_values, plain, required_names, show,
    single_literal,
};
use super::walk::{dereference, recursive_refs, resolve, unresolved, walk_objects, without_defs};
use super::{Note, NoteKind, Object};

/// Removes `$ref`, `allOf`, `anyOf` and `oneOf` from the root, which must be a
/// plain object for OpenAI and Anthropic (and describes the parameters for
/// Gemini).
///
/// A root `$ref` and `allOf` merge into the root losslessly. A root
/// `anyOf`/`oneOf` (a flattened enum) merges the properties of its
/// alternatives into the root, required only where every alternative requires
/// them; which combinations are valid goes into the description. A root that
/// is still not an object schema is noted: providers refuse it.
pub(super) fn hoist_root_combinators(schema: &mut Value, notes: &mut Vec<Note>) {
    let root = schema.clone();
    let Value::Object(map) = schema else {
        notes.push(Note::new(
            "",
            NoteKind::Refused,
            "the root must be an object schema",
        ));
        return;
    };
    for _ in 0..8 {
        let mut changed = false;
        if let Some(Value::String(reference)) = map.remove("$ref") {
            changed = true;
            match resolve(&root, &reference) {
                // The root referring to itself says nothing more.
                Some(_) if reference == "#" => {}
                Some(target) => merge_into(map, without_defs(target), "", notes),
                None => notes.push(unresolved(&reference)),
            }
        }
        if let Some(Value::Array(branches)) = map.remove("allOf") {
            changed = true;
            for branch in branches {
                merge_into(map, dereference(branch, &root, &BTreeSet::new()), "", notes);
            }
        }
        for key in ["oneOf", "anyOf"] {
            if let Some(Value::Array(branches)) = map.remove(key) {
                changed = true;
                merge_alternatives(map, key, branches, &root, notes);
            }
        }
        if !changed {
            break;
        }
    }
    // With every alternative merged in, nothing is evaluated below the root:
    // `unevaluatedProperties` means what `additionalProperties` does.
    if !map.contains_key("if")
        && !map.contains_key("dependentSchemas")
        && let Some(unevaluated) = map.remove("unevaluatedProperties")
    {
        map.entry("additionalProperties").or_insert(unevaluated);
    }
    if !is_object_schema(map) {
        notes.push(Note::new(
            "",
            NoteKind::Refused,
            "the root must be an object schema",
        ));
    }
}

/// Merges the alternatives of a root `anyOf`/`oneOf` into the root.
pub(super) fn merge_alternatives(
    map: &mut Object,
    key: &str,
    branches: Vec<Value>,
    root: &Value,
    notes: &mut Vec<Note>,
) {
    let branches: Vec<Value> = branches
        .into_iter()
        .map(|branch| dereference(branch, root, &BTreeSet::new()))
        .collect();
    if branches.len() == 1 {
        for branch in branches {
            merge_into(map, branch, "", notes);
        }
        return;
    }
    let mut by_name: BTreeMap<String, Vec<Value>> = BTreeMap::new();
    let mut order: Vec<String> = Vec::new();
    let mut common: Option<Vec<String>> = None;
    let mut summaries = Vec::new();
    for branch in &branches {
        let empty = Object::new();
        let branch_map = branch.as_object().unwrap_or(&empty);
        let properties = branch_map.get("properties").and_then(Value::as_object);
        for (name, property) in properties.into_iter().flatten() {
            if !by_name.contains_key(name) {
                order.push(name.clone());
            }
            let seen = by_name.entry(name.clone()).or_default();
            if !seen.contains(property) {
                seen.push(property.clone());
            }
        }
        let required = required_names(branch_map);
        common = Some(match common {
            None => required.clone(),
            Some(common) => common
                .into_iter()
                .filter(|n| required.contains(n))
                .collect(),
        });
        summaries.push(summarize(branch_map));
    }
    let properties = map
        .entry("properties")
        .or_insert_with(|| Value::Object(Object::new()));
    if let Value::Object(properties) = properties {
        for name in order {
            let Some(alternatives) = by_name.remove(&name) else {
                continue;
            };
            if properties.contains_key(&name) {
                continue;
            }
            properties.insert(name, union_of(alternatives));
        }
    }
    let mut required = required_names(map);
    for name in common.unwrap_or_default() {
        if !required.contains(&name) {
            required.push(name);
        }
    }
    if !required.is_empty() {
        map.insert("required".into(), json!(required));
    }
    if !map.contains_key("type") {
        map.insert("type".into(), json!("object"));
    }
    let which = if key == "oneOf" {
        "exactly one of"
    } else {
        "one or more of"
    };
    describe(map, [format!("{which}: {}", summaries.join(" | "))]);
    notes.push(Note::new(
        "",
        NoteKind::Described,
        format!(
            "`{key}` at the root is not supported: its {} alternatives are merged into the root's properties, and which combinations are valid is in the description",
            branches.len()
        ),
    ));
}

/// One alternative, for a description: `kind = circle, requires radius`.
pub(super) fn summarize(branch: &Object) -> String {
    let properties = branch.get("properties").and_then(Value::as_object);
    let Some(properties) = properties else {
        return Value::Object(branch.clone()).to_string();
    };
    let mut parts = Vec::new();
    let mut requires = Vec::new();
    for name in required_names(branch) {
        match properties.get(&name).and_then(single_literal) {
            Some(literal) => parts.push(format!("{name} = {}", plain(&literal))),
            None => requires.push(name),
        }
    }
    if !requires.is_empty() {
        parts.push(format!("requires {}", requires.join(", ")));
    }
    if parts.is_empty() {
        "no required properties".to_owned()
    } else {
        parts.join(", ")
    }
}

/// One schema for a property several alternatives define: itself when they
/// agree, an `enum` when they are all literals of one type, else `anyOf`.
pub(super) fn union_of(mut alternatives: Vec<Value>) -> Value {
    if alternatives.len() == 1 {
        return alternatives.remove(0);
    }
    let literals: Option<Vec<Value>> = alternatives
        .iter()
        .map(|alternative| {
            let map = alternative.as_object()?;
            let extra = map.keys().any(|key| {
                !matches!(key.as_str(), "const" | "enum" | "type")
                    && !ANNOTATIONS.contains(&key.as_str())
            });
            if extra { None } else { literal_values(map) }
        })
        .collect::<Option<Vec<Vec<Value>>>>()
        .map(|lists| lists.into_iter().flatten().collect());
    let types: BTreeSet<String> = alternatives
        .iter()
        .filter_map(|alternative| alternative.get("type").map(Value::to_string))
        .collect();
    if let Some(values) = literals
        && types.len() <= 1
    {
        let mut distinct: Vec<Value> = Vec::new();
        for value in values {
            if !distinct.contains(&value) {
                distinct.push(value);
            }
        }
        let values = distinct;
        let mut merged = Object::new();
        if let Some(kind) = alternatives[0].get("type") {
            merged.insert("type".into(), kind.clone());
        }
        merged.insert("enum".into(), Value::Array(values));
        return Value::Object(merged);
    }
    json!({ "anyOf": alternatives })
}

/// Merges `allOf` into the schema that holds it, and a `$ref` whose siblings
/// constrain (`{"$ref": …, "properties": …}`, an internally tagged newtype
/// variant) the same way: properties and `required` unite, `type`s intersect,
/// bounds take the tighter side. Where two values cannot both hold, the one in
/// place stays and the other moves into the description.
pub(super) fn merge_all_of(schema: &mut Value, notes: &mut Vec<Note>) {
    let root = schema.clone();
    let recursive = recursive_refs(&root);
    walk_objects(schema, &mut |map, at| {
        // A reference on a cycle cannot be merged in (the copy would hold it
        // again); it stays a reference, beside the rest.
        let mut kept = Vec::new();
        for _ in 0..8 {
            let intersects =
                map.contains_key("$ref") && map.keys().any(|key| is_constraint_sibling(key));
            if intersects && let Some(reference) = map.remove("$ref") {
                let mut branches = match map.remove("allOf") {
                    Some(Value::Array(branches)) => branches,
                    _ => Vec::new(),
                };
                branches.push(json!({ "$ref": reference }));
                map.insert("allOf".into(), Value::Array(branches));
            }
            let Some(Value::Array(branches)) = map.remove("allOf") else {
                break;
            };
            for branch in branches {
                let branch = dereference(branch, &root, &recursive);
                if branch.get("$ref").is_some() {
                    kept.push(branch);
                } else {
                    merge_into(map, branch, at, notes);
                }
            }
        }
        if kept.len() == 1 && !map.contains_key("anyOf") && !map.contains_key("$ref") {
            // `{"anyOf": [x]}` beside the rest means what `{"allOf": [x]}` does.
            map.insert("anyOf".into(), Value::Array(kept));
        } else if !kept.is_empty() {
            map.insert("allOf".into(), Value::Array(kept));
        }
    });
}

pub(super) fn is_constraint_sibling(key: &str) -> bool {
    key != "$ref" && !key.starts_with('$') && !ANNOTATIONS.contains(&key)
}

/// Pushes an object's own properties into each of its `anyOf`/`oneOf`
/// alternatives when they are all objects (a flattened enum inside a struct),
/// so each alternative is a whole object a strict mode can close. Lossless.
pub(super) fn distribute_alternatives(schema: &mut Value, notes: &mut Vec<Note>) {
    let root = schema.clone();
    let recursive = recursive_refs(&root);
    walk_objects(schema, &mut |map, at| {
        if at.is_empty() || !map.contains_key("properties") {
            return;
        }
        for key in ["anyOf", "oneOf"] {
            let Some(Value::Array(branches)) = map.get(key) else {
                continue;
            };
            let branches: Vec<Value> = branches
                .iter()
                .map(|branch| dereference(branch.clone(), &root, &recursive))
                .collect();
            if !branches
                .iter()
                .all(|branch| branch.as_object().is_some_and(is_object_schema))
            {
                continue;
            }
            let mut shared = Object::new();
            for name in [
                "type",
                "properties",
                "required",
                "additionalProperties",
                "unevaluatedProperties",
                "patternProperties",
                "minProperties",
                "maxProperties",
            ] {
                if let Some(value) = map.remove(name) {
                    shared.insert(name.to_owned(), value);
                }
            }
            let merged: Vec<Value> = branches
                .into_iter()
                .map(|branch| {
                    let mut whole = shared.clone();
                    merge_into(&mut whole, branch, at, notes);
                    Value::Object(whole)
                })
                .collect();
            map.insert(key.to_owned(), Value::Array(merged));
            break;
        }
    });
}

/// Merges `source` into `target` as `allOf` would have both hold.
pub(super) fn merge_into(target: &mut Object, source: Value, pointer: &str, notes: &mut Vec<Note>) {
    let source = match source {
        Value::Object(source) => source,
        Value::Bool(true) => return,
        other => {
            describe(target, [show("allOf", &json!([other]))]);
            return;
        }
    };
    let mut conflicts = Vec::new();
    for (key, value) in source {
        match key.as_str() {
            // References are resolved by the callers (`dereference`).
            "$defs" | "definitions" | "$schema" | "$id" | "$ref" => {}
            "properties" => {
                let Value::Object(incoming) = value else {
                    continue;
                };
                let properties = target
                    .entry("properties")
                    .or_insert_with(|| Value::Object(Object::new()));
                let Value::Object(properties) = properties else {
                    continue;
                };
                for (name, schema) in incoming {
                    match properties.get_mut(&name) {
                        None => {
                            properties.insert(name, schema);
                        }
                        Some(existing) if *existing == schema => {}
                        Some(existing) => {
                            let both = json!({ "allOf": [existing.take(), schema] });
                            *existing = both;
                        }
                    }
                }
            }
            "required" => {
                let mut required = required_names(target);
                for name in value
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(Value::as_str)
                {
                    if !required.iter().any(|r| r == name) {
                        required.push(name.to_owned());
                    }
                }
                target.insert("required".into(), json!(required));
            }
            "type" => match target.get("type") {
                None => {
                    target.insert(key, value);
                }
                Some(existing) => match intersect_types(existing, &value) {
                    Some(both) => {
                        target.insert(key, both);
                    }
                    None => conflicts.push(show(&key, &value)),
                },
            },
            "additionalProperties" if value == Value::Bool(false) => {
                target.insert(key, value);
            }
            _ => match target.get(&key) {
                None => {
                    target.insert(key, value);
                }
                Some(existing) if *existing == value => {}
                Some(_) if ANNOTATIONS.contains(&key.as_str()) => {}
                Some(existing) => match tighter(&key, existing, &value) {
                    Some(bound) => {
                        target.insert(key, bound);
                    }
                    None => conflicts.push(show(&key, &value)),
                },
            },
        }
    }
    if !conflicts.is_empty() {
        notes.push(Note::new(
            pointer,
            NoteKind::Described,
            "schemas that must all hold disagree on a keyword: the one in place stays, the other moved into the description",
        ));
        describe(target, conflicts);
    }
}

/// The tighter of two bounds for a bound keyword.
pub(super) fn tighter(key: &str, left: &Value, right: &Value) -> Option<Value> {
    let (l, r) = (left.as_f64()?, right.as_f64()?);
    let lower = matches!(
        key,
        "minimum" | "exclusiveMinimum" | "minLength" | "minItems" | "minProperties" | "minContains"
    );
    let upper = matches!(
        key,
        "maximum" | "exclusiveMaximum" | "maxLength" | "maxItems" | "maxProperties" | "maxContains"
    );
    if lower {
        Some(if l >= r { left.clone() } else { right.clone() })
    } else if upper {
        Some(if l <= r { left.clone() } else { right.clone() })
    } else {
        None
    }
}

pub(super) fn intersect_types(left: &Value, right: &Value) -> Option<Value> {
    let names = |value: &Value| -> Vec<String> {
        match value {
            Value::String(name) => vec![name.clone()],
            Value::Array(names) => names
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect(),
            _ => Vec::new(),
        }
    };
    let (left, right) = (names(left), names(right));
    let mut both: Vec<String> = Vec::new();
    for l in &left {
        for r in &right {
            let common = if l == r {
                Some(l.clone())
            } else if (l == "integer" && r == "number") || (l == "number" && r == "integer") {
                Some("integer".to_owned())
            } else {
                None
            };
            if let Some(common) = common
                && !both.contains(&common)
            {
                both.push(common);
            }
        }
    }
    match both.len() {
        0 => None,
        1 => Some(Value::String(both.remove(0))),
        _ => Some(json!(both)),
    }
}
