//! OpenAI Chat Completions (`POST /v1/chat/completions`), and the many
//! endpoints that speak it.
//!
//! Calls are read from `choices[0].message.tool_calls[]`: `{id, type:
//! "function", function: {name, arguments}}`, `arguments` a string of JSON.
//! Each result goes back as a `{"role": "tool", "tool_call_id", "content"}`
//! message. A tool message takes text only, so an image is described in text;
//! it has no error flag, so a failed result's text starts with `Error: `.
//!
//! ```
//! use dsh_kit::provider::ModelTurn;
//! use dsh_kit::provider::openai_chat::Turn;
//! use serde_json::json;
//!
//! let turn = Turn::parse(&json!({"choices": [{"message": {
//!     "role": "assistant", "content": "Done.", "tool_calls": []
//! }, "finish_reason": "stop"}]})).unwrap();
//! assert!(turn.is_final());
//! assert_eq!(turn.text.as_deref(), Some("Done."));
//! ```

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{Call, CallError, ModelTurn, ResponseError, WireFormat};
use crate::value::result::ToolResult;

const NO_IMAGES: &str = "Chat Completions tool messages take text only";

/// The model's turn read from a Chat Completions response.
#[derive(Clone, Debug, PartialEq)]
pub struct Turn {
    /// What the model wrote, if anything: the message's text, else its refusal.
    pub text: Option<String>,
    /// The tool calls, in the order the model made them.
    pub calls: Vec<Call>,
    /// The assistant message to append to the conversation before the
    /// results, as the API expects it back (ids made up for calls that had
    /// none, so every result has its call).
    pub message: AssistantMessage,
    /// Why the model stopped (`stop`, `tool_calls`, `length`, …).
    pub finish_reason: Option<String>,
}

impl ModelTurn for Turn {
    type Reply = Vec<ToolMessage>;

    const FORMAT: WireFormat = WireFormat::ChatCompletions;

    /// Reads the first choice of a Chat Completions response.
    fn parse(response: &Value) -> Result<Turn, ResponseError> {
        let completion: wire::Response = super::from_value(Self::FORMAT, response)?;
        let choice = super::first(Self::FORMAT, "choices", completion.choices)?;
        let text = match choice.message.content {
            Some(Value::String(text)) => Some(text),
            _ => choice.message.refusal,
        };
        let mut calls = Vec::new();
        let mut tool_calls = Vec::new();
        for (index, wire) in choice.message.tool_calls.0.into_iter().enumerate() {
            let function = wire.function.unwrap_or_default();
            let arguments = super::arguments_text(function.arguments);
            let mut call = Call::from_text(function.name, &arguments);
            if let Some(kind) = wire.kind.filter(|kind| kind != "function") {
                let name = call.name.clone();
                call = call.fail(CallError::UnsupportedKind { name, kind });
            }
            let (call, _) = call.identified(wire.id, format!("call_missing_id_{index}"));
            tool_calls.push(ToolCallMessage {
                id: call.id.clone(),
                function: FunctionCall {
                    name: call.name.clone(),
                    arguments,
                },
            });
            calls.push(call);
        }
        Ok(Turn {
            message: AssistantMessage {
                content: text.clone(),
                tool_calls,
            },
            text,
            calls,
            finish_reason: choice.finish_reason,
        })
    }

    fn calls(&self) -> &[Call] {
        &self.calls
    }

    /// The tool messages for `results`, one per call, in call order.
    fn reply(&self, results: &[ToolResult]) -> Vec<ToolMessage> {
        super::paired(&self.calls, results)
            .map(|(call, result)| ToolMessage {
                tool_call_id: call.id.clone(),
                content: super::text_only(&result, NO_IMAGES),
            })
            .collect()
    }
}

/// An assistant message with its tool calls, as a request carries it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "role", rename = "assistant")]
pub struct AssistantMessage {
    /// What the model wrote; `null` when it only called tools.
    pub content: Option<String>,
    /// The calls it made.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<ToolCallMessage>,
}

/// One function tool call in an assistant message.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename = "function")]
pub struct ToolCallMessage {
    /// The call's id.
    pub id: String,
    /// The function called.
    pub function: FunctionCall,
}

/// A function's name and its arguments as JSON text.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FunctionCall {
    /// The function's name.
    pub name: String,
    /// The arguments, a string of JSON, as the model wrote them.
    pub arguments: String,
}

/// A tool's result: `{"role": "tool", "tool_call_id", "content"}`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "role", rename = "tool")]
pub struct ToolMessage {
    /// The id of the call this answers.
    pub tool_call_id: String,
    /// The result as text.
    pub content: String,
}

/// The response, as far as tool calling reads it; unknown fields are ignored.
mod wire {
    use super::super::List;
    use serde::Deserialize;
    use serde_json::Value;

    #[derive(Deserialize)]
    pub(super) struct Response {
        #[serde(default)]
        pub(super) choices: Vec<Choice>,
    }

    #[derive(Deserialize)]
    pub(super) struct Choice {
        pub(super) message: Message,
        pub(super) finish_reason: Option<String>,
    }

    #[derive(Deserialize)]
    pub(super) struct Message {
        pub(super) content: Option<Value>,
        pub(super) refusal: Option<String>,
        pub(super) tool_calls: List<ToolCall>,
    }

    #[derive(Deserialize)]
    pub(super) struct ToolCall {
        pub(super) id: Option<String>,
        #[serde(rename = "type")]
        pub(super) kind: Option<String>,
        pub(super) function: Option<Function>,
    }

    #[derive(Default, Deserialize)]
    pub(super) struct Function {
        pub(super) name: Option<String>,
        pub(super) arguments: Option<Value>,
    }
}
