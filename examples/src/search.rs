//! `grep`: a regex search over the files under a directory, with a `search` card.
//!
//! The walk is `ignore`'s, the crate under ripgrep: it skips what
//! `.gitignore` files and hidden names hide, which is what an agent searching
//! a project wants, and `regex` guarantees linear-time matching whatever
//! pattern a model sends.

use std::path::Path;

use dsh_kit::ToolPath;
use dsh_kit::card::{SearchCard, SearchHit};
use dsh_kit::prelude::*;
use ignore::WalkBuilder;
use ignore::overrides::OverrideBuilder;
use regex::RegexBuilder;

/// How many matches a call returns when it does not say.
pub const DEFAULT_MAX_RESULTS: u32 = 100;

/// How many characters of a matching line a match keeps.
pub const MAX_LINE_CHARS: usize = 300;

/// Arguments of `grep`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct GrepArgs {
    /// The regular expression to look for (Rust `regex` syntax)
    #[schemars(length(min = 1))]
    pub pattern: String,
    /// Path of the directory to search, or of one file (absolute, or relative to the working directory)
    pub path: ToolPath,
    /// Search only files whose path matches this glob, such as `*.rs`
    pub glob: Option<String>,
    /// Match letters whatever their case
    #[serde(default)]
    pub case_insensitive: bool,
    /// The most matches to return (default 100)
    #[schemars(range(min = 1, max = 1000))]
    pub max_results: Option<u32>,
}

/// What `grep` found.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct GrepResults {
    /// The pattern searched for
    pub pattern: String,
    /// The directory or file searched
    pub root: String,
    /// The matching lines, by path then line
    pub matches: Vec<GrepMatch>,
    /// Whether there were more matches than `max_results`
    pub truncated: bool,
}

/// One matching line.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct GrepMatch {
    /// The file, relative to the root searched (the root itself when it is a file)
    pub path: String,
    /// The line, 1-based
    pub line: u32,
    /// The line's text, cut to 300 characters
    pub text: String,
}

/// Search the files under a directory for lines matching a regular expression.
#[tool(
    read_only,
    concurrency_safe,
    idempotent,
    category = "search",
    render = grep_text,
    present = grep_card,
    present_call = grep_running
)]
pub async fn grep(args: GrepArgs, exec: &Exec) -> Result<GrepResults, ToolError> {
    let regex = RegexBuilder::new(&args.pattern)
        .case_insensitive(args.case_insensitive)
        .build()
        .map_err(|error| ToolError::new(format!("`pattern` is not a valid regex: {error}")))?;
    // The walk and the reads block: run them off the async threads, and stop
    // between files once the call is cancelled.
    let cancel = exec.cancellation().clone();
    let max = args.max_results.unwrap_or(DEFAULT_MAX_RESULTS) as usize;
    let search = tokio::task::spawn_blocking(move || {
        let (matches, truncated) = walk(&args.path, args.glob.as_deref(), &regex, max, &|| {
            cancel.is_cancelled()
        })?;
        Ok::<_, ToolError>(GrepResults {
            pattern: args.pattern,
            root: args.path.display().to_string(),
            matches,
            truncated,
        })
    });
    search
        .await
        .map_err(|error| ToolError::new(format!("the search stopped: {error}")))?
}

/// Walks `root` in path order, collecting up to `max` matches; whether there were more.
fn walk(
    root: &Path,
    glob: Option<&str>,
    regex: &regex::Regex,
    max: usize,
    cancelled: &dyn Fn() -> bool,
) -> Result<(Vec<GrepMatch>, bool), ToolError> {
    if !root.exists() {
        return Err(ToolError::new(format!(
            "`{}` does not exist",
            root.display()
        )));
    }
    let mut walker = WalkBuilder::new(root);
    // Honour `.gitignore` files outside a git checkout too.
    walker.require_git(false).sort_by_file_name(|a, b| a.cmp(b));
    if let Some(glob) = glob {
        let overrides = OverrideBuilder::new(root)
            .add(glob)
            .and_then(|builder| builder.build())
            .map_err(|error| ToolError::new(format!("`glob` is not a valid glob: {error}")))?;
        walker.overrides(overrides);
    }
    let mut matches = Vec::new();
    for entry in walker.build() {
        if cancelled() {
            return Err(ToolError::new("the search was cancelled"));
        }
        // An unreadable entry (permissions, a broken link) is skipped, as grep -s does.
        let Ok(entry) = entry else { continue };
        if !entry.file_type().is_some_and(|kind| kind.is_file()) {
            continue;
        }
        // Binary and non-UTF-8 files are skipped. The walk follows no
        // symbolic link, and neither does the read: a file swapped for a
        // link since the walk saw it is skipped too.
        let Ok(text) = ToolPath::new(entry.path()).read_to_string() else {
            continue;
        };
        let relative = match entry.path().strip_prefix(root) {
            Ok(relative) if !relative.as_os_str().is_empty() => relative,
            // The root is the file itself.
            _ => entry.path(),
        };
        for (index, line) in text.lines().enumerate() {
            if !regex.is_match(line) {
                continue;
            }
            if matches.len() == max {
                return Ok((matches, true));
            }
            matches.push(GrepMatch {
                path: relative.display().to_string(),
                line: u32::try_from(index + 1).unwrap_or(u32::MAX),
                text: line.chars().take(MAX_LINE_CHARS).collect(),
            });
        }
    }
    Ok((matches, false))
}

/// `path:line:text`, as grep prints it.
#[render]
pub fn grep_text(_args: &GrepArgs, results: &GrepResults) -> Vec<ContentBlock> {
    if results.matches.is_empty() {
        return vec![ContentBlock::text(format!(
            "no line under {} matches `{}`",
            results.root, results.pattern
        ))];
    }
    let mut text: String = results
        .matches
        .iter()
        .map(|hit| format!("{}:{}:{}\n", hit.path, hit.line, hit.text))
        .collect();
    if results.truncated {
        text.push_str(&format!(
            "[only the first {} matches are shown: narrow the pattern or the glob]\n",
            results.matches.len()
        ));
    }
    vec![ContentBlock::text(text)]
}

/// A `search` card: each hit titled by its file, located at `/root/path:line`.
#[present]
pub fn grep_card(_args: &GrepArgs, results: &GrepResults) -> Card {
    let root = Path::new(&results.root);
    let hits = results
        .matches
        .iter()
        .map(|hit| {
            // `join` keeps an absolute path as it is: a root that is a file.
            let location = root.join(&hit.path);
            SearchHit::new(
                &hit.path,
                format!("{}:{}", location.display(), hit.line),
                &hit.text,
            )
        })
        .collect();
    Card::from(SearchCard::new(&results.pattern, hits))
}

/// A `search` card with the query and no hits yet, while it runs.
#[present]
pub fn grep_running(args: &GrepArgs) -> Card {
    Card::from(SearchCard::new(&args.pattern, Vec::new()))
}
