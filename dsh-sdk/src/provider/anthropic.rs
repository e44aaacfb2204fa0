//! Anthropic Messages (`POST /v1/messages`).
//!
//! [`Turn::text`] is the response's `text` blocks, joined. Calls are read,
//! in content order, from its `content[]` blocks of type `tool_use`:
//! `{id, name, input}`, `input` a JSON object, and its `caller` when the
//! model's code made the call (programmatic tool calling,
//! [`Call::caller`]). All results of a turn go back
//! in ONE `user` message of `tool_result` blocks, in call order: `{tool_use_id,
//! content, is_error}`, `content` text blocks and base64 image blocks (JPEG,
//! PNG, GIF and WebP, the media types Anthropic accepts; any other image, and
//! any image in a failed result, is described in text), `is_error: true` on a
//! failure.
//!
//! The next request's `messages` are the conversation so far, then
//! [`Turn::message`] (the response's content as it came, thinking blocks and
//! their signatures included), then the step's reply.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{Call, CallFields, CodeCaller, ModelTurn, Part, Read, ResponseError, WireFormat};
use crate::value::result::ToolResult;

/// The image media types a `tool_result` may carry.
const IMAGE_TYPES: [&str; 4] = ["image/jpeg", "image/png", "image/gif", "image/webp"];
/// Why an image of another type is described instead.
const NOT_SHOWN: &str = "Anthropic takes JPEG, PNG, GIF and WebP images only";

/// The model's turn read from a Messages response.
#[derive(Clone, Debug, PartialEq)]
pub struct Turn {
    /// What the model wrote, if anything: its `text` blocks, joined.
    pub text: Option<String>,
    /// The tool calls, in the order the model made them.
    pub calls: Vec<Call>,
    /// The assistant message to append before the reply.
    pub message: AssistantMessage,
    /// Why the model stopped (`end_turn`, `tool_use`, `max_tokens`, …).
    pub stop_reason: Option<String>,
}

impl ModelTurn for Turn {
    type Reply = UserMessage;

    const FORMAT: WireFormat = WireFormat::AnthropicMessages;

    /// Reads a Messages response.
    fn parse(response: &Value) -> Result<Turn, ResponseError> {
        let response: wire::Response = super::from_value(Self::FORMAT, response)?;
        let read = super::read_items(response.content.0, |index, kind, block| match kind {
            "tool_use" => {
                // A block of the wrong shape is still a call: answered with an error.
                let fields = CallFields::read(block, "id", "input");
                let mut call =
                    Call::from_value(fields.name, fields.arguments.unwrap_or(Value::Null));
                call.caller = code_caller(block);
                Read::Call(call.identified_in(
                    block,
                    "id",
                    fields.id,
                    format!("toolu_missing_id_{index}"),
                ))
            }
            "text" => Read::Text(
                block
                    .get("text")
                    .and_then(Value::as_str)
                    .map(str::to_owned)
                    .into_iter()
                    .collect(),
            ),
            _ => Read::Nothing,
        });
        Ok(Turn {
            text: read.text,
            calls: read.calls,
            message: AssistantMessage {
                content: read.items,
            },
            stop_reason: response.stop_reason,
        })
    }

    fn calls(&self) -> &[Call] {
        &self.calls
    }

    /// The `user` message answering every call, one `tool_result` block per
    /// call, in call order.
    fn reply(&self, results: &[ToolResult]) -> UserMessage {
        UserMessage {
            content: super::paired(&self.calls, results)
                .map(|(call, result)| ToolResultBlock {
                    tool_use_id: call.id.clone(),
                    content: content(&result),
                    is_error: result.is_error(),
                })
                .collect(),
        }
    }
}

/// The code that made a `tool_use` call, from its `caller`: none for a
/// direct call (`{"type": "direct"}`, or no `caller` at all).
fn code_caller(block: &Value) -> Option<CodeCaller> {
    let caller = block.get("caller")?;
    let kind = caller.get("type").and_then(Value::as_str)?;
    if kind == "direct" {
        return None;
    }
    Some(CodeCaller {
        kind: kind.to_owned(),
        tool_id: caller
            .get("tool_id")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned(),
    })
}

fn content(result: &ToolResult) -> Vec<ResultContent> {
    let (shown, why) = super::shown_unless_failed(result, &IMAGE_TYPES, NOT_SHOWN);
    result
        .content()
        .iter()
        .filter_map(|block| match super::part(block, shown, why) {
            Part::Image { mime_type, data } => Some(ResultContent::Image {
                source: ImageSource {
                    media_type: mime_type.to_owned(),
                    data: data.to_owned(),
                },
            }),
            // Anthropic rejects empty text blocks; an empty result is no content.
            Part::Text(text) if text.is_empty() => None,
            Part::Text(text) => Some(ResultContent::Text { text }),
        })
        .chain(super::failure_summary(result).map(|text| ResultContent::Text { text }))
        .collect()
}

/// The model's turn as the next request carries it: `{"role": "assistant", "content"}`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "role", rename = "assistant")]
pub struct AssistantMessage {
    /// The response's content blocks, as they came (a `tool_use` block that
    /// had no id carries the one made up for it).
    pub content: Vec<Value>,
}

/// The results of one turn: `{"role": "user", "content": [tool_result…]}`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "role", rename = "user")]
pub struct UserMessage {
    /// One block per call, in call order.
    pub content: Vec<ToolResultBlock>,
}

/// One call's result: `{"type": "tool_result", "tool_use_id", "content", "is_error"}`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename = "tool_result")]
pub struct ToolResultBlock {
    /// The `id` of the `tool_use` block this answers.
    pub tool_use_id: String,
    /// Text and image blocks; left out when there is nothing to say.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub content: Vec<ResultContent>,
    /// Whether the call failed; written only when it did.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub is_error: bool,
}

/// A block of a `tool_result`'s content.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ResultContent {
    /// Text.
    Text {
        /// The text (never empty).
        text: String,
    },
    /// An image.
    Image {
        /// Where its bytes are.
        source: ImageSource,
    },
}

/// An image's bytes inline: `{"type": "base64", "media_type", "data"}`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename = "base64")]
pub struct ImageSource {
    /// `image/jpeg`, `image/png`, `image/gif` or `image/webp`.
    pub media_type: String,
    /// The bytes, base64-encoded.
    pub data: String,
}

/// The response, as far as tool calling reads it; unknown fields are ignored.
mod wire {
    use super::super::List;
    use serde::Deserialize;
    use serde_json::Value;

    #[derive(Deserialize)]
    pub(super) struct Response {
        pub(super) content: List<Value>,
        pub(super) stop_reason: Option<String>,
    }
}
