//! Replay: project a session log's values again, without executing anything,
//! and compare the content and cards with the ones logged, byte for byte.
//!
//! ```
//! use dsh_kit::log::{Log, SessionLog};
//! use dsh_kit::prelude::*;
//! use dsh_kit::Registry;
//! use dsh_kit::log::replay::replay;
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
//! let log = SessionLog::open(&path)?;
//! let logging = registry.subscribe(log.subscriber());
//! registry.call("greet", json!({ "name": "Ada" })).await;
//! registry.call("greet", json!({ "name": 42 })).await; // invalid: never executed
//! drop(logging);
//!
//! let report = replay(&registry, &Log::read(&path)?);
//! assert!(!report.has_differences());
//! assert_eq!(report.summary().identical, 1);
//! assert_eq!(report.summary().skipped, 1);
//! # Ok(())
//! # }
//! ```
//!
//! For every call with an `executed` record, replay runs stages 8 and 9 of
//! the pipeline, the very function a live call runs: it deserializes the
//! logged arguments and canonical value into the tool's types, renders and
//! presents them (catching a panic into the same error result), puts back a
//! post-execute hook's logged content and context, and finalizes. Then it
//! compares the status, `is_error`, the content, the card, `truncated`,
//! `output_type` and `failure` with the logged result, each as JSON text, byte for byte; and
//! the card shown while the call ran with the tool's `present_call` of the
//! same arguments. Nothing executes and no hook runs.
//!
//! A tool proxied from a dsh server (`McpProxy`, with the `mcp` feature) is
//! presented by that server: its card came with the value, and its
//! `executed` record holds it ([`ExecutedRecord::remote_card`]). Replay
//! shows that recorded card, as the live call did, and never asks the
//! server: a log of proxied calls replays card and all while the server is
//! gone, as long as the replaying registry knows its tools.
//!
//! Calls that never reached render (unknown tools, invalid arguments,
//! refusals, failures, timeouts, cancellations) have no `executed` record and
//! are [skipped](Outcome::Skipped), not compared; a call whose tool the
//! replaying registry lacks is [`Outcome::UnknownTool`]. Neither fails the
//! replay.
//!
//! Each call is replayed as the caller its request recorded
//! ([`CallReplay::caller`], the host when none): a tool hidden from that
//! caller in the replaying registry (its [`CallerView`](crate::CallerView)) is an unknown
//! tool to it, as it would be to a live call.
//!
//! # Spilled results
//!
//! A result over its size limit was spilled: the model saw a message with a
//! preview and the spill file's path. Replay finalizes the same way but writes
//! nothing: it works out the path and message the registry's spill settings
//! give, so the logged message is compared byte for byte like any content.
//! Replay against a registry built with the live one's `max_result_chars`,
//! `spill_dir` and `spill_preview_chars`; other settings change the message,
//! and the comparison says so. When the spill file is still there, its text is
//! also compared with the whole rendered text ([`Field::SpillFile`]); a file
//! cleaned away since is noted in [`CallReplay::spill_file`], not a difference.
//! A call whose spill could not be saved at call time (its `spill_failed`
//! record says so) cannot be checked without writing, and is skipped
//! ([`Skip::SpillFailed`]).

use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;

use uuid::Uuid;

use crate::log::{ExecutedRecord, Log, LoggedCall};
use crate::pipeline::{Head, Settled, Success, finish, is_unsaved};
use crate::registry::Registry;
use crate::tool::{self, Entry};
use crate::value::card::Card;
use crate::value::content::ContentBlock;
use crate::value::names::OutputType;
use crate::value::principal::{Caller, Principal};
use crate::value::result::{Failure, Status, ToolResult};

/// Replays every call of `log` against `registry`; see the [module docs](self).
///
/// The report has one entry per call, in the order of [`Log::calls`].
pub fn replay(registry: &Registry, log: &Log) -> ReplayReport {
    let calls = log
        .calls()
        .iter()
        .map(|call| {
            let mut spill_file = None;
            let outcome = replay_call(registry, call, &mut spill_file);
            CallReplay {
                invocation_id: call.invocation_id,
                tool_name: call.tool_name().to_owned(),
                caller: call.caller().cloned(),
                line: call.line,
                spill_file,
                outcome,
            }
        })
        .collect();
    ReplayReport { calls }
}

fn replay_call(
    registry: &Registry,
    call: &LoggedCall,
    spill_file: &mut Option<SpillFile>,
) -> Outcome {
    let Some(logged) = &call.result else {
        return Outcome::Skipped(Skip::NoResult);
    };
    let Some(executed) = &call.executed else {
        return Outcome::Skipped(Skip::NotExecuted {
            status: logged.status(),
        });
    };
    let Some(entry) = registry.pool().entry(&executed.tool_name) else {
        return Outcome::UnknownTool;
    };
    let config = &registry.pipeline().config;
    let caller = call.caller().map(Caller::principal);
    let principal = caller.as_ref().unwrap_or_else(|| Principal::shared_host());
    if !config.permissions.shows(&entry.def, principal) {
        return Outcome::UnknownTool;
    }
    let head = Head {
        invocation_id: call.invocation_id,
        tool: entry.def.name.clone(),
        parallel_group_id: logged.parallel_group_id,
        output_type: entry.def.resolve_output_type(None),
    };
    // The very result a live call builds from the same settled value.
    let (replayed, spill) = match finish(config, &entry, settled(call, executed)) {
        Ok(mut finished) => {
            let spill = finished.spill.as_mut().map(|overflow| {
                (
                    overflow.spilled.path.clone(),
                    std::mem::take(&mut overflow.full),
                )
            });
            let success = Success::new(&entry, serde_json::Value::clone(&executed.value), finished);
            (head.succeeded(success), spill)
        }
        Err(stop) => (head.failed(stop), None),
    };
    let replayed = Projected::of(&replayed);
    if spill.is_some() && spill_failed(call, logged) {
        return Outcome::Skipped(Skip::SpillFailed);
    }

    let mut differences: Vec<Difference> = running_card(&entry, call, executed)
        .into_iter()
        .chain(compare(&Projected::of(logged), &replayed))
        .collect();
    if let Some((path, full)) = spill {
        let (file, difference) = spill_file_check(path, full);
        *spill_file = Some(file);
        differences.extend(difference);
    }
    if differences.is_empty() {
        Outcome::Identical
    } else {
        Outcome::Differs(differences)
    }
}

/// Whether the call's spill file could not be saved: the log records it;
/// a log written before such records has only its content to tell.
fn spill_failed(call: &LoggedCall, logged: &ToolResult) -> bool {
    call.spill_failed.is_some()
        || (!logged.is_error() && logged.truncated && is_unsaved(logged.content()))
}

/// The logged running card against the tool's `present_call` of the same
/// arguments (the pipeline presents it from the arguments `executed` holds).
fn running_card(
    entry: &Arc<Entry>,
    call: &LoggedCall,
    executed: &ExecutedRecord,
) -> Option<Difference> {
    let logged = call.running.as_ref()?;
    let card = tool::running_card(entry, &executed.args, || Arc::clone(&executed.args));
    let (expected, actual) = (json_text(logged), json_text(&card));
    (expected != actual).then_some(Difference {
        field: Field::RunningCard,
        expected,
        actual,
    })
}

/// The spill file at `path`, if still there, against the whole rendered text.
fn spill_file_check(path: PathBuf, full: String) -> (SpillFile, Option<Difference>) {
    match std::fs::read_to_string(&path) {
        Ok(saved) => {
            let difference = (saved != full).then_some(Difference {
                field: Field::SpillFile,
                expected: saved,
                actual: full,
            });
            (SpillFile { path, found: true }, difference)
        }
        Err(_) => (SpillFile { path, found: false }, None),
    }
}

/// The fields of a result that replay compares.
struct Projected {
    status: Status,
    is_error: bool,
    content: Vec<ContentBlock>,
    card: Option<Card>,
    truncated: bool,
    output_type: OutputType,
    failure: Option<Failure>,
}

impl Projected {
    /// A field of the result, as JSON text; `None` for the fields that are
    /// not part of a result (the running card, the spill file).
    fn text(&self, field: Field) -> Option<String> {
        Some(match field {
            Field::Status => json_text(&self.status),
            Field::IsError => json_text(&self.is_error),
            Field::Content => json_text(&self.content),
            Field::Card => json_text(&self.card),
            Field::Truncated => json_text(&self.truncated),
            Field::OutputType => json_text(&self.output_type),
            Field::Failure => json_text(&self.failure),
            Field::RunningCard | Field::SpillFile => return None,
        })
    }

    fn of(result: &ToolResult) -> Self {
        Projected {
            status: result.status(),
            is_error: result.is_error(),
            content: result.content().to_vec(),
            card: result.card().cloned(),
            truncated: result.truncated,
            output_type: result.output_type,
            failure: result.failure.clone(),
        }
    }
}

fn settled<'a>(call: &LoggedCall, executed: &'a ExecutedRecord) -> Settled<'a> {
    Settled {
        invocation_id: call.invocation_id,
        args: Arc::clone(&executed.args),
        value: &executed.value,
        top_level: executed.top_level,
        replaced_content: executed.replaced_content.clone(),
        context: executed.context.clone(),
        // What a proxied tool's server showed, as recorded: the server is
        // not asked.
        remote_card: executed.remote_card.as_deref(),
        remote_content: executed.remote_content.clone(),
    }
}

/// Every field of `actual` that differs from `expected`, as JSON text.
fn compare(expected: &Projected, actual: &Projected) -> Vec<Difference> {
    const COMPARED: [Field; 7] = [
        Field::Status,
        Field::IsError,
        Field::Content,
        Field::Card,
        Field::Truncated,
        Field::OutputType,
        Field::Failure,
    ];
    COMPARED
        .into_iter()
        // A log written before failures were recorded has none to compare.
        .filter(|field| {
            *field != Field::Failure || !(expected.is_error && expected.failure.is_none())
        })
        .filter_map(|field| {
            let (expected, actual) = (expected.text(field)?, actual.text(field)?);
            (expected != actual).then_some(Difference {
                field,
                expected,
                actual,
            })
        })
        .collect()
}

fn json_text<T: serde::Serialize + ?Sized>(value: &T) -> String {
    serde_json::to_string(value)
        .unwrap_or_else(|error| format!("(could not be serialized: {error})"))
}

/// What a replay found, call by call.
#[derive(Clone, Debug, PartialEq)]
pub struct ReplayReport {
    /// One entry per call, in the order of [`Log::calls`].
    pub calls: Vec<CallReplay>,
}

impl ReplayReport {
    /// Whether any replayed call came out differently.
    pub fn has_differences(&self) -> bool {
        self.calls
            .iter()
            .any(|call| matches!(call.outcome, Outcome::Differs(_)))
    }

    /// Every difference, with the call it belongs to.
    pub fn differences(&self) -> impl Iterator<Item = (&CallReplay, &Difference)> {
        self.calls.iter().flat_map(|call| {
            let differences: &[Difference] = match &call.outcome {
                Outcome::Differs(differences) => differences,
                _ => &[],
            };
            differences.iter().map(move |difference| (call, difference))
        })
    }

    /// How many calls came out each way.
    pub fn summary(&self) -> Summary {
        let mut summary = Summary::default();
        for call in &self.calls {
            match call.outcome {
                Outcome::Identical => summary.identical += 1,
                Outcome::Differs(_) => summary.differing += 1,
                Outcome::UnknownTool => summary.unknown_tool += 1,
                Outcome::Skipped(_) => summary.skipped += 1,
            }
        }
        summary
    }
}

impl fmt::Display for ReplayReport {
    /// One line per call, its differences under it, then the summary.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for call in &self.calls {
            writeln!(f, "{call}")?;
            if let Outcome::Differs(differences) = &call.outcome {
                for difference in differences {
                    writeln!(f, "    {difference}")?;
                }
            }
        }
        write!(f, "{}", self.summary())
    }
}

/// How many calls of a replay came out each way.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    /// Replayed byte for byte.
    pub identical: usize,
    /// Replayed with differences.
    pub differing: usize,
    /// Naming a tool the registry lacks.
    pub unknown_tool: usize,
    /// Not replayable.
    pub skipped: usize,
}

impl fmt::Display for Summary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} identical, {} differing, {} unknown tool, {} skipped",
            self.identical, self.differing, self.unknown_tool, self.skipped
        )
    }
}

/// The replay of one call.
#[derive(Clone, Debug, PartialEq)]
pub struct CallReplay {
    /// The call's id.
    pub invocation_id: Uuid,
    /// Its tool (the name asked for, when it never resolved).
    pub tool_name: String,
    /// Who made it, as its request recorded it; `None` for the host's own
    /// calls (and logs written before callers were recorded).
    pub caller: Option<Caller>,
    /// The line of its first record in the log.
    pub line: usize,
    /// The spill file checked, for a spilled result.
    pub spill_file: Option<SpillFile>,
    /// What came of it.
    pub outcome: Outcome,
}

impl fmt::Display for CallReplay {
    /// `line 3 `greet` ID: identical`, and ` by ada (client notes-app)`
    /// before the colon for a call someone other than the host made.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "line {} `{}` {}",
            self.line, self.tool_name, self.invocation_id
        )?;
        if let Some(caller) = &self.caller {
            write!(f, " by {caller}")?;
        }
        write!(f, ": {}", self.outcome)
    }
}

/// A spill file a replay looked for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpillFile {
    /// Where the registry's settings put it.
    pub path: PathBuf,
    /// Whether it was there to compare (it may have been cleaned away).
    pub found: bool,
}

/// What came of replaying one call.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    /// Every compared field came out byte for byte as logged.
    Identical,
    /// Something came out differently: every field that did, in field order.
    Differs(Vec<Difference>),
    /// The registry has no tool of the logged name, so nothing was projected.
    UnknownTool,
    /// The call cannot be replayed.
    Skipped(Skip),
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Outcome::Identical => f.write_str("identical"),
            Outcome::Differs(differences) => {
                let fields: Vec<&str> = differences
                    .iter()
                    .map(|difference| difference.field.name())
                    .collect();
                write!(f, "differs in {}", fields.join(", "))
            }
            Outcome::UnknownTool => f.write_str("not replayed: the registry has no such tool"),
            Outcome::Skipped(skip) => write!(f, "skipped: {skip}"),
        }
    }
}

/// Why a call was not replayed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Skip {
    /// It ended before render: refused, invalid, failed, timed out or cancelled.
    NotExecuted {
        /// How it ended.
        status: Status,
    },
    /// The log ends before its result.
    NoResult,
    /// Its spill file could not be saved at call time, which a replay, writing nothing, cannot redo.
    SpillFailed,
}

impl fmt::Display for Skip {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Skip::NotExecuted { status } => write!(
                f,
                "never executed (status {})",
                json_text(status).trim_matches('"')
            ),
            Skip::NoResult => f.write_str("the log ends before its result"),
            Skip::SpillFailed => f.write_str("its spill file could not be saved at call time"),
        }
    }
}

/// One field that came out differently.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Difference {
    /// Which field.
    pub field: Field,
    /// The logged field, as JSON text (for [`Field::SpillFile`], the file's text).
    pub expected: String,
    /// The replayed field, as JSON text (for [`Field::SpillFile`], the whole rendered text).
    pub actual: String,
}

impl Difference {
    /// The byte offset of the first difference, at a character boundary of both.
    pub fn offset(&self) -> usize {
        self.expected
            .char_indices()
            .zip(self.actual.chars())
            .find(|((_, expected), actual)| expected != actual)
            .map_or_else(
                || self.expected.len().min(self.actual.len()),
                |((offset, _), _)| offset,
            )
    }
}

impl fmt::Display for Difference {
    /// The field and about 60 characters of each side around the first difference.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let offset = self.offset();
        write!(
            f,
            "{} differs at byte {offset}: expected {}, got {}",
            self.field.name(),
            window(&self.expected, offset),
            window(&self.actual, offset)
        )
    }
}

/// About 60 characters of `text` from 20 before `offset`, in backticks, with
/// control characters escaped so a difference stays on one line.
fn window(text: &str, offset: usize) -> String {
    let start = text[..offset]
        .char_indices()
        .rev()
        .nth(19)
        .map_or(0, |(index, _)| index);
    let mut shown = String::from(if start > 0 { "`…" } else { "`" });
    for (count, c) in text[start..].chars().enumerate() {
        if count == 60 {
            shown.push('…');
            break;
        }
        if c.is_control() {
            shown.extend(c.escape_default());
        } else {
            shown.push(c);
        }
    }
    shown.push('`');
    shown
}

/// A field of a result that replay compares.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Field {
    /// The card shown while the call ran (the `running` record), from `present_call`.
    RunningCard,
    /// `status`.
    Status,
    /// `is_error`.
    IsError,
    /// `content`, what the model saw.
    Content,
    /// `card`, what a UI showed.
    Card,
    /// `truncated`.
    Truncated,
    /// `output_type`.
    OutputType,
    /// `failure`, why the call failed.
    Failure,
    /// The spill file's text against the whole rendered text.
    SpillFile,
}

impl Field {
    /// The field's name: `running_card`, `status`, `is_error`, `content`,
    /// `card`, `truncated`, `output_type`, `failure` or `spill_file`.
    pub fn name(self) -> &'static str {
        match self {
            Field::RunningCard => "running_card",
            Field::Status => "status",
            Field::IsError => "is_error",
            Field::Content => "content",
            Field::Card => "card",
            Field::Truncated => "truncated",
            Field::OutputType => "output_type",
            Field::Failure => "failure",
            Field::SpillFile => "spill_file",
        }
    }
}

impl fmt::Display for Field {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offset_and_window_find_the_first_difference() {
        let difference = Difference {
            field: Field::Content,
            expected: r#"[{"type":"text","text":"Hello, Ada!"}]"#.into(),
            actual: r#"[{"type":"text","text":"Hello, Bob!"}]"#.into(),
        };
        assert_eq!(difference.offset(), 31);
        assert_eq!(
            difference.to_string(),
            r#"content differs at byte 31: expected `…ext","text":"Hello, Ada!"}]`, got `…ext","text":"Hello, Bob!"}]`"#
        );
    }

    #[test]
    fn offset_of_a_prefix_is_its_length() {
        let difference = Difference {
            field: Field::SpillFile,
            expected: "é🦀".into(),
            actual: "é🦀語".into(),
        };
        assert_eq!(difference.offset(), "é🦀".len());
    }

    #[test]
    fn window_cuts_at_character_boundaries() {
        let text = "語".repeat(100);
        let offset = "語".len() * 50;
        assert_eq!(window(&text, offset), format!("`…{}…`", "語".repeat(60)));
        assert_eq!(window("a\nb", 0), "`a\\nb`");
    }
}
