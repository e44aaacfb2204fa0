//! What the model sees: the tool list, in each provider's format.
//!
//! Every export lists the tools sorted by name with object keys in a fixed
//! order, so the same tools give byte-identical output whatever the order they
//! were registered in (a stable prompt prefix keeps the prompt cache warm).

pub mod digest;

use serde_json::Value;

mod compat;
mod formats;
pub mod lower;

use crate::tool::ToolInfo;
use crate::value::path::PATH_FORMAT;
pub(crate) use compat::formats_for;
pub use compat::{Compatibility, compatibility};

/// A provider's tool-list format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Format {
    /// Anthropic Messages API: `{"name", "description", "input_schema"}`.
    Anthropic,
    /// OpenAI Chat Completions: `{"type": "function", "function": {"name", "description", "parameters"}}`.
    OpenAi,
    /// MCP `tools/list`: `{"name", "title"?, "description", "inputSchema", "outputSchema"?, "annotations"}`.
    Mcp,
    /// OpenAI Chat Completions in strict mode: `{"type": "function", "function":
    /// {"name", "description", "parameters", "strict": true}}`, the parameters
    /// [lowered](lower::openai_strict). A tool whose lowering would keep the
    /// model from valid arguments (a map, a size limit; see
    /// [`Registry::compatibility`](crate::Registry::compatibility)) goes out as in [`Format::OpenAi`], with
    /// `"strict": false`.
    ///
    /// [`Registry::compatibility`]: crate::Registry::compatibility
    OpenAiStrict,
    /// Anthropic strict tool use: `{"name", "description", "input_schema",
    /// "strict": true}`, the schema [lowered](lower::anthropic_strict). A tool
    /// whose lowering blocks strict mode, or past Anthropic's per-request
    /// budget (20 strict tools, 24 optional and 16 union-typed parameters,
    /// counted in list order), goes out as in [`Format::Anthropic`].
    AnthropicStrict,
    /// Gemini function declarations with a JSON Schema: `{"name",
    /// "description", "parametersJsonSchema"}`, [lowered](lower::gemini). Wrap
    /// the list in `{"functionDeclarations": …}` to make a Gemini tool.
    Gemini,
    /// Gemini function declarations with the OpenAPI 3.0 subset: `{"name",
    /// "description", "parameters"}`, [lowered](lower::gemini_openapi).
    GeminiOpenApi,
}

/// `tools` in `format`, as a JSON array: what [`Registry::export`](crate::Registry::export)
/// sends for the tools the model sees.
///
/// ```
/// use dsh_kit::export::Format;
/// use dsh_kit::prelude::*;
/// use dsh_kit::Registry;
///
/// /// Greet someone by name.
/// #[tool]
/// async fn greet(
///     /// The name to greet
///     name: String,
/// ) -> String {
///     format!("Hello, {name}!")
/// }
///
/// let registry = Registry::new();
/// registry.register::<greet>().unwrap();
/// assert_eq!(
///     registry.export(Format::Anthropic),
///     json!([{
///         "name": "greet",
///         "description": "Greet someone by name.",
///         "input_schema": {
///             "type": "object",
///             "properties": { "name": { "type": "string", "description": "The name to greet" } },
///             "required": ["name"],
///             "additionalProperties": false
///         }
///     }])
/// );
/// ```
pub fn export_tools(tools: &[ToolInfo], format: Format) -> Value {
    Value::Array(
        tools
            .iter()
            .zip(formats_for(tools, format))
            .map(|(tool, format)| export_tool(tool, format))
            .collect(),
    )
}

/// One tool in `format`.
///
/// What goes out is derived from the canonical schemas, which validation
/// keeps as they are: the `format` values JSON Schema does not define
/// (`uint32`, `int64`, `double`, … that `schemars` writes for Rust's number
/// types) are left out, except where the dialect defines them (Gemini's
/// OpenAPI `parameters`, and MCP's input schema, which keeps `"format":
/// "path"` so a client knows the path arguments); a tool with declared failure shapes
/// ([`Tool::failure_schema`](crate::Tool::failure_schema)) names them in the
/// description the model reads, and MCP carries the schema itself, and the
/// tool's version and the scopes a caller needs, in `_meta`
/// (`dsh/failureSchema`, `dsh/version`, `dsh/scopes`).
pub fn export_tool(tool: &ToolInfo, format: Format) -> Value {
    match format {
        Format::Anthropic => formats::anthropic(tool),
        Format::AnthropicStrict => formats::anthropic_strict(tool),
        Format::OpenAi => formats::openai(tool),
        Format::OpenAiStrict => formats::openai_strict(tool),
        Format::Gemini => formats::gemini(tool),
        Format::GeminiOpenApi => formats::gemini_openapi(tool),
        Format::Mcp => formats::mcp(tool),
    }
}

/// How an export lists deferred tools.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Deferred {
    /// Left out until the built-in [`tool_search`](struct@crate::catalog::tool_search)
    /// (BM25) loads them, as [`Registry::export`](crate::Registry::export) does; works with every provider.
    #[default]
    BuiltIn,
    /// Listed with the provider's own `"defer_loading": true`, next to the
    /// provider's own tool search tool, where the provider has one: Anthropic
    /// ([`CallerView::export_with`](crate::CallerView::export_with)) and OpenAI Responses
    /// ([`openai_responses::tools`](crate::provider::openai_responses::tools)).
    /// Other formats fall back to [`Deferred::BuiltIn`].
    ///
    /// [`CallerView::export_with`]: crate::CallerView::export_with
    Native,
}

/// Anthropic's server-side tool search tool, BM25 variant (natural-language
/// queries, like the built-in one).
pub const ANTHROPIC_TOOL_SEARCH_TYPE: &str = "tool_search_tool_bm25_20251119";
/// The name Anthropic gives its BM25 tool search tool.
pub const ANTHROPIC_TOOL_SEARCH_NAME: &str = "tool_search_tool_bm25";

pub use crate::value::wire_keys::{
    META_FAILURE, META_FAILURE_SCHEMA, META_INPUT_EXAMPLES, META_SCOPES, META_VERSION,
};

/// The description the model reads: the tool's own, then a sentence for
/// each limit the tool declares that the pipeline enforces
/// (`Enforced::sentence`: its own, else the registry's), then, for a tool with declared failure shapes, a
/// sentence naming them. A proxied dsh tool's description says them
/// already, and does not get them twice.
fn model_description(tool: &ToolInfo) -> String {
    let mut description = tool.definition().description().trim_end().to_owned();
    let limits = tool.entry.enforced.sentence();
    let variants = tool
        .failure_schema()
        .map(failure_variants)
        .unwrap_or_default();
    let failures = (!variants.is_empty()).then(|| {
        let names: Vec<String> = variants.iter().map(|name| format!("`{name}`")).collect();
        format!(
            "When it fails, the failure is one of: {}.",
            names.join(", ")
        )
    });
    for sentence in [limits, failures].into_iter().flatten() {
        if !description.contains(&sentence) {
            description.push_str("\n\n");
            description.push_str(&sentence);
        }
    }
    description
}

/// The variant names a failure schema declares: the values of a string
/// `enum` or `const`, and the single property of an externally tagged
/// variant, through `oneOf`/`anyOf` and `$ref`s into `$defs`. In order, each once.
pub(crate) fn failure_variants(schema: &Value) -> Vec<String> {
    fn visit(schema: &Value, root: &Value, depth: usize, names: &mut Vec<String>) {
        let Value::Object(map) = schema else { return };
        if depth > 8 {
            return;
        }
        fn push(names: &mut Vec<String>, name: &str) {
            if !names.iter().any(|known| known == name) {
                names.push(name.to_owned());
            }
        }
        if let Some(Value::String(reference)) = map.get("$ref")
            && let Some(target) = reference
                .strip_prefix('#')
                .and_then(|pointer| root.pointer(pointer))
        {
            visit(target, root, depth + 1, names);
        }
        if let Some(Value::Array(values)) = map.get("enum") {
            for value in values.iter().filter_map(Value::as_str) {
                push(names, value);
            }
        }
        if let Some(Value::String(value)) = map.get("const") {
            push(names, value);
        }
        if let Some(Value::Object(properties)) = map.get("properties") {
            // Internally tagged: the property whose schema is one string.
            let tag = properties
                .values()
                .find_map(|property| match property.get("const") {
                    Some(Value::String(value)) => Some(value.as_str()),
                    _ => match property.get("enum") {
                        Some(Value::Array(values)) if values.len() == 1 => values[0].as_str(),
                        _ => None,
                    },
                });
            match tag {
                Some(tag) => push(names, tag),
                // Externally tagged: `{"NoMatchesFound": …}`, one required property.
                None if properties.len() == 1 => {
                    if let Some(name) = properties.keys().next() {
                        push(names, name);
                    }
                }
                None => {}
            }
        }
        for key in ["oneOf", "anyOf"] {
            if let Some(Value::Array(branches)) = map.get(key) {
                for branch in branches {
                    visit(branch, root, depth + 1, names);
                }
            }
        }
    }
    let mut names = Vec::new();
    visit(schema, schema, 0, &mut names);
    names
}

/// `schema` without the `format` values JSON Schema does not define.
fn standard_formats(schema: &Value) -> Value {
    restrict_formats(schema, &[])
}

/// `schema` as MCP carries it: the standard's `format` values, and `path`
/// ([`PATH_FORMAT`]), which is how an input schema declares its path
/// arguments, so a client (a dsh proxy among them) resolves and confines
/// them as this server does.
fn mcp_formats(schema: &Value) -> Value {
    restrict_formats(schema, &[PATH_FORMAT])
}

/// `schema` keeping only the standard's `format` values and `also`.
fn restrict_formats(schema: &Value, also: &[&'static str]) -> Value {
    let mut restricted = schemars::transform::RestrictFormats::default();
    // The exported schemas carry no `$schema`: name the standard's formats.
    restricted.infer_from_meta_schema = false;
    restricted.allowed_formats = STANDARD_FORMATS
        .iter()
        .chain(also)
        .map(|&format| format.into())
        .collect();
    match schemars::Schema::try_from(schema.clone()) {
        Ok(mut schema) => {
            schemars::transform::Transform::transform(&mut restricted, &mut schema);
            schema.to_value()
        }
        Err(_) => schema.clone(),
    }
}

/// The `format` values JSON Schema 2020-12 defines.
const STANDARD_FORMATS: &[&str] = &[
    "date-time",
    "date",
    "time",
    "duration",
    "email",
    "idn-email",
    "hostname",
    "idn-hostname",
    "ipv4",
    "ipv6",
    "uri",
    "uri-reference",
    "iri",
    "iri-reference",
    "uuid",
    "uri-template",
    "json-pointer",
    "relative-json-pointer",
    "regex",
];

#[cfg(test)]
mod tests {
    use schemars::{JsonSchema, schema_for};
    use serde::Serialize;
    use serde_json::json;

    use super::*;

    #[derive(Serialize, JsonSchema)]
    #[allow(dead_code)]
    enum External {
        Empty,
        Missing(String),
        Ambiguous { count: u32 },
    }

    #[derive(Serialize, JsonSchema)]
    #[serde(tag = "kind")]
    #[allow(dead_code)]
    enum Internal {
        Denied { reason: String },
        Gone,
    }

    #[test]
    fn failure_variants_are_read_from_every_tagging() {
        let names = |schema: schemars::Schema| failure_variants(&schema.to_value());
        assert_eq!(
            names(schema_for!(External)),
            ["Empty", "Missing", "Ambiguous"]
        );
        assert_eq!(names(schema_for!(Internal)), ["Denied", "Gone"]);
        assert!(names(schema_for!(String)).is_empty());
    }

    #[test]
    fn only_standard_formats_are_kept() {
        let schema = json!({
            "type": "object",
            "properties": {
                "n": { "type": "integer", "format": "uint32" },
                "at": { "type": "string", "format": "date-time" },
                "ratio": { "type": "number", "format": "double" }
            }
        });
        assert_eq!(
            standard_formats(&schema),
            json!({
                "type": "object",
                "properties": {
                    "n": { "type": "integer" },
                    "at": { "type": "string", "format": "date-time" },
                    "ratio": { "type": "number" }
                }
            })
        );
    }
}
