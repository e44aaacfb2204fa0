//! [`Log`]: a session log read back, its records grouped by call.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde_json::Value;
use uuid::Uuid;

use crate::value::card::Card;
use crate::value::event::rawp::{CatalogPublish, InvokeRequest, InvokeStream};
use crate::value::principal::Caller;
use crate::value::result::ToolResult;

use super::{DecidedRecord, ExecutedRecord, LogError, LogWarning, Record, SpillFailedRecord};

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
                Record::Decided(decided) => call.decided = Some(decided.clone()),
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
    /// What was decided about it, on which arguments; `None` when it
    /// stopped before the decision.
    pub decided: Option<DecidedRecord>,
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
            decided: None,
            running: None,
            stream: Vec::new(),
            executed: None,
            spill_failed: None,
            result: None,
        }
    }

    /// Who made the call, as its request recorded it; `None` for the
    /// host's own calls, a log written before callers were recorded, and a
    /// call whose request is not in the log.
    pub fn caller(&self) -> Option<&Caller> {
        self.request.as_ref()?.principal.as_ref()
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
