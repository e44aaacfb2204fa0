//! `x-mcp-header`: an input-schema property a client mirrors into an
//! `Mcp-Param-{name}` HTTP header on `tools/call` (MCP 2026-07-28, SEP-2243),
//! so a load balancer or gateway can route on an argument without reading
//! the body.
//!
//! The specification's rules, checked when a tool is registered
//! ([`problems`]): the annotation sits on a property reached from the root
//! through `properties` alone; its name is an HTTP token, unique within the
//! tool whatever its case; the property is a string, an integer or a
//! boolean (not `number`: a float has no one text form), and an integer is
//! within JavaScript's safe range, which [`clamp_integers`] makes the
//! schema say. A client drops a tool that breaks them, so a tool that
//! would is refused instead.

use serde_json::{Map, Value};

/// The schema keyword.
pub(crate) const KEYWORD: &str = "x-mcp-header";

/// The largest integer a header may carry, 2^53 - 1 (and its negation the
/// smallest): what a JavaScript number holds exactly.
pub const MAX_SAFE_INTEGER: i64 = 9_007_199_254_740_991;

/// How deep into a schema the check looks: a hostile schema (a proxied
/// server's) costs no more than this.
const MAX_DEPTH: usize = 64;

/// What is wrong with one `x-mcp-header` annotation of an input schema.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum HeaderProblem {
    /// The annotation is on the schema's root, not on a property.
    #[error("`x-mcp-header` is on the schema's root: put it on a property")]
    OnRoot,
    /// The annotation is not on a property reached from the root through
    /// `properties` alone (it is under `items`, `anyOf`, `$defs`, …), where
    /// a client does not look for it.
    #[error(
        "`x-mcp-header` at {pointer} is not on a property reached from the root through `properties` alone"
    )]
    OffChain {
        /// Where it is, a JSON Pointer into the schema.
        pointer: String,
    },
    /// The annotation's value is not a string.
    #[error("the `x-mcp-header` of `{property}` is not a string")]
    NotString {
        /// The property, its path of names joined by `.`.
        property: String,
    },
    /// The name cannot follow `Mcp-Param-` in an HTTP header name.
    #[error(
        "`{}` (the header of `{property}`) is not an HTTP header name: use {}",
        name.escape_debug(),
        crate::value::names::HEADER_NAME_RULE
    )]
    NotToken {
        /// The property.
        property: String,
        /// The name given.
        name: String,
    },
    /// Two properties name the same header, ignoring case.
    #[error(
        "the header `{name}` of `{property}` is also the header of `{other}` (names are compared ignoring case): give each its own"
    )]
    Duplicate {
        /// The second property.
        property: String,
        /// Its header name.
        name: String,
        /// The first property with that name.
        other: String,
    },
    /// The property is not a string, an integer or a boolean.
    #[error(
        "`{property}` has a header but is {found}: a header carries a string, an integer or a boolean (`number` is not permitted, a float has no one text form)"
    )]
    NotPrimitive {
        /// The property.
        property: String,
        /// Its `type`, as JSON, or `untyped`.
        found: String,
    },
}

/// Every problem of `schema`'s `x-mcp-header` annotations, in the order
/// they are found; empty for a schema with none or with good ones.
pub(crate) fn problems(schema: &Value) -> Vec<HeaderProblem> {
    let mut problems = Vec::new();
    let mut seen: Vec<(String, String)> = Vec::new();
    walk(schema, &mut |node, path, pointer| {
        let Some(header) = node.get(KEYWORD) else {
            return;
        };
        let path = match path {
            Some([]) => return problems.push(HeaderProblem::OnRoot),
            Some(path) => path,
            None => {
                return problems.push(HeaderProblem::OffChain {
                    pointer: pointer.to_owned(),
                });
            }
        };
        let property = path.join(".");
        let Value::String(name) = header else {
            return problems.push(HeaderProblem::NotString { property });
        };
        if !crate::value::names::is_header_name(name) {
            problems.push(HeaderProblem::NotToken {
                property: property.clone(),
                name: name.clone(),
            });
        } else if let Some((_, other)) = seen
            .iter()
            .find(|(seen, _)| seen.eq_ignore_ascii_case(name))
        {
            problems.push(HeaderProblem::Duplicate {
                property: property.clone(),
                name: name.clone(),
                other: other.clone(),
            });
        } else {
            seen.push((name.clone(), property.clone()));
        }
        if primitive(node).is_none() {
            problems.push(HeaderProblem::NotPrimitive {
                property,
                found: node
                    .get("type")
                    .map_or_else(|| "untyped".to_owned(), |kind| format!("of type {kind}")),
            });
        }
    });
    problems
}

/// The one JSON type of an annotated property, `"null"` aside
/// (`["string", "null"]` is an optional string), when it is one a header
/// can carry.
fn primitive(node: &Map<String, Value>) -> Option<&str> {
    let kind = match node.get("type")? {
        Value::String(kind) => kind.as_str(),
        Value::Array(kinds) => {
            let mut kinds = kinds.iter().filter(|kind| *kind != "null");
            let kind = kinds.next()?.as_str()?;
            if kinds.next().is_some() {
                return None;
            }
            kind
        }
        _ => return None,
    };
    matches!(kind, "string" | "integer" | "boolean").then_some(kind)
}

/// Tightens every annotated integer property to `±`[`MAX_SAFE_INTEGER`],
/// so that a value a header could not carry exactly is refused with the
/// arguments' other violations.
pub(crate) fn clamp_integers(schema: &mut Value) {
    for path in annotated(schema) {
        let Some(node) = property_mut(schema, &path) else {
            continue;
        };
        if primitive(node) != Some("integer") {
            continue;
        }
        let below = |bound: &Value| {
            bound
                .as_f64()
                .is_some_and(|bound| bound < MAX_SAFE_INTEGER as f64)
        };
        let above = |bound: &Value| {
            bound
                .as_f64()
                .is_some_and(|bound| bound > -MAX_SAFE_INTEGER as f64)
        };
        if !node.get("maximum").is_some_and(below) {
            node.insert("maximum".to_owned(), Value::from(MAX_SAFE_INTEGER));
        }
        if !node.get("minimum").is_some_and(above) {
            node.insert("minimum".to_owned(), Value::from(-MAX_SAFE_INTEGER));
        }
    }
}

/// The form a client takes: each annotated property of an optional type
/// (`["string", "null"]`) given its one type, as clients refuse a `type`
/// that is a list. A `null` argument is no header, as an absent one.
pub(crate) fn single_types(schema: &mut Value) {
    for path in annotated(schema) {
        let Some(node) = property_mut(schema, &path) else {
            continue;
        };
        if let Some(kind) = primitive(node).map(str::to_owned)
            && node.get("type").is_some_and(Value::is_array)
        {
            node.insert("type".to_owned(), Value::String(kind));
        }
    }
}

/// Removes every `x-mcp-header` annotation, for a schema that does not go
/// to an MCP client (a model provider's tool list).
pub(crate) fn strip(schema: &mut Value) {
    for path in annotated(schema) {
        if let Some(node) = property_mut(schema, &path) {
            node.remove(KEYWORD);
        }
    }
}

/// The paths of property names from the root to each annotated property
/// on the `properties` chain.
fn annotated(schema: &Value) -> Vec<Vec<String>> {
    let mut found = Vec::new();
    walk(schema, &mut |node, path, _| {
        if let Some(path) = path
            && !path.is_empty()
            && node.contains_key(KEYWORD)
        {
            found.push(path.to_vec());
        }
    });
    found
}

fn property_mut<'a>(schema: &'a mut Value, path: &[String]) -> Option<&'a mut Map<String, Value>> {
    let mut node = schema;
    for name in path {
        node = node.get_mut("properties")?.get_mut(name)?;
    }
    node.as_object_mut()
}

/// Keywords whose value is a map from names to schemas.
const SCHEMA_MAPS: &[&str] = &[
    "$defs",
    "definitions",
    "patternProperties",
    "dependentSchemas",
    "dependencies",
];

/// Keywords whose value is data, not schemas.
const DATA: &[&str] = &[
    "default",
    "const",
    "enum",
    "examples",
    "required",
    "dependentRequired",
];

/// Visits every schema in `schema` with its path of `properties` names from
/// the root (`None` once off that chain) and its JSON Pointer; depth-first,
/// at most [`MAX_DEPTH`] deep, without recursion.
/// What [`walk`] calls with each schema, its path of `properties` names
/// (`None` off that chain) and its JSON Pointer.
type Visit<'a> = dyn FnMut(&Map<String, Value>, Option<&[String]>, &str) + 'a;

fn walk(schema: &Value, visit: &mut Visit<'_>) {
    let mut stack: Vec<(&Value, Option<Vec<String>>, String, usize)> =
        vec![(schema, Some(Vec::new()), String::new(), 0)];
    while let Some((node, path, pointer, depth)) = stack.pop() {
        let Value::Object(map) = node else { continue };
        visit(map, path.as_deref(), &pointer);
        if depth >= MAX_DEPTH {
            continue;
        }
        let at = |key: &str| format!("{pointer}/{}", crate::value::schema::pointer::escape(key));
        for (key, value) in map.iter().rev() {
            if DATA.contains(&key.as_str()) {
                continue;
            }
            let here = at(key);
            if key == "properties" || SCHEMA_MAPS.contains(&key.as_str()) {
                let Value::Object(children) = value else {
                    continue;
                };
                for (name, child) in children.iter().rev() {
                    let path = (key == "properties")
                        .then_some(path.as_ref())
                        .flatten()
                        .map(|path| [path.as_slice(), std::slice::from_ref(name)].concat());
                    let pointer = format!("{here}/{}", crate::value::schema::pointer::escape(name));
                    stack.push((child, path, pointer, depth + 1));
                }
                continue;
            }
            match value {
                Value::Object(_) => stack.push((value, None, here, depth + 1)),
                Value::Array(items) => {
                    for (index, item) in items.iter().enumerate().rev() {
                        stack.push((item, None, format!("{here}/{index}"), depth + 1));
                    }
                }
                _ => {}
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn good_annotations_pass_and_are_found() {
        let schema = json!({
            "type": "object",
            "properties": {
                "region": { "type": "string", "x-mcp-header": "Region" },
                "tenant": { "type": ["integer", "null"], "x-mcp-header": "Tenant-Id" },
                "dry": { "type": "boolean", "x-mcp-header": "Dry" },
                "plain": { "type": "string" }
            }
        });
        assert_eq!(problems(&schema), []);
        let mut found = annotated(&schema);
        found.sort();
        assert_eq!(found, [["dry"], ["region"], ["tenant"]]);
    }

    #[test]
    fn every_broken_rule_is_named() {
        let schema = json!({
            "type": "object",
            "x-mcp-header": "Root",
            "properties": {
                "a": { "type": "string", "x-mcp-header": "Same" },
                "b": { "type": "string", "x-mcp-header": "SAME" },
                "c": { "type": "number", "x-mcp-header": "Ratio" },
                "d": { "type": "string", "x-mcp-header": "two words" },
                "e": { "type": "array", "items": { "type": "string", "x-mcp-header": "Item" } },
                "f": { "type": "string", "x-mcp-header": 7 }
            },
            "$defs": { "X": { "type": "string", "x-mcp-header": "Def" } }
        });
        let mut problems: Vec<String> = problems(&schema).iter().map(ToString::to_string).collect();
        problems.sort();
        let not_token = format!(
            "`two words` (the header of `d`) is not an HTTP header name: use {}",
            crate::value::names::HEADER_NAME_RULE
        );
        let mut expected = [
            "`x-mcp-header` is on the schema's root: put it on a property",
            "the header `SAME` of `b` is also the header of `a` (names are compared ignoring case): give each its own",
            "`c` has a header but is of type \"number\": a header carries a string, an integer or a boolean (`number` is not permitted, a float has no one text form)",
            not_token.as_str(),
            "`x-mcp-header` at /properties/e/items is not on a property reached from the root through `properties` alone",
            "the `x-mcp-header` of `f` is not a string",
            "`x-mcp-header` at /$defs/X is not on a property reached from the root through `properties` alone",
        ];
        expected.sort();
        assert_eq!(problems, expected);
    }

    #[test]
    fn integers_are_clamped_to_the_safe_range_and_options_get_one_type() {
        let mut schema = json!({
            "type": "object",
            "properties": {
                "count": { "type": ["integer", "null"], "minimum": 0, "x-mcp-header": "Count" },
                "big": { "type": "integer", "maximum": 1e300, "x-mcp-header": "Big" },
                "name": { "type": ["string", "null"], "x-mcp-header": "Name" }
            }
        });
        clamp_integers(&mut schema);
        assert_eq!(schema["properties"]["count"]["minimum"], 0);
        assert_eq!(schema["properties"]["count"]["maximum"], MAX_SAFE_INTEGER);
        assert_eq!(schema["properties"]["big"]["maximum"], MAX_SAFE_INTEGER);
        assert_eq!(schema["properties"]["big"]["minimum"], -MAX_SAFE_INTEGER);
        single_types(&mut schema);
        assert_eq!(schema["properties"]["count"]["type"], "integer");
        assert_eq!(schema["properties"]["name"]["type"], "string");
        strip(&mut schema);
        assert!(annotated(&schema).is_empty());
    }

    #[test]
    fn a_deep_schema_ends_the_walk() {
        let mut schema = json!({ "type": "string", "x-mcp-header": "Deep" });
        for _ in 0..200 {
            schema = json!({ "items": schema });
        }
        assert_eq!(problems(&schema), []);
    }
}
