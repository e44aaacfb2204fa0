//! Stages 3 and 4, permission: the default decision (`requires_approval` and
//! `destructive` tools ask), permission rules, the gates in order, then the
//! monotone guards, which can only tighten it. `ask` goes to the host's
//! approver, within the approval timeout; arguments it gives instead are
//! read and decided again, as if the model had sent them.

use std::panic::AssertUnwindSafe;
use std::sync::Arc;

use futures_util::FutureExt;
use serde_json::Value;
use uuid::Uuid;

use super::Config;
use super::input;
use super::stop::Stop;
use crate::permission::{Approval, ApprovalRequest, Approver, CallInfo, Decision, Ruling};
use crate::tool::Exec;
use crate::tool::panic_message;
use crate::tool::{Entry, Prepared};
use crate::value::principal::Principal;

/// What the permission stage made of the arguments the model sent.
pub(super) enum Verdict {
    /// They run as they are.
    Allowed,
    /// They run only if the approver says so: [`settle`] asks.
    Ask(Asking),
}

/// An ask about the arguments the model sent.
pub(super) struct Asking {
    /// The question put to the approver.
    prompt: String,
    /// Why it asks, when the default or a rule asked; the refusal says so
    /// when no approver is set up.
    why: Option<String>,
}

/// The decision for the arguments the model sent, made without waiting:
/// a call that is allowed (most) never builds the approval's future.
pub(super) fn decide_first(
    config: &Config,
    entry: &Entry,
    args: &Value,
    principal: &Principal,
) -> Result<Verdict, Stop> {
    let def = &entry.def;
    if (config.permissions).allows_outright(def.destructive(), def.requires_approval()) {
        tracing::debug!(
            dsh.permission.decision = "allow",
            dsh.permission.by = "default",
            "permission decided"
        );
        return Ok(Verdict::Allowed);
    }
    let Ruling { decision, why } = decide(config, entry, args, principal);
    tracing::info!(
        dsh.permission.decision = ?decision.strictness(),
        dsh.permission.by = "rules, gates and guards",
        dsh.permission.why = why.as_deref(),
        "permission decided"
    );
    match decision {
        Decision::Allow => Ok(Verdict::Allowed),
        Decision::Deny { reason } => Err(Stop::Denied {
            tool: entry.def.name().to_owned(),
            reason,
            approved: false,
        }),
        Decision::Ask { prompt } => Ok(Verdict::Ask(Asking { prompt, why })),
    }
}

/// Settles the ask `asking` about `args` with the approver: `args` and
/// `prepared` are left as what runs, the approver's arguments if it gave
/// some (`args` are those even when they are then refused: what was
/// decided on).
pub(super) async fn settle(
    config: &Config,
    entry: &Entry,
    args: &mut Arc<Value>,
    prepared: &mut Prepared,
    asking: Asking,
    exec: &Exec,
) -> Result<(), Stop> {
    let tool = entry.def.name();
    let Some(approver) = &config.approver else {
        return Err(Stop::Unapproved {
            tool: tool.to_owned(),
            reason: asking.why,
        });
    };
    let approver = approver.as_ref();
    let overridden = match ask(config, approver, tool, args, &asking.prompt, exec).await? {
        Approval::Approve => return Ok(()),
        Approval::Reject { reason } => return Err(rejected(tool, reason)),
        Approval::ApproveWith(overridden) => overridden,
    };
    // What runs is decided again, as if the model had sent it.
    let invalid = |error| Stop::InvalidArguments {
        tool: tool.to_owned(),
        error,
        approved: true,
    };
    let mut overridden = Arc::new(input::bounded(&config.limits, overridden).map_err(invalid)?);
    let (overridden_prepared, _) =
        input::check(entry, &config.roots, &mut overridden, exec).map_err(invalid)?;
    // From here on the decision is about the substitute, kept or refused.
    *args = overridden;
    match decide(config, entry, args, exec.principal()).decision {
        Decision::Allow => {}
        Decision::Deny { reason } => {
            return Err(Stop::Denied {
                tool: tool.to_owned(),
                reason,
                approved: true,
            });
        }
        // Asked once more, about what will run now; a second change of
        // arguments is not taken.
        Decision::Ask { prompt } => match ask(config, approver, tool, args, &prompt, exec).await? {
            Approval::Approve => {}
            Approval::ApproveWith(_) => {
                return Err(Stop::ChangedTwice {
                    tool: tool.to_owned(),
                });
            }
            Approval::Reject { reason } => return Err(rejected(tool, reason)),
        },
    }
    *prepared = overridden_prepared;
    Ok(())
}

fn rejected(tool: &str, reason: String) -> Stop {
    Stop::Rejected {
        tool: tool.to_owned(),
        reason,
    }
}

/// Default, rules, gates, guards for `args` from `principal`. A gate or
/// guard that panics denies (see
/// [`Permissions::decide`](crate::permission::Permissions::decide)).
fn decide(config: &Config, entry: &Entry, args: &Value, principal: &Principal) -> Ruling {
    let aliases = entry.def.aliases.as_strs();
    let info = CallInfo {
        tool: entry.def.name(),
        aliases: &aliases,
        args,
        read_only: entry.def.read_only(),
        destructive: entry.def.destructive(),
        requires_approval: entry.def.requires_approval(),
        principal,
    };
    config.permissions.ruling(&info)
}

/// Puts an ask to the approver, for at most the approval timeout. An
/// approver that panics, or does not answer in time, stops the call.
async fn ask(
    config: &Config,
    approver: &dyn Approver,
    tool: &str,
    args: &Value,
    prompt: &str,
    exec: &Exec,
) -> Result<Approval, Stop> {
    let invocation_id: Uuid = exec.invocation_id();
    let request = ApprovalRequest {
        tool,
        args,
        prompt,
        invocation_id,
        principal: exec.principal(),
        exec,
    };
    let panicked = |panic: Box<dyn std::any::Any + Send>| Stop::ApproverPanicked {
        tool: tool.to_owned(),
        message: panic_message(panic.as_ref()),
    };
    let answer = std::panic::catch_unwind(AssertUnwindSafe(|| approver.approve(request)))
        .map_err(panicked)?;
    let answer = AssertUnwindSafe(answer).catch_unwind();
    let limit = config.limits.approval_timeout;
    let answered = if tokio::runtime::Handle::try_current().is_ok() {
        tokio::time::timeout(limit, answer)
            .await
            .map_err(|_| Stop::ApprovalTimeout {
                tool: tool.to_owned(),
                limit,
            })?
    } else {
        answer.await
    };
    answered.map_err(panicked)
}
