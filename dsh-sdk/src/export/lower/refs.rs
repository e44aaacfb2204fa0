//! `$ref`s: wrapped where siblings are refused, inlined where references are,
//! and recursion kept to what a dialect unrolls.

use std::collections::BTreeSet;

use serde_json::{Value, json};

use super::shape::{ANNOTATIONS, definition_name, describe, required_names, show};
use super::walk::{
    each_child, recursive_refs, refers_to_any, resolve, unresolved, walk, walk_objects,
    without_defs,
};
use super::{Note, NoteKind, Object, RECURSION_DEPTH};
use crate::value::schema::pointer::escape;

/// At most this many `$ref`s are inlined into one schema, so a schema whose
/// definitions share much cannot blow up; past it, references are cut.
pub(super) const MAX_INLINED: usize = 1_000;

/// Wraps a `$ref` that has siblings into `anyOf: [{"$ref": …}]`, which means
/// the same: OpenAI refuses siblings beside `$ref`, and Gemini takes only
/// `$`-keywords there. (Siblings that constrain were merged by
/// [`merge_all_of`]; what is left annotates, like a field's description.)
//
// Not schemars' `RemoveRefSiblings`: that wraps into `allOf`, which neither
// OpenAI strict mode nor Gemini reads, and also wraps `$ref`s whose only
// siblings are other `$`-keywords, which both take.
pub(super) fn wrap_ref_siblings(schema: &mut Value, notes: &mut Vec<Note>) {
    walk_objects(schema, &mut |map, at| {
        if !map.contains_key("$ref") || !map.keys().any(|key| !key.starts_with('$')) {
            return;
        }
        let Some(reference) = map.remove("$ref") else {
            return;
        };
        match map.get_mut("anyOf") {
            None => {
                map.insert("anyOf".into(), json!([{ "$ref": reference }]));
            }
            // `$ref` and `anyOf` both hold: the reference goes into each
            // alternative (wrapped in turn when the walk gets there).
            Some(Value::Array(branches))
                if branches
                    .iter()
                    .all(|branch| branch.as_object().is_some_and(|b| !b.contains_key("$ref"))) =>
            {
                for branch in branches.iter_mut() {
                    if let Value::Object(branch) = branch {
                        branch.insert("$ref".into(), reference.clone());
                    }
                }
            }
            Some(_) => {
                notes.push(Note::new(
                    at,
                    NoteKind::Described,
                    "a `$ref` beside alternatives with references of their own cannot be said here: moved into the description",
                ));
                describe(map, [show("$ref", &reference)]);
            }
        }
    });
}

/// Replaces every `$ref` by the schema it points to, and drops `$defs`.
/// Recursion is cut where a definition would nest inside itself more than
/// [`RECURSION_DEPTH`] times: there a stub object says so (closed when
/// `closed`, for strict modes), and a note says the schema narrowed.
pub(super) fn inline_refs(schema: &mut Value, closed: bool, notes: &mut Vec<Note>) {
    let root = schema.clone();
    let mut inliner = Inliner {
        root: &root,
        stack: Vec::new(),
        budget: MAX_INLINED,
        closed,
        cut: BTreeSet::new(),
        unresolved: BTreeSet::new(),
    };
    inliner.inline(schema);
    if let Value::Object(map) = schema {
        map.remove("$defs");
        map.remove("definitions");
    }
    for reference in inliner.cut {
        notes.push(Note::new(
            reference.trim_start_matches('#'),
            NoteKind::Narrowed,
            format!(
                "recursion through `{}` is cut after {RECURSION_DEPTH} levels: deeper values cannot be sent",
                definition_name(&reference)
            ),
        ));
    }
    for reference in inliner.unresolved {
        notes.push(unresolved(&reference));
    }
}

pub(super) struct Inliner<'a> {
    root: &'a Value,
    stack: Vec<String>,
    budget: usize,
    closed: bool,
    cut: BTreeSet<String>,
    unresolved: BTreeSet<String>,
}

impl Inliner<'_> {
    fn inline(&mut self, node: &mut Value) {
        if let Value::Object(map) = node
            && let Some(Value::String(reference)) = map.get("$ref").cloned()
        {
            map.remove("$ref");
            let depth = self.stack.iter().filter(|r| **r == reference).count();
            match resolve(self.root, &reference) {
                None => {
                    self.unresolved.insert(reference);
                }
                Some(_) if depth >= RECURSION_DEPTH || self.budget == 0 => {
                    let stub = self.stub(&reference);
                    let siblings = std::mem::take(map);
                    *map = stub;
                    for (key, value) in siblings {
                        if ANNOTATIONS.contains(&key.as_str()) && key != "description" {
                            map.insert(key, value);
                        }
                    }
                    self.cut.insert(reference);
                    return;
                }
                Some(target) => {
                    self.budget -= 1;
                    let siblings = std::mem::take(map);
                    let Value::Object(mut target) = without_defs(target) else {
                        return;
                    };
                    for (key, value) in siblings {
                        target.insert(key, value);
                    }
                    *map = target;
                    self.stack.push(reference);
                    self.inline(node);
                    self.stack.pop();
                    return;
                }
            }
        }
        each_child(node, "", &mut |child, at| {
            if !at.starts_with("/$defs/") && !at.starts_with("/definitions/") {
                self.inline(child);
            }
        });
    }

    fn stub(&self, reference: &str) -> Object {
        let mut stub = Object::new();
        stub.insert("type".into(), json!("object"));
        stub.insert(
            "description".into(),
            json!(format!(
                "{} nested too deep to describe here (recursion limit): leave it out",
                definition_name(reference)
            )),
        );
        if self.closed {
            stub.insert("properties".into(), json!({}));
            stub.insert("required".into(), json!([]));
            stub.insert("additionalProperties".into(), json!(false));
        }
        stub
    }
}

/// Gemini unrolls recursion only through optional properties: a required
/// property that leads back into a recursive definition becomes optional,
/// and "required" goes into the description.
pub(super) fn unrequire_recursion(schema: &mut Value, notes: &mut Vec<Note>) {
    let recursive = recursive_refs(schema);
    if recursive.is_empty() {
        return;
    }
    let mut scopes: Vec<String> = recursive
        .iter()
        .map(|reference| reference.trim_start_matches('#').to_owned())
        .collect();
    scopes.sort();
    for scope in scopes {
        let Some(definition) = schema.pointer_mut(&scope) else {
            continue;
        };
        walk(definition, &scope, &mut |node, at| {
            // Under the root, its definitions are scopes of their own.
            if scope.is_empty() && (at.starts_with("/$defs/") || at.starts_with("/definitions/")) {
                return;
            }
            let Value::Object(map) = node else { return };
            let Some(properties) = map.get("properties").and_then(Value::as_object) else {
                return;
            };
            let looping: Vec<String> = required_names(map)
                .into_iter()
                .filter(|name| {
                    properties
                        .get(name)
                        .is_some_and(|property| refers_to_any(property, &recursive))
                })
                .collect();
            if looping.is_empty() {
                return;
            }
            if let Some(Value::Array(required)) = map.get_mut("required") {
                required.retain(|name| {
                    !name
                        .as_str()
                        .is_some_and(|n| looping.iter().any(|l| l == n))
                });
            }
            describe(map, [format!("required: {}", looping.join(", "))]);
            for name in &looping {
                notes.push(Note::new(
                    &format!("{at}/properties/{}", escape(name)),
                    NoteKind::Described,
                    "required, but leads back into a recursive schema, which Gemini unrolls only through optional properties: moved into the description",
                ));
            }
        });
    }
}
