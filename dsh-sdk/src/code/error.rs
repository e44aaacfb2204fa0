//! [`CodeError`]: why a program gave no result.

use schemars::JsonSchema;
use serde::Serialize;

/// Why a program gave no result: a bound it passed, or what went wrong in
/// it. The `run_code` tool fails with it as its declared failure (the
/// variant's name is the result's failure `kind`).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error, Serialize, JsonSchema)]
#[non_exhaustive]
pub enum CodeError {
    /// The program is longer than its limit; it was not run.
    #[error("the program is {length} characters long, over the limit of {limit}")]
    ProgramTooLong {
        /// Its length in characters.
        length: usize,
        /// The limit.
        limit: usize,
    },
    /// The program does not parse as JavaScript.
    #[error("the program does not parse: {message}")]
    Syntax {
        /// The engine's message and where.
        message: String,
    },
    /// The program threw an exception it did not catch.
    #[error("the program threw {message}")]
    Threw {
        /// The exception and the stack where it was thrown.
        message: String,
    },
    /// The run took longer than its time limit (tool calls included).
    #[error("the program ran past its time limit of {limit_ms} ms")]
    Timeout {
        /// The limit, in milliseconds.
        limit_ms: u64,
    },
    /// The program allocated past its memory limit.
    #[error("the program ran out of memory: its limit is {limit} bytes")]
    OutOfMemory {
        /// The limit, in bytes.
        limit: usize,
    },
    /// The program recursed past its stack limit.
    #[error("the program recursed too deep: its stack limit is {limit} bytes")]
    StackOverflow {
        /// The limit, in bytes.
        limit: usize,
    },
    /// The program printed, or returned, more than its output limit.
    #[error("the program's output (console and result) is over its limit of {limit} characters")]
    OutputTooLong {
        /// The limit, in characters.
        limit: usize,
    },
    /// The program made more tool calls than its limit.
    #[error("the program made more than {limit} tool calls")]
    TooManyCalls {
        /// The limit.
        limit: usize,
    },
    /// The program's result has no JSON form.
    #[error("the program's result is not JSON: {message}")]
    ResultNotJson {
        /// Why.
        message: String,
    },
    /// The program awaited a promise nothing will ever settle.
    #[error("the program awaits a promise that never settles (the sandbox has no timers or I/O)")]
    NeverSettles,
    /// The call running the program was cancelled.
    #[error("the program was stopped: its call was cancelled")]
    Cancelled,
    /// The sandbox could not start.
    #[error("the sandbox could not start: {message}")]
    Engine {
        /// Why.
        message: String,
    },
    /// A replayed program made a call the log does not hold (another
    /// tool, other arguments, or one call more than the live run made).
    #[error(
        "the replayed program called `{tool}` as call {index}, which the log does not hold: {reason}"
    )]
    Diverged {
        /// The tool it called.
        tool: String,
        /// The call's place among the program's calls, from 0.
        index: usize,
        /// How the call differs from the logged one.
        reason: String,
    },
}
