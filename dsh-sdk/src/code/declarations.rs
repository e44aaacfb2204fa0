//! The API a model's program is written against: TypeScript declarations
//! of every tool a caller may call, typed from the tools' schemas.
//!
//! Arguments come from the input schema, the value of a successful call
//! from the output schema, and a failed call's shape from the failure
//! schema, so the program checks `ok` and reads typed fields instead of
//! guessing the shape of text. Descriptions become doc comments. The text
//! depends on nothing but the tools (sorted by name, properties in schema
//! order), so the same pool gives the same bytes: the prompt cache holds.

use std::fmt::Write as _;

use serde_json::{Map, Value};

use crate::registry::CallerView;
use crate::tool::ToolInfo;
use crate::value::result::Cause;

/// How deep a schema is followed before its type is written `unknown`: a
/// hostile or recursive schema cannot make the declarations grow without
/// bound.
const MAX_DEPTH: usize = 12;

/// The TypeScript declarations of the tools `view`'s caller may call,
/// leaving out the tools named in `skip` (the code tool itself).
///
/// ```
/// use dsh_kit::prelude::*;
/// use dsh_kit::Registry;
///
/// /// Count the words of a text.
/// #[tool(read_only)]
/// async fn count_words(
///     /// The text to count
///     text: String,
/// ) -> usize {
///     text.split_whitespace().count()
/// }
///
/// let registry = Registry::new();
/// registry.register::<count_words>().unwrap().keep();
/// let api = dsh_kit::code::declarations(registry.host(), &[]);
/// assert!(api.contains("count_words(args: {\n    /** The text to count */\n    text: string;\n  }): Result<number>;"));
/// ```
pub fn declarations(view: &CallerView, skip: &[&str]) -> String {
    let mut tools = view.tools();
    tools.retain(|tool| !skip.contains(&tool.name()));
    tools.sort_by(|a, b| a.name().cmp(b.name()));
    let mut out = String::from(PRELUDE);
    out.push_str(&causes());
    out.push_str("\n/** The tools: each call runs as the caller, with its permissions. */\n");
    out.push_str("declare const tools: {\n");
    for tool in &tools {
        declare_tool(&mut out, tool);
    }
    out.push_str("};\n");
    out
}

/// What every program reads before the tools: the result union, the
/// console, and how a program returns.
const PRELUDE: &str = "\
// The program is the body of an async function: `return` its result
// (any JSON value). Each tool call returns its outcome at once (`await` is
// allowed, not needed). `console.log` lines come back with the result.
// There is no I/O, clock or randomness: only the tools.

/** A call that ran and returned a value matching the tool's output schema. */
type Ok<T> = { ok: true; value: T };
/** A call that failed: why, and a message saying what went wrong. */
type Failed = { ok: false; cause: Cause; message: string; kind?: string; data?: unknown };
/** The outcome of a tool call: check `ok` before reading `value`. */
type Result<T, F = Failed> = Ok<T> | F;
declare const console: { log(...values: unknown[]): void };
";

/// The `Cause` union, one member per cause.
fn causes() -> String {
    let members: Vec<String> = Cause::ALL
        .iter()
        .map(|cause| format!("{:?}", cause.name()))
        .collect();
    format!(
        "/** Why a call failed; `tool`: the tool's own failure (`kind` and `data` say which). */\ntype Cause = {};\n",
        members.join(" | ")
    )
}

/// One tool's method: doc comment, argument type, result type.
fn declare_tool(out: &mut String, tool: &ToolInfo) {
    let def = tool.definition();
    doc_comment(out, def.description(), 1);
    let input = tool.input_schema();
    let args = Writer::new(input).type_of(input, 1);
    let output = tool.output_schema();
    let value = Writer::new(output).type_of(output, 1);
    let failed = tool.failure_schema().map(|schema| failure_type(schema, 1));
    let result = match failed {
        Some(failed) => format!("Result<{value}, {failed}>"),
        None => format!("Result<{value}>"),
    };
    let _ = writeln!(
        out,
        "  {}(args: {args}): {result};",
        property_name(tool.name())
    );
}

/// The failed outcome of a tool with declared failures: a failure of the
/// tool itself carries one of the declared `{kind, data}` shapes (an error
/// enum's variants) or the declared data; any other cause carries neither.
fn failure_type(schema: &Value, indent: usize) -> String {
    let writer = Writer::new(schema);
    let enum_shaped = schema
        .get("oneOf")
        .and_then(Value::as_array)
        .is_some_and(|branches| {
            branches
                .iter()
                .all(|branch| branch.pointer("/properties/kind/const").is_some())
        });
    let declared = if enum_shaped {
        writer.type_of(schema, indent)
    } else {
        format!("{{ data: {} }}", writer.type_of(schema, indent))
    };
    format!(
        "{{ ok: false; cause: \"tool\"; message: string }} & ({declared}) | {{ ok: false; cause: Exclude<Cause, \"tool\">; message: string }}"
    )
}

/// A `/** … */` comment at `indent` levels, or nothing for an empty text.
fn doc_comment(out: &mut String, text: &str, indent: usize) {
    let text = text.trim();
    if text.is_empty() {
        return;
    }
    let pad = "  ".repeat(indent);
    // `*/` inside the text would end the comment early.
    let text = text.replace("*/", "*\\/");
    let lines: Vec<&str> = text.lines().collect();
    if let [line] = lines.as_slice() {
        let _ = writeln!(out, "{pad}/** {line} */");
        return;
    }
    let _ = writeln!(out, "{pad}/**");
    for line in lines {
        let line = line.trim_end();
        if line.is_empty() {
            let _ = writeln!(out, "{pad} *");
        } else {
            let _ = writeln!(out, "{pad} * {line}");
        }
    }
    let _ = writeln!(out, "{pad} */");
}

/// A property name as TypeScript reads it: bare when it is an identifier,
/// else a string literal.
fn property_name(name: &str) -> String {
    let mut chars = name.chars();
    let identifier = chars
        .next()
        .is_some_and(|first| first.is_ascii_alphabetic() || first == '_' || first == '$')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$');
    if identifier {
        name.to_owned()
    } else {
        Value::String(name.to_owned()).to_string()
    }
}

/// Writes the TypeScript type of a JSON Schema, resolving local `$ref`s
/// against the schema it came from.
struct Writer<'a> {
    root: &'a Value,
}

impl<'a> Writer<'a> {
    fn new(root: &'a Value) -> Self {
        Writer { root }
    }

    /// The type of `schema`, its object members indented `indent` levels.
    fn type_of(&self, schema: &Value, indent: usize) -> String {
        self.type_at(schema, indent, 0, &mut Vec::new())
    }

    fn type_at<'s>(
        &'s self,
        schema: &'s Value,
        indent: usize,
        depth: usize,
        refs: &mut Vec<&'s str>,
    ) -> String {
        if depth > MAX_DEPTH {
            return "unknown".into();
        }
        let object = match schema {
            Value::Bool(true) => return "unknown".into(),
            Value::Bool(false) => return "never".into(),
            Value::Object(object) => object,
            _ => return "unknown".into(),
        };
        if let Some(reference) = object.get("$ref").and_then(Value::as_str) {
            // A type that refers to itself is written `unknown` where it
            // recurs: the declarations stay finite.
            if refs.contains(&reference) {
                return "unknown".into();
            }
            let Some(target) = self.resolve(reference) else {
                return "unknown".into();
            };
            refs.push(reference);
            let written = self.type_at(target, indent, depth + 1, refs);
            refs.pop();
            return written;
        }
        if let Some(constant) = object.get("const") {
            return literal(constant);
        }
        if let Some(Value::Array(values)) = object.get("enum") {
            return union(values.iter().map(literal).collect());
        }
        for key in ["anyOf", "oneOf"] {
            if let Some(Value::Array(branches)) = object.get(key) {
                let parts = branches
                    .iter()
                    .map(|branch| self.type_at(branch, indent, depth + 1, refs))
                    .collect();
                return union(parts);
            }
        }
        if let Some(Value::Array(parts)) = object.get("allOf") {
            let parts: Vec<String> = parts
                .iter()
                .map(|part| format!("({})", self.type_at(part, indent, depth + 1, refs)))
                .collect();
            return if parts.is_empty() {
                "unknown".into()
            } else {
                parts.join(" & ")
            };
        }
        match object.get("type") {
            Some(Value::String(kind)) => self.of_kind(object, kind, indent, depth, refs),
            Some(Value::Array(kinds)) => union(
                kinds
                    .iter()
                    .filter_map(Value::as_str)
                    .map(|kind| self.of_kind(object, kind, indent, depth, refs))
                    .collect(),
            ),
            _ if object.contains_key("properties") => self.object(object, indent, depth, refs),
            _ => "unknown".into(),
        }
    }

    /// The type of one JSON type name, with the keywords of `object` that apply to it.
    fn of_kind<'s>(
        &'s self,
        object: &'s Map<String, Value>,
        kind: &str,
        indent: usize,
        depth: usize,
        refs: &mut Vec<&'s str>,
    ) -> String {
        match kind {
            "string" => "string".into(),
            "number" | "integer" => "number".into(),
            "boolean" => "boolean".into(),
            "null" => "null".into(),
            "array" => self.array(object, indent, depth, refs),
            "object" => self.object(object, indent, depth, refs),
            _ => "unknown".into(),
        }
    }

    fn array<'s>(
        &'s self,
        object: &'s Map<String, Value>,
        indent: usize,
        depth: usize,
        refs: &mut Vec<&'s str>,
    ) -> String {
        if let Some(Value::Array(items)) = object.get("prefixItems") {
            let items: Vec<String> = items
                .iter()
                .map(|item| self.type_at(item, indent, depth + 1, refs))
                .collect();
            return format!("[{}]", items.join(", "));
        }
        let item = object.get("items").map_or_else(
            || "unknown".into(),
            |items| self.type_at(items, indent, depth + 1, refs),
        );
        if item.contains(' ') || item.contains('\n') {
            format!("({item})[]")
        } else {
            format!("{item}[]")
        }
    }

    fn object<'s>(
        &'s self,
        object: &'s Map<String, Value>,
        indent: usize,
        depth: usize,
        refs: &mut Vec<&'s str>,
    ) -> String {
        let properties = object.get("properties").and_then(Value::as_object);
        let extra = match object.get("additionalProperties") {
            Some(Value::Bool(false)) => None,
            Some(schema @ Value::Object(_)) => {
                Some(self.type_at(schema, indent + 1, depth + 1, refs))
            }
            // Absent or `true`: any further property, when no property is named.
            _ => properties
                .is_none_or(Map::is_empty)
                .then(|| "unknown".to_owned()),
        };
        let required: Vec<&str> = object
            .get("required")
            .and_then(Value::as_array)
            .map(|names| names.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let Some(properties) = properties.filter(|properties| !properties.is_empty()) else {
            return match extra {
                Some(extra) => format!("{{ [key: string]: {extra} }}"),
                None => "{}".into(),
            };
        };
        let pad = "  ".repeat(indent + 1);
        let mut out = String::from("{\n");
        for (name, schema) in properties {
            if let Some(description) = schema.get("description").and_then(Value::as_str) {
                doc_comment(&mut out, description, indent + 1);
            }
            let optional = if required.contains(&name.as_str()) {
                ""
            } else {
                "?"
            };
            let written = self.type_at(schema, indent + 1, depth + 1, refs);
            let _ = writeln!(out, "{pad}{}{optional}: {written};", property_name(name));
        }
        if let Some(extra) = extra {
            let _ = writeln!(out, "{pad}[key: string]: {extra};");
        }
        out.push_str(&"  ".repeat(indent));
        out.push('}');
        out
    }

    /// The schema a local reference (`#/$defs/Name`) points at.
    fn resolve(&self, reference: &str) -> Option<&'a Value> {
        let pointer = reference.strip_prefix('#')?;
        self.root.pointer(pointer)
    }
}

/// A JSON value as a TypeScript literal type (JSON is valid TypeScript).
fn literal(value: &Value) -> String {
    match value {
        Value::Object(_) | Value::Array(_) => "unknown".into(),
        scalar => scalar.to_string(),
    }
}

/// `a | b | c`, with duplicates dropped; `never` for no member.
fn union(parts: Vec<String>) -> String {
    let mut unique: Vec<String> = Vec::with_capacity(parts.len());
    for part in parts {
        if !unique.contains(&part) {
            unique.push(part);
        }
    }
    match unique.len() {
        0 => "never".into(),
        1 => unique.remove(0),
        _ => unique.join(" | "),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_recursive_schema_is_written_finitely() {
        let schema = json!({
            "$defs": { "Node": { "type": "object", "properties": {
                "next": { "$ref": "#/$defs/Node" } }, "required": ["next"] } },
            "$ref": "#/$defs/Node"
        });
        assert_eq!(
            Writer::new(&schema).type_of(&schema, 0),
            "{\n  next: unknown;\n}"
        );
    }

    #[test]
    fn nullable_enums_tuples_and_maps_have_their_typescript_types() {
        let schema = json!({ "type": "object", "properties": {
            "mode": { "enum": ["a", "b"] },
            "name": { "type": ["string", "null"] },
            "pair": { "type": "array", "prefixItems": [{ "type": "integer" }, { "type": "string" }] },
            "tags": { "type": "object", "additionalProperties": { "type": "number" } },
            "z key": { "type": "array", "items": { "anyOf": [{ "type": "string" }, { "type": "null" }] } }
        }, "required": ["mode"], "additionalProperties": false });
        assert_eq!(
            Writer::new(&schema).type_of(&schema, 0),
            "{\n  mode: \"a\" | \"b\";\n  name?: string | null;\n  pair?: [number, string];\n  tags?: { [key: string]: number };\n  \"z key\"?: (string | null)[];\n}"
        );
    }

    #[test]
    fn a_comment_end_in_a_description_cannot_end_the_doc_comment() {
        let mut out = String::new();
        doc_comment(&mut out, "ends */ here", 0);
        assert_eq!(out, "/** ends *\\/ here */\n");
    }
}
