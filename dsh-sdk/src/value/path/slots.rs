//! Where an input schema declares paths (`"format": "path"`), found once
//! when a tool is registered, and the arguments of a call rewritten to the
//! resolved form of each.

use serde_json::Value;

use super::{MAX_PATH_ARGS, PATH_FORMAT, PathError, Roots};
use crate::value::schema::pointer;

/// How deep into a schema paths are looked for, `$ref`s counted: deeper
/// ones are not declared paths (no derived schema comes close).
const MAX_SCHEMA_DEPTH: usize = 32;

/// The most places one schema may declare a path; past it the rest are
/// left out (no tool has a fraction of this).
const MAX_SLOTS: usize = 256;

/// One step from a value to a path inside it.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Step {
    /// The property of this name.
    Key(String),
    /// Every item of an array.
    Item,
    /// Every value of an object (a map's).
    Value,
}

/// The places in a tool's arguments its input schema declares paths.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct PathSlots(Vec<Vec<Step>>);

/// A path argument refused, and where it is.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}{error}", if pointer.is_empty() { String::new() } else { format!("{pointer}: ") })]
pub(crate) struct PathArgError {
    /// The argument, a JSON pointer into the arguments.
    pub(crate) pointer: String,
    /// Why.
    pub(crate) error: PathError,
}

impl PathSlots {
    /// The paths `schema` declares: strings with `"format": "path"`, through
    /// `properties`, `items`, `additionalProperties`, `anyOf`, `oneOf`,
    /// `allOf` and local `$ref`s.
    pub(crate) fn of(schema: &Value) -> PathSlots {
        let mut found = Vec::new();
        let mut refs = Vec::new();
        find(schema, schema, &mut Vec::new(), &mut refs, &mut found, 0);
        found.sort();
        found.dedup();
        PathSlots(found)
    }

    /// Whether the schema declares no path.
    pub(crate) fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// `args` with each declared path resolved by `roots`, or `None` when
    /// every one already is in its resolved form (or there is none).
    pub(crate) fn resolve(
        &self,
        roots: &Roots,
        args: &Value,
    ) -> Result<Option<Value>, PathArgError> {
        let mut found = Vec::new();
        for slot in &self.0 {
            strings(args, slot, String::new(), &mut found);
        }
        if found.len() > MAX_PATH_ARGS {
            return Err(PathArgError {
                pointer: String::new(),
                error: PathError::TooMany,
            });
        }
        // Two slots can reach one value (a property that is also matched by
        // `additionalProperties`): it is resolved once.
        found.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        found.dedup_by(|a, b| a.0 == b.0);
        let mut changes = Vec::new();
        for (at, given) in found {
            let resolved = roots.resolve(given).map_err(|error| PathArgError {
                pointer: at.clone(),
                error,
            })?;
            // `resolve` refuses a resolved form that is not UTF-8.
            let resolved = resolved.to_string_lossy().into_owned();
            if resolved != given {
                changes.push((at, resolved));
            }
        }
        if changes.is_empty() {
            return Ok(None);
        }
        let mut args = args.clone();
        for (at, resolved) in changes {
            if let Some(slot) = args.pointer_mut(&at) {
                *slot = Value::String(resolved);
            }
        }
        Ok(Some(args))
    }
}

/// Collects into `found` where `schema` (within `root`) declares a path,
/// `at` being the steps to it.
fn find<'a>(
    root: &'a Value,
    schema: &'a Value,
    at: &mut Vec<Step>,
    refs: &mut Vec<&'a str>,
    found: &mut Vec<Vec<Step>>,
    depth: usize,
) {
    let Value::Object(map) = schema else { return };
    if depth > MAX_SCHEMA_DEPTH || found.len() >= MAX_SLOTS {
        return;
    }
    if map.get("format").and_then(Value::as_str) == Some(PATH_FORMAT) {
        found.push(at.clone());
    }
    if let Some(reference) = map.get("$ref").and_then(Value::as_str)
        && let Some(target) = reference.strip_prefix('#').and_then(|p| root.pointer(p))
        && !refs.contains(&reference)
    {
        refs.push(reference);
        find(root, target, at, refs, found, depth + 1);
        refs.pop();
    }
    for key in ["anyOf", "oneOf", "allOf"] {
        for branch in map.get(key).and_then(Value::as_array).into_iter().flatten() {
            find(root, branch, at, refs, found, depth + 1);
        }
    }
    if let Some(Value::Object(properties)) = map.get("properties") {
        for (name, property) in properties {
            at.push(Step::Key(name.clone()));
            find(root, property, at, refs, found, depth + 1);
            at.pop();
        }
    }
    for (key, step) in [("items", Step::Item), ("additionalProperties", Step::Value)] {
        if let Some(inner) = map.get(key) {
            at.push(step);
            find(root, inner, at, refs, found, depth + 1);
            at.pop();
        }
    }
}

/// Collects into `found` the strings at `slot` in `value`, with their JSON
/// pointers (`at` being the pointer to `value`); stops once there are more
/// than a call may carry.
fn strings<'v>(value: &'v Value, slot: &[Step], at: String, found: &mut Vec<(String, &'v str)>) {
    if found.len() > MAX_PATH_ARGS {
        return;
    }
    let Some((step, rest)) = slot.split_first() else {
        if let Value::String(text) = value {
            found.push((at, text));
        }
        return;
    };
    match (step, value) {
        (Step::Key(name), Value::Object(map)) => {
            if let Some(inner) = map.get(name) {
                strings(
                    inner,
                    rest,
                    format!("{at}/{}", pointer::escape(name)),
                    found,
                );
            }
        }
        (Step::Item, Value::Array(items)) => {
            for (index, item) in items.iter().enumerate() {
                strings(item, rest, format!("{at}/{index}"), found);
            }
        }
        (Step::Value, Value::Object(map)) => {
            for (name, inner) in map {
                strings(
                    inner,
                    rest,
                    format!("{at}/{}", pointer::escape(name)),
                    found,
                );
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn paths_are_found_through_options_arrays_maps_and_refs() {
        let schema = json!({
            "type": "object",
            "properties": {
                "path": { "type": "string", "format": "path" },
                "maybe": { "type": ["string", "null"], "format": "path" },
                "many": { "type": "array", "items": { "type": "string", "format": "path" } },
                "named": { "type": "object", "additionalProperties": { "$ref": "#/$defs/P" } },
                "either": { "anyOf": [{ "$ref": "#/$defs/P" }, { "type": "null" }] },
                "text": { "type": "string" },
                "looped": { "$ref": "#/$defs/Loop" }
            },
            "$defs": {
                "P": { "type": "string", "format": "path" },
                "Loop": { "type": "object", "properties": { "next": { "$ref": "#/$defs/Loop" } } }
            }
        });
        let slots = PathSlots::of(&schema);
        let key = |name: &str| Step::Key(name.to_owned());
        assert_eq!(
            slots,
            PathSlots(vec![
                vec![key("either")],
                vec![key("many"), Step::Item],
                vec![key("maybe")],
                vec![key("named"), Step::Value],
                vec![key("path")],
            ])
        );
        let args = json!({
            "path": "/a/./b",
            "maybe": null,
            "many": ["/c//d", "/e"],
            "named": { "x/y": "/f/../g" },
            "text": "/h/../i"
        });
        let resolved = slots
            .resolve(&Roots::new(), &args)
            .expect("resolves")
            .expect("changed");
        assert_eq!(
            resolved,
            json!({
                "path": "/a/b",
                "maybe": null,
                "many": ["/c/d", "/e"],
                "named": { "x/y": "/g" },
                "text": "/h/../i"
            })
        );
        let error = slots
            .resolve(&Roots::new(), &json!({ "named": { "x/y": "a\0" } }))
            .unwrap_err();
        assert_eq!(error.pointer, "/named/x~1y");
        let many = json!({ "many": vec!["a"; MAX_PATH_ARGS + 1] });
        assert_eq!(
            slots.resolve(&Roots::new(), &many).unwrap_err().to_string(),
            format!("the call carries more than {MAX_PATH_ARGS} paths, the most a call may carry")
        );
    }
}
