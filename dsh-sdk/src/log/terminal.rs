//! A session log drawn for a person at a terminal: each call with its tool,
//! arguments, status and duration, its card as a box
//! ([`card::terminal`](crate::value::card::terminal)), and the replay's verdict.
//!
//! ```
//! use dsh_kit::card::terminal::Style;
//! use dsh_kit::log::replay::replay;
//! use dsh_kit::log::{Log, SessionLog, terminal};
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
//! let log = SessionLog::open(&path)?;
//! let logging = registry.subscribe(log.subscriber());
//! registry.call("greet", json!({ "name": "Ada" })).await;
//! drop(logging);
//!
//! let log = Log::read(&path)?;
//! let report = replay(&registry, &log);
//! let text = terminal::session(&log, Some(&report), Style::PLAIN);
//! assert!(text.contains("#1 greet · success · "));
//! assert!(text.contains("  args {\"name\":\"Ada\"}\n  ╭─ generic · greet\n"));
//! assert!(text.ends_with("  replay ✓ identical\n\nreplay: 1 identical, 0 differing, 0 unknown tool, 0 skipped\n"));
//! # Ok(())
//! # }
//! ```
//!
//! Every fn returns the text instead of printing it; [`Style`] says whether
//! it carries ANSI colours. Tool text is made printable first, so a tool's
//! output cannot drive the terminal.

use std::fmt::Write as _;

use crate::value::card::terminal::{Paint, Style, draw_indented, printable};
use crate::value::event::Verdict;
use crate::value::result::{Status, ToolResult};

use super::replay::{CallReplay, Outcome, ReplayReport};
use super::{Log, LoggedCall};

/// Draws the result of a live call: its tool and status, the text the
/// model sees, the failure's kind and data when the tool's error names
/// them (read from [`ToolResult::failure`], not from the text), and the
/// card a UI shows.
pub fn result(result: &ToolResult, style: Style) -> String {
    let mut text = format!(
        "{} · {}\n",
        style.paint(Paint::Bold, &printable(&result.tool_name)),
        status_text(result, style)
    );
    let _ = writeln!(text, "{}", style.paint(Paint::Dim, "content"));
    text.push_str(&content(result, style));
    if let Some(failure) = &result.failure
        && (failure.kind.is_some() || failure.data.is_some())
    {
        let _ = writeln!(text, "{}", style.paint(Paint::Dim, "failure"));
        if let Some(kind) = &failure.kind {
            let _ = writeln!(text, "  kind {}", style.paint(Paint::Red, &printable(kind)));
        }
        if let Some(data) = &failure.data {
            let data = serde_json::to_string_pretty(data).unwrap_or_else(|_| data.to_string());
            for (i, line) in data.lines().enumerate() {
                let label = if i == 0 { "data" } else { "    " };
                let _ = writeln!(text, "  {label} {}", printable(line));
            }
        }
    }
    if let Some(card) = result.card() {
        let _ = writeln!(text, "{}", style.paint(Paint::Dim, "card"));
        text.push_str(&draw_indented(card, "  ", style));
    }
    text
}

/// The text the model saw, indented; red for an error.
fn content(result: &ToolResult, style: Style) -> String {
    let paint = if result.is_error() {
        Paint::Red
    } else {
        Paint::Dim
    };
    let mut text = String::new();
    for line in result.text().lines() {
        let _ = writeln!(text, "  {}", style.paint(paint, &printable(line)));
    }
    text
}

/// Draws one call: a heading with its number, tool, status and duration, its
/// arguments, the permission stage's decision when the log holds one (with
/// the arguments it was made on, where they differ), its card (or, without
/// one, the text the model saw), and the replay's verdict when there is one.
pub fn call(
    number: usize,
    call: &LoggedCall,
    verdict: Option<&CallReplay>,
    style: Style,
) -> String {
    let mut text = String::new();
    let (status, duration) = match &call.result {
        Some(result) => (
            status_text(result, style),
            format!("{} ms", result.duration.as_millis()),
        ),
        None => (style.paint(Paint::Yellow, "unfinished"), "?".to_owned()),
    };
    let heading = style.paint(
        Paint::Bold,
        &format!("#{number} {}", printable(call.tool_name())),
    );
    let _ = writeln!(
        text,
        "{heading} · {status} · {duration} {}",
        style.paint(Paint::Dim, &format!("(line {})", call.line))
    );
    if let Some(args) = call.args() {
        let _ = writeln!(
            text,
            "  {} {}",
            style.paint(Paint::Dim, "args"),
            printable(&args.to_string())
        );
    }
    if let Some(decided) = &call.decided {
        let verdict = match decided.verdict {
            Verdict::Allowed => style.paint(Paint::Green, "allowed"),
            Verdict::Approved => style.paint(Paint::Yellow, "approved"),
            Verdict::Refused => style.paint(Paint::Red, "refused"),
        };
        let _ = write!(text, "  {} {verdict}", style.paint(Paint::Dim, "decided"));
        if call.args() != Some(&*decided.args) {
            let _ = write!(
                text,
                " {} {}",
                style.paint(Paint::Dim, "on"),
                printable(&decided.args.to_string())
            );
        }
        text.push('\n');
    }
    if !call.stream.is_empty() {
        let chunks = match call.stream.len() {
            1 => "1 chunk".to_owned(),
            n => format!("{n} chunks"),
        };
        let _ = writeln!(text, "  {} {chunks}", style.paint(Paint::Dim, "streamed"));
    }
    match &call.result {
        Some(result) if let Some(card) = result.card() => {
            text.push_str(&draw_indented(card, "  ", style));
        }
        Some(result) => text.push_str(&content(result, style)),
        None => {
            if let Some(card) = &call.running {
                text.push_str(&draw_indented(card, "  ", style));
            }
        }
    }
    if call.result.as_ref().is_some_and(|result| result.truncated) {
        let _ = writeln!(
            text,
            "  {}",
            style.paint(
                Paint::Yellow,
                "the model saw a preview: the whole output was spilled to a file"
            )
        );
    }
    if let Some(verdict) = verdict {
        text.push_str(&replay_text(verdict, style));
    }
    text
}

fn status_text(result: &ToolResult, style: Style) -> String {
    match result.status() {
        Status::Success => style.paint(Paint::Green, "success"),
        Status::Error => style.paint(Paint::Red, "error"),
        Status::Timeout => style.paint(Paint::Red, "timeout"),
        Status::Cancelled => style.paint(Paint::Yellow, "cancelled"),
    }
}

fn replay_text(verdict: &CallReplay, style: Style) -> String {
    let label = style.paint(Paint::Dim, "replay");
    let mut text = match &verdict.outcome {
        Outcome::Identical => format!("  {label} {}\n", style.paint(Paint::Green, "✓ identical")),
        Outcome::Differs(differences) => {
            let mut text = format!(
                "  {label} {}\n",
                style.paint(Paint::Red, &format!("✗ {}", verdict.outcome))
            );
            for difference in differences {
                let _ = writeln!(
                    text,
                    "    {}",
                    style.paint(Paint::Red, &difference.to_string())
                );
            }
            text
        }
        Outcome::UnknownTool => format!(
            "  {label} {}\n",
            style.paint(Paint::Yellow, &verdict.outcome.to_string())
        ),
        Outcome::Skipped(_) => format!(
            "  {label} {}\n",
            style.paint(Paint::Dim, &verdict.outcome.to_string())
        ),
    };
    if let Some(file) = verdict.spill_file.as_ref().filter(|file| !file.found) {
        let _ = writeln!(
            text,
            "    {}",
            style.paint(
                Paint::Dim,
                &format!("(spill file {} is gone; not compared)", file.path.display())
            )
        );
    }
    text
}

/// Draws a whole session: a heading, any torn last line, and every call.
///
/// With a `report` (from [`replay`](crate::log::replay::replay()) of the
/// same log), each call carries its verdict and a last line sums them up
/// (`replay: …`); without one the drawing ends after the last call, for the
/// caller to say why nothing was replayed.
pub fn session(log: &Log, report: Option<&ReplayReport>, style: Style) -> String {
    let calls = log.calls();
    let mut text = String::new();
    let plural = if calls.len() == 1 { "" } else { "s" };
    let _ = writeln!(
        text,
        "{}\n",
        style.paint(
            Paint::Bold,
            &format!(
                "session {} · {} call{plural}",
                log.path.display(),
                calls.len()
            )
        )
    );
    for warning in &log.warnings {
        let _ = writeln!(
            text,
            "{}\n",
            style.paint(Paint::Yellow, &format!("warning: {warning}"))
        );
    }
    for (index, logged) in calls.iter().enumerate() {
        let verdict = report.and_then(|report| {
            report
                .calls
                .get(index)
                .filter(|verdict| verdict.invocation_id == logged.invocation_id)
        });
        text.push_str(&call(index + 1, logged, verdict, style));
        text.push('\n');
    }
    if let Some(report) = report {
        let summary = report.summary();
        let paint = if summary.differing > 0 {
            Paint::Red
        } else {
            Paint::Green
        };
        let _ = writeln!(
            text,
            "{} {}",
            style.paint(Paint::Bold, "replay:"),
            style.paint(paint, &summary.to_string())
        );
    }
    text
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;
    use std::sync::Arc;

    use serde_json::{Value, json};
    use uuid::Uuid;

    use super::*;
    use crate::log::DecidedRecord;
    use crate::log::replay::{Difference, Field, SpillFile};
    use crate::value::card::{Card, TerminalCard, WebCard};
    use crate::value::event::rawp::InvokeRequest;

    fn request(tool_name: &str, input: Value) -> InvokeRequest {
        InvokeRequest {
            invocation_id: Uuid::nil(),
            tool_name: tool_name.to_owned(),
            tool_version: None,
            input,
            parallel_group_id: None,
            principal: None,
        }
    }

    /// A result as a log stores it, with `fields` over a failed `read_file`.
    fn stored(fields: Value) -> ToolResult {
        let mut result = json!({
            "invocation_id": Uuid::nil(),
            "tool_name": "read_file",
            "content": [{ "type": "text", "text": "no such file\n\u{1b}[2J" }],
            "duration": 12,
            "truncated": false,
            "failure": { "cause": "tool" },
        });
        for (key, value) in fields.as_object().expect("an object") {
            result[key] = value.clone();
        }
        serde_json::from_value(result).expect("a result")
    }

    fn logged(result: Option<ToolResult>, running: Option<Card>) -> LoggedCall {
        LoggedCall {
            invocation_id: Uuid::nil(),
            line: 7,
            request: Some(request("read_file", json!({ "path": "/nope" }))),
            decided: None,
            running,
            stream: Vec::new(),
            executed: None,
            spill_failed: None,
            result,
        }
    }

    #[test]
    fn a_failed_result_shows_its_status_and_escaped_text() {
        let failed = stored(json!({}));
        assert_eq!(
            result(&failed, Style::PLAIN),
            "read_file · error\ncontent\n  no such file\n  \\u{1b}[2J\n"
        );
        let colored = result(&failed, Style::COLOR);
        assert!(colored.contains("\x1b[31merror\x1b[0m"), "{colored:?}");
        assert!(
            colored.contains("  \x1b[31mno such file\x1b[0m\n"),
            "{colored:?}"
        );
    }

    #[test]
    fn a_result_with_a_card_draws_it_indented() {
        let mut ok = stored(json!({
            "failure": null,
            "value": "hi",
            "content": [{ "type": "text", "text": "hi" }],
        }));
        ok.set_card(Some(Card::from(WebCard::new("http://a/", "hi"))));
        assert_eq!(
            result(&ok, Style::PLAIN),
            "read_file · success\ncontent\n  hi\ncard\n  ╭─ web http://a/\n  │ hi\n  ╰─\n"
        );
    }

    #[test]
    fn an_unfinished_call_shows_the_card_it_ran_with() {
        let running = Card::from(TerminalCard::new("cat /nope"));
        assert_eq!(
            call(4, &logged(None, Some(running)), None, Style::PLAIN),
            "#4 read_file · unfinished · ? (line 7)\n  args {\"path\":\"/nope\"}\n  ╭─ terminal\n  │ $ cat /nope\n  ╰─\n"
        );
    }

    #[test]
    fn a_differing_call_lists_its_differences_and_a_missing_spill_file() {
        let truncated = stored(json!({ "truncated": true }));
        let verdict = CallReplay {
            invocation_id: Uuid::nil(),
            tool_name: "read_file".into(),
            caller: None,
            line: 7,
            spill_file: Some(SpillFile {
                path: PathBuf::from("/spill/x.txt"),
                found: false,
            }),
            outcome: Outcome::Differs(vec![Difference {
                field: Field::Content,
                expected: "\"a\"".into(),
                actual: "\"b\"".into(),
            }]),
        };
        let drawn = call(
            1,
            &logged(Some(truncated), None),
            Some(&verdict),
            Style::PLAIN,
        );
        assert_eq!(
            drawn,
            "#1 read_file · error · 12 ms (line 7)\n  args {\"path\":\"/nope\"}\n  no such file\n  \\u{1b}[2J\n  \
             the model saw a preview: the whole output was spilled to a file\n  \
             replay ✗ differs in content\n    content differs at byte 1: expected `\"a\"`, got `\"b\"`\n    \
             (spill file /spill/x.txt is gone; not compared)\n"
        );
    }

    #[test]
    fn a_decision_shows_its_verdict_and_the_arguments_it_was_made_on() {
        let mut refused = logged(Some(stored(json!({}))), None);
        refused.decided = Some(DecidedRecord {
            invocation_id: Uuid::nil(),
            tool_name: "read_file".into(),
            args: Arc::new(json!({ "path": "/etc/shadow" })),
            verdict: Verdict::Refused,
        });
        assert_eq!(
            call(2, &refused, None, Style::PLAIN),
            "#2 read_file · error · 12 ms (line 7)\n  args {\"path\":\"/nope\"}\n  \
             decided refused on {\"path\":\"/etc/shadow\"}\n  no such file\n  \\u{1b}[2J\n"
        );
        let colored = call(2, &refused, None, Style::COLOR);
        assert!(colored.contains("\x1b[31mrefused\x1b[0m"), "{colored:?}");

        // On the arguments shown: only the verdict.
        let mut approved = refused;
        approved.decided = approved.decided.map(|decided| DecidedRecord {
            args: Arc::new(json!({ "path": "/nope" })),
            verdict: Verdict::Approved,
            ..decided
        });
        assert!(
            call(2, &approved, None, Style::PLAIN).contains("\n  decided approved\n"),
            "{}",
            call(2, &approved, None, Style::PLAIN)
        );
    }

    #[test]
    fn a_session_without_a_report_has_no_replay_line() {
        let log = Log {
            path: PathBuf::from("s.jsonl"),
            records: Vec::new(),
            warnings: Vec::new(),
        };
        assert_eq!(
            session(&log, None, Style::PLAIN),
            "session s.jsonl · 0 calls\n\n"
        );
        let report = ReplayReport { calls: Vec::new() };
        assert_eq!(
            session(&log, Some(&report), Style::PLAIN),
            "session s.jsonl · 0 calls\n\nreplay: 0 identical, 0 differing, 0 unknown tool, 0 skipped\n"
        );
    }
}
