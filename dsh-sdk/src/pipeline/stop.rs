//! [`Stop`]: why a call ended before it succeeded, one variant per way; its
//! result is built in one place ([`Head::failed`](super::Head::failed)), for a
//! live call and a replay alike.
//!
//! A stage returns a `Stop`; the spine turns it into the call's error result.
//! Nothing matches on a message's text: the status, the [`Cause`] and the
//! message all follow from the variant.

use std::time::Duration;

use crate::pool::Refusal;
use crate::tool::ProjectError;
use crate::tool::ToolError;
use crate::value::content::ContentBlock;
use crate::value::path::slots::PathArgError;
use crate::value::result::{Cause, Failure};
use crate::value::schema::limits::Exceeded;
use crate::value::schema::{Violation, describe};

/// Why a call stopped early.
#[derive(Debug, thiserror::Error)]
pub(crate) enum Stop {
    /// No tool has the name.
    #[error("{}", unknown_tool(name, closest))]
    UnknownTool {
        /// The name asked for, cut to a readable length.
        name: String,
        /// The closest names, best first.
        closest: Vec<String>,
    },
    /// The catalog refuses the tool; the refusal as the catalog words it.
    /// Boxed, as is the tool's error below: every stage's result is as
    /// large as its largest way to stop, and is moved on every call.
    #[error("{0}")]
    Unavailable(Box<Refusal>),
    /// The arguments (or the approver's replacement) are invalid.
    #[error("{}{}", if *approved { "the approved arguments are invalid: " } else { "" }, error.message(tool))]
    InvalidArguments {
        tool: String,
        error: InputError,
        /// Whether they are the arguments an approver gave.
        approved: bool,
    },
    /// A rule, gate or guard denied the call.
    #[error("`{tool}` cannot run{}: {reason}", if *approved { " with the arguments its approver gave" } else { "" })]
    Denied {
        tool: String,
        reason: String,
        approved: bool,
    },
    /// The call needed approval and no approver is set up.
    #[error("{}", unapproved(tool, reason.as_deref()))]
    Unapproved {
        tool: String,
        /// Why it needs approval, when the decision said.
        reason: Option<String>,
    },
    /// The approver rejected the call.
    #[error("`{tool}` was rejected: {reason}")]
    Rejected { tool: String, reason: String },
    /// The approver changed the arguments a second time.
    #[error(
        "`{tool}` was not run: its approver changed the arguments, was asked again about the new ones, and changed them again; arguments are changed at most once per call"
    )]
    ChangedTwice { tool: String },
    /// The approver panicked.
    #[error("`{tool}` could not be approved: the approver panicked: {message}")]
    ApproverPanicked { tool: String, message: String },
    /// The approver gave no answer in time.
    #[error("`{tool}` was not run: its approval got no answer within {}", human_duration(*limit))]
    ApprovalTimeout { tool: String, limit: Duration },
    /// An attempt of execute ran out of time.
    #[error("`{tool}` timed out after {}", human_duration(*limit))]
    Timeout { tool: String, limit: Duration },
    /// The tool's body returned an error.
    #[error("`{tool}` failed: {error}")]
    Tool { tool: String, error: Box<ToolError> },
    /// The tool, or an execute layer, panicked.
    #[error("`{tool}` panicked: {message}")]
    Panicked { tool: String, message: String },
    /// A stage panicked outside every hook's own catch.
    #[error("`{tool}` failed: the call panicked: {message}")]
    CallPanicked { tool: String, message: String },
    /// The output (or a post-execute hook's replacement) broke a limit or the schema.
    #[error("{}{}", if *replaced { "a post-execute hook replaced the value: " } else { "" }, error.message(tool))]
    InvalidOutput {
        tool: String,
        error: OutputError,
        /// Whether a post-execute hook gave the value.
        replaced: bool,
    },
    /// A post-execute hook panicked.
    #[error(
        "`{tool}` was stopped after it ran: the post-execute hook #{number} panicked: {message}"
    )]
    HookPanicked {
        tool: String,
        /// Its place among the hooks, from 1.
        number: usize,
        message: String,
    },
    /// A post-execute hook blocked the result.
    #[error("`{tool}` was blocked: {feedback}")]
    Blocked {
        tool: String,
        feedback: String,
        /// The context the hooks before it added, kept after the message.
        context: Vec<ContentBlock>,
    },
    /// Render or present failed.
    #[error("`{tool}` {error}")]
    RenderFailed { tool: String, error: ProjectError },
    /// The host cancelled the call, or dropped its future.
    #[error("`{tool}` was cancelled before it finished{}", if *dropped { ": the call was dropped" } else { "" })]
    Cancelled { tool: String, dropped: bool },
}

/// Why arguments were refused.
#[derive(Debug, thiserror::Error)]
pub(crate) enum InputError {
    /// Over the size or depth limit.
    #[error("the arguments are {}", .0.describe())]
    Exceeded(Exceeded),
    /// They break the input schema.
    #[error("{}", describe(.0))]
    Schema(Vec<Violation>),
    /// serde refused them, in its words.
    #[error("{0}")]
    Deserialize(serde_json::Error),
    /// Their `Deserialize` impl panicked.
    #[error("their `Deserialize` impl panicked: {0}")]
    DeserializePanicked(String),
    /// `validate_input` panicked.
    #[error("its `validate_input` panicked: {0}")]
    ValidatePanicked(String),
    /// `validate_input` refused them.
    #[error("{message}")]
    Invalid { message: String, code: i32 },
    /// A path argument is refused (`crate::value::path`).
    #[error("{0}")]
    Path(Box<PathArgError>),
}

impl InputError {
    /// The whole sentence, for `tool`.
    fn message(&self, tool: &str) -> String {
        match self {
            InputError::DeserializePanicked(_) => {
                format!("`{tool}` could not read its arguments: {self}")
            }
            InputError::ValidatePanicked(_) => {
                format!("`{tool}` could not check its arguments: {self}")
            }
            InputError::Invalid { code, .. } => {
                format!("invalid arguments for `{tool}` (code {code}): {self}")
            }
            _ => format!("invalid arguments for `{tool}`: {self}"),
        }
    }
}

/// Why an output value never reaches the model.
#[derive(Debug, thiserror::Error)]
pub(crate) enum OutputError {
    /// Over the output size or depth limit.
    #[error("{}", .0.describe())]
    Exceeded(Exceeded),
    /// It breaks the output schema.
    #[error("that breaks its schema: {}", describe(.0))]
    Schema(Vec<Violation>),
}

impl OutputError {
    /// The whole sentence, for `tool`.
    fn message(&self, tool: &str) -> String {
        format!("`{tool}` returned an output {self}")
    }
}

impl Stop {
    /// The first thing wrong with the arguments, for a call whose arguments
    /// broke the input schema.
    pub(super) fn first_violation(&self) -> Option<&Violation> {
        match self {
            Stop::InvalidArguments {
                error: InputError::Schema(violations),
                ..
            } => violations.first(),
            _ => None,
        }
    }

    /// What stopped it, typed.
    pub(super) fn failure(&self) -> Failure {
        let cause = match self {
            Stop::UnknownTool { .. } => Cause::UnknownTool,
            Stop::Unavailable(_) => Cause::Unavailable,
            Stop::InvalidArguments { .. } => Cause::InvalidArguments,
            Stop::Denied { .. } | Stop::Unapproved { .. } => Cause::Denied,
            Stop::Rejected { .. } | Stop::ChangedTwice { .. } => Cause::Rejected,
            Stop::ApproverPanicked { .. } | Stop::HookPanicked { .. } => Cause::HookPanicked,
            Stop::ApprovalTimeout { .. } | Stop::Timeout { .. } => Cause::Timeout,
            Stop::Tool { error, .. } => {
                return Failure::tool(error.kind().map(str::to_owned), error.data().cloned());
            }
            Stop::Panicked { .. } | Stop::CallPanicked { .. } => Cause::Panicked,
            Stop::InvalidOutput { .. } => Cause::InvalidOutput,
            Stop::Blocked { .. } => Cause::Blocked,
            Stop::RenderFailed { .. } => Cause::RenderFailed,
            Stop::Cancelled { .. } => Cause::Cancelled,
        };
        Failure::new(cause)
    }
}

/// "no tool named `x`; did you mean `y`?"
fn unknown_tool(name: &str, closest: &[String]) -> String {
    match closest {
        [] => format!("no tool named `{name}`"),
        [one] => format!("no tool named `{name}`; did you mean `{one}`?"),
        many => format!(
            "no tool named `{name}`; did you mean one of {}?",
            many.iter()
                .map(|name| format!("`{name}`"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// The refusal of a call that asked for approval where no approver is set
/// up: a statement of what happened, not the question the approver would
/// have been asked, and the two ways a host allows such calls, for whoever
/// reads it in a log.
fn unapproved(tool: &str, reason: Option<&str>) -> String {
    let fix = format!(
        "to let it run, give the registry an approver (`Registry::builder().approver(…)`), or allow it with a rule (`Rule::allow(\"{tool}\")`) where no rule asks for it"
    );
    match reason {
        Some(reason) => {
            format!("`{tool}` was denied: {reason}, and no approver is set up to allow it; {fix}")
        }
        None => {
            format!(
                "`{tool}` was denied: it needs approval, and no approver is set up to give it; {fix}"
            )
        }
    }
}

/// "30 s", "250 ms".
fn human_duration(duration: Duration) -> String {
    if duration.subsec_millis() == 0 && duration.as_secs() > 0 {
        format!("{} s", duration.as_secs())
    } else {
        format!("{} ms", duration.as_millis())
    }
}
