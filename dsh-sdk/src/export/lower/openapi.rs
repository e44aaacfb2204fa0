//! Gemini's literal and type forms: `const` as a one-value `enum`, `null`
//! out of enums, OpenAPI 3.0 `nullable` and upper-case types.

use schemars::transform::ReplaceConstValue;
use serde_json::{Value, json};

use super::shape::{ANNOTATIONS, is_null_schema};
use super::walk::{apply, walk, walk_objects};
use super::{Note, Object};

/// Writes `const` as a one-value `enum`, which Gemini reads where it does not
/// read `const`: schemars' `ReplaceConstValue`. Lossless.
pub(super) fn const_to_enum(schema: &mut Value, _notes: &mut Vec<Note>) {
    // `ReplaceConstValue` overwrites an `enum` beside the `const`; first make
    // that `enum` say what both together do, so nothing widens: the `const`
    // alone where the `enum` holds its value, and nothing where it does not.
    walk_objects(schema, &mut |map, _| {
        let (Some(value), Some(values)) = (map.get("const"), map.get("enum")) else {
            return;
        };
        if values
            .as_array()
            .is_some_and(|values| values.contains(value))
        {
            map.remove("enum");
        } else {
            map.remove("const");
            map.insert("enum".into(), json!([]));
        }
    });
    apply(schema, ReplaceConstValue::default());
}

/// Takes `null` out of an `enum` (Gemini enums are strings and numbers):
/// `{"type": ["string", "null"], "enum": ["a", null]}` becomes
/// `{"anyOf": [{"type": "string", "enum": ["a"]}, {"type": "null"}]}`. Lossless.
pub(super) fn split_null_enums(schema: &mut Value, _notes: &mut Vec<Note>) {
    walk_objects(schema, &mut |map, _| {
        let Some(Value::Array(values)) = map.get("enum") else {
            return;
        };
        if !values.contains(&Value::Null) {
            return;
        }
        let rest: Vec<Value> = values.iter().filter(|v| !v.is_null()).cloned().collect();
        if rest.is_empty() {
            map.remove("enum");
            map.insert("type".into(), json!("null"));
            return;
        }
        let mut branch = Object::new();
        let mut outer = Object::new();
        for (key, value) in std::mem::take(map) {
            if ANNOTATIONS.contains(&key.as_str()) {
                outer.insert(key, value);
            } else {
                branch.insert(key, value);
            }
        }
        branch.insert("enum".into(), Value::Array(rest));
        if let Some(kind) = branch.get("type").cloned() {
            let kinds: Vec<Value> = match kind {
                Value::Array(kinds) => kinds.into_iter().filter(|k| k != "null").collect(),
                other => vec![other],
            };
            match kinds.len() {
                0 => {
                    branch.remove("type");
                }
                1 => {
                    branch.insert("type".into(), kinds[0].clone());
                }
                _ => {
                    branch.insert("type".into(), Value::Array(kinds));
                }
            }
        }
        outer.insert(
            "anyOf".into(),
            json!([Value::Object(branch), { "type": "null" }]),
        );
        *map = outer;
    });
}

/// Writes nullability the OpenAPI 3.0 way: `"type": ["integer", "null"]`
/// becomes `"type": "integer", "nullable": true`, a `{"type": "null"}`
/// alternative of `anyOf` becomes `nullable: true` (folding a lone remaining
/// alternative into the schema), and a type array of several types becomes
/// `anyOf`. Lossless.
//
// Not schemars' `AddNullable`: that writes a `null`-only type as `const: null`
// (Gemini's `Schema` has `NULL` and no `const`), keeps arrays of several
// types (Gemini takes one), and leaves `{"type": "null"}` alternatives of
// `anyOf`, which `Option` fields of enum type bring.
pub(super) fn nullable(schema: &mut Value, _notes: &mut Vec<Note>) {
    walk_objects(schema, &mut |map, _| {
        for _ in 0..8 {
            let mut changed = false;
            if let Some(Value::Array(kinds)) = map.get("type").cloned() {
                changed = true;
                let others: Vec<Value> = kinds.iter().filter(|k| *k != "null").cloned().collect();
                if others.len() < kinds.len() {
                    map.insert("nullable".into(), json!(true));
                }
                match others.len() {
                    0 => {
                        map.insert("type".into(), json!("null"));
                    }
                    1 => {
                        map.insert("type".into(), others[0].clone());
                    }
                    _ => {
                        map.remove("type");
                        let branches: Vec<Value> = others
                            .into_iter()
                            .map(|kind| json!({ "type": kind }))
                            .collect();
                        if !map.contains_key("anyOf") {
                            map.insert("anyOf".into(), Value::Array(branches));
                        }
                    }
                }
            }
            if let Some(Value::Array(branches)) = map.get_mut("anyOf") {
                let before = branches.len();
                branches.retain(|branch| !is_null_schema(branch));
                if branches.len() < before {
                    changed = true;
                    map.insert("nullable".into(), json!(true));
                    let mut branches = match map.remove("anyOf") {
                        Some(Value::Array(branches)) => branches,
                        _ => Vec::new(),
                    };
                    match branches.len() {
                        0 => {
                            map.insert("type".into(), json!("null"));
                        }
                        1 => {
                            if let Value::Object(only) = branches.remove(0) {
                                for (key, value) in only {
                                    map.entry(key).or_insert(value);
                                }
                            }
                        }
                        _ => {
                            map.insert("anyOf".into(), Value::Array(branches));
                        }
                    }
                }
            }
            if !changed {
                break;
            }
        }
    });
}

/// Writes types in upper case (`STRING`, `OBJECT`, …), as the `Type` enum of
/// Gemini's `Schema` lists them.
pub(super) fn uppercase_types(schema: &mut Value, _notes: &mut Vec<Note>) {
    walk(schema, "", &mut |node, _| {
        if let Value::Object(map) = node
            && let Some(Value::String(kind)) = map.get_mut("type")
        {
            *kind = kind.to_ascii_uppercase();
        }
    });
}
