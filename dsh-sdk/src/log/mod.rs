//! The session log: every call as JSON Lines, appended and flushed as it happens.
//!
//! ```
//! use dsh_sdk::log::{Log, SessionLog};
//! use dsh_sdk::prelude::*;
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

pub mod replay;

use std::collections::HashMap;
use std::fmt;
use std::fs::{File, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use serde::{Deserialize, Serialize};
use serde_json::Value;
use uuid::Uuid;

use crate::card::Card;
use crate::content::ContentBlock;
use crate::event::rawp::{CatalogPublish, InvokeRequest, InvokeStream};
use crate::event::{Event, ValueSource};
use crate::result::ToolResult;
use crate::tool::with_sources;

/// One line of a session log.
///
/// ```
/// use dsh_sdk::log::Record;
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
            } => Record::Executed(ExecutedRecord {
                invocation_id: *invocation_id,
                tool_name: tool_name.to_string(),
                args: Arc::clone(args),
                value: Arc::clone(value),
                source: *source,
                top_level: *top_level,
                replaced_content: replaced_content.clone(),
                context: context.clone(),
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

/// Reading or writing a session log failed.
#[derive(Debug, thiserror::Error)]
pub enum LogError {
    /// The file could not be opened or created.
    #[error("could not open the session log `{}`", path.display())]
    Open {
        /// The log file.
        path: PathBuf,
        /// Why.
        #[source]
        source: io::Error,
    },
    /// The file could not be read.
    #[error("could not read the session log `{}`", path.display())]
    Read {
        /// The log file.
        path: PathBuf,
        /// Why.
        #[source]
        source: io::Error,
    },
    /// A record could not be appended; a partial line was cut off again.
    #[error("could not append to the session log `{}`", path.display())]
    Write {
        /// The log file.
        path: PathBuf,
        /// Why.
        #[source]
        source: io::Error,
    },
    /// An earlier write failed and its partial line could not be cut off, so
    /// the log takes no more records: the torn line stays the last one.
    #[error("the session log `{}` takes no more records: an earlier write failed and left a partial line", path.display())]
    Broken {
        /// The log file.
        path: PathBuf,
    },
    /// A record could not be serialized.
    #[error("could not serialize a record for the session log `{}`", path.display())]
    Serialize {
        /// The log file.
        path: PathBuf,
        /// Why.
        #[source]
        source: serde_json::Error,
    },
    /// A line before the last is not a record: the log is corrupt there.
    #[error("line {line} of the session log `{}` is not a record", path.display())]
    Corrupt {
        /// The log file.
        path: PathBuf,
        /// The line, 1-based.
        line: usize,
        /// Why it does not parse.
        #[source]
        source: serde_json::Error,
    },
}

/// A torn last record that was skipped, or cut off before appending.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LogWarning {
    /// The log file.
    pub path: PathBuf,
    /// The line, 1-based.
    pub line: usize,
    /// How many bytes it held.
    pub bytes: usize,
    /// Why it does not parse.
    pub reason: String,
}

impl fmt::Display for LogWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "the last line ({}) of the session log `{}` is a torn record of {} bytes, left out: {}",
            self.line,
            self.path.display(),
            self.bytes,
            self.reason
        )
    }
}

/// Appends records to a session log file. Cheap to clone; clones share the file.
///
/// Open it once per file: records from one `SessionLog` never interleave,
/// while two writers on one file (in one process or two) can. Writing a
/// record blocks the calling task for one buffered write, as `tracing`'s
/// file writers do; with [`sync_every_record`](Self::sync_every_record), for
/// a disk flush too.
#[derive(Clone)]
pub struct SessionLog {
    inner: Arc<Writer>,
}

struct Writer {
    path: PathBuf,
    sync: AtomicBool,
    file: Mutex<Appender>,
    error: Mutex<Option<LogError>>,
    repaired: Option<LogWarning>,
}

struct Appender {
    file: File,
    /// The file's length after the last whole record, to cut a partial one.
    len: u64,
    broken: bool,
}

impl SessionLog {
    /// Opens `path` to append records, creating it when missing.
    ///
    /// When the file ends in a torn record (a crash cut its last write
    /// short), that line is cut off first, with a warning through `tracing`
    /// and [`repaired`](Self::repaired), so new records start on a line of
    /// their own. A last record that is whole but lacks its `\n` is kept.
    pub fn open(path: impl AsRef<Path>) -> Result<Self, LogError> {
        let path = path.as_ref().to_owned();
        let mut file = OpenOptions::new()
            .read(true)
            .append(true)
            .create(true)
            .open(&path)
            .map_err(|source| LogError::Open {
                path: path.clone(),
                source,
            })?;
        let (len, repaired) = repair_tail(&mut file, &path)?;
        if let Some(warning) = &repaired {
            tracing::warn!(path = %path.display(), line = warning.line, "{warning}");
        }
        Ok(SessionLog {
            inner: Arc::new(Writer {
                path,
                sync: AtomicBool::new(false),
                file: Mutex::new(Appender {
                    file,
                    len,
                    broken: false,
                }),
                error: Mutex::new(None),
                repaired,
            }),
        })
    }

    /// Also syncs every record to the disk (`fsync`), so records survive a
    /// power loss as well as a crash, at the cost of a disk flush per record.
    pub fn sync_every_record(self) -> Self {
        self.inner.sync.store(true, Ordering::Relaxed);
        self
    }

    /// The log file.
    pub fn path(&self) -> &Path {
        &self.inner.path
    }

    /// The torn last record [`open`](Self::open) cut off, if it found one.
    pub fn repaired(&self) -> Option<&LogWarning> {
        self.inner.repaired.as_ref()
    }

    /// A subscriber for [`Registry::subscribe`](crate::Registry::subscribe)
    /// that appends a record for every event.
    ///
    /// A subscriber cannot fail a call, so a failed write is reported through
    /// `tracing` and kept for [`take_error`](Self::take_error).
    pub fn subscriber(&self) -> impl Fn(&Event) + Send + Sync + 'static {
        let log = self.clone();
        move |event| {
            if let Err(error) = log.append(&Record::from_event(event)) {
                tracing::error!(path = %log.inner.path.display(), "{}", with_sources(&error));
                log.inner
                    .error
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .get_or_insert(error);
            }
        }
    }

    /// Appends one record: one write of the whole line, then a flush.
    ///
    /// A write that fails part-way is cut off again, so a torn line can only
    /// ever be the last; when even that fails, the log refuses every later
    /// record with [`LogError::Broken`].
    pub fn append(&self, record: &Record) -> Result<(), LogError> {
        let path = || self.inner.path.clone();
        let mut line = serde_json::to_vec(record).map_err(|source| LogError::Serialize {
            path: path(),
            source,
        })?;
        line.push(b'\n');
        let mut appender = self
            .inner
            .file
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if appender.broken {
            return Err(LogError::Broken { path: path() });
        }
        let written = appender
            .file
            .write_all(&line)
            .and_then(|()| appender.file.flush());
        if let Err(source) = written {
            let len = appender.len;
            if appender.file.set_len(len).is_err() {
                appender.broken = true;
            }
            return Err(LogError::Write {
                path: path(),
                source,
            });
        }
        appender.len += line.len() as u64;
        if self.inner.sync.load(Ordering::Relaxed) {
            appender
                .file
                .sync_data()
                .map_err(|source| LogError::Write {
                    path: path(),
                    source,
                })?;
        }
        Ok(())
    }

    /// The first write that failed in [`subscriber`](Self::subscriber) since
    /// the last call, if any.
    pub fn take_error(&self) -> Option<LogError> {
        self.inner
            .error
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
    }
}

impl fmt::Debug for SessionLog {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SessionLog")
            .field("path", &self.inner.path)
            .field(
                "sync_every_record",
                &self.inner.sync.load(Ordering::Relaxed),
            )
            .finish_non_exhaustive()
    }
}

/// Cuts a torn last line off `file`, or ends a whole last record that lacks
/// its `\n`, and returns the file's length after that.
fn repair_tail(file: &mut File, path: &Path) -> Result<(u64, Option<LogWarning>), LogError> {
    let read_error = |source| LogError::Read {
        path: path.to_owned(),
        source,
    };
    let write_error = |source| LogError::Write {
        path: path.to_owned(),
        source,
    };
    let len = file.metadata().map_err(read_error)?.len();
    if len == 0 {
        return Ok((0, None));
    }
    // Read backwards, a block at a time, to the last `\n`.
    const BLOCK: u64 = 64 * 1024;
    let mut tail: Vec<u8> = Vec::new();
    let mut start = len;
    let line_start = loop {
        let from = start.saturating_sub(BLOCK);
        // At most `BLOCK` bytes, so the cast cannot truncate.
        let mut block = vec![0; (start - from) as usize];
        file.seek(SeekFrom::Start(from)).map_err(read_error)?;
        file.read_exact(&mut block).map_err(read_error)?;
        block.extend_from_slice(&tail);
        tail = block;
        start = from;
        if let Some(newline) = tail.iter().rposition(|&byte| byte == b'\n') {
            break start + newline as u64 + 1;
        }
        if start == 0 {
            break 0;
        }
    };
    if line_start == len {
        return Ok((len, None));
    }
    let torn = &tail[(line_start - start) as usize..];
    match serde_json::from_slice::<Record>(torn) {
        Ok(_) => {
            file.write_all(b"\n").map_err(write_error)?;
            Ok((len + 1, None))
        }
        Err(error) => {
            let line = count_lines_before(file, line_start).map_err(read_error)? + 1;
            let warning = LogWarning {
                path: path.to_owned(),
                line,
                bytes: torn.len(),
                reason: error.to_string(),
            };
            file.set_len(line_start).map_err(write_error)?;
            Ok((line_start, Some(warning)))
        }
    }
}

/// How many `\n` the first `end` bytes of `file` hold.
fn count_lines_before(file: &mut File, end: u64) -> io::Result<usize> {
    file.seek(SeekFrom::Start(0))?;
    let mut reader = io::BufReader::new(file.take(end));
    let mut count = 0;
    let mut buf = [0; 64 * 1024];
    loop {
        let read = reader.read(&mut buf)?;
        if read == 0 {
            return Ok(count);
        }
        count += buf[..read].iter().filter(|&&byte| byte == b'\n').count();
    }
}

/// A session log as read back: its records and the torn last line, if any.
#[derive(Clone, Debug, PartialEq)]
pub struct Log {
    /// The file it was read from.
    pub path: PathBuf,
    /// Every record, in the order written.
    pub records: Vec<LogLine>,
    /// The torn last record, when the log ends in one.
    pub warnings: Vec<LogWarning>,
}

/// A record and the line it was on.
#[derive(Clone, Debug, PartialEq)]
pub struct LogLine {
    /// The line, 1-based.
    pub line: usize,
    /// The record.
    pub record: Record,
}

impl Log {
    /// Reads the log at `path`.
    ///
    /// A last line that does not parse is a record torn by a crash: it is
    /// left out, with a [`LogWarning`] in [`warnings`](Self::warnings) and
    /// through `tracing`. Any other line that does not parse is
    /// [`LogError::Corrupt`], naming the line. Blank lines are ignored.
    pub fn read(path: impl AsRef<Path>) -> Result<Self, LogError> {
        let path = path.as_ref();
        let bytes = std::fs::read(path).map_err(|source| LogError::Read {
            path: path.to_owned(),
            source,
        })?;
        Log::parse(path, &bytes)
    }

    /// Parses a log's bytes; `path` names it in errors and warnings.
    pub fn parse(path: impl Into<PathBuf>, bytes: &[u8]) -> Result<Self, LogError> {
        let path = path.into();
        let lines: Vec<(usize, &[u8])> = bytes
            .split(|&byte| byte == b'\n')
            .enumerate()
            .map(|(index, line)| (index + 1, line))
            .filter(|(_, line)| !line.iter().all(u8::is_ascii_whitespace))
            .collect();
        let mut records = Vec::with_capacity(lines.len());
        let mut warnings = Vec::new();
        for (index, &(line, text)) in lines.iter().enumerate() {
            match serde_json::from_slice::<Record>(text) {
                Ok(record) => records.push(LogLine { line, record }),
                Err(error) if index + 1 == lines.len() => {
                    let warning = LogWarning {
                        path: path.clone(),
                        line,
                        bytes: text.len(),
                        reason: error.to_string(),
                    };
                    tracing::warn!(path = %path.display(), line, "{warning}");
                    warnings.push(warning);
                }
                Err(source) => {
                    return Err(LogError::Corrupt { path, line, source });
                }
            }
        }
        Ok(Log {
            path,
            records,
            warnings,
        })
    }

    /// The records grouped by call, in the order the calls started.
    ///
    /// A `request` record starts a call; every other record joins the latest
    /// call with its invocation id (or starts one, for a log that begins
    /// mid-call). Catalogs belong to no call and are left out.
    pub fn calls(&self) -> Vec<LoggedCall> {
        let mut calls: Vec<LoggedCall> = Vec::new();
        let mut latest: HashMap<Uuid, usize> = HashMap::new();
        for LogLine { line, record } in &self.records {
            let Some(id) = record.invocation_id() else {
                continue;
            };
            let index = match (record, latest.get(&id)) {
                (Record::Request(_), _) | (_, None) => {
                    calls.push(LoggedCall::new(id, *line));
                    latest.insert(id, calls.len() - 1);
                    calls.len() - 1
                }
                (_, Some(&index)) => index,
            };
            let call = &mut calls[index];
            match record {
                Record::Request(request) => call.request = Some(request.clone()),
                Record::Running(running) => call.running = Some(running.card.clone()),
                Record::Stream(chunk) => call.stream.push(chunk.clone()),
                Record::Executed(executed) => call.executed = Some(executed.clone()),
                Record::SpillFailed(failed) => call.spill_failed = Some(failed.clone()),
                Record::Result(result) => call.result = Some(ToolResult::clone(result)),
                Record::Catalog(_) => {}
            }
        }
        calls
    }

    /// The catalogs published during the session, in order.
    pub fn catalogs(&self) -> impl Iterator<Item = &CatalogPublish> {
        self.records.iter().filter_map(|line| match &line.record {
            Record::Catalog(catalog) => Some(catalog),
            _ => None,
        })
    }
}

/// The records of one call.
#[derive(Clone, Debug, PartialEq)]
pub struct LoggedCall {
    /// The call's id.
    pub invocation_id: Uuid,
    /// The line of its first record, 1-based.
    pub line: usize,
    /// What the model asked for.
    pub request: Option<InvokeRequest>,
    /// The card shown while it ran, for a top-level call that got that far.
    pub running: Option<Card>,
    /// What the tool streamed, in order.
    pub stream: Vec<InvokeStream>,
    /// What render and present received; `None` when the call never got there.
    pub executed: Option<ExecutedRecord>,
    /// Why its oversized content could not be saved, when it could not.
    pub spill_failed: Option<SpillFailedRecord>,
    /// How it ended; `None` when the log ends before it did.
    pub result: Option<ToolResult>,
}

impl LoggedCall {
    fn new(invocation_id: Uuid, line: usize) -> Self {
        LoggedCall {
            invocation_id,
            line,
            request: None,
            running: None,
            stream: Vec::new(),
            executed: None,
            spill_failed: None,
            result: None,
        }
    }

    /// The tool's canonical name when the call resolved, else the name asked for.
    pub fn tool_name(&self) -> &str {
        self.executed
            .as_ref()
            .map(|executed| executed.tool_name.as_str())
            .or(self.result.as_ref().map(|result| &*result.tool_name))
            .or(self
                .request
                .as_ref()
                .map(|request| request.tool_name.as_str()))
            .unwrap_or_default()
    }

    /// The arguments: the validated ones when the call executed, else the raw ones.
    pub fn args(&self) -> Option<&Value> {
        self.executed
            .as_ref()
            .map(|executed| &*executed.args)
            .or(self.request.as_ref().map(|request| &request.input))
    }
}
