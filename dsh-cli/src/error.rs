//! Why a `dsh` command could not do its work, each with what to do about it.

use std::path::PathBuf;

/// Why a command could not do its work. Outcomes a command reports on
/// (a tool's error, a contract that drifted, a replay that differs) are
/// not errors: they are printed and set the exit status.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// No server was named.
    #[error(
        "no MCP server given: name one with `--url URL`, `--stdio \"COMMAND ARGS\"` or `-- COMMAND ARGS…`"
    )]
    NoServer,
    /// `--url` is not an HTTP URL.
    #[error(
        "`--url {url}` is not an http:// or https:// URL (for a command, use `--stdio` or `-- COMMAND`)"
    )]
    BadUrl {
        /// What was given.
        url: String,
    },
    /// `--stdio` could not be split into words.
    #[error(
        "`--stdio {line}` cannot be split into words: close its quotes, or give the command after `--`"
    )]
    BadCommandLine {
        /// What was given.
        line: String,
    },
    /// The HTTP client could not be built.
    #[error("cannot set up the HTTP client: {0}")]
    HttpClient(String),
    /// The server could not be reached or did not list its tools.
    #[error("cannot connect to {server} ({hint})")]
    Connect {
        /// How the server was named.
        server: String,
        /// What to check.
        hint: &'static str,
        /// What went wrong.
        #[source]
        source: dsh_kit::mcp::ConnectError,
    },
    /// The tool asked for is not one of the server's.
    #[error("{server} has no tool `{tool}`{suggestion}")]
    UnknownTool {
        /// How the server was named.
        server: String,
        /// The tool asked for.
        tool: String,
        /// `; did you mean …?`, or nothing.
        suggestion: String,
    },
    /// The arguments of `dsh call` are not a JSON object.
    #[error("{0}")]
    BadArgs(String),
    /// A file could not be read or written.
    // The cause follows, as every error's does (`report`).
    #[error("cannot {action} {}", path.display())]
    File {
        /// `read`, `write`, `open`.
        action: &'static str,
        /// The file.
        path: PathBuf,
        /// What went wrong.
        #[source]
        source: std::io::Error,
    },
    /// The lock file is not one `dsh lock` wrote.
    #[error("{} is not a dsh lock file ({reason}): write it again with `dsh lock`", path.display())]
    BadLock {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
    },
    /// The lock file to check does not exist.
    #[error("{} does not exist: write it with `dsh lock` (without `--check`) and commit it", path.display())]
    NoLock {
        /// The file.
        path: PathBuf,
    },
    /// The session log to open does not exist.
    #[error(
        "{} does not exist: give a session log `--record FILE` wrote, or record one with `dsh web --record FILE`", path.display()
    )]
    NoLog {
        /// The file.
        path: PathBuf,
    },
    /// A session log could not be read.
    #[error(transparent)]
    Log(#[from] dsh_kit::log::LogError),
    /// The playground could not start.
    #[error("the playground cannot start (pick another address with `--addr`)")]
    Playground(#[from] dsh_kit::playground::PlaygroundError),
    /// The MCP server of `dsh dev` could not start or stopped.
    #[error("cannot serve MCP (pick another address with `--http`)")]
    Serve(#[from] dsh_kit::mcp::ServeError),
    /// The sources cannot be watched.
    #[error("cannot watch {} (check that it exists and is readable)", path.display())]
    Watch {
        /// The path.
        path: PathBuf,
        /// What went wrong.
        #[source]
        source: notify::Error,
    },
    /// Neither a server nor a log was given where one is needed.
    #[error("{0}")]
    Usage(String),
}
