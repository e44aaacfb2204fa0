//! [`ToolResult`]: what one call produced.

use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use uuid::Uuid;

use crate::card::Card;
use crate::content::{ContentBlock, joined_text};
use crate::definition::OutputType;

/// How a call ended (RAWP-DPS `tool.invoke.result` `status`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// The tool ran and its output passed every gate.
    Success,
    /// The call failed: bad arguments, a refusal, the tool's own error, a panic, a bad output.
    Error,
    /// The call ran out of time.
    Timeout,
    /// The host cancelled the call.
    Cancelled,
}

/// The outcome of one call: what the model sees, the canonical value, and the card.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ToolResult {
    /// The call's id (UUID v4).
    pub invocation_id: Uuid,
    /// The tool's name, or the name that was asked for when none matched.
    pub tool_name: String,
    /// How the call ended.
    pub status: Status,
    /// What the model sees.
    pub content: Vec<ContentBlock>,
    /// The canonical output, when the tool succeeded.
    pub value: Option<Value>,
    /// What a UI shows.
    pub card: Option<Card>,
    /// Whether the content reports a failure.
    pub is_error: bool,
    /// How long the call took.
    #[serde(with = "duration_ms")]
    pub duration: Duration,
    /// Whether the content was cut short (the full text spilled to a file).
    pub truncated: bool,
    /// How a receiver should read the output (RAWP-DPS `output_type`),
    /// resolved by [`OutputType::resolve`].
    #[serde(default)]
    pub output_type: OutputType,
    /// The batch the call ran in, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parallel_group_id: Option<Uuid>,
    /// Why the call failed, for a host to switch on: set on every failed
    /// result, `None` on success.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure: Option<Failure>,
}

/// Why a call failed, typed: the stage that stopped it and, when the tool's
/// own error stopped it, that error's kind and value.
///
/// Serializes as `{"cause": "tool", "kind": "NoMatchesFound", "data": …}`;
/// `kind` and `data` are left out when absent.
///
/// ```
/// use dsh_sdk::{Cause, Failure};
///
/// let failure = Failure::tool(Some("NoMatchesFound".into()), Some(serde_json::json!({ "NoMatchesFound": "fn main" })));
/// assert_eq!(
///     serde_json::to_value(&failure).unwrap(),
///     serde_json::json!({ "cause": "tool", "kind": "NoMatchesFound", "data": { "NoMatchesFound": "fn main" } })
/// );
/// assert_eq!(Failure::new(Cause::InvalidArguments).kind, None);
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Failure {
    /// What stopped the call.
    pub cause: Cause,
    /// The tool's own failure kind: the variant name of its error
    /// (`NoMatchesFound`), when the error names one ([`ToolError::with_kind`]).
    ///
    /// [`ToolError::with_kind`]: crate::ToolError::with_kind
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// The tool's error value, serialized, when it carries one
    /// ([`ToolError::with_data`]).
    ///
    /// [`ToolError::with_data`]: crate::ToolError::with_data
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
}

impl Failure {
    /// A failure of the pipeline's own: no kind, no data.
    pub fn new(cause: Cause) -> Self {
        Failure {
            cause,
            kind: None,
            data: None,
        }
    }

    /// The tool's own error, with its kind and value if it has them.
    pub fn tool(kind: Option<String>, data: Option<Value>) -> Self {
        Failure {
            cause: Cause::Tool,
            kind,
            data,
        }
    }
}

/// What stopped a failed call: the tool's own error, or a stage of the pipeline.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Cause {
    /// No tool has the name that was called.
    UnknownTool,
    /// The catalog marks the tool `unavailable`, or has a `fatal` diagnostic for it.
    Unavailable,
    /// The arguments broke the input schema, did not deserialize, or failed
    /// the tool's own `validate_input` (an approver's override included).
    InvalidArguments,
    /// A permission rule or gate denied the call, or it needed an approval
    /// no one could give.
    Denied,
    /// The host's approver rejected the call.
    Rejected,
    /// The tool's body returned an error.
    Tool,
    /// The tool's body panicked.
    Panicked,
    /// A host hook panicked: a post-execute hook, the approver, or an execute
    /// layer. (A panicking gate or guard denies the call instead.)
    HookPanicked,
    /// The call ran out of time.
    Timeout,
    /// The host cancelled the call.
    Cancelled,
    /// The tool's output (or a post-execute hook's replacement) broke the output schema.
    InvalidOutput,
    /// A post-execute hook blocked the result.
    Blocked,
    /// Render or present failed or panicked.
    RenderFailed,
}

impl ToolResult {
    /// The text of every text block, joined by newlines.
    pub fn text(&self) -> String {
        joined_text(&self.content)
    }

    /// A failed call whose content is `message`.
    pub(crate) fn failed(
        invocation_id: Uuid,
        tool_name: impl Into<String>,
        status: Status,
        failure: Failure,
        message: impl Into<String>,
        duration: Duration,
    ) -> Self {
        ToolResult {
            invocation_id,
            tool_name: tool_name.into(),
            status,
            content: vec![ContentBlock::text(message)],
            value: None,
            card: None,
            is_error: true,
            duration,
            truncated: false,
            output_type: OutputType::Text,
            parallel_group_id: None,
            failure: Some(failure),
        }
    }
}

mod duration_ms {
    use std::time::Duration;

    use serde::{Deserialize, Deserializer, Serializer};

    pub(super) fn serialize<S: Serializer>(duration: &Duration, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u64(u64::try_from(duration.as_millis()).unwrap_or(u64::MAX))
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Duration, D::Error> {
        u64::deserialize(d).map(Duration::from_millis)
    }
}
