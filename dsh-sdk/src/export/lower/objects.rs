//! Object schemas: one shape for every subschema, objects closed and their
//! properties required as the strict modes ask, maps, tuples and any-typed
//! values said in what each dialect can say.

use serde_json::{Value, json};

use super::shape::{admits_null, describe, is_object_schema, required_names, show};
use super::walk::{boolean_schema, each_child, walk, walk_objects};
use super::{Note, NoteKind, Object};
use crate::value::schema::pointer::escape;

/// Makes every subschema an object and drops malformed keywords, so the
/// passes after it see one shape: `true` → `{}`, `false` → `{"not": {}}`
/// (but `additionalProperties` stays a boolean); malformed
/// applicators (`"properties": []`, `"anyOf": []`, `"type": 5`, a `$ref` that
/// is not a string), which registration refuses anyway, go.
//
// Not schemars' `ReplaceBoolSchemas`: this walk must also reach the keywords
// its walker skips (`dependentSchemas`, `unevaluatedItems`, `contentSchema`)
// and replace values that are no schema at all, so it converts booleans on
// the way.
pub(super) fn normalize(schema: &mut Value, _notes: &mut Vec<Note>) {
    if let Value::Bool(valid) = schema {
        *schema = boolean_schema(*valid);
    }
    if !schema.is_object() {
        // Not a schema at all: the closest schema is "any value".
        *schema = json!({});
    }
    walk(schema, "", &mut |node, _| {
        let Value::Object(map) = node else { return };
        if map.get("unevaluatedProperties") == Some(&Value::Bool(true)) {
            map.remove("unevaluatedProperties");
        }
        map.retain(|key, value| well_formed(key, value));
        if let Some(Value::Array(required)) = map.get_mut("required") {
            required.retain(Value::is_string);
        }
        each_child(node, "", &mut |child, at| {
            // `additionalProperties: true` marks an open object (a map of any
            // values), which the strict passes must see; every dialect reads
            // a boolean there.
            let keeps_boolean = at == "/additionalProperties" || at == "/unevaluatedProperties";
            match child {
                Value::Bool(_) if keeps_boolean => {}
                Value::Bool(valid) => *child = boolean_schema(*valid),
                Value::Object(_) => {}
                _ => *child = json!({}),
            }
        });
    });
}

pub(super) fn well_formed(key: &str, value: &Value) -> bool {
    match key {
        "properties" | "patternProperties" | "$defs" | "definitions" | "dependentSchemas" => {
            value.is_object()
        }
        "allOf" | "anyOf" | "oneOf" | "prefixItems" => {
            value.as_array().is_some_and(|items| !items.is_empty())
        }
        "required" | "enum" => value.is_array(),
        "$ref" => value.is_string(),
        "type" => match value {
            Value::String(_) => true,
            Value::Array(types) => !types.is_empty() && types.iter().all(Value::is_string),
            _ => false,
        },
        _ => true,
    }
}

/// Renames `unevaluatedProperties` to `additionalProperties` where no
/// applicator is left that could evaluate properties (after the merges
/// above), which then means the same and which every dialect reads.
//
// Not schemars' `ReplaceUnevaluatedProperties`: where applicators are left,
// that one lists their property names as `true` schemas on the parent (which
// the strict modes refuse) and overwrites an `additionalProperties` already
// there; here those cases wait for the passes that close objects.
pub(super) fn unevaluated_to_additional(schema: &mut Value, _notes: &mut Vec<Note>) {
    walk_objects(schema, &mut |map, _| {
        let applied = ["allOf", "anyOf", "oneOf", "$ref", "if", "dependentSchemas"]
            .iter()
            .any(|key| map.contains_key(*key));
        if applied || map.contains_key("additionalProperties") {
            return;
        }
        if let Some(unevaluated) = map.remove("unevaluatedProperties") {
            map.insert("additionalProperties".into(), unevaluated);
        }
    });
}

/// Removes `additionalProperties` (and `unevaluatedProperties`), which
/// Gemini's OpenAPI `Schema` does not have: `false` is just dropped (the
/// model is not told that other properties are refused; the canonical
/// validation still refuses them), a map's value schema moves into the
/// description. Both are noted.
pub(super) fn drop_additional_properties(schema: &mut Value, notes: &mut Vec<Note>) {
    walk_objects(schema, &mut |map, at| {
        for key in ["additionalProperties", "unevaluatedProperties"] {
            match map.remove(key) {
                None | Some(Value::Bool(true)) => {}
                Some(Value::Bool(false)) => notes.push(Note::new(
                    at,
                    NoteKind::Described,
                    format!(
                        "`{key}: false` is not supported: dropped, so the model is not told that other properties are refused"
                    ),
                )),
                Some(other) => {
                    describe(map, [show(key, &other)]);
                    notes.push(Note::new(
                        at,
                        NoteKind::Described,
                        format!("`{key}` is not supported: moved into the description"),
                    ));
                }
            }
        }
    });
}

/// Turns tuples (`prefixItems`) into plain arrays whose items may be any of
/// the tuple's types, keeping the length; the positions go into the
/// description. Lossless when every position has the same schema.
//
// Not schemars' `ReplacePrefixItems`: that writes draft 7's array form of
// `items`, which no dialect here takes (each wants one `items` schema).
pub(super) fn tuples_to_arrays(schema: &mut Value, notes: &mut Vec<Note>) {
    walk_objects(schema, &mut |map, at| {
        let Some(Value::Array(prefix)) = map.remove("prefixItems") else {
            return;
        };
        let mut alternatives: Vec<Value> = Vec::new();
        for item in &prefix {
            if !alternatives.contains(item) {
                alternatives.push(item.clone());
            }
        }
        // No item past the tuple: `maxItems` says so, or `items: false`.
        let mut closed = map
            .get("maxItems")
            .and_then(Value::as_u64)
            .is_some_and(|max| max <= prefix.len() as u64);
        match map.remove("items") {
            None => {}
            Some(rest) if rest == json!({ "not": {} }) && !closed => {
                map.insert("maxItems".into(), json!(prefix.len()));
                closed = true;
            }
            Some(rest) if rest == json!({ "not": {} }) => {}
            Some(rest) if !alternatives.contains(&rest) => alternatives.push(rest),
            Some(_) => {}
        }
        let lossless = alternatives.len() == 1 && closed;
        let items = if alternatives.len() == 1 {
            alternatives.remove(0)
        } else {
            json!({ "anyOf": alternatives })
        };
        map.insert("items".into(), items);
        if !lossless {
            describe(map, [show("prefixItems", &Value::Array(prefix))]);
            notes.push(Note::new(
                at,
                NoteKind::Described,
                "`prefixItems` (a tuple) is not supported: each item may be any of its types, and the positions are in the description",
            ));
        }
    });
}

/// Closes every object schema with `additionalProperties: false`, as OpenAI
/// and Anthropic strict modes require, and gives it `type` and `properties`.
///
/// For a struct this changes nothing that matters (serde ignores unknown
/// fields; a root without properties is a tool without parameters). Where
/// other properties carry meaning, it narrows, with a note: a map's value
/// schema (`additionalProperties: {…}`, moved into the description),
/// `patternProperties`, `additionalProperties: true`, and a nested
/// `{"type": "object"}` that lists nothing, which can then only be `{}`.
pub(super) fn close_objects(schema: &mut Value, notes: &mut Vec<Note>) {
    walk_objects(schema, &mut |map, at| {
        if !is_object_schema(map) {
            return;
        }
        if !map.contains_key("type") {
            map.insert("type".into(), json!("object"));
        }
        let mut open = Vec::new();
        let mut closed = false;
        let mut any = false;
        for key in [
            "additionalProperties",
            "patternProperties",
            "unevaluatedProperties",
        ] {
            match map.remove(key) {
                None => {}
                Some(Value::Bool(false)) => closed = true,
                Some(Value::Bool(true)) => any = true,
                Some(other) => open.push(show(key, &other)),
            }
        }
        // `additionalProperties: true` (a map of any values) is open; so is a
        // nested `{"type": "object"}` with nothing listed, as JSON Schema reads
        // it. At the root, that is a tool without parameters (an empty struct).
        let free_form = open.is_empty()
            && !closed
            && (any || (!at.is_empty() && !map.contains_key("properties")));
        map.insert("additionalProperties".into(), json!(false));
        map.entry("properties")
            .or_insert_with(|| Value::Object(Object::new()));
        if !open.is_empty() {
            describe(map, open);
            notes.push(Note::new(
                at,
                NoteKind::Narrowed,
                "properties beyond the listed ones (a map) cannot be described in strict mode: the object is closed, and the schema of the others is in the description",
            ));
        } else if free_form {
            notes.push(Note::new(
                at,
                NoteKind::Narrowed,
                "an open object (any properties) is closed to its listed properties in strict mode",
            ));
        }
    });
}

/// Lists every property in `required`, as OpenAI strict mode requires.
///
/// An optional property that takes `null` means the same when the model
/// sends `null` (serde reads it as `None`), so nothing changes but the list.
/// One that does not take `null` (a field with a serde default) stays
/// non-nullable: the canonical validation would refuse a `null`, so the model
/// sends a value, and the field's `default` is in its description. Without a
/// `default` to send (an optional property of a hand-written schema, one that
/// only some alternatives of a flattened enum have), the model would have to
/// make a value up where leaving the property out was the valid call: noted
/// as narrowing.
pub(super) fn require_all_properties(schema: &mut Value, notes: &mut Vec<Note>) {
    require_properties(schema, notes, false);
}

/// Lists in `required` the optional properties that take `null` (for
/// Anthropic strict tool use, whose optional-parameter budget is smaller than
/// its union budget), and leaves the others optional. Lossless.
pub(super) fn require_nullable_properties(schema: &mut Value, notes: &mut Vec<Note>) {
    require_properties(schema, notes, true);
}

pub(super) fn require_properties(schema: &mut Value, notes: &mut Vec<Note>, only_nullable: bool) {
    let root = schema.clone();
    walk_objects(schema, &mut |map, at| {
        let Some(properties) = map.get("properties").and_then(Value::as_object) else {
            return;
        };
        let mut required = required_names(map);
        let mut added = false;
        for (name, property) in properties {
            if required.contains(name) {
                continue;
            }
            let nullable = admits_null(property, &root, 0);
            if only_nullable && !nullable {
                continue;
            }
            if !nullable && property.get("default").is_none() {
                notes.push(Note::new(
                    &format!("{at}/properties/{}", escape(name)),
                    NoteKind::Narrowed,
                    "optional, with no default and no `null`: strict mode makes the model send a value where leaving it out was valid",
                ));
            }
            required.push(name.clone());
            added = true;
        }
        if added || (!only_nullable && !map.contains_key("required")) {
            map.insert("required".into(), json!(required));
        }
    });
}

/// Gives every schema a type, as the strict modes and Gemini's `Schema`
/// require: a schema that allows any JSON value (`{}`, a `serde_json::Value`
/// field) becomes any string, number, boolean or `null`, with a note, since
/// objects and arrays of unknown shape cannot be described there.
pub(super) fn type_every_schema(schema: &mut Value, notes: &mut Vec<Note>) {
    walk_objects(schema, &mut |map, at| {
        let typed = ["type", "anyOf", "oneOf", "allOf", "$ref", "enum", "const"]
            .iter()
            .any(|key| map.contains_key(*key));
        if typed {
            return;
        }
        if is_object_schema(map) {
            map.insert("type".into(), json!("object"));
            return;
        }
        map.insert(
            "anyOf".into(),
            json!([
                { "type": "string" },
                { "type": "number" },
                { "type": "boolean" },
                { "type": "null" }
            ]),
        );
        notes.push(Note::new(
            at,
            NoteKind::Narrowed,
            "any JSON value is narrowed to a string, number, boolean or null: objects and arrays of unknown shape cannot be described",
        ));
    });
}
