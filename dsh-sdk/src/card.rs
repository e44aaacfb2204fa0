//! [`Card`]: the closed set of render intents a UI draws.
//!
//! A client switches on the `card` tag alone and never needs a tool's name:
//! swap a search back end for another and, as long as it presents a
//! [`SearchCard`], no UI changes.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// What a UI shows of a call, as a `card`-tagged union.
///
/// ```
/// use dsh_sdk::card::{Card, ReadCard};
///
/// let card = Card::Read(ReadCard::new("/etc/hostname", "example\n"));
/// let json = serde_json::to_value(&card).unwrap();
/// assert_eq!(json["card"], "read");
/// assert_eq!(json["path"], "/etc/hostname");
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "card", rename_all = "snake_case")]
pub enum Card {
    /// Any tool: its name, its input and its output.
    Generic(GenericCard),
    /// A command that ran in a terminal.
    Terminal(TerminalCard),
    /// A change to a file.
    Diff(DiffCard),
    /// A file, or part of one, that was read.
    Read(ReadCard),
    /// Search results.
    Search(SearchCard),
    /// A web page.
    Web(WebCard),
}

impl Card {
    /// The tag a client switches on: `generic`, `terminal`, `diff`, `read`, `search` or `web`.
    pub fn kind(&self) -> &'static str {
        match self {
            Card::Generic(_) => "generic",
            Card::Terminal(_) => "terminal",
            Card::Diff(_) => "diff",
            Card::Read(_) => "read",
            Card::Search(_) => "search",
            Card::Web(_) => "web",
        }
    }

    /// The card of a tool that presents nothing: title = tool name, input = raw args.
    pub fn generic(title: impl Into<String>, input: Value, output: Option<Value>) -> Self {
        Card::Generic(GenericCard {
            title: title.into(),
            input,
            output,
        })
    }
}

/// The fallback card.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GenericCard {
    /// The tool's name.
    pub title: String,
    /// The raw arguments.
    pub input: Value,
    /// The canonical output, once there is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output: Option<Value>,
}

/// A command and what it printed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TerminalCard {
    /// The command line.
    pub command: String,
    /// What it wrote to standard output.
    pub stdout: String,
    /// What it wrote to standard error.
    pub stderr: String,
    /// Its exit code, once it exited.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
}

/// A change to one file, as a unified diff and as structured hunks.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DiffCard {
    /// The file that changed.
    pub path: String,
    /// The change as a unified diff.
    pub unified_diff: String,
    /// The same change as hunks.
    pub hunks: Vec<DiffHunk>,
}

/// One hunk of a diff.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DiffHunk {
    /// First line of the hunk in the old file, 1-based.
    pub old_start: u32,
    /// Lines of the old file the hunk covers.
    pub old_lines: u32,
    /// First line of the hunk in the new file, 1-based.
    pub new_start: u32,
    /// Lines of the new file the hunk covers.
    pub new_lines: u32,
    /// The hunk's lines, each starting with ` `, `-` or `+`.
    pub lines: Vec<String>,
}

/// A file, or a range of its lines, that was read.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReadCard {
    /// The file.
    pub path: String,
    /// First line shown, 1-based.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_line: Option<u32>,
    /// Last line shown, 1-based, inclusive.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end_line: Option<u32>,
    /// The text shown.
    pub content: String,
}

impl ReadCard {
    /// A whole file.
    pub fn new(path: impl Into<String>, content: impl Into<String>) -> Self {
        ReadCard {
            path: path.into(),
            start_line: None,
            end_line: None,
            content: content.into(),
        }
    }

    /// Marks the lines shown.
    pub fn lines(mut self, start: u32, end: u32) -> Self {
        self.start_line = Some(start);
        self.end_line = Some(end);
        self
    }
}

/// A query and what it found.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SearchCard {
    /// What was searched for.
    pub query: String,
    /// The hits, best first.
    pub results: Vec<SearchHit>,
}

/// One search hit.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SearchHit {
    /// A title for the hit.
    pub title: String,
    /// Where it is: a path with a line, or a URL.
    pub location: String,
    /// The matching text.
    pub snippet: String,
}

/// A web page that was fetched.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct WebCard {
    /// The page's address.
    pub url: String,
    /// Its title, if it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The part of it shown.
    pub excerpt: String,
}
