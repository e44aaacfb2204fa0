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

/// How far a call has come, in numbers: `progress` of `total`, when the
/// tool knows the total. Both are finite.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Progress {
    /// How much is done, in the tool's own unit (files, bytes, steps).
    pub progress: f64,
    /// How much there is in all, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total: Option<f64>,
}

impl Progress {
    /// `progress` of `total`; `None` when `progress` is not a finite number
    /// (JSON has no NaN or infinity), and no total when `total` is not one.
    pub fn new(progress: f64, total: Option<f64>) -> Option<Progress> {
        progress.is_finite().then(|| Progress {
            progress,
            total: total.filter(|total| total.is_finite()),
        })
    }
}

/// One chunk a tool streamed while it ran.
#[derive(Clone, Debug, PartialEq)]
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
    /// For a progress chunk, how far the call has come in numbers, when the
    /// tool said ([`Exec::report_progress`](crate::Exec::report_progress)).
    pub progress: Option<Progress>,
}
