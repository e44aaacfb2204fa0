//! What a proxy tells a host about its connection: drops, reconnections, and
//! how the server's tool list changed.

use std::time::Duration;

use serde::Serialize;

/// How a server's tool list changed between two reads, by the name each tool
/// is registered under (sorted). A tool is `changed` when its [contract
/// hash](crate::export::digest) differs.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct ToolListDiff {
    /// Tools the server did not have before.
    pub added: Vec<String>,
    /// Tools the server no longer has.
    pub removed: Vec<String>,
    /// Tools whose definition changed.
    pub changed: Vec<String>,
}

impl ToolListDiff {
    /// Whether nothing changed.
    pub fn is_empty(&self) -> bool {
        self.added.is_empty() && self.removed.is_empty() && self.changed.is_empty()
    }
}

impl std::fmt::Display for ToolListDiff {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.is_empty() {
            return f.write_str("no change");
        }
        let mut parts = Vec::new();
        for (what, names) in [
            ("added", &self.added),
            ("removed", &self.removed),
            ("changed", &self.changed),
        ] {
            if !names.is_empty() {
                parts.push(format!("{what} {}", names.join(", ")));
            }
        }
        f.write_str(&parts.join("; "))
    }
}

/// What happened to a proxy's connection: [`McpProxy::events`](super::McpProxy::events).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
#[non_exhaustive]
pub enum ProxyEvent {
    /// The server went away; its tools are `unavailable`.
    Disconnected {
        /// How it went.
        reason: String,
    },
    /// An attempt to reach the server again failed; the next comes after `retry_in`.
    ReconnectFailed {
        /// The attempt, from 1.
        attempt: u32,
        /// What went wrong.
        error: String,
        /// The wait before the next attempt.
        retry_in: Duration,
    },
    /// The server is back, its tools are `available` again (those still
    /// pinned to their contract), and its list was re-read.
    Reconnected {
        /// The attempt that succeeded, from 1.
        attempt: u32,
        /// How the list differs from before the drop.
        diff: ToolListDiff,
    },
    /// The server said its tool list changed, and it was re-read.
    ToolsChanged {
        /// How it changed.
        diff: ToolListDiff,
    },
    /// Every attempt failed: the tools stay `unavailable`.
    GaveUp {
        /// How many attempts were made.
        attempts: u32,
        /// What went wrong last.
        error: String,
    },
}
