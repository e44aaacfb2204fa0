//! Settling an ask: the host's [`Approver`] and what it answers.

use std::fmt;

use futures_util::future::BoxFuture;
use serde_json::Value;
use uuid::Uuid;

use schemars::JsonSchema;
use serde::Deserialize;

use crate::tool::Exec;
use crate::tool::client::Elicited;
use crate::value::principal::{Caller, Principal};

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
    /// Who makes the call ([`Principal::host`] for the host's own calls):
    /// an approver can say who asks, or decide by it.
    pub principal: &'a Principal,
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
/// use dsh_kit::permission::{Approval, ApprovalRequest, Approver, FnApprover};
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

/// An [`Approver`] that asks the user through the call's client
/// (elicitation): "approve?" with a yes/no form. The decision, or why no
/// one could be asked, goes into the call's stream as a `progress` chunk, so
/// the event log records who approved what; a call whose client cannot be
/// asked is rejected.
///
/// ```
/// use dsh_kit::Registry;
/// use dsh_kit::permission::ElicitApprover;
///
/// let registry = Registry::builder().approver(ElicitApprover).build();
/// # drop(registry);
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct ElicitApprover;

/// The form [`ElicitApprover`] asks the user to fill in.
#[derive(Deserialize, JsonSchema, crate::elicit::Elicit)]
struct ApprovalForm {
    /// Let this call run?
    approve: bool,
}

impl Approver for ElicitApprover {
    fn approve<'a>(&'a self, request: ApprovalRequest<'a>) -> BoxFuture<'a, Approval> {
        Box::pin(async move {
            let message = format!(
                "{}\n\n`{}` would run with {}{}",
                request.prompt,
                request.tool,
                request.args,
                on_behalf(request.principal)
            );
            let (approval, record) = match request.exec.elicit::<ApprovalForm>(message).await {
                Ok(Elicited::Accepted(ApprovalForm { approve: true })) => (
                    Approval::Approve,
                    "approved by the user through elicitation".to_owned(),
                ),
                Ok(Elicited::Accepted(ApprovalForm { approve: false })) => {
                    rejected("the user did not approve it")
                }
                Ok(Elicited::Declined) => rejected("the user declined it"),
                Ok(Elicited::Cancelled) => rejected("the user dismissed the question"),
                Err(error) => rejected(&format!("no one could be asked: {error}")),
            };
            request.exec.progress(format!("approval: {record}"));
            approval
        })
    }
}

/// `, for ada (client notes-app)`: who asks, unless it is the host itself.
fn on_behalf(principal: &Principal) -> String {
    Caller::of(principal).map_or_else(String::new, |caller| format!(", for {caller}"))
}

fn rejected(reason: &str) -> (Approval, String) {
    (
        Approval::Reject {
            reason: reason.to_owned(),
        },
        format!("rejected: {reason}"),
    )
}
