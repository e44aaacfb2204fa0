//! Example tools for dsh-kit: each shows one way to write a tool.
//!
//! - [`greet()`]: inline parameters, a plain `String` output.
//! - [`read_file()`]: an args struct with constraints, a structured output, a
//!   render and a `read` card.
//! - [`add_days()`]: date arithmetic with `chrono` types in both schemas.
//! - [`edit_file()`]: a typed failure enum (`InvalidInput | NoMatchesFound | …`)
//!   and a `diff` card.
//! - [`wait()`]: a slow tool with its own timeout that reports progress.
//! - [`lorem()`]: output large enough to spill to a file.
//! - [`shell::bash()`]: a shell command with a timeout, cancellation and
//!   streamed output, and a `terminal` card from the moment it starts.
//! - [`search::grep()`]: a regex search over a directory, and a `search` card.
//! - [`web::fetch()`]: a web page over HTTP, and a `web` card.
//!
//! The file tools take their paths as [`ToolPath`]: the registry resolves
//! each one (`..`, `//`, symbolic links) against its roots before any rule
//! or approver sees it, and the tools open what was decided through no
//! symbolic link ([`ToolPath::open`]).
//!
//! Between them they present every card: `read` ([`read_file()`]), `diff`
//! ([`edit_file()`]), `terminal`, `search`, `web`, and `generic` for the
//! tools that present nothing ([`greet()`]).

use chrono::{Datelike, Duration, NaiveDate};
use dsh_kit::card::{DiffCard, ReadCard};
use dsh_kit::path::PathOpenOptions;
use dsh_kit::prelude::*;
use dsh_kit::{Registry, ToolPath};

pub mod agent;
pub mod demo;
pub mod diff;
pub mod logging;
pub mod search;
pub mod shell;
pub mod web;

pub use search::grep;
pub use shell::bash;
pub use web::fetch;

/// Registers every example tool, keeping them for the registry's lifetime.
pub fn register_all(registry: &Registry) -> Result<(), dsh_kit::RegisterError> {
    registry.register::<greet>()?;
    registry.register::<read_file>()?;
    registry.register::<add_days>()?;
    registry.register::<edit_file>()?;
    registry.register::<wait>()?;
    registry.register::<lorem>()?;
    registry.register::<bash>()?;
    registry.register::<grep>()?;
    registry.register::<fetch>()?;
    Ok(())
}

/// Greet someone by name.
#[tool(
    read_only,
    concurrency_safe,
    idempotent,
    open_world = false,
    example(name = "Ada")
)]
pub async fn greet(
    /// The name to greet
    name: String,
) -> String {
    format!("Hello, {name}!")
}

/// Arguments of `read_file`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ReadFileArgs {
    /// Path of the file to read, absolute or relative to the working directory
    pub path: ToolPath,
    /// First line to return, 1-based (default 1)
    #[schemars(range(min = 1))]
    pub offset: Option<u32>,
    /// Maximum number of lines to return (default: all)
    pub limit: Option<u32>,
}

/// What `read_file` returns: the lines read and where they sit in the file.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct FileSlice {
    /// The file read
    pub path: String,
    /// First line returned, 1-based
    pub start_line: u32,
    /// Last line returned, 1-based, inclusive (`start_line - 1` when none)
    pub end_line: u32,
    /// Lines in the whole file
    pub total_lines: u32,
    /// The lines returned, each ending in a newline
    pub content: String,
}

/// Read a text file from disk, optionally a range of its lines.
#[tool(
    read_only,
    concurrency_safe,
    aliases = ["cat"],
    category = "filesystem",
    example(path = "Cargo.toml", limit = 3),
    example(path = "Cargo.toml", offset = 2, limit = 1),
    render = read_numbered,
    present = read_card
)]
pub async fn read_file(args: ReadFileArgs, exec: &Exec) -> Result<FileSlice, ToolError> {
    // Opened through no symbolic link: the file the path was decided on.
    let path = args.path.clone();
    let reading = tokio::task::spawn_blocking(move || path.read_to_string());
    let text = tokio::select! {
        text = reading => text
            .map_err(|error| ToolError::new(format!("the read stopped: {error}")))?
            .map_err(|error| ToolError::new(format!("cannot read {}: {error}", args.path)))?,
        () = exec.cancellation().cancelled() => return Err(ToolError::new("cancelled")),
    };
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let total = u32::try_from(lines.len()).unwrap_or(u32::MAX);
    let start = args.offset.unwrap_or(1).max(1);
    let limit = args.limit.unwrap_or(u32::MAX);
    let content: String = lines
        .iter()
        .skip(start as usize - 1)
        .take(limit as usize)
        .copied()
        .collect();
    let shown = u32::try_from(content.split_inclusive('\n').count()).unwrap_or(u32::MAX);
    Ok(FileSlice {
        path: args.path.display().to_string(),
        start_line: start,
        end_line: start + shown - 1,
        total_lines: total,
        content,
    })
}

/// Numbers each line, `cat -n` style, so the model can cite lines.
#[render]
pub fn read_numbered(_args: &ReadFileArgs, slice: &FileSlice) -> Vec<ContentBlock> {
    if slice.content.is_empty() {
        return vec![ContentBlock::text(format!(
            "{} has {} lines; none in the range asked for",
            slice.path, slice.total_lines
        ))];
    }
    let numbered: String = slice
        .content
        .split_inclusive('\n')
        .zip(slice.start_line..)
        .map(|(line, number)| format!("{number:>6}\t{line}"))
        .collect();
    vec![ContentBlock::text(numbered)]
}

/// A `read` card with the line range.
#[present]
pub fn read_card(_args: &ReadFileArgs, slice: &FileSlice) -> Card {
    Card::Read(ReadCard::new(&slice.path, &slice.content).lines(slice.start_line, slice.end_line))
}

/// A date moved by a number of days.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Shifted {
    /// The resulting date
    pub date: NaiveDate,
    /// Its day of the week, in English
    pub weekday: String,
}

/// Add a number of days to a calendar date (negative days go back).
#[tool(
    read_only,
    concurrency_safe,
    idempotent,
    example(date = "2024-02-28", days = 1),
    example(date = "2024-03-01", days = -1)
)]
pub async fn add_days(
    /// The starting date, `YYYY-MM-DD`
    date: NaiveDate,
    /// Days to add, between -36500 and 36500
    #[schemars(range(min = -36500, max = 36500))]
    days: i64,
) -> Result<Shifted, ToolError> {
    let shifted = date
        .checked_add_signed(Duration::days(days))
        .ok_or_else(|| ToolError::new(format!("{date} plus {days} days is out of range")))?;
    Ok(Shifted {
        date: shifted,
        weekday: shifted.weekday().to_string(),
    })
}

/// Arguments of `edit_file`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct EditFileArgs {
    /// Path of the file to change, absolute or relative to the working directory
    pub path: ToolPath,
    /// The exact text to replace
    pub old: String,
    /// The text to put in its place
    pub new: String,
    /// Replace every occurrence instead of exactly one
    #[serde(default)]
    pub replace_all: bool,
}

/// What `edit_file` changed.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Edited {
    /// The file changed
    pub path: String,
    /// How many occurrences were replaced
    pub replacements: u32,
    /// The change as a unified diff
    pub diff: String,
}

/// How an edit can fail: each shape is a variant the host can switch on,
/// exported with the tool (its failure schema) and carried by a failed
/// result (`kind`, and what the variant holds as `data`).
#[derive(Debug, ToolFailure)]
pub enum EditError {
    /// The arguments make no sense together.
    #[error("invalid input: {0}")]
    InvalidInput(String),
    /// `old` is not in the file.
    #[error(
        "no match for the text to replace in {path}: read the file again and copy the text exactly"
    )]
    NoMatchesFound {
        /// The file searched.
        path: String,
    },
    /// `old` is in the file more than once.
    #[error(
        "the text to replace occurs {count} times in {path}: add surrounding lines to make it unique, or set `replace_all`"
    )]
    AmbiguousMatch {
        /// The file searched.
        path: String,
        /// How many times it occurs.
        count: usize,
    },
    /// The file could not be read or written.
    #[error("cannot edit {path}")]
    Io {
        /// The file.
        path: String,
        /// Why; its message follows the error's, and is left out of the data.
        #[source]
        #[serde(skip)]
        source: std::io::Error,
    },
}

/// Replace exact text in a file and show the change as a diff.
#[tool(
    destructive,
    category = "filesystem",
    output_type = "diff",
    render = edit_text,
    present = edit_card
)]
pub async fn edit_file(args: EditFileArgs) -> Result<Edited, EditError> {
    if args.old.is_empty() {
        return Err(EditError::InvalidInput(
            "`old` is empty: give the text to replace".into(),
        ));
    }
    if args.old == args.new {
        return Err(EditError::InvalidInput(
            "`old` and `new` are the same: nothing would change".into(),
        ));
    }
    let path = args.path.display().to_string();
    let io = |source| EditError::Io {
        path: path.clone(),
        source,
    };
    let before = blocking(&args.path, |path| path.read_to_string())
        .await
        .map_err(io)?;
    let count = before.matches(&args.old).count();
    match count {
        0 => return Err(EditError::NoMatchesFound { path }),
        1 => {}
        _ if args.replace_all => {}
        _ => return Err(EditError::AmbiguousMatch { path, count }),
    }
    let after = before.replace(&args.old, &args.new);
    let written = after.clone();
    blocking(&args.path, move |path| {
        let mut file = path.open_with(PathOpenOptions::new().write(true).truncate(true))?;
        std::io::Write::write_all(&mut file, written.as_bytes())
    })
    .await
    .map_err(io)?;
    Ok(Edited {
        diff: diff::unified(&path, &before, &after),
        path,
        replacements: u32::try_from(count).unwrap_or(u32::MAX),
    })
}

/// Runs `work` on `path` off the async threads (file I/O blocks).
async fn blocking<T: Send + 'static>(
    path: &ToolPath,
    work: impl FnOnce(&ToolPath) -> std::io::Result<T> + Send + 'static,
) -> std::io::Result<T> {
    let path = path.clone();
    tokio::task::spawn_blocking(move || work(&path))
        .await
        .map_err(std::io::Error::other)?
}

/// What changed, with the diff, for the model.
#[render]
pub fn edit_text(_args: &EditFileArgs, edited: &Edited) -> Vec<ContentBlock> {
    let plural = if edited.replacements == 1 { "" } else { "s" };
    vec![ContentBlock::text(format!(
        "Replaced {} occurrence{plural} in {}:\n{}",
        edited.replacements, edited.path, edited.diff
    ))]
}

/// A `diff` card: the unified diff and its hunks.
#[present]
pub fn edit_card(_args: &EditFileArgs, edited: &Edited) -> Card {
    Card::Diff(DiffCard {
        path: edited.path.clone(),
        unified_diff: edited.diff.clone(),
        hunks: diff::hunks(&edited.diff),
    })
}

/// Wait a number of milliseconds, reporting progress every 100 ms.
#[tool(read_only, concurrency_safe, timeout_ms = 2000, example(millis = 10))]
pub async fn wait(
    /// How long to wait, in milliseconds (at most 1800: a call stops at 2 s)
    // MCP clients send it as an `Mcp-Param-Wait-Ms` header too, so a gateway
    // can route long waits to a pool of their own without reading the body.
    #[dsh(header = "Wait-Ms")]
    #[schemars(range(max = 1_800))]
    millis: u64,
    exec: &Exec,
) -> String {
    let mut left = millis;
    while left > 0 {
        let step = left.min(100);
        tokio::time::sleep(std::time::Duration::from_millis(step)).await;
        left -= step;
        let done = millis - left;
        exec.report_progress(
            done as f64,
            Some(millis as f64),
            format!("{done} of {millis} ms"),
        );
    }
    format!("waited {millis} ms")
}

/// Generate placeholder text: a number of numbered paragraphs.
#[tool(read_only, concurrency_safe, idempotent, example(paragraphs = 2))]
pub async fn lorem(
    /// How many paragraphs, 1 to 1000
    #[schemars(range(min = 1, max = 1000))]
    paragraphs: u32,
) -> String {
    (1..=paragraphs)
        .map(|n| {
            format!(
                "{n}. Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore et dolore magna aliqua.\n"
            )
        })
        .collect()
}
