//! The kinds of output a running tool streams, each chunk tagged with one.
//!
//! A leaf of the crate: the context that writes chunks
//! ([`Exec`](crate::Exec)) and the events and log that carry them name the
//! same kinds without depending on each other.

use serde::{Deserialize, Serialize};

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
