//! OpenAI Responses (`POST /v1/responses`).
//!
//! [`Turn::text`] is every `output_text` of the response's messages. Calls
//! are read, in output order, from its `output[]` items of type
//! `function_call`: `{id, call_id, name, arguments}`, `arguments` a string of
//! JSON. Each result goes back as a `{"type": "function_call_output",
//! "call_id", "output"}` item:
//! `output` is the text, or, when the result holds an image, an array of
//! `input_text` and `input_image` parts (the image as a `data:` URL; PNG,
//! JPEG, WebP and GIF, the types OpenAI takes, others described in text). The
//! item has no error flag, so a failed result's text starts with `Error: `.
//!
//! The next request's `input` is the conversation so far, then the
//! response's own output items ([`Turn::items`], reasoning items included,
//! as the API expects them back), then the step's reply.
//!
//! [`tools`] lists the registry's tools in the Responses shape, which is flat
//! (`{"type": "function", "name", …}`), and can defer tools to OpenAI's own
//! tool search.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{Call, CallFields, ModelTurn, Part, Read, ResponseError, WireFormat};
use crate::export::{Deferred, Format, export_tool};
use crate::registry::CallerView;
use crate::value::result::ToolResult;

/// Why an image of another type is described instead.
const NOT_SHOWN: &str = "OpenAI takes PNG, JPEG, WebP and GIF images only";
/// The image media types OpenAI takes as input.
const IMAGE_TYPES: [&str; 4] = ["image/png", "image/jpeg", "image/webp", "image/gif"];

/// The model's turn read from a Responses response.
#[derive(Clone, Debug, PartialEq)]
pub struct Turn {
    /// What the model wrote, if anything: the `output_text` of its messages.
    pub text: Option<String>,
    /// The tool calls, in the order the model made them.
    pub calls: Vec<Call>,
    /// The response's output items, to append to the next request's `input`
    /// before the reply; a `function_call` that had no `call_id` carries the
    /// one made up for it.
    pub items: Vec<Value>,
}

impl ModelTurn for Turn {
    type Reply = Vec<FunctionCallOutput>;

    const FORMAT: WireFormat = WireFormat::Responses;

    /// Reads a Responses response.
    fn parse(response: &Value) -> Result<Turn, ResponseError> {
        let response: wire::Response = super::from_value(Self::FORMAT, response)?;
        let read = super::read_items(response.output.0, |index, kind, item| match kind {
            "function_call" => {
                // A call of the wrong shape is still a call: answered with an error.
                let fields = CallFields::read(item, "call_id", "arguments");
                let call = Call::from_text(fields.name, &super::arguments_text(fields.arguments));
                let made_up = format!("call_missing_id_{index}");
                Read::Call(call.identified_in(item, "call_id", fields.id, made_up))
            }
            "message" => {
                let message: wire::Message =
                    super::from_value(Self::FORMAT, item).unwrap_or_default();
                Read::Text(
                    message
                        .content
                        .0
                        .into_iter()
                        .filter(|part| part.kind == "output_text")
                        .filter_map(|part| part.text)
                        .collect(),
                )
            }
            _ => Read::Nothing,
        });
        Ok(Turn {
            text: read.text,
            calls: read.calls,
            items: read.items,
        })
    }

    fn calls(&self) -> &[Call] {
        &self.calls
    }

    /// The `function_call_output` items for `results`, one per call, in call order.
    fn reply(&self, results: &[ToolResult]) -> Vec<FunctionCallOutput> {
        super::paired(&self.calls, results)
            .map(|(call, result)| FunctionCallOutput {
                call_id: call.id.clone(),
                output: output(&result),
            })
            .collect()
    }
}

fn output(result: &ToolResult) -> Output {
    let parts: Vec<Part> = result
        .content()
        .iter()
        .map(|block| super::part(block, &IMAGE_TYPES, NOT_SHOWN))
        .collect();
    if !parts.iter().any(|part| matches!(part, Part::Image { .. })) {
        return Output::Text(super::text_only(result, NOT_SHOWN));
    }
    let error = result.is_error().then(|| InputContent::InputText {
        text: "Error:".into(),
    });
    let parts = parts.into_iter().map(|part| match part {
        Part::Image { mime_type, data } => InputContent::InputImage {
            image_url: format!("data:{mime_type};base64,{data}"),
            detail: ImageDetail::Auto,
        },
        Part::Text(text) => InputContent::InputText { text },
    });
    let summary = super::failure_summary(result).map(|text| InputContent::InputText { text });
    Output::Content(error.into_iter().chain(parts).chain(summary).collect())
}

/// A function's result: `{"type": "function_call_output", "call_id", "output"}`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename = "function_call_output")]
pub struct FunctionCallOutput {
    /// The `call_id` of the call this answers.
    pub call_id: String,
    /// The result.
    pub output: Output,
}

/// A `function_call_output`'s `output`: text, or content parts.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Output {
    /// The result as text.
    Text(String),
    /// The result as text and image parts, in order.
    Content(Vec<InputContent>),
}

/// One part of an [`Output::Content`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum InputContent {
    /// Text.
    InputText {
        /// The text.
        text: String,
    },
    /// An image.
    InputImage {
        /// A URL, here a `data:` URL with the base64 bytes.
        image_url: String,
        /// The detail level the model sees it at.
        detail: ImageDetail,
    },
}

/// How much of an image's detail the model sees.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ImageDetail {
    /// The model picks.
    Auto,
    /// Low resolution.
    Low,
    /// High resolution.
    High,
}

/// A tool in a Responses request's `tools`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Tool {
    /// A function the model can call.
    Function(FunctionTool),
    /// OpenAI's own tool search over the functions with `defer_loading`.
    ToolSearch {},
}

/// A function tool: `{"type": "function", "name", "description", "parameters", "strict"}`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FunctionTool {
    /// The function's name.
    pub name: String,
    /// What it does.
    pub description: String,
    /// Its arguments' JSON Schema.
    pub parameters: Value,
    /// Strict mode; always written, as the Responses API turns it on when
    /// it is left out.
    pub strict: bool,
    /// Left out of the prompt until OpenAI's tool search loads it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub defer_loading: bool,
}

/// The tools `caller` may see, for a Responses request, in the order of
/// [`CallerView::export`] (a stable prefix), `strict` off. `caller` is a
/// [`CallerView`], or a [`Registry`](crate::Registry) for the host.
///
/// With [`Deferred::Native`], deferred tools are listed too, after the
/// others, sorted by name, each with `"defer_loading": true`, then
/// `{"type": "tool_search"}`; the built-in `tool_search` tool is left out, as
/// OpenAI's replaces it. With [`Deferred::BuiltIn`], deferred tools stay out
/// until the built-in tool search loads them.
///
/// ```
/// use dsh_kit::export::Deferred;
/// use dsh_kit::prelude::*;
/// use dsh_kit::Registry;
/// use dsh_kit::provider::openai_responses::tools;
///
/// /// Convert an amount between currencies.
/// #[tool(defer)]
/// async fn convert(amount: f64) -> f64 { amount }
///
/// let registry = Registry::new();
/// registry.register::<convert>().unwrap().keep();
/// assert_eq!(
///     serde_json::to_value(tools(&registry, Deferred::Native)).unwrap(),
///     json!([
///         {"type": "function", "name": "convert", "description": "Convert an amount between currencies.",
///          "parameters": {"type": "object", "properties": {"amount": {"type": "number"}},
///                         "required": ["amount"], "additionalProperties": false},
///          "strict": false, "defer_loading": true},
///         {"type": "tool_search"}
///     ])
/// );
/// ```
pub fn tools(caller: impl AsRef<CallerView>, deferred: Deferred) -> Vec<Tool> {
    let caller = caller.as_ref();
    let (listed, deferred_tools) = match deferred {
        Deferred::BuiltIn => (caller.visible_tools(), Vec::new()),
        Deferred::Native => caller.split_deferred(),
    };
    let mut tools: Vec<Tool> = listed
        .iter()
        .map(|tool| Tool::Function(function_tool(tool, false)))
        .collect();
    if !deferred_tools.is_empty() {
        tools.extend(
            deferred_tools
                .iter()
                .map(|tool| Tool::Function(function_tool(tool, true))),
        );
        tools.push(Tool::ToolSearch {});
    }
    tools
}

fn function_tool(tool: &crate::tool::ToolInfo, defer_loading: bool) -> FunctionTool {
    let exported = export_tool(tool, Format::OpenAi);
    FunctionTool {
        name: tool.name().to_owned(),
        description: tool.definition().description().to_owned(),
        parameters: exported["function"]["parameters"].clone(),
        strict: false,
        defer_loading,
    }
}

/// The response, as far as tool calling reads it; unknown fields are ignored.
mod wire {
    use super::super::List;
    use serde::Deserialize;
    use serde_json::Value;

    #[derive(Deserialize)]
    pub(super) struct Response {
        pub(super) output: List<Value>,
    }

    #[derive(Default, Deserialize)]
    pub(super) struct Message {
        pub(super) content: List<Part>,
    }

    #[derive(Deserialize)]
    pub(super) struct Part {
        #[serde(rename = "type", default)]
        pub(super) kind: String,
        pub(super) text: Option<String>,
    }
}
