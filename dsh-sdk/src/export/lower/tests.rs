//! The passes one at a time, where a test reads best against a single pass.

use serde_json::{Value, json};

use super::alternatives::one_of_to_any_of;
use super::merge::hoist_root_combinators;
use super::openapi::{nullable, split_null_enums};
use super::{Lowered, Note, NoteKind, anthropic, openai_strict};

/// `schema` after the one `pass`, and the notes the pass made.
fn apply(pass: fn(&mut Value, &mut Vec<Note>), mut schema: Value) -> (Value, Vec<Note>) {
    let mut notes = Vec::new();
    pass(&mut schema, &mut notes);
    (schema, notes)
}

fn has(lowered: &Lowered, expected: &str) {
    let notes: Vec<String> = lowered
        .notes
        .iter()
        .map(|note| format!("{:?} {note}", note.kind))
        .collect();
    assert!(
        notes.iter().any(|note| note == expected),
        "no note `{expected}` among:\n{}",
        notes.join("\n")
    );
}

#[test]
fn a_flattened_enum_at_the_root_merges_into_the_root() {
    let original = json!({
        "type": "object",
        "properties": { "path": { "type": "string" } },
        "required": ["path"],
        "oneOf": [
            { "properties": { "mode": { "type": "string", "const": "read" } }, "required": ["mode"] },
            {
                "properties": { "mode": { "type": "string", "const": "write" }, "text": { "type": "string" } },
                "required": ["mode", "text"]
            }
        ],
        "unevaluatedProperties": false
    });
    let (schema, notes) = apply(hoist_root_combinators, original.clone());
    assert_eq!(
        schema,
        json!({
            "type": "object",
            "properties": {
                "path": { "type": "string" },
                "mode": { "type": "string", "enum": ["read", "write"] },
                "text": { "type": "string" }
            },
            "required": ["path", "mode"],
            "additionalProperties": false,
            "description": "exactly one of: mode = read | mode = write, requires text"
        })
    );
    assert_eq!(notes.len(), 1);
    assert_eq!(notes[0].kind, NoteKind::Described);
    // In OpenAI strict mode, `text` must then always be sent, which the
    // `read` alternative refuses: strict mode is off for such a tool.
    let strict = openai_strict(&original);
    has(
        &strict,
        "Narrowed /properties/text: optional, with no default and no `null`: strict mode makes the model send a value where leaving it out was valid",
    );
    // Anthropic (plain) takes the schema as it is but for this.
    assert_eq!(
        anthropic(
            &json!({ "type": "object", "anyOf": [{ "required": ["a"] }, { "required": ["b"] }] })
        )
        .notes
        .len(),
        1
    );
}

#[test]
fn one_of_with_overlapping_alternatives_is_noted() {
    let (schema, notes) = apply(
        one_of_to_any_of,
        json!({
            "type": "object",
            "properties": { "n": { "oneOf": [{ "type": "integer" }, { "type": "number", "multipleOf": 0.5 }] } }
        }),
    );
    assert_eq!(
        schema["properties"]["n"],
        json!({
            "anyOf": [{ "type": "integer" }, { "type": "number", "multipleOf": 0.5 }],
            "description": "exactly one of the alternatives must match"
        })
    );
    assert_eq!(notes[0].pointer, "/properties/n/oneOf");
}

#[test]
fn null_leaves_enums_and_becomes_nullable() {
    let (schema, split_notes) = apply(
        split_null_enums,
        json!({ "type": ["string", "null"], "enum": ["a", "b", null], "description": "Pick" }),
    );
    assert_eq!(
        schema,
        json!({
            "description": "Pick",
            "anyOf": [{ "type": "string", "enum": ["a", "b"] }, { "type": "null" }]
        })
    );
    let (schema, nullable_notes) = apply(nullable, schema);
    assert_eq!(
        schema,
        json!({ "description": "Pick", "type": "string", "enum": ["a", "b"], "nullable": true })
    );
    assert!(split_notes.is_empty() && nullable_notes.is_empty());
}
