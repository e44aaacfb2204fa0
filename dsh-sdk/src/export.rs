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

/// How an export lists deferred tools.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Deferred {
    /// Left out until the built-in [`tool_search`](struct@crate::search::tool_search)
    /// (BM25) loads them, as [`Registry::export`] does; works with every provider.
    #[default]
    BuiltIn,
    /// Listed with the provider's own `"defer_loading": true`, next to the
    /// provider's own tool search tool, where the provider has one: Anthropic
    /// ([`Registry::export_with`]) and OpenAI Responses
    /// ([`openai_responses::tools`](crate::provider::openai_responses::tools)).
    /// Other formats fall back to [`Deferred::BuiltIn`].
    Native,
}

/// Anthropic's server-side tool search tool, BM25 variant (natural-language
/// queries, like the built-in one).
pub const ANTHROPIC_TOOL_SEARCH_TYPE: &str = "tool_search_tool_bm25_20251119";
/// The name Anthropic gives its BM25 tool search tool.
pub const ANTHROPIC_TOOL_SEARCH_NAME: &str = "tool_search_tool_bm25";

impl Registry {
    /// The tool list in `format`, deferred tools listed as `deferred` says.
    ///
    /// With [`Deferred::Native`] and an Anthropic format, the list is the
    /// tools that are not deferred, in pool order (the same stable prefix as
    /// [`Registry::export`]), then Anthropic's tool search tool
    /// ([`ANTHROPIC_TOOL_SEARCH_TYPE`]), then every deferred tool sorted by
    /// name with `"defer_loading": true`. The built-in `tool_search` tool is
    /// left out: Anthropic's replaces it. Tool search is in beta at Anthropic:
    /// send the `anthropic-beta: advanced-tool-use-2025-11-20` header with it.
    ///
    /// ```
    /// use dsh_sdk::export::{Deferred, Format};
    /// use dsh_sdk::prelude::*;
    ///
    /// /// Greet someone by name.
    /// #[tool]
    /// async fn greet(name: String) -> String { format!("Hello, {name}!") }
    ///
    /// /// Convert an amount between currencies.
    /// #[tool(defer)]
    /// async fn convert(amount: f64) -> f64 { amount }
    ///
    /// let registry = Registry::new();
    /// registry.register::<greet>().unwrap().keep();
    /// registry.register::<convert>().unwrap().keep();
    /// let tools = registry.export_with(Format::Anthropic, Deferred::Native);
    /// let names: Vec<&str> = tools.as_array().unwrap().iter()
    ///     .map(|tool| tool["name"].as_str().unwrap()).collect();
    /// assert_eq!(names, ["greet", "tool_search_tool_bm25", "convert"]);
    /// assert_eq!(tools[2]["defer_loading"], true);
    /// ```
    pub fn export_with(&self, format: Format, deferred: Deferred) -> Value {
        let native = matches!(format, Format::Anthropic | Format::AnthropicStrict);
        if deferred == Deferred::BuiltIn || !native {
            return self.export(format);
        }
        let (listed, deferred) = split_deferred(self);
        let mut tools: Vec<Value> = listed
            .iter()
            .zip(lower::formats_for(&listed, format))
            .map(|(tool, format)| export_tool(tool, format))
            .collect();
        if !deferred.is_empty() {
            tools.push(json!({
                "type": ANTHROPIC_TOOL_SEARCH_TYPE,
                "name": ANTHROPIC_TOOL_SEARCH_NAME,
            }));
            // Strict mode's budgets count the tools the model sees up front;
            // deferred tools go out plain.
            tools.extend(deferred.iter().map(|tool| {
                let mut exported = export_tool(tool, Format::Anthropic);
                if let Value::Object(object) = &mut exported {
                    object.insert("defer_loading".into(), Value::Bool(true));
                }
                exported
            }));
        }
        Value::Array(tools)
    }
}

/// The tools a provider's own tool search serves: the ones listed up front
/// (not deferred, or `always_load`), in pool order, without the built-in
/// `tool_search`; and the deferred ones, sorted by name.
pub(crate) fn split_deferred(registry: &Registry) -> (Vec<ToolInfo>, Vec<ToolInfo>) {
    let search = <crate::search::tool_search as crate::Tool>::DEFINITION;
    let (mut deferred, listed): (Vec<ToolInfo>, Vec<ToolInfo>) = registry
        .tools()
        .into_iter()
        .filter(|tool| tool.name() != search.name() || tool.is_dynamic())
        .partition(|tool| {
            let def = tool.definition();
            def.is_deferred() && !def.is_always_loaded()
        });
    deferred.sort_by(|a, b| a.name().cmp(b.name()));
    (listed, deferred)
}
