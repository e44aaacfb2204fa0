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
}

impl ToolResult {
    /// The text of every text block, joined by newlines.
    pub fn text(&self) -> String {
        joined_text(&self.content)
    }

    /// A failed call whose content is `message`.
    pub(crate) fn failure(
        invocation_id: Uuid,
        tool_name: impl Into<String>,
        status: Status,
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
