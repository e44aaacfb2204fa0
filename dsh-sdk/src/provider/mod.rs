//! The model loop, both halves, for each provider: the tool calls of a model
//! response in, the next request's messages out.
//!
//! One module per wire format, each with the same three steps:
//!
//! 1. [`ModelTurn::parse`] reads a response body as the provider documents
//!    it: the text the model wrote, its tool calls as [`Call`]s, and the
//!    message (or items) to append to the conversation as the model's own turn.
//! 2. [`ModelTurn::run`] runs the calls as one batch
//!    ([`Registry::call_batch`](crate::Registry::call_batch): concurrency-safe tools in parallel, the rest
//!    in order, results in request order).
//! 3. The step's `reply` is the results, built the provider's way from the
//!    content the model is meant to see, errors flagged as the provider
//!    expects, images carried where the provider accepts them and described
//!    in text where it does not.
//!
//! | module | response | calls | results |
//! |---|---|---|---|
//! | [`openai_chat`] | Chat Completions | `choices[0].message.tool_calls[]` | `role: "tool"` messages |
//! | [`openai_responses`] | Responses | `output[]` items `function_call` | `function_call_output` items |
//! | [`anthropic`] | Messages | `content[]` blocks `tool_use` | one `user` message of `tool_result` blocks |
//! | [`gemini`] | `generateContent` | `candidates[0].content.parts[].functionCall` | one `user` content of `functionResponse` parts |
//!
//! ```
//! use dsh_kit::prelude::*;
//! use dsh_kit::Registry;
//! use dsh_kit::provider::ModelTurn;
//! use dsh_kit::provider::openai_chat::Turn;
//!
//! /// Greet someone by name.
//! #[tool(read_only, concurrency_safe)]
//! async fn greet(name: String) -> String {
//!     format!("Hello, {name}!")
//! }
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() {
//! let registry = Registry::new();
//! registry.register::<greet>().unwrap().keep();
//!
//! // A Chat Completions response, as the endpoint sent it.
//! let response = json!({"choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
//!     "role": "assistant", "content": null,
//!     "tool_calls": [{"id": "call_1", "type": "function",
//!                     "function": {"name": "greet", "arguments": "{\"name\":\"Ada\"}"}}]
//! }}]});
//! let turn = Turn::parse(&response).unwrap();
//! let step = turn.run(&registry).await;
//! assert_eq!(
//!     serde_json::to_value(&step.reply).unwrap(),
//!     json!([{"role": "tool", "tool_call_id": "call_1", "content": "Hello, Ada!"}])
//! );
//! # }
//! ```
//!
//! Everything a model sends is treated as hostile: arguments that are not
//! JSON, arguments double-encoded as a JSON string, a call to a tool that does
//! not exist, a call without an id all become an error result for that call,
//! with a message the model can act on; no call is dropped and nothing
//! panics. Only a body that is not the provider's response shape at all is a
//! [`ResponseError`].
//!
//! The wire types here are this crate's own, narrowed to what tool calling
//! touches and checked against the providers' documented shapes, rather than
//! a provider SDK's: the OpenAI type crates build on `derive_builder` (and so
//! a second major of `syn`), and none covers all four formats.

use std::time::Duration;

use serde_json::Value;

use crate::pipeline::ToolCall;
use crate::registry::CallerView;
use crate::value::content::{ContentBlock, EmbeddedResource};
use crate::value::id::new_id;
use crate::value::result::{Cause, Failure, ToolResult};

pub mod anthropic;
pub mod gemini;
pub mod openai_chat;
pub mod openai_responses;

/// One wire format's model turn: what every format's `Turn` shares, so an
/// agent loop can be written once for any of them. A format gives
/// [`parse`](ModelTurn::parse), [`calls`](ModelTurn::calls) and
/// [`reply`](ModelTurn::reply); reading a body, telling the last turn and
/// running the calls follow from those.
pub trait ModelTurn: Sized + Sync {
    /// The results of a turn as the next request carries them.
    type Reply;

    /// The wire format, as errors name it.
    const FORMAT: WireFormat;

    /// Reads a response already parsed as JSON.
    fn parse(response: &Value) -> Result<Self, ResponseError>;

    /// The tool calls, in the order the model made them.
    fn calls(&self) -> &[Call];

    /// The reply answering every call, in call order; a call with no result
    /// in `results` is answered as not run.
    fn reply(&self, results: &[ToolResult]) -> Self::Reply;

    /// Reads a response body.
    fn parse_str(body: &str) -> Result<Self, ResponseError> {
        Self::parse(&parse_body(Self::FORMAT, body)?)
    }

    /// Whether the model is done: it called no tool.
    fn is_final(&self) -> bool {
        self.calls().is_empty()
    }

    /// Runs the calls as one batch ([`run`]) and builds the reply, inside
    /// a `tracing` span of the turn (`tool_calls {format}`, with
    /// `gen_ai.provider.name` and the number of calls), the parent of the
    /// calls' `execute_tool` spans. The calls are made by the caller of
    /// `caller`: a [`CallerView`], or a [`Registry`](crate::Registry) for the host.
    fn run(
        &self,
        caller: &(impl AsRef<CallerView> + Sync),
    ) -> impl Future<Output = Step<Self::Reply>> + Send {
        let span = tracing::info_span!(
            "tool_calls",
            "otel.name" = %format_args!("tool_calls {}", Self::FORMAT),
            "otel.kind" = "internal",
            "gen_ai.provider.name" = Self::FORMAT.provider_name(),
            "dsh.tool_calls" = self.calls().len(),
        );
        let turn = async move {
            let results = run(caller.as_ref(), self.calls()).await;
            let reply = self.reply(&results);
            Step { results, reply }
        };
        tracing::Instrument::instrument(turn, span)
    }
}

/// A wire format a [`ModelTurn`] is read from; serialized, and displayed,
/// as errors name it (`Chat Completions`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum WireFormat {
    /// OpenAI Chat Completions: [`openai_chat`].
    #[serde(rename = "Chat Completions")]
    ChatCompletions,
    /// OpenAI Responses: [`openai_responses`].
    #[serde(rename = "Responses")]
    Responses,
    /// Anthropic Messages: [`anthropic`].
    #[serde(rename = "Anthropic Messages")]
    AnthropicMessages,
    /// Gemini `generateContent`: [`gemini`].
    #[serde(rename = "Gemini generateContent")]
    GeminiGenerateContent,
}

impl WireFormat {
    /// The format's name: `Chat Completions`, `Responses`, `Anthropic
    /// Messages` or `Gemini generateContent`, the text serde writes (a test
    /// holds them equal).
    pub fn as_str(self) -> &'static str {
        match self {
            WireFormat::ChatCompletions => "Chat Completions",
            WireFormat::Responses => "Responses",
            WireFormat::AnthropicMessages => "Anthropic Messages",
            WireFormat::GeminiGenerateContent => "Gemini generateContent",
        }
    }

    /// The provider, as OpenTelemetry's GenAI conventions name it
    /// (`gen_ai.provider.name`): `openai`, `anthropic` or `gcp.gemini`.
    pub fn provider_name(self) -> &'static str {
        match self {
            WireFormat::ChatCompletions | WireFormat::Responses => "openai",
            WireFormat::AnthropicMessages => "anthropic",
            WireFormat::GeminiGenerateContent => "gcp.gemini",
        }
    }
}

impl std::fmt::Display for WireFormat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One turn's calls run: each result, and the reply to send back.
#[derive(Clone, Debug, PartialEq)]
pub struct Step<R> {
    /// One result per call, in request order, with content, value and card.
    pub results: Vec<ToolResult>,
    /// What goes into the next request after the model's own turn: the
    /// results in the provider's shape.
    pub reply: R,
}

/// One tool call a model made, read out of its response.
#[derive(Clone, Debug, PartialEq)]
pub struct Call {
    /// The id the result must carry back: the provider's, or one made up for a
    /// call that came without one (see [`CallError::MissingId`] and
    /// [`gemini`]).
    pub id: String,
    /// The tool's name as the model wrote it (empty when it wrote none).
    pub name: String,
    /// The arguments as a JSON object, or why the call cannot run.
    pub args: Result<Value, CallError>,
    /// The model's own code that made the call, when its provider ran that
    /// code (Anthropic's programmatic tool calling); `None` for a call the
    /// model made directly.
    pub caller: Option<CodeCaller>,
}

/// The code a call came from, when a provider ran the model's code and
/// that code called the tool: Anthropic's `caller` of a `tool_use` block,
/// `{"type": "code_execution_20250825", "tool_id": "srvtoolu_…"}`.
/// Answer the call as any other; the code waits for its result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CodeCaller {
    /// The code tool's type (`code_execution_20250825`).
    pub kind: String,
    /// The id of the code tool's use that made the call.
    pub tool_id: String,
}

impl Call {
    /// A call whose arguments arrived as JSON text (OpenAI's `arguments`:
    /// a string of JSON, or from some endpoints the object itself), with no
    /// id yet; failed when it names no tool.
    pub(crate) fn from_text(name: Option<String>, arguments: &str) -> Self {
        Call::named(name, |name| args_from_text(name, arguments))
    }

    /// A call whose arguments arrived as a JSON value (Anthropic's `input`,
    /// Gemini's `args`), which must be an object, with no id yet; failed
    /// when it names no tool.
    pub(crate) fn from_value(name: Option<String>, arguments: Value) -> Self {
        Call::named(name, |name| args_from_value(name, arguments))
    }

    fn named(name: Option<String>, args: impl FnOnce(&str) -> Result<Value, CallError>) -> Self {
        let name = name.unwrap_or_default();
        let call = Call {
            id: String::new(),
            args: args(&name),
            name,
            caller: None,
        };
        if call.name.is_empty() {
            call.fail(CallError::MissingName)
        } else {
            call
        }
    }

    /// Gives the call the `id` the model sent. Without one (or an empty one)
    /// the call fails with [`CallError::MissingId`] and takes `made_up`, so
    /// its result can still refer to it; the second value says so, for the
    /// caller to write the made-up id back into the model's own turn.
    pub(crate) fn identified(mut self, id: Option<String>, made_up: String) -> (Self, bool) {
        match id.filter(|id| !id.is_empty()) {
            Some(id) => {
                self.id = id;
                (self, false)
            }
            None => {
                let name = self.name.clone();
                let mut call = self.fail(CallError::MissingId { name });
                call.id = made_up;
                (call, true)
            }
        }
    }

    /// [`identified`](Self::identified), for a call read from `item`, an
    /// item of the model's turn that goes back to it: a made-up id is
    /// written into `item` under `key`, so the result names a call the
    /// model's turn holds.
    pub(crate) fn identified_in(
        self,
        item: &mut Value,
        key: &str,
        id: Option<String>,
        made_up: String,
    ) -> Self {
        let (call, made_up) = self.identified(id, made_up);
        if made_up && let Some(object) = item.as_object_mut() {
            object.insert(key.to_owned(), Value::String(call.id.clone()));
        }
        call
    }

    /// Replaces the arguments with `error` (the first error wins).
    pub(crate) fn fail(mut self, error: CallError) -> Self {
        if self.args.is_ok() {
            self.args = Err(error);
        }
        self
    }
}

/// Why a call the model made cannot run. Its message goes back to the model
/// as the call's error result.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CallError {
    /// The arguments are not JSON.
    #[error("the arguments for `{name}` are not valid JSON ({error}): send a JSON object")]
    ArgumentsNotJson {
        /// The tool's name.
        name: String,
        /// What the JSON parser said, with its line and column.
        error: String,
    },
    /// The arguments are a JSON string that itself holds JSON: encoded twice.
    #[error(
        "the arguments for `{name}` are a JSON string holding JSON (encoded twice): send the object itself, not a string"
    )]
    StringEncoded {
        /// The tool's name.
        name: String,
    },
    /// The arguments are JSON, but not an object.
    #[error("the arguments for `{name}` must be a JSON object, not {found}")]
    NotAnObject {
        /// The tool's name.
        name: String,
        /// What they were instead: "an array", "a string", ….
        found: &'static str,
    },
    /// The call has no id, so its result could not be matched to it.
    #[error(
        "the call to `{name}` has no id, so it was not run: every tool call needs an id its result can refer to"
    )]
    MissingId {
        /// The tool's name.
        name: String,
    },
    /// The call names no tool.
    #[error("the tool call names no tool: give the `name` of one of the tools listed")]
    MissingName,
    /// A kind of tool call this SDK does not run (an OpenAI `custom` tool call).
    #[error("`{name}` was called as a `{kind}` tool call; only function tool calls are run")]
    UnsupportedKind {
        /// The tool's name.
        name: String,
        /// The call's kind as the provider named it.
        kind: String,
    },
}

/// A response body that is not the provider's response shape.
#[derive(Debug, thiserror::Error)]
pub enum ResponseError {
    /// The body is not JSON, or JSON of the wrong shape.
    #[error("not a {format} response: at `{path}`: {message}")]
    Shape {
        /// The format that was expected.
        format: WireFormat,
        /// Where in the body the shape broke (a serde path, `.` for the root).
        path: String,
        /// What was wrong there.
        message: String,
    },
    /// The response holds no candidate or choice to read.
    #[error("the {format} response has no {what}")]
    Empty {
        /// The format that was expected.
        format: WireFormat,
        /// What was missing (`choices`, `candidates`).
        what: &'static str,
    },
}

/// Reads `value` as `T`, saying where the shape broke.
pub(crate) fn from_value<T: serde::de::DeserializeOwned>(
    format: WireFormat,
    value: &Value,
) -> Result<T, ResponseError> {
    serde_path_to_error::deserialize(value).map_err(|error| ResponseError::Shape {
        format,
        path: error.path().to_string(),
        message: error.inner().to_string(),
    })
}

/// The first of a response's `what` (`choices`, `candidates`): the one read.
pub(crate) fn first<T>(
    format: WireFormat,
    what: &'static str,
    items: Vec<T>,
) -> Result<T, ResponseError> {
    items
        .into_iter()
        .next()
        .ok_or(ResponseError::Empty { format, what })
}

/// The text parts a turn read, as one text; `None` when there were none.
pub(crate) fn joined(texts: Vec<String>) -> Option<String> {
    (!texts.is_empty()).then(|| texts.concat())
}

/// What [`read_items`] takes from one item.
pub(crate) enum Read {
    /// A tool call.
    Call(Call),
    /// Text the model wrote.
    Text(Vec<String>),
    /// Nothing: the item only goes back as it came.
    Nothing,
}

/// A turn read from items that go back to the model as they came.
pub(crate) struct Items {
    /// The text the items held, joined; `None` when there was none.
    pub(crate) text: Option<String>,
    /// The calls, in item order.
    pub(crate) calls: Vec<Call>,
    /// The items, as `read` left them.
    pub(crate) items: Vec<Value>,
}

/// Reads a turn whose items go back to the model as they came (Anthropic's
/// content blocks, the Responses output items): `read` gets each item's
/// index, its `type` and the item, which it may change (to write a made-up
/// id into it), and says what the item holds.
pub(crate) fn read_items(
    items: Vec<Value>,
    mut read: impl FnMut(usize, &str, &mut Value) -> Read,
) -> Items {
    let mut texts = Vec::new();
    let mut calls = Vec::new();
    let mut kept = Vec::with_capacity(items.len());
    for (index, mut item) in items.into_iter().enumerate() {
        let kind = item
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        match read(index, &kind, &mut item) {
            Read::Call(call) => calls.push(call),
            Read::Text(text) => texts.extend(text),
            Read::Nothing => {}
        }
        kept.push(item);
    }
    Items {
        text: joined(texts),
        calls,
        items: kept,
    }
}

/// A call's id, name and arguments as the model wrote them, read from a
/// call object under its format's keys; unknown keys are ignored.
#[derive(Default)]
pub(crate) struct CallFields {
    /// The id, under the format's id key.
    pub(crate) id: Option<String>,
    /// The tool's name, under `name`.
    pub(crate) name: Option<String>,
    /// The arguments, under the format's arguments key.
    pub(crate) arguments: Option<Value>,
}

impl CallFields {
    /// Reads `call` with the id under `id` and the arguments under
    /// `arguments`; a missing or `null` key reads as `None`. A call of the
    /// wrong shape (not an object, or an id or name that is not a string)
    /// reads as none of them: it is still a call, answered with an error.
    pub(crate) fn read(call: &Value, id: &str, arguments: &str) -> Self {
        let Some(call) = call.as_object() else {
            return Self::default();
        };
        let text = |key: &str| match call.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(text)) => Ok(Some(text.clone())),
            Some(_) => Err(()),
        };
        match (text(id), text("name")) {
            (Ok(id), Ok(name)) => CallFields {
                id,
                name,
                arguments: call
                    .get(arguments)
                    .filter(|value| !value.is_null())
                    .cloned(),
            },
            _ => Self::default(),
        }
    }
}

/// A list in a response that may be left out or sent as `null`: read as
/// empty either way. It reads as an `Option` does, so serde takes a missing
/// field for `None` with no `#[serde(default)]`.
pub(crate) struct List<T>(pub(crate) Vec<T>);

impl<T> Default for List<T> {
    fn default() -> Self {
        List(Vec::new())
    }
}

impl<'de, T: serde::Deserialize<'de>> serde::Deserialize<'de> for List<T> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Ok(List(
            Option::<Vec<T>>::deserialize(deserializer)?.unwrap_or_default(),
        ))
    }
}

/// Parses a body as JSON, saying where it broke.
pub(crate) fn parse_body(format: WireFormat, body: &str) -> Result<Value, ResponseError> {
    serde_json::from_str(body).map_err(|error| ResponseError::Shape {
        format,
        path: ".".into(),
        message: error.to_string(),
    })
}

/// Runs `calls` as one batch, as the caller of `caller` (a [`CallerView`];
/// [`Registry::host`](crate::Registry::host) for the host's own model loop): the runnable ones
/// through [`CallerView::call_batch`] (an unknown tool, or one hidden from
/// the caller, comes back as the pipeline's error result naming the
/// closest tools it may see), the others as error results carrying their
/// [`CallError`]. One result per call, in order.
pub async fn run(caller: &CallerView, calls: &[Call]) -> Vec<ToolResult> {
    let batch: Vec<ToolCall> = calls
        .iter()
        .filter_map(|call| {
            let args = call.args.as_ref().ok()?;
            Some(ToolCall::new(call.name.clone(), args.clone()))
        })
        .collect();
    let mut ran = caller.call_batch(batch).await.into_iter();
    calls
        .iter()
        .map(|call| match &call.args {
            Ok(_) => ran
                .next()
                .unwrap_or_else(|| not_run(&call.name, "the batch returned no result for it")),
            Err(error) => not_run(&call.name, &error.to_string()),
        })
        .collect()
}

/// The error result of a call that was not run.
pub(crate) fn not_run(name: &str, message: &str) -> ToolResult {
    ToolResult::failed(
        new_id(),
        name.to_owned(),
        Failure::new(Cause::InvalidArguments),
        message,
        Duration::ZERO,
    )
}

/// Pairs each call with its result; a call left without one gets an error
/// result, so no call goes unanswered.
pub(crate) fn paired<'a>(
    calls: &'a [Call],
    results: &'a [ToolResult],
) -> impl Iterator<Item = (&'a Call, std::borrow::Cow<'a, ToolResult>)> {
    calls.iter().enumerate().map(|(index, call)| {
        let result = match results.get(index) {
            Some(result) => std::borrow::Cow::Borrowed(result),
            None => std::borrow::Cow::Owned(not_run(&call.name, "no result was given for it")),
        };
        (call, result)
    })
}

/// OpenAI's `arguments` as text: a string of JSON as it is, the object some
/// endpoints send in its place as JSON, nothing as empty.
pub(crate) fn arguments_text(arguments: Option<Value>) -> String {
    match arguments {
        Some(Value::String(text)) => text,
        Some(other) => other.to_string(),
        None => String::new(),
    }
}

fn args_from_text(name: &str, text: &str) -> Result<Value, CallError> {
    // A tool without parameters is sometimes called with no arguments at all.
    if text.trim().is_empty() {
        return Ok(Value::Object(serde_json::Map::new()));
    }
    match serde_json::from_str::<Value>(text) {
        Ok(value) => args_from_value(name, value),
        Err(error) => Err(CallError::ArgumentsNotJson {
            name: name.to_owned(),
            error: error.to_string(),
        }),
    }
}

fn args_from_value(name: &str, value: Value) -> Result<Value, CallError> {
    let found = match &value {
        Value::Object(_) => return Ok(value),
        Value::String(text) => {
            if serde_json::from_str::<Value>(text).is_ok_and(|inner| inner.is_object()) {
                return Err(CallError::StringEncoded {
                    name: name.to_owned(),
                });
            }
            "a string"
        }
        other => crate::value::json_kind(other),
    };
    Err(CallError::NotAnObject {
        name: name.to_owned(),
        found,
    })
}

/// How a provider that takes text only is told about a block it cannot show.
pub(crate) fn describe_block(block: &ContentBlock, why: &str) -> Option<String> {
    match block {
        ContentBlock::Text { text } => Some(text.clone()),
        ContentBlock::Image { data, mime_type } => Some(format!(
            "[{mime_type} image, {} bytes, not shown: {why}]",
            base64_len(data)
        )),
        ContentBlock::ResourceLink { .. } => Some(describe_link(block)),
        ContentBlock::Audio { data, mime_type } => Some(format!(
            "[{mime_type} audio, {} bytes, not shown: {why}]",
            base64_len(data)
        )),
        ContentBlock::Resource { resource } => Some(match resource {
            EmbeddedResource::Text { uri, text, .. } => format!("[resource {uri}]\n{text}"),
            EmbeddedResource::Blob {
                uri,
                mime_type,
                blob,
            } => format!(
                "[resource {uri}, {}, {} bytes, not shown: {why}]",
                mime_type.as_deref().unwrap_or("binary"),
                base64_len(blob)
            ),
        }),
    }
}

/// A result's block as a provider that takes some images sees it.
pub(crate) enum Part<'a> {
    /// An image it takes.
    Image {
        /// Its media type.
        mime_type: &'a str,
        /// Its bytes, base64-encoded.
        data: &'a str,
    },
    /// Text: the block's own, or a line saying what is not shown and why.
    Text(String),
}

/// `block` as a provider that takes images of the `shown` media types sees
/// it: such an image as it is, any other described in text saying `why`, and
/// audio and embedded resources described in text ([`TEXT_ONLY`]).
pub(crate) fn part<'a>(block: &'a ContentBlock, shown: &[&str], why: &str) -> Part<'a> {
    match block {
        ContentBlock::Image { data, mime_type } if shown.contains(&mime_type.as_str()) => {
            Part::Image { mime_type, data }
        }
        ContentBlock::Text { text } => Part::Text(text.clone()),
        ContentBlock::Image { .. } => Part::Text(describe_block(block, why).unwrap_or_default()),
        ContentBlock::ResourceLink { .. } => Part::Text(describe_link(block)),
        ContentBlock::Audio { .. } | ContentBlock::Resource { .. } => {
            Part::Text(describe_block(block, TEXT_ONLY).unwrap_or_default())
        }
    }
}

/// The image types [`part`] shows of `result`, and why it shows no others,
/// for a provider that takes images in a successful result only: `types`
/// and `why`, or none in a failed one.
pub(crate) fn shown_unless_failed<'a>(
    result: &ToolResult,
    types: &'a [&'a str],
    why: &'a str,
) -> (&'a [&'a str], &'a str) {
    if result.is_error() {
        (&[], "the result is an error")
    } else {
        (types, why)
    }
}

/// The [summary](crate::Failure::summary) of a failed result's kind and
/// data, the text each provider's tool result ends with: the model reads
/// why, not only that, the call failed.
pub(crate) fn failure_summary(result: &ToolResult) -> Option<String> {
    result.failure.as_ref().and_then(crate::Failure::summary)
}

/// Why audio and embedded resources reach a provider as text.
pub(crate) const TEXT_ONLY: &str = "tool results carry text and images only";

/// A resource link as one line of text.
pub(crate) fn describe_link(block: &ContentBlock) -> String {
    match block {
        ContentBlock::ResourceLink {
            uri,
            name,
            description,
            ..
        } => match description {
            Some(description) => format!("[resource {name}: {uri} ({description})]"),
            None => format!("[resource {name}: {uri}]"),
        },
        _ => String::new(),
    }
}

/// The decoded size of base64 text.
fn base64_len(data: &str) -> usize {
    let padding = data.bytes().rev().take_while(|&byte| byte == b'=').count();
    (data.len() / 4 * 3).saturating_sub(padding)
}

/// The text of a result for a provider that takes text only, every block in
/// order, joined by newlines; `Error: ` first when it failed (OpenAI has no
/// error flag on a tool result: the text is how the model learns).
pub(crate) fn text_only(result: &ToolResult, why_no_images: &str) -> String {
    let text = result
        .content()
        .iter()
        .filter_map(|block| describe_block(block, why_no_images))
        .chain(failure_summary(result))
        .collect::<Vec<_>>()
        .join("\n");
    if result.is_error() {
        format!("Error: {text}")
    } else {
        text
    }
}

#[cfg(test)]
mod tests;
