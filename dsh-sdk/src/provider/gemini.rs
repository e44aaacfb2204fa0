//! Gemini `generateContent` (`POST /v1beta/models/{model}:generateContent`).
//!
//! [`Turn::text`] is the first candidate's text parts, thoughts left out.
//! Calls are read, in part order, from its `content.parts[]` that hold a
//! `functionCall`: `{name, args}`, `args` a JSON object, and, on newer models,
//! an `id`. A call without an id gets a stable one made from its position,
//! `gemini-call-{part index}`, used only on this side: it is never sent. All
//! results go back in one `user` content of `functionResponse` parts, in call
//! order: `{id?, name, response}`, `response` `{"output": text}` or, on a
//! failure, `{"error": text}` (the keys Gemini documents for the two), and an
//! image (PNG, JPEG, WebP) as an `inlineData` part of the `functionResponse`'s
//! own `parts`, which Gemini 3 models read; any other image is described in
//! text.
//!
//! The next request's `contents` are the conversation so far, then
//! [`Turn::content`] (the candidate's content as it came, thought signatures
//! included, which Gemini 3 requires back), then the step's reply.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{Call, CallFields, ModelTurn, Part, ResponseError, WireFormat};
use crate::value::result::ToolResult;

/// The image media types a `functionResponse` may carry.
const IMAGE_TYPES: [&str; 3] = ["image/png", "image/jpeg", "image/webp"];
/// Why an image of another type is described instead.
const NOT_SHOWN: &str = "Gemini takes PNG, JPEG and WebP images only";

/// The model's turn read from a `generateContent` response.
#[derive(Clone, Debug, PartialEq)]
pub struct Turn {
    /// What the model wrote, if anything: the candidate's text parts,
    /// thoughts left out.
    pub text: Option<String>,
    /// The tool calls, in the order the model made them.
    pub calls: Vec<Call>,
    /// The ids Gemini gave the calls, in the same order (`None` where it gave none).
    pub gemini_ids: Vec<Option<String>>,
    /// The candidate's content, to append to `contents` before the reply.
    pub content: Value,
    /// Why the model stopped (`STOP`, `MAX_TOKENS`, …).
    pub finish_reason: Option<String>,
}

impl ModelTurn for Turn {
    type Reply = FunctionResponses;

    const FORMAT: WireFormat = WireFormat::GeminiGenerateContent;

    /// Reads the first candidate of a `generateContent` response.
    fn parse(response: &Value) -> Result<Turn, ResponseError> {
        let response: wire::Response = super::from_value(Self::FORMAT, response)?;
        let candidate = super::first(Self::FORMAT, "candidates", response.candidates.0)?;
        // A candidate stopped early (for safety, say) may have no content.
        let content: wire::Content = if candidate.content.is_null() {
            wire::Content::default()
        } else {
            super::from_value(Self::FORMAT, &candidate.content)?
        };
        let mut texts = Vec::new();
        let mut calls = Vec::new();
        let mut gemini_ids = Vec::new();
        for (index, part) in content.parts.0.into_iter().enumerate() {
            if let Some(function_call) = part.function_call {
                // A call of the wrong shape is still a call: answered with an error.
                let fields = CallFields::read(&function_call, "id", "args");
                let id = fields.id.filter(|id| !id.is_empty());
                // A call without arguments may leave `args` out.
                let args = fields
                    .arguments
                    .unwrap_or_else(|| Value::Object(serde_json::Map::new()));
                // Gemini's ids are optional: one made up here fails nothing.
                let mut call = Call::from_value(fields.name, args);
                call.id = id.clone().unwrap_or_else(|| format!("gemini-call-{index}"));
                calls.push(call);
                gemini_ids.push(id);
            } else if let Some(text) = part.text
                && !part.thought
            {
                texts.push(text);
            }
        }
        Ok(Turn {
            text: super::joined(texts),
            calls,
            gemini_ids,
            content: candidate.content,
            finish_reason: candidate.finish_reason,
        })
    }

    fn calls(&self) -> &[Call] {
        &self.calls
    }

    /// The `user` content answering every call, one `functionResponse` part
    /// per call, in call order.
    fn reply(&self, results: &[ToolResult]) -> FunctionResponses {
        FunctionResponses {
            parts: super::paired(&self.calls, results)
                .enumerate()
                .map(|(index, (call, result))| ResponsePart {
                    function_response: function_response(
                        self.gemini_ids.get(index).cloned().flatten(),
                        call,
                        &result,
                    ),
                })
                .collect(),
        }
    }
}

fn function_response(id: Option<String>, call: &Call, result: &ToolResult) -> FunctionResponse {
    let (shown, why) = super::shown_unless_failed(result, &IMAGE_TYPES, NOT_SHOWN);
    let mut texts = Vec::new();
    let mut parts = Vec::new();
    for block in result.content() {
        match super::part(block, shown, why) {
            Part::Image { mime_type, data } => parts.push(FunctionResponsePart {
                inline_data: Blob {
                    mime_type: mime_type.to_owned(),
                    data: data.to_owned(),
                },
            }),
            Part::Text(text) => texts.push(text),
        }
    }
    texts.extend(super::failure_summary(result));
    let text = texts.join("\n");
    FunctionResponse {
        id,
        name: call.name.clone(),
        response: if result.is_error() {
            FunctionResult::Error { error: text }
        } else {
            FunctionResult::Output { output: text }
        },
        parts,
    }
}

/// The results of one turn: `{"role": "user", "parts": [{"functionResponse": …}…]}`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "role", rename = "user")]
pub struct FunctionResponses {
    /// One part per call, in call order.
    pub parts: Vec<ResponsePart>,
}

/// A part holding one function's response.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResponsePart {
    /// The response.
    pub function_response: FunctionResponse,
}

/// `{"id"?, "name", "response", "parts"?}`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FunctionResponse {
    /// The id Gemini gave the call, when it gave one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// The function's name, as the call gave it.
    pub name: String,
    /// The output, or the error.
    pub response: FunctionResult,
    /// Images that go with the response; left out when there are none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub parts: Vec<FunctionResponsePart>,
}

/// A function response's `response` object.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum FunctionResult {
    /// `{"output": text}`: the call succeeded.
    Output {
        /// The result as text.
        output: String,
    },
    /// `{"error": text}`: the call failed.
    Error {
        /// What went wrong.
        error: String,
    },
}

/// Media that goes with a function response: `{"inlineData": {"mimeType", "data"}}`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FunctionResponsePart {
    /// The bytes inline.
    pub inline_data: Blob,
}

/// Bytes with their media type.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Blob {
    /// Its media type.
    pub mime_type: String,
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
        pub(super) candidates: List<Candidate>,
    }

    #[derive(Deserialize)]
    #[serde(rename_all = "camelCase")]
    pub(super) struct Candidate {
        #[serde(default)]
        pub(super) content: Value,
        pub(super) finish_reason: Option<String>,
    }

    #[derive(Default, Deserialize)]
    pub(super) struct Content {
        pub(super) parts: List<Part>,
    }

    #[derive(Deserialize)]
    #[serde(rename_all = "camelCase")]
    pub(super) struct Part {
        pub(super) text: Option<String>,
        #[serde(default)]
        pub(super) thought: bool,
        pub(super) function_call: Option<Value>,
    }
}
