//! Cards drawn for a person at a terminal: each [`Card`] as a box of text.
//!
//! ```
//! use dsh_kit::card::terminal::{self, Style};
//! use dsh_kit::card::{Card, TerminalCard};
//!
//! let card = Card::from(TerminalCard::new("echo hi").stdout("hi\n").exit_code(0));
//! assert_eq!(
//!     terminal::draw(&card, Style::PLAIN),
//!     "╭─ terminal\n│ $ echo hi\n│ hi\n│ [exit 0]\n╰─\n"
//! );
//! ```
//!
//! Every fn returns the text instead of printing it, so a caller chooses
//! where it goes and tests can read it; [`Style`] says whether it carries
//! ANSI colours. Tool text is made printable first (control characters
//! shown escaped, long lines cut), so a tool's output cannot drive the
//! terminal, and a box shows at most [`MAX_BODY_LINES`] lines.
//! [`log::terminal`](crate::log::terminal) draws a session log's calls
//! with these boxes.

use std::ffi::OsStr;
use std::fmt::Write as _;

use serde_json::Value;

use super::{Card, DiffCard, DiffHunk, GenericCard, ReadCard, SearchCard, TerminalCard, WebCard};

/// At most this many lines of a card's body are drawn; the rest are counted.
pub const MAX_BODY_LINES: usize = 40;

/// Lines of tool text are cut after this many characters.
pub const MAX_LINE_CHARS: usize = 160;

/// Whether the drawing carries ANSI colours.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Style {
    /// Colour with ANSI escape codes.
    pub color: bool,
}

impl Style {
    /// No escape codes: for pipes, files and tests.
    pub const PLAIN: Style = Style { color: false };
    /// ANSI colours.
    pub const COLOR: Style = Style { color: true };

    /// Colours when standard output is a terminal and `NO_COLOR` is unset or empty.
    pub fn for_stdout() -> Style {
        use std::io::IsTerminal;
        Style::detect(
            std::io::stdout().is_terminal(),
            std::env::var_os("NO_COLOR").as_deref(),
        )
    }

    /// Colours for a terminal unless `no_color` (the `NO_COLOR` variable) is set and not empty.
    ///
    /// ```
    /// use std::ffi::OsStr;
    /// use dsh_kit::card::terminal::Style;
    ///
    /// assert_eq!(Style::detect(true, None), Style::COLOR);
    /// assert_eq!(Style::detect(true, Some(OsStr::new(""))), Style::COLOR);
    /// assert_eq!(Style::detect(true, Some(OsStr::new("1"))), Style::PLAIN);
    /// assert_eq!(Style::detect(false, None), Style::PLAIN);
    /// ```
    pub fn detect(is_terminal: bool, no_color: Option<&OsStr>) -> Style {
        Style {
            color: is_terminal && no_color.is_none_or(OsStr::is_empty),
        }
    }

    /// `text` in `paint`'s colour, or as it is without colours. Empty text
    /// stays empty.
    pub(crate) fn paint(self, paint: Paint, text: &str) -> String {
        if self.color && !text.is_empty() {
            format!("\x1b[{}m{text}\x1b[0m", paint as u8)
        } else {
            text.to_owned()
        }
    }
}

/// What a piece of text is, for its colour: the SGR code that paints it.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Paint {
    /// A heading or a name.
    Bold = 1,
    /// Frames, labels, what matters less.
    Dim = 2,
    /// Errors, removed lines, failures.
    Red = 31,
    /// Success, added lines.
    Green = 32,
    /// Warnings, what was skipped.
    Yellow = 33,
    /// Places: hunk headers, locations.
    Cyan = 36,
}

/// A line of tool text as drawn: control characters (a command's own escape
/// codes, say) shown escaped, so tool output cannot drive the terminal, tabs
/// kept; cut after [`MAX_LINE_CHARS`] characters.
pub(crate) fn printable(line: &str) -> String {
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
///
/// ```
/// use dsh_kit::card::terminal::{self, Style};
/// use dsh_kit::card::{Card, ReadCard};
///
/// let card = Card::from(ReadCard::new("/etc/hosts", "a\nb\n").lines(9, 10));
/// assert_eq!(
///     terminal::draw(&card, Style::PLAIN),
///     "╭─ read /etc/hosts · lines 9–10\n│  9 │ a\n│ 10 │ b\n╰─\n"
/// );
/// ```
pub fn draw(card: &Card, style: Style) -> String {
    draw_indented(card, "", style)
}

/// [`draw`], each line after `indent`: a card inside another drawing.
pub(crate) fn draw_indented(card: &Card, indent: &str, style: Style) -> String {
    match card {
        Card::Terminal(card) => console(card, indent, style),
        Card::Diff(card) => diff(card, indent, style),
        Card::Read(card) => read(card, indent, style),
        Card::Search(card) => search(card, indent, style),
        Card::Web(card) => web(card, indent, style),
        Card::Generic(card) => generic(card, indent, style),
    }
}

/// A box drawn line by line: `╭─ title`, `│ line`…, `╰─`.
struct Block {
    style: Style,
    indent: String,
    text: String,
    body_lines: usize,
    hidden: usize,
}

impl Block {
    fn new(title: &str, indent: &str, style: Style) -> Self {
        let mut block = Block {
            style,
            indent: indent.to_owned(),
            text: String::new(),
            body_lines: 0,
            hidden: 0,
        };
        let corner = style.paint(Paint::Dim, "╭─");
        let title = style.paint(Paint::Bold, &printable(title));
        let _ = writeln!(block.text, "{indent}{corner} {title}");
        block
    }

    /// One body line of tool text, made printable and painted.
    fn line(&mut self, paint: Option<Paint>, line: &str) {
        let line = printable(line);
        let line = match paint {
            Some(paint) => self.style.paint(paint, &line),
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
        let bar = self.style.paint(Paint::Dim, "│");
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
            let bar = self.style.paint(Paint::Dim, "│");
            let _ = writeln!(
                self.text,
                "{}{bar} {}",
                self.indent,
                self.style.paint(Paint::Dim, &more)
            );
        }
        let _ = writeln!(
            self.text,
            "{}{}",
            self.indent,
            self.style.paint(Paint::Dim, "╰─")
        );
        self.text
    }
}

fn console(card: &TerminalCard, indent: &str, style: Style) -> String {
    let mut block = Block::new("terminal", indent, style);
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

fn diff(card: &DiffCard, indent: &str, style: Style) -> String {
    let mut block = Block::new(&format!("diff {}", card.path), indent, style);
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

fn read(card: &ReadCard, indent: &str, style: Style) -> String {
    let title = match (card.start_line, card.end_line) {
        (Some(start), Some(end)) => format!("read {} · lines {start}–{end}", card.path),
        _ => format!("read {}", card.path),
    };
    let mut block = Block::new(&title, indent, style);
    let first = card.start_line.unwrap_or(1) as usize;
    let last = first + card.content.lines().count().saturating_sub(1);
    let width = last.to_string().len();
    for (number, line) in (first..).zip(card.content.lines()) {
        let number = style.paint(Paint::Dim, &format!("{number:>width$} │"));
        block.raw(&format!("{number} {}", printable(line)));
    }
    block.finish()
}

fn search(card: &SearchCard, indent: &str, style: Style) -> String {
    let count = match card.results.len() {
        1 => "1 result".to_owned(),
        n => format!("{n} results"),
    };
    let mut block = Block::new(&format!("search {:?} · {count}", card.query), indent, style);
    for (number, hit) in (1..).zip(&card.results) {
        let title = style.paint(Paint::Bold, &printable(&hit.title));
        let location = style.paint(Paint::Cyan, &printable(&hit.location));
        block.raw(&format!("{number}. {title} — {location}"));
        for line in hit.snippet.lines() {
            block.line(None, &format!("   {line}"));
        }
    }
    block.finish()
}

fn web(card: &WebCard, indent: &str, style: Style) -> String {
    let mut block = Block::new(&format!("web {}", card.url), indent, style);
    if let Some(title) = &card.title {
        block.line(Some(Paint::Bold), title);
    }
    block.lines(None, &card.excerpt);
    block.finish()
}

fn generic(card: &GenericCard, indent: &str, style: Style) -> String {
    let mut block = Block::new(&format!("generic · {}", card.title), indent, style);
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

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::value::card::SearchHit;

    #[test]
    fn a_terminal_card_is_a_console_block() {
        let card = Card::from(
            TerminalCard::new("cargo test")
                .stdout("running 2 tests\nok\n")
                .stderr("warning: unused\n")
                .exit_code(101),
        );
        assert_eq!(
            draw(&card, Style::PLAIN),
            "╭─ terminal\n│ $ cargo test\n│ running 2 tests\n│ ok\n│ warning: unused\n│ [exit 101]\n╰─\n"
        );
        let colored = draw(&card, Style::COLOR);
        assert!(
            colored.contains("\x1b[31mwarning: unused\x1b[0m"),
            "{colored:?}"
        );
        assert!(colored.contains("\x1b[31m[exit 101]\x1b[0m"), "{colored:?}");
    }

    #[test]
    fn a_diff_card_colours_removed_and_added_lines() {
        let card = Card::from(DiffCard::new(
            "src/lib.rs",
            "--- src/lib.rs\n+++ src/lib.rs\n@@ -1,2 +1,2 @@\n fn main() {\n-    old();\n+    new();\n",
            vec![DiffHunk {
                old_start: 1,
                old_lines: 2,
                new_start: 1,
                new_lines: 2,
                lines: vec![
                    " fn main() {".into(),
                    "-    old();".into(),
                    "+    new();".into(),
                ],
            }],
        ));
        assert_eq!(
            draw(&card, Style::PLAIN),
            "╭─ diff src/lib.rs\n│ @@ -1,2 +1,2 @@\n│  fn main() {\n│ -    old();\n│ +    new();\n╰─\n"
        );
        let colored = draw(&card, Style::COLOR);
        assert!(
            colored.contains("\x1b[31m-    old();\x1b[0m"),
            "{colored:?}"
        );
        assert!(
            colored.contains("\x1b[32m+    new();\x1b[0m"),
            "{colored:?}"
        );
        assert!(
            colored.contains("\x1b[36m@@ -1,2 +1,2 @@\x1b[0m"),
            "{colored:?}"
        );
    }

    #[test]
    fn a_diff_card_without_hunks_colours_its_unified_text() {
        let card = Card::from(DiffCard::new(
            "a.txt",
            "--- a.txt\n+++ a.txt\n@@ -1 +1 @@\n-old\n+new\n",
            Vec::new(),
        ));
        assert_eq!(
            draw(&card, Style::PLAIN),
            "╭─ diff a.txt\n│ --- a.txt\n│ +++ a.txt\n│ @@ -1 +1 @@\n│ -old\n│ +new\n╰─\n"
        );
        let colored = draw(&card, Style::COLOR);
        assert!(colored.contains("\x1b[1m--- a.txt\x1b[0m"), "{colored:?}");
        assert!(colored.contains("\x1b[31m-old\x1b[0m"), "{colored:?}");
        assert!(colored.contains("\x1b[32m+new\x1b[0m"), "{colored:?}");
    }

    #[test]
    fn a_read_card_numbers_its_lines() {
        let card = Card::from(ReadCard::new("/etc/hosts", "a\nb\nc\n").lines(8, 10));
        assert_eq!(
            draw(&card, Style::PLAIN),
            "╭─ read /etc/hosts · lines 8–10\n│  8 │ a\n│  9 │ b\n│ 10 │ c\n╰─\n"
        );
    }

    #[test]
    fn a_search_card_is_a_list() {
        let card = Card::from(SearchCard::new(
            "fn main",
            vec![
                SearchHit::new("main.rs", "/src/main.rs:1", "fn main() {"),
                SearchHit::new("build.rs", "/build.rs:3", "fn main() -> Result<()> {"),
            ],
        ));
        assert_eq!(
            draw(&card, Style::PLAIN),
            "╭─ search \"fn main\" · 2 results\n│ 1. main.rs — /src/main.rs:1\n│    fn main() {\n│ 2. build.rs — /build.rs:3\n│    fn main() -> Result<()> {\n╰─\n"
        );
    }

    #[test]
    fn a_web_card_shows_address_title_and_excerpt() {
        let card =
            Card::from(WebCard::new("http://example.com/", "Example text.").title("Example"));
        assert_eq!(
            draw(&card, Style::PLAIN),
            "╭─ web http://example.com/\n│ Example\n│ Example text.\n╰─\n"
        );
    }

    #[test]
    fn a_generic_card_is_pretty_json() {
        let card = Card::generic(
            "greet",
            json!({ "name": "Ada" }),
            Some(json!("Hello, Ada!")),
        );
        assert_eq!(
            draw(&card, Style::PLAIN),
            "╭─ generic · greet\n│ input\n│ {\n│   \"name\": \"Ada\"\n│ }\n│ output\n│ \"Hello, Ada!\"\n╰─\n"
        );
    }

    #[test]
    fn an_indented_card_indents_every_line() {
        let card = Card::from(WebCard::new("http://a/", "one\ntwo"));
        assert_eq!(
            draw_indented(&card, "  ", Style::PLAIN),
            "  ╭─ web http://a/\n  │ one\n  │ two\n  ╰─\n"
        );
    }

    #[test]
    fn tool_text_cannot_drive_the_terminal_and_long_cards_are_cut() {
        let card = Card::from(TerminalCard::new("x").stdout("\x1b[2Jcleared?\n"));
        assert!(draw(&card, Style::PLAIN).contains("│ \\u{1b}[2Jcleared?\n"));
        // Not in colour either: only the drawing's own codes are escapes.
        let colored = draw(&card, Style::COLOR);
        assert!(!colored.contains("\x1b[2J"), "{colored:?}");

        let title = Card::from(WebCard::new("http://a/\x07\r", "x"));
        assert!(draw(&title, Style::PLAIN).starts_with("╭─ web http://a/\\u{7}\\r\n"));

        let long: String = (1..=100).map(|n| format!("{n}\n")).collect();
        let drawn = draw(&Card::from(ReadCard::new("/big", long)), Style::PLAIN);
        assert!(
            drawn.contains("│  40 │ 40\n│ … 60 more lines\n╰─\n"),
            "{drawn}"
        );

        let wide = "x".repeat(500);
        let drawn = draw(&Card::from(WebCard::new("http://a/", wide)), Style::PLAIN);
        assert!(drawn.contains(&format!("│ {}…\n", "x".repeat(MAX_LINE_CHARS))));
    }

    #[test]
    fn tabs_stay_and_other_control_characters_are_escaped() {
        assert_eq!(printable("a\tb\u{1b}c\u{7f}"), "a\tb\\u{1b}c\\u{7f}");
        assert_eq!(
            printable(&"é".repeat(MAX_LINE_CHARS)),
            "é".repeat(MAX_LINE_CHARS)
        );
        assert_eq!(
            printable(&"é".repeat(MAX_LINE_CHARS + 1)),
            format!("{}…", "é".repeat(MAX_LINE_CHARS))
        );
    }
}
