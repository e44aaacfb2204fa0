//! Settling an ask: the host's [`Approver`] and what it answers.

use std::fmt;

use futures_util::future::BoxFuture;
use serde_json::Value;
use uuid::Uuid;

use crate::exec::Exec;

/// How the host settled an [`Decision::Ask`](super::Decision::Ask).
#[derive(Debug, Clone, PartialEq)]
pub enum Approval {
    /// Run the call as the model made it.
    Approve,
    /// Run the call with these arguments instead; the pipeline validates them
    /// and decides them again (rules, gates, guards) before the tool sees
    /// them. An ask on them is put to the approver once more, where a second
    /// `ApproveWith` is refused.
    ApproveWith(Value),
    /// Do not run the call.
    Reject {
        /// Why, as the model reads it.
        reason: String,
    },
}

/// A call waiting for approval.
#[derive(Debug, Clone, Copy)]
pub struct ApprovalRequest<'a> {
    /// The tool's canonical name.
    pub tool: &'a str,
    /// The arguments the call would run with.
    pub args: &'a Value,
    /// The question from the decision that asked.
    pub prompt: &'a str,
    /// The invocation this call belongs to.
    pub invocation_id: Uuid,
    /// The call's context: its [`client`](Exec::client), to ask the user
    /// through it, and its stream, to record the decision in the event log.
    pub exec: &'a Exec,
}

/// Settles asks, typically by asking a person; supplied by the host.
///
/// For a synchronous answer wrap a fn in [`FnApprover`]; implement the trait
/// to answer asynchronously (say, over a channel to a UI).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an approver",
    note = "implement `Approver`, or wrap a fn `Fn(&ApprovalRequest<'_>) -> Approval` in `FnApprover`"
)]
pub trait Approver: Send + Sync + 'static {
    /// Approve, approve with other arguments, or reject the call.
    fn approve<'a>(&'a self, request: ApprovalRequest<'a>) -> BoxFuture<'a, Approval>;
}

/// An [`Approver`] that answers synchronously with a fn.
///
/// ```
/// use dsh_sdk::permission::{Approval, ApprovalRequest, Approver, FnApprover};
///
/// let approver = FnApprover(|request: &ApprovalRequest<'_>| {
///     if request.tool == "bash" {
///         Approval::Reject { reason: "no shell today".into() }
///     } else {
///         Approval::Approve
///     }
/// });
/// # let _: &dyn Approver = &approver;
/// ```
#[derive(Clone, Copy)]
pub struct FnApprover<F>(pub F);

impl<F> fmt::Debug for FnApprover<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("FnApprover(..)")
    }
}

impl<F> Approver for FnApprover<F>
where
    F: Fn(&ApprovalRequest<'_>) -> Approval + Send + Sync + 'static,
{
    fn approve<'a>(&'a self, request: ApprovalRequest<'a>) -> BoxFuture<'a, Approval> {
        Box::pin(std::future::ready((self.0)(&request)))
    }
}
