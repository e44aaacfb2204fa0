//! `oneOf` read as `anyOf`, and nested `anyOf`s flattened.

use std::collections::BTreeSet;

use serde_json::Value;

use super::merge::merge_into;
use super::shape::{
    ANNOTATIONS, describe, literal_values, properties_of, required_names, type_names, types_overlap,
};
use super::walk::{dereference, recursive_refs, walk, walk_objects};
use super::{Note, NoteKind, Object};

/// Turns `oneOf` into `anyOf`, which every dialect here reads.
///
/// Lossless when the alternatives cannot overlap: different types, different
/// literals, a required tag property with different values (serde's tagged
/// enums), or a required property the other, closed alternative refuses
/// (externally tagged). Otherwise a value matching two alternatives would get
/// through, so "exactly one" goes into the description with a note.
pub(super) fn one_of_to_any_of(schema: &mut Value, notes: &mut Vec<Note>) {
    let root = schema.clone();
    let recursive = recursive_refs(&root);
    walk_objects(schema, &mut |map, at| {
        let Some(Value::Array(branches)) = map.remove("oneOf") else {
            return;
        };
        if !pairwise_disjoint(&branches, &root) {
            describe(
                map,
                ["exactly one of the alternatives must match".to_owned()],
            );
            notes.push(Note::new(
                &format!("{at}/oneOf"),
                NoteKind::Described,
                "`oneOf` became `anyOf`: its alternatives can overlap, so one value matching several gets through; \"exactly one\" is in the description",
            ));
        }
        let combined = match map.remove("anyOf") {
            Some(Value::Array(any)) => {
                // Both must hold: each pair of alternatives, merged.
                let mut pairs = Vec::new();
                for left in &any {
                    for right in &branches {
                        let left = dereference(left.clone(), &root, &recursive);
                        let right = dereference(right.clone(), &root, &recursive);
                        let reference = left.get("$ref").or_else(|| right.get("$ref")).cloned();
                        let mut both = left.as_object().cloned().unwrap_or_default();
                        merge_into(&mut both, right, at, notes);
                        if let Some(reference) = reference {
                            both.insert("$ref".into(), reference);
                        }
                        pairs.push(Value::Object(both));
                    }
                }
                pairs
            }
            _ => branches,
        };
        map.insert("anyOf".into(), Value::Array(combined));
    });
}

pub(super) fn pairwise_disjoint(branches: &[Value], root: &Value) -> bool {
    branches.iter().enumerate().all(|(i, left)| {
        branches[i + 1..]
            .iter()
            .all(|right| disjoint(left, right, root, 0))
    })
}

/// Whether no value can match both `left` and `right`, as far as cheap rules see.
pub(super) fn disjoint(left: &Value, right: &Value, root: &Value, depth: usize) -> bool {
    if depth > 4 {
        return false;
    }
    let left = dereference(left.clone(), root, &BTreeSet::new());
    let right = dereference(right.clone(), root, &BTreeSet::new());
    let (Some(a), Some(b)) = (left.as_object(), right.as_object()) else {
        return false;
    };
    if let (Some(ta), Some(tb)) = (type_names(a), type_names(b))
        && !types_overlap(&ta, &tb)
    {
        return true;
    }
    if let (Some(va), Some(vb)) = (literal_values(a), literal_values(b))
        && va.iter().all(|value| !vb.contains(value))
    {
        return true;
    }
    let (Some(pa), Some(pb)) = (properties_of(a), properties_of(b)) else {
        return false;
    };
    let (ra, rb) = (required_names(a), required_names(b));
    for name in ra.iter().filter(|name| rb.contains(name)) {
        if let (Some(sa), Some(sb)) = (pa.get(name), pb.get(name))
            && disjoint(sa, sb, root, depth + 1)
        {
            return true;
        }
    }
    let closed_against = |required: &[String], other: &Object, other_properties: &Object| {
        other.get("additionalProperties") == Some(&Value::Bool(false))
            && required
                .iter()
                .any(|name| !other_properties.contains_key(name))
    };
    closed_against(&ra, b, pb) || closed_against(&rb, a, pa)
}

/// Splices an `anyOf` alternative that is itself only an `anyOf` into its
/// parent (what inlining an enum into an `Option` leaves). Lossless.
pub(super) fn flatten_any_of(schema: &mut Value, _notes: &mut Vec<Note>) {
    fn bare(branch: &Value) -> bool {
        branch.as_object().is_some_and(|map| {
            map.contains_key("anyOf")
                && map
                    .keys()
                    .all(|key| key == "anyOf" || ANNOTATIONS.contains(&key.as_str()))
        })
    }
    walk(schema, "", &mut |node, _| {
        let Some(Value::Array(branches)) = node.get_mut("anyOf") else {
            return;
        };
        if !branches.iter().any(bare) {
            return;
        }
        let mut flat = Vec::new();
        for branch in branches.drain(..) {
            if !bare(&branch) {
                flat.push(branch);
            } else if let Value::Object(mut map) = branch
                && let Some(Value::Array(inner)) = map.remove("anyOf")
            {
                flat.extend(inner);
            }
        }
        *branches = flat;
    });
}
