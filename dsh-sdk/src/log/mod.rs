//! The session log: every call as JSON Lines, appended and flushed as it happens.
//!
//! ```
//! use dsh_kit::log::{Log, SessionLog};
//! use dsh_kit::prelude::*;
//! use dsh_kit::Registry;
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
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! # let dir = tempfile::tempdir()?;
//! # let path = dir.path().join("session.jsonl");
//! let registry = Registry::new();
//! registry.register::<greet>()?;
//!
//! let log = SessionLog::open(&path)?;
//! let logging = registry.subscribe(log.subscriber());
//! registry.call("greet", json!({ "name": "Ada" })).await;
//! drop(logging);
//!
//! let log = Log::read(&path)?;
//! let calls = log.calls();
//! assert_eq!(calls[0].tool_name(), "greet");
//! assert_eq!(calls[0].result.as_ref().unwrap().text(), "Hello, Ada!");
//! # Ok(())
//! # }
//! ```
//!
//! The host names the file with [`SessionLog::open`] and subscribes the log
//! to a registry with [`Registry::subscribe`](crate::Registry::subscribe);
//! from then on every call appends, in the order they happen, a `request`
//! record, a `running` record with the card shown while a top-level call runs,
//! one `stream` record per chunk the tool streamed, an `executed` record once
//! a value passed the output gate and every post-execute hook (calls refused
//! or failed before that have none), a `spill_failed` record when content
//! over its limit could not be saved to its spill file, and a `result`
//! record; a published
//! catalog appends a `catalog` record.
//! [`replay`](crate::log::replay::replay()) re-projects content and cards from the
//! `executed` records and compares them with the `running` and `result` records.
//!
//! # Durability
//!
//! Each record is one line, written with a single `write_all` of the whole
//! line and its `\n`, then flushed to the operating system, under a lock, so
//! records of concurrent calls never interleave and a crashed process loses at
//! most the record it was writing. [`SessionLog::sync_every_record`] also
//! syncs each record to the disk, for logs that must survive a power loss.
//!
//! A torn record can only be the last line: [`Log::read`] skips it with a
//! [`LogWarning`], and [`SessionLog::open`] cuts it off before appending.
//! Any other line that is not a record is an error naming the line.
//!
//! # Records and RAWP-DPS
//!
//! Each line is a JSON object tagged by `record`. Where a record overlaps a
//! RAWP-DPS event its fields carry the event's names:
//!
//! | record     | RAWP-DPS event         | how the fields map |
//! |------------|------------------------|--------------------|
//! | `request`  | `tool.invoke.request`  | the payload, field for field ([`InvokeRequest`]), with `input` as the model sent it |
//! | `running`  | none                   | the card a UI shows while the call runs: `invocation_id`, `tool_name`, `card` |
//! | `stream`   | `tool.invoke.stream`   | the payload, field for field ([`InvokeStream`]) |
//! | `executed` | none                   | what replay needs: the validated `args`, the canonical `value`, its `source` (`execute` or `post_execute`), `top_level`, and a post-execute hook's `replaced_content` and `context` |
//! | `spill_failed` | none               | content over its limit that could not be saved: `invocation_id`, `tool_name`, and the `error` |
//! | `result`   | `tool.invoke.result`   | a [`ToolResult`]: `invocation_id`, `tool_name`, `status`, `output_type` and `truncated` alike; `duration` is RAWP's `duration_ms`; RAWP's `output` is `value` on success and the text of `content` otherwise; `content` (what the model saw), `card`, and on failure `failure` (its cause, and the tool's failure kind and error value) besides |
//! | `catalog`  | `tool.catalog.publish` | the payload, field for field ([`CatalogPublish`]) |
//!
//! [`InvokeRequest`]: crate::value::event::rawp::InvokeRequest
//! [`InvokeStream`]: crate::value::event::rawp::InvokeStream
//! [`CatalogPublish`]: crate::value::event::rawp::CatalogPublish
//! [`ToolResult`]: crate::ToolResult

mod error;
mod reader;
mod record;
pub mod replay;
pub mod terminal;
mod writer;

pub use error::{LogError, LogWarning};
pub use reader::{Log, LogLine, LoggedCall};
pub use record::{DecidedRecord, ExecutedRecord, Record, RunningRecord, SpillFailedRecord};
pub use writer::SessionLog;
