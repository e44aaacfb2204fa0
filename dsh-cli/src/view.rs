//! Draws what a call gave and what a session log holds, for a person at a
//! terminal: cards as boxes, calls with their status and verdict.
//!
//! Every fn returns the text, painted with [`paint`]; the writers `dsh`
//! prints through keep the colours only on a terminal. Tool text is made
//! printable first, so a tool's output cannot drive the terminal.

use std::fmt::Write as _;

use dsh_kit::card::{
    Card, DiffCard, DiffHunk, GenericCard, ReadCard, SearchCard, TerminalCard, WebCard,
};
use dsh_kit::log::replay::{CallReplay, Outcome, ReplayReport};
use dsh_kit::log::{Log, LoggedCall};
use dsh_kit::{Status, ToolResult};
use serde_json::Value;

use crate::ui::{Paint, paint};

/// At most this many lines of a card's body are drawn; the rest are counted.
pub const MAX_BODY_LINES: usize = 40;

/// Lines of tool text are cut after this many characters.
pub const MAX_LINE_CHARS: usize = 160;

/// A box drawn line by line: `╭─ title`, `│ line`…, `╰─`.
struct Block {
    indent: String,
    text: String,
    body_lines: usize,
    hidden: usize,
}

impl Block {
    fn new(title: &str, indent: &str) -> Self {
        let mut block = Block {
            indent: indent.to_owned(),
            text: String::new(),
            body_lines: 0,
            hidden: 0,
        };
        let corner = paint(Paint::Dim, "╭─");
        let title = paint(Paint::Bold, printable(title));
        let _ = writeln!(block.text, "{indent}{corner} {title}");
        block
    }

    /// One body line of tool text, made printable and painted.
    fn line(&mut self, color: Option<Paint>, line: &str) {
        let line = printable(line);
        let line = match color {
            Some(color) => paint(color, &line),
            None => line,
        };
        self.raw(&line);
    }

    /// One body line drawn as given (already printable and painted); past
    /// [`MAX_BODY_LINES`] only counted.
    fn raw(&mut self, line: &str) {
        if self.body_lines == MAX_BODY_LINES {
            self.hidden += 1;
            return;
        }
        self.body_lines += 1;
        let bar = paint(Paint::Dim, "│");
        let _ = writeln!(self.text, "{}{bar} {line}", self.indent);
    }

    /// Every line of `text`.
    fn lines(&mut self, paint: Option<Paint>, text: &str) {
        for line in text.lines() {
            self.line(paint, line);
        }
    }

    fn finish(mut self) -> String {
        if self.hidden > 0 {
            let more = format!("… {} more lines", self.hidden);
            let bar = paint(Paint::Dim, "│");
            let _ = writeln!(
                self.text,
                "{}{bar} {}",
                self.indent,
                paint(Paint::Dim, &more)
            );
        }
        let _ = writeln!(self.text, "{}{}", self.indent, paint(Paint::Dim, "╰─"));
        self.text
    }
}

/// A line of tool text as drawn: control characters (a command's own escape
/// codes, say) shown escaped, so tool output cannot drive the terminal, tabs
/// kept; cut after [`MAX_LINE_CHARS`] characters.
fn printable(line: &str) -> String {
    let mut shown = String::new();
    for (count, c) in line.chars().enumerate() {
        if count == MAX_LINE_CHARS {
            shown.push('…');
            break;
        }
        if c.is_control() && c != '\t' {
            shown.extend(c.escape_default());
        } else {
            shown.push(c);
        }
    }
    shown
}

/// Draws a card as a box: a `terminal` card as a console (`$ command`, its
/// output, stderr in red, the exit code), a `diff` card with removed lines red
/// and added lines green, a `read` card with line numbers, a `search` card as
/// a numbered list, a `web` card as address, title and excerpt, and a
/// `generic` card as pretty JSON.
fn card_indented(card: &Card, indent: &str) -> String {
    match card {
        Card::Terminal(card) => terminal(card, indent),
        Card::Diff(card) => diff(card, indent),
        Card::Read(card) => read(card, indent),
        Card::Search(card) => search(card, indent),
        Card::Web(card) => web(card, indent),
        Card::Generic(card) => generic(card, indent),
    }
}

fn terminal(card: &TerminalCard, indent: &str) -> String {
    let mut block = Block::new("terminal", indent);
    block.line(Some(Paint::Bold), &format!("$ {}", card.command));
    block.lines(None, &card.stdout);
    block.lines(Some(Paint::Red), &card.stderr);
    match card.exit_code {
        Some(0) => block.line(Some(Paint::Dim), "[exit 0]"),
        Some(code) => block.line(Some(Paint::Red), &format!("[exit {code}]")),
        None => {}
    }
    block.finish()
}

fn diff(card: &DiffCard, indent: &str) -> String {
    let mut block = Block::new(&format!("diff {}", card.path), indent);
    if card.hunks.is_empty() {
        // No structure: colour the unified text line by line.
        for line in card.unified_diff.lines() {
            block.line(diff_paint(line), line);
        }
    }
    for hunk in &card.hunks {
        block.line(Some(Paint::Cyan), &hunk_header(hunk));
        for line in &hunk.lines {
            block.line(diff_paint(line), line);
        }
    }
    block.finish()
}

fn hunk_header(hunk: &DiffHunk) -> String {
    format!(
        "@@ -{},{} +{},{} @@",
        hunk.old_start, hunk.old_lines, hunk.new_start, hunk.new_lines
    )
}

fn diff_paint(line: &str) -> Option<Paint> {
    if line.starts_with("@@") {
        Some(Paint::Cyan)
    } else if line.starts_with("---") || line.starts_with("+++") {
        Some(Paint::Bold)
    } else if line.starts_with('-') {
        Some(Paint::Red)
    } else if line.starts_with('+') {
        Some(Paint::Green)
    } else {
        None
    }
}

fn read(card: &ReadCard, indent: &str) -> String {
    let title = match (card.start_line, card.end_line) {
        (Some(start), Some(end)) => format!("read {} · lines {start}–{end}", card.path),
        _ => format!("read {}", card.path),
    };
    let mut block = Block::new(&title, indent);
    let first = card.start_line.unwrap_or(1) as usize;
    let last = first + card.content.lines().count().saturating_sub(1);
    let width = last.to_string().len();
    for (number, line) in (first..).zip(card.content.lines()) {
        let number = paint(Paint::Dim, format!("{number:>width$} │"));
        block.raw(&format!("{number} {}", printable(line)));
    }
    block.finish()
}

fn search(card: &SearchCard, indent: &str) -> String {
    let count = match card.results.len() {
        1 => "1 result".to_owned(),
        n => format!("{n} results"),
    };
    let mut block = Block::new(&format!("search {:?} · {count}", card.query), indent);
    for (number, hit) in (1..).zip(&card.results) {
        let title = paint(Paint::Bold, printable(&hit.title));
        let location = paint(Paint::Cyan, printable(&hit.location));
        block.raw(&format!("{number}. {title} — {location}"));
        for line in hit.snippet.lines() {
            block.line(None, &format!("   {line}"));
        }
    }
    block.finish()
}

fn web(card: &WebCard, indent: &str) -> String {
    let mut block = Block::new(&format!("web {}", card.url), indent);
    if let Some(title) = &card.title {
        block.line(Some(Paint::Bold), title);
    }
    block.lines(None, &card.excerpt);
    block.finish()
}

fn generic(card: &GenericCard, indent: &str) -> String {
    let mut block = Block::new(&format!("generic · {}", card.title), indent);
    block.line(Some(Paint::Dim), "input");
    block.lines(None, &pretty(&card.input));
    if let Some(output) = &card.output {
        block.line(Some(Paint::Dim), "output");
        block.lines(None, &pretty(output));
    }
    block.finish()
}

fn pretty(value: &Value) -> String {
    serde_json::to_string_pretty(value).unwrap_or_else(|_| value.to_string())
}

/// Draws the result of a live call: its tool and status, the text the
/// model sees, and the card a UI shows.
pub fn result(result: &ToolResult) -> String {
    let mut text = format!(
        "{} · {}\n",
        paint(Paint::Bold, printable(&result.tool_name)),
        status_text(result)
    );
    let color = if result.is_error() {
        Paint::Red
    } else {
        Paint::Dim
    };
    let _ = writeln!(text, "{}", paint(Paint::Dim, "content"));
    for line in result.text().lines() {
        let _ = writeln!(text, "  {}", paint(color, printable(line)));
    }
    if let Some(card) = result.card() {
        let _ = writeln!(text, "{}", paint(Paint::Dim, "card"));
        text.push_str(&card_indented(card, "  "));
    }
    text
}

/// Draws one call: a heading with its number, tool, status and duration, its
/// arguments, its card (or, without one, the text the model saw), and the
/// replay's verdict when there is one.
pub fn call(number: usize, call: &LoggedCall, verdict: Option<&CallReplay>) -> String {
    let mut text = String::new();
    let (status, duration) = match &call.result {
        Some(result) => (
            status_text(result),
            format!("{} ms", result.duration.as_millis()),
        ),
        None => (paint(Paint::Yellow, "unfinished"), "?".to_owned()),
    };
    let heading = paint(
        Paint::Bold,
        format!("#{number} {}", printable(call.tool_name())),
    );
    let _ = writeln!(
        text,
        "{heading} · {status} · {duration} {}",
        paint(Paint::Dim, format!("(line {})", call.line))
    );
    if let Some(args) = call.args() {
        let _ = writeln!(
            text,
            "  {} {}",
            paint(Paint::Dim, "args"),
            printable(&args.to_string())
        );
    }
    if !call.stream.is_empty() {
        let chunks = match call.stream.len() {
            1 => "1 chunk".to_owned(),
            n => format!("{n} chunks"),
        };
        let _ = writeln!(text, "  {} {chunks}", paint(Paint::Dim, "streamed"));
    }
    match &call.result {
        Some(result) if let Some(card) = result.card() => {
            text.push_str(&card_indented(card, "  "));
        }
        Some(result) => {
            let color = if result.is_error() {
                Paint::Red
            } else {
                Paint::Dim
            };
            for line in result.text().lines() {
                let _ = writeln!(text, "  {}", paint(color, printable(line)));
            }
        }
        None => {
            if let Some(card) = &call.running {
                text.push_str(&card_indented(card, "  "));
            }
        }
    }
    if call.result.as_ref().is_some_and(|result| result.truncated) {
        let _ = writeln!(
            text,
            "  {}",
            paint(
                Paint::Yellow,
                "the model saw a preview: the whole output was spilled to a file"
            )
        );
    }
    if let Some(verdict) = verdict {
        text.push_str(&replay_text(verdict));
    }
    text
}

fn status_text(result: &ToolResult) -> String {
    match result.status() {
        Status::Success => paint(Paint::Green, "success"),
        Status::Error => paint(Paint::Red, "error"),
        Status::Timeout => paint(Paint::Red, "timeout"),
        Status::Cancelled => paint(Paint::Yellow, "cancelled"),
    }
}

fn replay_text(verdict: &CallReplay) -> String {
    let label = paint(Paint::Dim, "replay");
    let mut text = match &verdict.outcome {
        Outcome::Identical => format!("  {label} {}\n", paint(Paint::Green, "✓ identical")),
        Outcome::Differs(differences) => {
            let mut text = format!(
                "  {label} {}\n",
                paint(Paint::Red, format!("✗ {}", verdict.outcome))
            );
            for difference in differences {
                let _ = writeln!(text, "    {}", paint(Paint::Red, difference.to_string()));
            }
            text
        }
        Outcome::UnknownTool => format!(
            "  {label} {}\n",
            paint(Paint::Yellow, verdict.outcome.to_string())
        ),
        Outcome::Skipped(_) => format!(
            "  {label} {}\n",
            paint(Paint::Dim, verdict.outcome.to_string())
        ),
    };
    if let Some(file) = verdict.spill_file.as_ref().filter(|file| !file.found) {
        let _ = writeln!(
            text,
            "    {}",
            paint(
                Paint::Dim,
                format!("(spill file {} is gone; not compared)", file.path.display())
            )
        );
    }
    text
}

/// Draws a whole session: a heading, any torn last line, every call with its
/// verdict when the log was replayed (`report` from
/// [`replay`](dsh_kit::log::replay::replay()) of the same log), and the
/// replay's summary.
pub fn session(log: &Log, report: Option<&ReplayReport>) -> String {
    let calls = log.calls();
    let mut text = String::new();
    let plural = if calls.len() == 1 { "" } else { "s" };
    let _ = writeln!(
        text,
        "{}\n",
        paint(
            Paint::Bold,
            format!(
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
            paint(Paint::Yellow, format!("warning: {warning}"))
        );
    }
    for (index, logged) in calls.iter().enumerate() {
        let verdict = report.and_then(|report| {
            report
                .calls
                .get(index)
                .filter(|verdict| verdict.invocation_id == logged.invocation_id)
        });
        text.push_str(&call(index + 1, logged, verdict));
        text.push('\n');
    }
    match report {
        Some(report) => {
            let summary = report.summary();
            let color = if summary.differing > 0 {
                Paint::Red
            } else {
                Paint::Green
            };
            let _ = writeln!(
                text,
                "{} {}",
                paint(Paint::Bold, "replay:"),
                paint(color, summary.to_string())
            );
        }
        None => {
            let _ = writeln!(
                text,
                "{} {}",
                paint(Paint::Bold, "replay:"),
                paint(
                    Paint::Dim,
                    "not replayed: name the server the log was recorded from (`--url`, `--stdio` or `-- COMMAND`) to replay it"
                )
            );
        }
    }
    text
}
