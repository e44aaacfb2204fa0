//! [`Record`]: what one line of the session log is.

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use uuid::Uuid;

use crate::value::card::Card;
use crate::value::content::ContentBlock;
use crate::value::event::rawp::{CatalogPublish, InvokeRequest, InvokeStream};
use crate::value::event::{Event, ValueSource, Verdict};
use crate::value::result::ToolResult;

/// One line of a session log.
///
/// ```
/// use dsh_kit::log::Record;
///
/// let line = r#"{"record":"request","invocation_id":"6f1c2a8e-55b4-4b1e-9a43-8f0d2b7c1e90","tool_name":"greet","input":{"name":"Ada"}}"#;
/// let record: Record = serde_json::from_str(line).unwrap();
/// assert!(matches!(record, Record::Request(ref request) if request.tool_name == "greet"));
/// assert_eq!(serde_json::to_string(&record).unwrap(), line);
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "record", rename_all = "snake_case")]
pub enum Record {
    /// A call was asked for: the `tool.invoke.request` payload, its `input`
    /// as the model sent it.
    Request(InvokeRequest),
    /// The permission stage decided a call, on its arguments as they run
    /// (paths resolved).
    Decided(DecidedRecord),
    /// A top-level call passed its checks and is about to run.
    Running(RunningRecord),
    /// A tool streamed a chunk (RAWP-DPS `tool.invoke.stream`).
    Stream(InvokeStream),
    /// A value passed the output gate and every post-execute hook.
    Executed(ExecutedRecord),
    /// Content over its limit could not be saved to its spill file.
    SpillFailed(SpillFailedRecord),
    /// A call ended, whatever its status.
    Result(Arc<ToolResult>),
    /// The tool catalog was published (RAWP-DPS `tool.catalog.publish`).
    Catalog(CatalogPublish),
}

impl Record {
    /// The record of `event`.
    pub fn from_event(event: &Event) -> Self {
        match event {
            Event::Request { .. } => Record::Request(
                event
                    .request_as_sent()
                    .expect("a request event has a request payload"),
            ),
            Event::Running {
                invocation_id,
                tool_name,
                card,
            } => Record::Running(RunningRecord {
                invocation_id: *invocation_id,
                tool_name: tool_name.to_string(),
                card: card.clone(),
            }),
            Event::Decided {
                invocation_id,
                tool_name,
                args,
                verdict,
            } => Record::Decided(DecidedRecord {
                invocation_id: *invocation_id,
                tool_name: tool_name.to_string(),
                args: Arc::clone(args),
                verdict: *verdict,
            }),
            Event::Stream(chunk) => Record::Stream(InvokeStream::from(chunk)),
            Event::Executed {
                invocation_id,
                tool_name,
                args,
                value,
                source,
                top_level,
                replaced_content,
                context,
                remote_card,
                remote_content,
            } => Record::Executed(ExecutedRecord {
                invocation_id: *invocation_id,
                tool_name: tool_name.to_string(),
                args: Arc::clone(args),
                value: Arc::clone(value),
                source: *source,
                top_level: *top_level,
                replaced_content: replaced_content.clone(),
                context: context.clone(),
                remote_card: remote_card.clone(),
                remote_content: remote_content.clone(),
            }),
            Event::SpillFailed {
                invocation_id,
                tool_name,
                error,
            } => {
                let (invocation_id, error) = (*invocation_id, error.clone());
                let tool_name = tool_name.to_string();
                Record::SpillFailed(SpillFailedRecord {
                    invocation_id,
                    tool_name,
                    error,
                })
            }
            Event::Result(result) => Record::Result(Arc::clone(result)),
            Event::Catalog(catalog) => Record::Catalog(catalog.clone()),
        }
    }

    /// The call the record belongs to; `None` for a catalog.
    pub fn invocation_id(&self) -> Option<Uuid> {
        match self {
            Record::Request(request) => Some(request.invocation_id),
            Record::Decided(decided) => Some(decided.invocation_id),
            Record::Running(running) => Some(running.invocation_id),
            Record::Stream(stream) => Some(stream.invocation_id),
            Record::Executed(executed) => Some(executed.invocation_id),
            Record::SpillFailed(failed) => Some(failed.invocation_id),
            Record::Result(result) => Some(result.invocation_id),
            Record::Catalog(_) => None,
        }
    }
}

/// The card a UI shows while a top-level call runs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunningRecord {
    /// The call's id.
    pub invocation_id: Uuid,
    /// The tool's canonical name.
    pub tool_name: String,
    /// The tool's `present_call` card, or the generic card without an output.
    pub card: Card,
}

/// What the permission stage decided about a call, and on which arguments:
/// path arguments as the file system resolved them, an approver's
/// substitute if it gave one.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DecidedRecord {
    /// The call's id.
    pub invocation_id: Uuid,
    /// The tool's canonical name.
    pub tool_name: String,
    /// The arguments the decision was made on.
    pub args: Arc<Value>,
    /// What was decided; a refusal's reason is in the call's result.
    pub verdict: Verdict,
}

/// What render and present received, and what post-execute hooks added: all
/// a replay needs to project the call's content and card again.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ExecutedRecord {
    /// The call's id.
    pub invocation_id: Uuid,
    /// The tool's canonical name.
    pub tool_name: String,
    /// The validated arguments (an approver's override, if it gave one),
    /// shared with the call's event rather than copied.
    pub args: Arc<Value>,
    /// The canonical value render and present received, shared likewise.
    pub value: Arc<Value>,
    /// Whether `execute` or a post-execute hook produced the value.
    pub source: ValueSource,
    /// Whether the call was top-level, so present ran and the result has a card.
    pub top_level: bool,
    /// The content a post-execute hook put in place of the render's, if one did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replaced_content: Option<Vec<ContentBlock>>,
    /// The context blocks post-execute hooks added after the content.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub context: Vec<ContentBlock>,
    /// The card a proxied tool's server presented the value with, which
    /// present showed in place of the generic card: a replay shows it
    /// again without the server. Absent for every other call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub remote_card: Option<Arc<Card>>,
    /// The content a proxied tool's server rendered its structured value
    /// as, which the model saw in place of the value's default rendering:
    /// a replay gives it again without the server. Absent for every other
    /// call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub remote_content: Option<Vec<ContentBlock>>,
}

/// Content over its tool's limit that could not be saved to its spill file:
/// the call's content has the preview and why the rest is missing.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SpillFailedRecord {
    /// The call's id.
    pub invocation_id: Uuid,
    /// The tool's canonical name.
    pub tool_name: String,
    /// Why the file could not be saved.
    pub error: String,
}
