//! What the model sees: the tool list, in each provider's format.
//!
//! Every export lists the tools sorted by name with object keys in a fixed
//! order, so the same tools give byte-identical output whatever the order they
//! were registered in (a stable prompt prefix keeps the prompt cache warm).

use serde_json::{Map, Value, json};

use crate::registry::{Registry, ToolInfo};

/// A provider's tool-list format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Format {
    /// Anthropic Messages API: `{"name", "description", "input_schema"}`.
    Anthropic,
    /// OpenAI Chat Completions: `{"type": "function", "function": {"name", "description", "parameters"}}`.
    OpenAi,
    /// MCP `tools/list`: `{"name", "title"?, "description", "inputSchema", "outputSchema", "annotations"}`.
    Mcp,
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
        Value::Array(
            self.tools()
                .iter()
                .map(|tool| export_tool(tool, format))
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
            "input_schema": tool.input_schema(),
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
            object.insert("outputSchema".into(), tool.output_schema().clone());
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
