//! The kinds of output a running tool streams, each chunk tagged with one.
//!
//! The context that writes chunks ([`Exec`](crate::Exec)) sits above the
//! events and the log that carry them, and names these types from here.

use serde::{Deserialize, Serialize};
use uuid::Uuid;

/// What a `tool.invoke.stream` chunk carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StreamType {
    /// Standard output.
    Stdout,
    /// Standard error.
    Stderr,
    /// A progress message.
    Progress,
}

/// One chunk a tool streamed while it ran.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StreamChunk {
    /// The call it belongs to.
    pub invocation_id: Uuid,
    /// The tool that sent it.
    pub tool_name: String,
    /// stdout, stderr or progress.
    pub stream_type: StreamType,
    /// The text.
    pub chunk: String,
    /// 0-based, per call.
    pub sequence: u64,
}
