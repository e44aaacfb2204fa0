//! Each [`Format`](super::Format)'s tool shape as a serde type, and the fn
//! that fills it from a tool: what [`export_tool`](super::export_tool)
//! dispatches to.

use serde::Serialize;
use serde_json::Value;

use super::{lower, mcp_formats, model_description, standard_formats};
use crate::tool::{Icon, TaskSupport, ToolInfo};
use crate::value::schema::header;

/// An Anthropic Messages tool: `{"name", "description", "input_schema",
/// "input_examples"?, "strict"?}`.
#[derive(Serialize)]
struct AnthropicTool<'a> {
    name: &'a str,
    description: String,
    input_schema: Value,
    /// The tool's example calls, each an arguments object.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    input_examples: Vec<Value>,
    /// Strict tool use; written only when on.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    strict: bool,
}

/// [`Format::Anthropic`](super::Format::Anthropic).
pub(super) fn anthropic(tool: &ToolInfo) -> Value {
    let input = model_input(tool);
    to_json(AnthropicTool {
        name: tool.definition().name(),
        description: model_description(tool),
        input_schema: lower::anthropic(&input).schema,
        input_examples: tool.definition().example_values(),
        strict: false,
    })
}

/// [`Format::AnthropicStrict`](super::Format::AnthropicStrict): the plain
/// [`anthropic`] shape when lowering blocks strict mode.
pub(super) fn anthropic_strict(tool: &ToolInfo) -> Value {
    let lowered = lower::anthropic_strict(&model_input(tool));
    if !lowered.strict_usable() {
        return anthropic(tool);
    }
    to_json(AnthropicTool {
        name: tool.definition().name(),
        description: model_description(tool),
        input_schema: lowered.schema,
        input_examples: tool.definition().example_values(),
        strict: true,
    })
}

/// An OpenAI Chat Completions tool: `{"type": "function", "function": …}`.
#[derive(Serialize)]
#[serde(tag = "type", rename = "function")]
struct OpenAiTool<'a> {
    function: OpenAiFunction<'a>,
}

/// `{"name", "description", "parameters", "strict"?}`.
#[derive(Serialize)]
struct OpenAiFunction<'a> {
    name: &'a str,
    description: String,
    parameters: Value,
    /// Written, on or off, by the strict-mode export only.
    #[serde(skip_serializing_if = "Option::is_none")]
    strict: Option<bool>,
}

/// [`Format::OpenAi`](super::Format::OpenAi).
pub(super) fn openai(tool: &ToolInfo) -> Value {
    to_json(OpenAiTool {
        function: OpenAiFunction {
            name: tool.definition().name(),
            description: model_description(tool),
            parameters: model_input(tool),
            strict: None,
        },
    })
}

/// [`Format::OpenAiStrict`](super::Format::OpenAiStrict): the parameters as
/// they are, `"strict": false`, when lowering blocks strict mode.
pub(super) fn openai_strict(tool: &ToolInfo) -> Value {
    let input = model_input(tool);
    let lowered = lower::openai_strict(&input);
    let (parameters, strict) = if lowered.strict_usable() {
        (lowered.schema, true)
    } else {
        (input, false)
    };
    to_json(OpenAiTool {
        function: OpenAiFunction {
            name: tool.definition().name(),
            description: model_description(tool),
            parameters,
            strict: Some(strict),
        },
    })
}

/// A Gemini function declaration with a JSON Schema:
/// `{"name", "description", "parametersJsonSchema"}`.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct GeminiDeclaration<'a> {
    name: &'a str,
    description: String,
    parameters_json_schema: Value,
}

/// [`Format::Gemini`](super::Format::Gemini).
pub(super) fn gemini(tool: &ToolInfo) -> Value {
    let input = model_input(tool);
    to_json(GeminiDeclaration {
        name: tool.definition().name(),
        description: model_description(tool),
        parameters_json_schema: lower::gemini(&input).schema,
    })
}

/// A Gemini function declaration with the OpenAPI 3.0 subset:
/// `{"name", "description", "parameters"}`.
#[derive(Serialize)]
struct GeminiOpenApiDeclaration<'a> {
    name: &'a str,
    description: String,
    parameters: Value,
}

/// [`Format::GeminiOpenApi`](super::Format::GeminiOpenApi): the `format`
/// values stay, as OpenAPI defines those JSON Schema does not.
pub(super) fn gemini_openapi(tool: &ToolInfo) -> Value {
    to_json(GeminiOpenApiDeclaration {
        name: tool.definition().name(),
        description: model_description(tool),
        parameters: lower::gemini_openapi(&without_headers(tool.input_schema().clone())).schema,
    })
}

/// An MCP `Tool`: `{"name", "title"?, "description", "icons"?, "inputSchema",
/// "outputSchema"?, "annotations", "execution"?, "_meta"?}`.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct McpTool<'a> {
    name: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    title: Option<&'a str>,
    description: String,
    #[serde(skip_serializing_if = "<[Icon]>::is_empty")]
    icons: &'a [Icon],
    input_schema: Value,
    #[serde(skip_serializing_if = "Option::is_none")]
    output_schema: Option<Value>,
    annotations: McpAnnotations<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    execution: Option<McpExecution>,
    #[serde(rename = "_meta", skip_serializing_if = "McpMeta::is_empty")]
    meta: McpMeta<'a>,
}

/// MCP's `ToolAnnotations`, as far as a definition fills them.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct McpAnnotations<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    title: Option<&'a str>,
    read_only_hint: bool,
    destructive_hint: bool,
    idempotent_hint: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    open_world_hint: Option<bool>,
}

/// MCP 2025-11-25's `execution`: whether calls may, or must, run as tasks.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct McpExecution {
    task_support: TaskSupport,
}

/// A tool's `_meta`: the keys are [`META_VERSION`](super::META_VERSION),
/// [`META_SCOPES`](super::META_SCOPES),
/// [`META_FAILURE_SCHEMA`](super::META_FAILURE_SCHEMA) and
/// [`META_INPUT_EXAMPLES`](super::META_INPUT_EXAMPLES), as a test holds.
#[derive(Serialize)]
struct McpMeta<'a> {
    #[serde(rename = "dsh/version", skip_serializing_if = "Option::is_none")]
    version: Option<&'a str>,
    #[serde(rename = "dsh/scopes", skip_serializing_if = "Vec::is_empty")]
    scopes: Vec<&'a str>,
    #[serde(rename = "dsh/failureSchema", skip_serializing_if = "Option::is_none")]
    failure_schema: Option<Value>,
    /// `[{"input": {…}}…]`, the shape of the Vercel AI SDK's `inputExamples`.
    #[serde(rename = "dsh/inputExamples", skip_serializing_if = "Vec::is_empty")]
    input_examples: Vec<InputExample>,
    /// The tool's own entries, whose keys never start `dsh/`.
    #[serde(flatten)]
    own: serde_json::Map<String, Value>,
}

/// One example call: `{"input": {…}}`.
#[derive(Serialize)]
struct InputExample {
    input: Value,
}

impl McpMeta<'_> {
    /// Whether there is nothing to write: `_meta` is then left out.
    fn is_empty(&self) -> bool {
        self.version.is_none()
            && self.scopes.is_empty()
            && self.failure_schema.is_none()
            && self.input_examples.is_empty()
            && self.own.is_empty()
    }
}

/// [`Format::Mcp`](super::Format::Mcp).
pub(super) fn mcp(tool: &ToolInfo) -> Value {
    let def = tool.definition();
    // MCP 2026-07-28 takes any JSON Schema 2020-12 as `outputSchema` and any
    // JSON value as `structuredContent`, so a string or an array output is
    // exported as it is, not wrapped in an object. The schema `true` (a
    // dynamic tool given none, a `Value` output) says nothing, and MCP wants
    // an object there: left out.
    let output_schema = (*tool.output_schema() != Value::Bool(true))
        .then(|| standard_formats(tool.output_schema()));
    to_json(McpTool {
        name: def.name(),
        title: def.title(),
        description: model_description(tool),
        icons: def.icons(),
        input_schema: mcp_input(tool),
        output_schema,
        annotations: McpAnnotations {
            title: def.title(),
            read_only_hint: def.read_only(),
            destructive_hint: def.destructive(),
            idempotent_hint: def.idempotent(),
            open_world_hint: def.open_world(),
        },
        execution: (def.task_support() != TaskSupport::Forbidden).then(|| McpExecution {
            task_support: def.task_support(),
        }),
        meta: McpMeta {
            version: def.version(),
            scopes: def.scopes().collect(),
            failure_schema: tool.failure_schema().map(standard_formats),
            input_examples: tool
                .definition()
                .example_values()
                .into_iter()
                .map(|input| InputExample { input })
                .collect(),
            own: def.meta().unwrap_or_default(),
        },
    })
}

/// The input schema a model provider gets: no `x-mcp-header`, which is
/// MCP's transport and nothing the model reads.
fn model_input(tool: &ToolInfo) -> Value {
    without_headers(standard_formats(tool.input_schema()))
}

fn without_headers(mut schema: Value) -> Value {
    header::strip(&mut schema);
    schema
}

/// The input schema an MCP client gets: its path arguments keep
/// `"format": "path"`, and a property mirrored into a header has one `type`
/// (an `Option` is an optional property, not a nullable one), as clients
/// drop a tool whose annotated property has a list of types.
fn mcp_input(tool: &ToolInfo) -> Value {
    let mut schema = mcp_formats(tool.input_schema());
    header::single_types(&mut schema);
    schema
}

/// `shape` as JSON. A shape's keys are all strings and its values plain
/// data, so serializing it cannot fail.
fn to_json(shape: impl Serialize) -> Value {
    serde_json::to_value(shape).expect("a tool's shape is JSON")
}

#[cfg(test)]
mod tests {
    use super::super::{META_FAILURE_SCHEMA, META_INPUT_EXAMPLES, META_SCOPES, META_VERSION};
    use super::*;

    #[test]
    fn meta_keys_are_the_published_ones() {
        let meta = to_json(McpMeta {
            version: Some("1.0.0"),
            scopes: vec!["files:write"],
            failure_schema: Some(Value::Bool(true)),
            input_examples: vec![InputExample {
                input: serde_json::json!({}),
            }],
            own: serde_json::Map::new(),
        });
        let keys: Vec<&str> = meta
            .as_object()
            .into_iter()
            .flat_map(|object| object.keys().map(String::as_str))
            .collect();
        let mut expected = [
            META_VERSION,
            META_SCOPES,
            META_FAILURE_SCHEMA,
            META_INPUT_EXAMPLES,
        ];
        expected.sort_unstable();
        assert_eq!(keys, expected);
    }
}
