//! What the model sees: the tool list, in each provider's format.
//!
//! Every export lists the tools sorted by name with object keys in a fixed
//! order, so the same tools give byte-identical output whatever the order they
//! were registered in (a stable prompt prefix keeps the prompt cache warm).

use serde_json::{Map, Value, json};

use crate::lower;
use crate::registry::{Registry, ToolInfo};

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
    /// [`Registry::compatibility`]) goes out as in [`Format::OpenAi`], with
    /// `"strict": false`.
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

impl Registry {
    /// The tool list in `format`, as a JSON array.
    ///
    /// ```
    /// use dsh_sdk::export::Format;
    /// use dsh_sdk::prelude::*;
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
    /// registry.register::<greet>().unwrap().keep();
    /// assert_eq!(
    ///     registry.export(Format::Anthropic),
    ///     json!([{
    ///         "name": "greet",
    ///         "description": "Greet someone by name.",
    ///         "input_schema": {
    ///             "type": "object",
    ///             "properties": { "name": { "type": "string", "description": "The name to greet" } },
    ///             "required": ["name"]
    ///         }
    ///     }])
    /// );
    /// ```
    pub fn export(&self, format: Format) -> Value {
        let tools = self.visible_tools();
        Value::Array(
            tools
                .iter()
                .zip(lower::formats_for(&tools, format))
                .map(|(tool, format)| export_tool(tool, format))
                .collect(),
        )
    }

    /// The tool list in `format`, as pretty-printed JSON.
    pub fn export_json(&self, format: Format) -> String {
        // Serializing a `Value` cannot fail: its keys are strings.
        serde_json::to_string_pretty(&self.export(format)).unwrap_or_default()
    }
}

/// One tool in `format`.
pub fn export_tool(tool: &ToolInfo, format: Format) -> Value {
    let def = tool.definition();
    match format {
        Format::Anthropic => json!({
            "name": def.name(),
            "description": def.description(),
            "input_schema": lower::anthropic(tool.input_schema()).schema,
        }),
        Format::AnthropicStrict => {
            let lowered = lower::anthropic_strict(tool.input_schema());
            if !lowered.strict_usable() {
                return export_tool(tool, Format::Anthropic);
            }
            json!({
                "name": def.name(),
                "description": def.description(),
                "input_schema": lowered.schema,
                "strict": true,
            })
        }
        Format::OpenAiStrict => {
            let lowered = lower::openai_strict(tool.input_schema());
            let (parameters, strict) = if lowered.strict_usable() {
                (lowered.schema, true)
            } else {
                (tool.input_schema().clone(), false)
            };
            json!({
                "type": "function",
                "function": {
                    "name": def.name(),
                    "description": def.description(),
                    "parameters": parameters,
                    "strict": strict,
                },
            })
        }
        Format::Gemini => json!({
            "name": def.name(),
            "description": def.description(),
            "parametersJsonSchema": lower::gemini(tool.input_schema()).schema,
        }),
        Format::GeminiOpenApi => json!({
            "name": def.name(),
            "description": def.description(),
            "parameters": lower::gemini_openapi(tool.input_schema()).schema,
        }),
        Format::OpenAi => json!({
            "type": "function",
            "function": {
                "name": def.name(),
                "description": def.description(),
                "parameters": tool.input_schema(),
            },
        }),
        Format::Mcp => {
            let mut object = Map::new();
            object.insert("name".into(), def.name().into());
            if let Some(title) = def.title_text() {
                object.insert("title".into(), title.into());
            }
            object.insert("description".into(), def.description().into());
            object.insert("inputSchema".into(), tool.input_schema().clone());
            // MCP 2026-07-28 takes any JSON Schema 2020-12 as `outputSchema`
            // and any JSON value as `structuredContent`, so a string or an
            // array output is exported as it is, not wrapped in an object.
            // The schema `true` (a dynamic tool given none, a `Value` output)
            // says nothing, and MCP wants an object there: left out.
            if *tool.output_schema() != Value::Bool(true) {
                object.insert("outputSchema".into(), tool.output_schema().clone());
            }
            let mut annotations = Map::new();
            if let Some(title) = def.title_text() {
                annotations.insert("title".into(), title.into());
            }
            annotations.insert("readOnlyHint".into(), def.is_read_only().into());
            annotations.insert("destructiveHint".into(), def.is_destructive().into());
            annotations.insert("idempotentHint".into(), def.is_idempotent().into());
            object.insert("annotations".into(), Value::Object(annotations));
            Value::Object(object)
        }
    }
}
