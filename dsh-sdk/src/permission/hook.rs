//! The host's code in a decision: [`PreExecute`] gates, which allow, ask or
//! deny in order, and [`Guard`]s, which can only tighten; [`PlanMode`] is one.

use super::{CallInfo, Decision, Tighten};

/// A monotone check that can only tighten a decision, never loosen it.
///
/// Closures `Fn(&CallInfo<'_>) -> Tighten` are guards too.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a permission guard",
    note = "implement `Guard`, or pass a closure `Fn(&CallInfo<'_>) -> Tighten + Send + Sync + 'static`"
)]
pub trait Guard: Send + Sync + 'static {
    /// Keep the decision, or make it stricter.
    fn check(&self, call: &CallInfo<'_>) -> Tighten;
}

/// A closure of [`Guard::check`]'s signature is a guard.
impl<F> Guard for F
where
    F: Fn(&CallInfo<'_>) -> Tighten + Send + Sync + 'static,
{
    fn check(&self, call: &CallInfo<'_>) -> Tighten {
        self(call)
    }
}

/// Plan mode: only read-only tools run.
///
/// ```
/// use dsh_kit::Principal;
/// use dsh_kit::permission::{CallInfo, Guard, PlanMode, Tighten};
/// use serde_json::json;
///
/// let args = json!({});
/// let host = Principal::host();
/// let call = CallInfo {
///     tool: "edit_file",
///     aliases: &[],
///     args: &args,
///     read_only: false,
///     destructive: true,
///     requires_approval: false,
///     principal: &host,
/// };
/// assert_eq!(
///     PlanMode.check(&call),
///     Tighten::Deny {
///         reason: "plan mode: `edit_file` is not read-only; only read-only tools run in plan mode"
///             .into()
///     },
/// );
/// assert_eq!(PlanMode.check(&CallInfo { read_only: true, ..call }), Tighten::Keep);
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PlanMode;

impl Guard for PlanMode {
    fn check(&self, call: &CallInfo<'_>) -> Tighten {
        if call.read_only {
            Tighten::Keep
        } else {
            Tighten::Deny {
                reason: format!(
                    "plan mode: `{}` is not read-only; only read-only tools run in plan mode",
                    call.tool
                ),
            }
        }
    }
}

/// An ordered pre-execute hook that allows, asks or denies.
///
/// Gates combine by strictness: a gate can add an ask or a deny, but its
/// allow does not waive an earlier ask or deny. Closures
/// `Fn(&CallInfo<'_>) -> Decision` are gates too.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a pre-execute gate",
    note = "implement `PreExecute`, or pass a closure `Fn(&CallInfo<'_>) -> Decision + Send + Sync + 'static`"
)]
pub trait PreExecute: Send + Sync + 'static {
    /// This gate's decision for the call.
    fn check(&self, call: &CallInfo<'_>) -> Decision;
}

/// A closure of [`PreExecute::check`]'s signature is a gate.
impl<F> PreExecute for F
where
    F: Fn(&CallInfo<'_>) -> Decision + Send + Sync + 'static,
{
    fn check(&self, call: &CallInfo<'_>) -> Decision {
        self(call)
    }
}
