//! [`Card`]: the closed set of render intents a UI draws.
//!
//! A client switches on the `card` tag alone and never needs a tool's name:
//! swap a search back end for another and, as long as it presents a
//! [`SearchCard`], no UI changes.
//!
//! A tool presents a card in two moments: while the call runs, from its
//! arguments alone (`#[tool(present_call = …)]`, [`Tool::present_call`]),
//! and when it has succeeded, from its arguments and output
//! (`#[tool(present = …)]`, [`Tool::present`]). A tool that presents
//! nothing gets the [`GenericCard`]: title = tool name, input = raw args,
//! and the output once there is one.
//!
//! Every card derives [`JsonSchema`], so a client in another language can
//! generate its types from `schemars::schema_for!(Card)`.
//!
//! [`Tool::present`]: crate::Tool::present
//! [`Tool::present_call`]: crate::Tool::present_call

pub mod terminal;
pub mod web;

use std::borrow::Cow;
use std::sync::Arc;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// What a UI shows of a call, as a `card`-tagged union.
///
/// ```
/// use dsh_kit::card::{Card, ReadCard};
///
/// let card = Card::from(ReadCard::new("/etc/hostname", "example\n").lines(1, 1));
/// assert_eq!(
///     serde_json::to_value(&card).unwrap(),
///     serde_json::json!({
///         "card": "read",
///         "path": "/etc/hostname",
///         "start_line": 1,
///         "end_line": 1,
///         "content": "example\n",
///     })
/// );
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
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
    /// The tag a client switches on: `generic`, `terminal`, `diff`, `read`,
    /// `search` or `web`, the text serde writes under `card` (a test holds
    /// them equal).
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

    /// The card of a tool that presents nothing: title = tool name, input =
    /// raw args (a `Value`, or an `Arc` of one to share rather than copy).
    pub fn generic(
        title: impl Into<Cow<'static, str>>,
        input: impl Into<Arc<Value>>,
        output: Option<Value>,
    ) -> Self {
        Card::Generic(GenericCard {
            title: title.into(),
            input: input.into(),
            output,
        })
    }
}

impl From<GenericCard> for Card {
    fn from(card: GenericCard) -> Self {
        Card::Generic(card)
    }
}

impl From<TerminalCard> for Card {
    fn from(card: TerminalCard) -> Self {
        Card::Terminal(card)
    }
}

impl From<DiffCard> for Card {
    fn from(card: DiffCard) -> Self {
        Card::Diff(card)
    }
}

impl From<ReadCard> for Card {
    fn from(card: ReadCard) -> Self {
        Card::Read(card)
    }
}

impl From<SearchCard> for Card {
    fn from(card: SearchCard) -> Self {
        Card::Search(card)
    }
}

impl From<WebCard> for Card {
    fn from(card: WebCard) -> Self {
        Card::Web(card)
    }
}

/// The fallback card.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct GenericCard {
    /// The tool's name: borrowed when it is known at compile time, so the
    /// card of a call of a `#[tool]` fn does not copy it.
    pub title: Cow<'static, str>,
    /// The raw arguments, shared with the call they came with.
    pub input: Arc<Value>,
    /// The canonical output, once there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output: Option<Value>,
}

/// A command and what it printed.
///
/// ```
/// use dsh_kit::card::{Card, TerminalCard};
///
/// // While it runs: the command alone.
/// let running = Card::from(TerminalCard::new("ls /"));
/// // Once it exited.
/// let done = Card::from(TerminalCard::new("ls /").stdout("bin\netc\n").exit_code(0));
/// assert_eq!(serde_json::to_value(&done).unwrap()["exit_code"], 0);
/// # drop(running);
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct TerminalCard {
    /// The command line.
    pub command: String,
    /// What it wrote to standard output.
    pub stdout: String,
    /// What it wrote to standard error.
    pub stderr: String,
    /// Its exit code, once it exited; absent while it runs, or when it was
    /// killed (by a signal, a timeout or a cancellation).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
}

impl TerminalCard {
    /// A command that printed nothing yet and has not exited.
    pub fn new(command: impl Into<String>) -> Self {
        TerminalCard {
            command: command.into(),
            stdout: String::new(),
            stderr: String::new(),
            exit_code: None,
        }
    }

    /// Sets what it wrote to standard output.
    pub fn stdout(mut self, stdout: impl Into<String>) -> Self {
        self.stdout = stdout.into();
        self
    }

    /// Sets what it wrote to standard error.
    pub fn stderr(mut self, stderr: impl Into<String>) -> Self {
        self.stderr = stderr.into();
        self
    }

    /// Sets its exit code.
    pub fn exit_code(mut self, code: i32) -> Self {
        self.exit_code = Some(code);
        self
    }
}

/// A change to one file, as a unified diff and as structured hunks.
///
/// Both carry the same change: a UI that draws text takes `unified_diff`, one
/// that draws side by side or folds context takes `hunks`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct DiffCard {
    /// The file that changed.
    pub path: String,
    /// The change as a unified diff.
    pub unified_diff: String,
    /// The same change as hunks.
    pub hunks: Vec<DiffHunk>,
}

impl DiffCard {
    /// A change to `path`.
    pub fn new(
        path: impl Into<String>,
        unified_diff: impl Into<String>,
        hunks: Vec<DiffHunk>,
    ) -> Self {
        DiffCard {
            path: path.into(),
            unified_diff: unified_diff.into(),
            hunks,
        }
    }
}

/// One hunk of a diff.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
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
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ReadCard {
    /// The file.
    pub path: String,
    /// First line shown, 1-based.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub start_line: Option<u32>,
    /// Last line shown, 1-based, inclusive.
    #[serde(skip_serializing_if = "Option::is_none")]
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
///
/// ```
/// use dsh_kit::card::{Card, SearchCard, SearchHit};
///
/// let card = Card::from(SearchCard::new(
///     "fn main",
///     vec![SearchHit::new("src/main.rs", "src/main.rs:1", "fn main() {")],
/// ));
/// assert_eq!(card.kind(), "search");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SearchCard {
    /// What was searched for.
    pub query: String,
    /// The hits, best first.
    pub results: Vec<SearchHit>,
}

impl SearchCard {
    /// The hits for `query`, best first; none yet while the search runs.
    pub fn new(query: impl Into<String>, results: Vec<SearchHit>) -> Self {
        SearchCard {
            query: query.into(),
            results,
        }
    }
}

/// One search hit.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SearchHit {
    /// A title for the hit: a file's path, a page's title.
    pub title: String,
    /// Where it is: a path with a line (`src/main.rs:12`), or a URL.
    pub location: String,
    /// The matching text.
    pub snippet: String,
}

impl SearchHit {
    /// A hit titled `title`, found at `location`, matching `snippet`.
    pub fn new(
        title: impl Into<String>,
        location: impl Into<String>,
        snippet: impl Into<String>,
    ) -> Self {
        SearchHit {
            title: title.into(),
            location: location.into(),
            snippet: snippet.into(),
        }
    }
}

/// A web page that was fetched.
///
/// ```
/// use dsh_kit::card::{Card, WebCard};
///
/// let card = Card::from(WebCard::new("http://example.com/", "This domain is for use in examples.").title("Example Domain"));
/// assert_eq!(serde_json::to_value(&card).unwrap()["title"], "Example Domain");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct WebCard {
    /// The page's address.
    pub url: String,
    /// Its title, if it has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The part of it shown; empty while the page is being fetched.
    pub excerpt: String,
}

impl WebCard {
    /// The page at `url`, showing `excerpt`, without a title.
    pub fn new(url: impl Into<String>, excerpt: impl Into<String>) -> Self {
        WebCard {
            url: url.into(),
            title: None,
            excerpt: excerpt.into(),
        }
    }

    /// Sets the page's title.
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn each_kind_is_the_tag_serde_writes() {
        let cards = [
            Card::generic("greet", json!({}), None),
            TerminalCard::new("ls").into(),
            DiffCard::new("a.rs", "", Vec::new()).into(),
            ReadCard::new("a.rs", "").into(),
            SearchCard::new("q", Vec::new()).into(),
            WebCard::new("https://example.com", "").into(),
        ];
        let mut kinds = Vec::new();
        for card in &cards {
            let value = serde_json::to_value(card).expect("a card is JSON");
            assert_eq!(value["card"], card.kind(), "{card:?}");
            kinds.push(card.kind());
        }
        kinds.dedup();
        assert_eq!(kinds.len(), cards.len(), "one card of each kind");
    }
}
