//! The RAWP-DPS wire form of tool events, field for field.
//!
//! Each event is an envelope `{"type": "tool.invoke.result", "payload": {…}}`.
//! Required fields are always written; an optional field that is `None` is
//! left out, and reading accepts it absent. Enums are spelt as the spec
//! spells them (`success`, `file_content`, `task_management`, `fatal`).
//!
//! The registry's own [`Event`]s carry more than the wire does (what replay
//! needs); [`Event::to_rawp`] gives the wire form of those the spec names,
//! and [`Registry::subscribe_rawp`] delivers only those.
//!
//! ```
//! use dsh_kit::prelude::*;
//! use dsh_kit::Registry;
//! use dsh_kit::event::rawp::RawpEvent;
//! use std::sync::{Arc, Mutex};
//!
//! /// Greet someone by name.
//! #[tool(read_only)]
//! async fn greet(
//!     /// The name to greet
//!     name: String,
//! ) -> String {
//!     format!("Hello, {name}!")
//! }
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() {
//! let registry = Registry::new();
//! registry.register::<greet>().unwrap();
//! let seen = Arc::new(Mutex::new(Vec::new()));
//! let sink = Arc::clone(&seen);
//! let _subscription = registry.subscribe_rawp(move |event| {
//!     sink.lock().unwrap().push(serde_json::to_value(event).unwrap());
//! });
//!
//! registry.call("greet", json!({ "name": "Ada" })).await;
//! let seen = seen.lock().unwrap();
//! assert_eq!(seen[0]["type"], "tool.invoke.request");
//! assert_eq!(seen[1]["type"], "tool.invoke.result");
//! assert_eq!(seen[1]["payload"]["status"], "success");
//! assert_eq!(seen[1]["payload"]["output"], "Hello, Ada!");
//! assert_eq!(seen[1]["payload"]["output_type"], "text");
//! # }
//! ```
//!
//! [`Registry::subscribe_rawp`]: crate::Registry::subscribe_rawp

use serde::{Deserialize, Serialize};
use serde_json::Value;
use uuid::Uuid;

use crate::value::event::Event;
use crate::value::event::Progress;
use crate::value::event::StreamChunk;
use crate::value::event::StreamType;
use crate::value::names::{Category, OutputType};
use crate::value::principal::Caller;
use crate::value::result::Status;
use crate::value::result::{Failure, ToolResult};

/// A RAWP-DPS tool event in its envelope: `{"type": …, "payload": {…}}`.
///
/// ```
/// use dsh_kit::event::rawp::{CatalogPublish, RawpEvent};
///
/// let event = RawpEvent::CatalogPublish(CatalogPublish::default());
/// assert_eq!(
///     serde_json::to_string(&event).unwrap(),
///     r#"{"type":"tool.catalog.publish","payload":{"tools":[]}}"#
/// );
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", content = "payload")]
pub enum RawpEvent {
    /// `tool.invoke.request`: a call is about to be made.
    #[serde(rename = "tool.invoke.request")]
    InvokeRequest(InvokeRequest),
    /// `tool.invoke.stream`: a chunk of a running call's output.
    #[serde(rename = "tool.invoke.stream")]
    InvokeStream(InvokeStream),
    /// `tool.invoke.result`: a call ended.
    #[serde(rename = "tool.invoke.result")]
    InvokeResult(InvokeResult),
    /// `tool.catalog.publish`: the tools available in this session.
    #[serde(rename = "tool.catalog.publish")]
    CatalogPublish(CatalogPublish),
}

impl RawpEvent {
    /// The envelope's `type`: `tool.invoke.request`, `tool.invoke.stream`,
    /// `tool.invoke.result` or `tool.catalog.publish`.
    pub fn event_type(&self) -> &'static str {
        match self {
            RawpEvent::InvokeRequest(_) => "tool.invoke.request",
            RawpEvent::InvokeStream(_) => "tool.invoke.stream",
            RawpEvent::InvokeResult(_) => "tool.invoke.result",
            RawpEvent::CatalogPublish(_) => "tool.catalog.publish",
        }
    }
}

/// `tool.invoke.request`: the agent is about to call a tool.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct InvokeRequest {
    /// This call's unique id, a UUID v4.
    pub invocation_id: Uuid,
    /// The tool's name, as the model called it.
    pub tool_name: String,
    /// The tool's version.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool_version: Option<String>,
    /// The tool's input parameters: an object, as the spec requires, for
    /// every well-formed call. A model that sent something else (a call the
    /// registry then refuses) is reported as it sent it, not hidden. A
    /// session log's `request` record keeps it exactly as sent, where the
    /// wire event reads an object sent as a JSON string as that object.
    pub input: Value,
    /// Groups the calls sent at the same time (one batch).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parallel_group_id: Option<String>,
    /// Who made the call, without the token's claims; absent for the host's
    /// own calls (and in logs written before callers were recorded).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub principal: Option<Caller>,
}

/// `tool.invoke.stream`: a chunk of a long-running call's output.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct InvokeStream {
    /// The `invocation_id` of the call.
    pub invocation_id: Uuid,
    /// The tool's name.
    pub tool_name: String,
    /// `stdout`, `stderr` or `progress`.
    pub stream_type: StreamType,
    /// The piece of output.
    pub chunk: String,
    /// 0-based, per call, to put chunks back in order.
    pub sequence: u64,
    /// A `progress` chunk's numbers, when the tool gave them: `progress`
    /// and, when known, `total` (an extension; absent otherwise).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub progress: Option<Progress>,
}

/// `tool.invoke.result`: how a call ended and what it produced.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct InvokeResult {
    /// The `invocation_id` of the matching `tool.invoke.request`.
    pub invocation_id: Uuid,
    /// The tool's name.
    pub tool_name: String,
    /// `success`, `error`, `timeout` or `cancelled`.
    pub status: Status,
    /// The tool's output: the canonical value on success, the error text otherwise.
    pub output: Value,
    /// How to read `output`, resolved by [`ToolDef::resolve_output_type`](crate::ToolDef::resolve_output_type).
    pub output_type: OutputType,
    /// How long the call took, in milliseconds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<u64>,
    /// Whether the output was cut short.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub truncated: Option<bool>,
    /// Why the call failed, typed, on every failed result: the cause, and
    /// the tool's own failure kind and error value where it has them. Not a
    /// field of the protocol's payload: an addition a receiver that does not
    /// know it skips, and absent on success.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failure: Option<Failure>,
}

/// `tool.catalog.publish`: the tools usable in this session, and diagnostics.
///
/// Build it with [`Registry::catalog`](crate::Registry::catalog).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CatalogPublish {
    /// Every tool, sorted by name.
    pub tools: Vec<CatalogTool>,
    /// What is wrong, for a tool or for the whole catalog; left out when empty.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub diagnostics: Vec<Diagnostic>,
}

/// One tool of a [`CatalogPublish`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CatalogTool {
    /// The tool's name.
    pub name: String,
    /// The tool's version.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// What the tool does.
    pub description: String,
    /// The JSON Schema of its input.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub input_schema: Option<Value>,
    /// Its declared `output_type`, the first step of [`ToolDef::resolve_output_type`](crate::ToolDef::resolve_output_type).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output_type: Option<OutputType>,
    /// Whether a call asks for approval before it runs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub requires_approval: Option<bool>,
    /// What kind of tool it is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub category: Option<Category>,
    /// Whether it can be used; absent means `available`.
    #[serde(default)]
    pub status: ToolStatus,
    /// Why it has its status, for a UI to show; left out when there is no reason to give.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status_description: Option<String>,
    /// The hash of its definition ([`crate::export::digest`]), for a host to pin.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub contract_hash: Option<String>,
}

/// Whether a tool can be used (a catalog entry's `status`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolStatus {
    /// It works. The default: an absent `status` means this.
    #[default]
    Available,
    /// It cannot be used (a missing dependency, a missing permission, a
    /// missing executable): every call is refused.
    Unavailable,
    /// It works with limits: calls run, and the user is told the limits.
    Degraded,
}

/// Something wrong with a tool or with the whole catalog (the catalog's `diagnostics`).
///
/// ```
/// use dsh_kit::event::rawp::{Diagnostic, Severity};
///
/// let diagnostic = Diagnostic::new(Severity::Fatal, "DEPENDENCY_MISSING", "`rg` is not installed")
///     .tool("grep");
/// assert_eq!(
///     serde_json::to_value(&diagnostic).unwrap(),
///     serde_json::json!({
///         "severity": "fatal",
///         "tool_name": "grep",
///         "code": "DEPENDENCY_MISSING",
///         "message": "`rg` is not installed",
///     })
/// );
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Diagnostic {
    /// How bad it is.
    pub severity: Severity,
    /// The tool it is about; absent when it is about the whole catalog.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool_name: Option<String>,
    /// A code to switch on: `TOOL_UNAVAILABLE`, `VERSION_MISMATCH`, `DEPENDENCY_MISSING`, ….
    pub code: String,
    /// What is wrong, for a person.
    pub message: String,
}

impl Diagnostic {
    /// A diagnostic about the whole catalog; [`tool`](Self::tool) narrows it to one tool.
    pub fn new(severity: Severity, code: impl Into<String>, message: impl Into<String>) -> Self {
        Diagnostic {
            severity,
            tool_name: None,
            code: code.into(),
            message: message.into(),
        }
    }

    /// Makes it about the tool `name`.
    pub fn tool(mut self, name: impl Into<String>) -> Self {
        self.tool_name = Some(name.into());
        self
    }
}

/// How bad a [`Diagnostic`] is, and what it does to the tool.
///
/// Ordered from mild to severe, so `severity >= Severity::Error` reads as it says.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    /// For the log or a UI; no limit on use.
    Info,
    /// For the log or a UI; no limit on use.
    Warning,
    /// The tool may be used, and the user is warned.
    Error,
    /// The tool is blocked: every call is refused.
    Fatal,
}

impl Event {
    /// The RAWP-DPS form of this event, for those the spec names: a request,
    /// a stream chunk, a result or a catalog. `None` for the registry's own
    /// events ([`Event::Decided`], [`Event::Executed`], [`Event::Running`],
    /// [`Event::SpillFailed`]).
    pub fn to_rawp(&self) -> Option<RawpEvent> {
        match self {
            Event::Request { .. } => {
                let request = self.request_as_sent()?;
                Some(RawpEvent::InvokeRequest(InvokeRequest {
                    input: crate::value::schema::normalize_args(request.input),
                    ..request
                }))
            }
            Event::Stream(chunk) => Some(RawpEvent::InvokeStream(InvokeStream::from(chunk))),
            Event::Result(result) => Some(RawpEvent::InvokeResult(InvokeResult::from(&**result))),
            Event::Catalog(catalog) => Some(RawpEvent::CatalogPublish(catalog.clone())),
            Event::Decided { .. }
            | Event::Executed { .. }
            | Event::Running { .. }
            | Event::SpillFailed { .. } => None,
        }
    }

    /// The `tool.invoke.request` payload of an [`Event::Request`] with its
    /// `input` as the model sent it, which is what a session log keeps;
    /// [`to_rawp`](Self::to_rawp) normalizes the input. `None` for every
    /// other event.
    pub(crate) fn request_as_sent(&self) -> Option<InvokeRequest> {
        let Event::Request {
            invocation_id,
            tool_name,
            tool_version,
            input,
            parallel_group_id,
            principal,
        } = self
        else {
            return None;
        };
        Some(InvokeRequest {
            invocation_id: *invocation_id,
            tool_name: tool_name.to_string(),
            tool_version: tool_version.clone(),
            input: serde_json::Value::clone(input),
            parallel_group_id: parallel_group_id.map(|id| id.to_string()),
            principal: principal.clone(),
        })
    }
}

impl From<&StreamChunk> for InvokeStream {
    fn from(chunk: &StreamChunk) -> Self {
        InvokeStream {
            invocation_id: chunk.invocation_id,
            tool_name: chunk.tool_name.clone(),
            stream_type: chunk.stream_type,
            chunk: chunk.chunk.clone(),
            sequence: chunk.sequence,
            progress: chunk.progress,
        }
    }
}

impl From<&ToolResult> for InvokeResult {
    /// `output` is the canonical value on success and the error text otherwise.
    fn from(result: &ToolResult) -> Self {
        InvokeResult {
            invocation_id: result.invocation_id,
            tool_name: result.tool_name.to_string(),
            status: result.status(),
            output: match &result.value {
                Some(value) => value.clone(),
                None => Value::String(result.text()),
            },
            output_type: result.output_type,
            duration_ms: Some(u64::try_from(result.duration.as_millis()).unwrap_or(u64::MAX)),
            truncated: Some(result.truncated),
            failure: result.failure.clone(),
        }
    }
}
