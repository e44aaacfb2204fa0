//! Whether a tool call may run: permission rules, pre-execute gates, monotone
//! guards, and the approver that settles an ask.
//!
//! ```
//! use dsh_sdk::permission::{CallInfo, Decision, PatternError, Permissions, PlanMode, Rule};
//! use serde_json::json;
//!
//! # fn main() -> Result<(), PatternError> {
//! let permissions = Permissions::new()
//!     .rule(Rule::allow("bash"))
//!     .rule(Rule::deny("bash").when("command", "rm *")?);
//!
//! let args = json!({ "command": "rm -rf /" });
//! let call = CallInfo {
//!     tool: "bash",
//!     aliases: &[],
//!     args: &args,
//!     read_only: false,
//!     destructive: true,
//!     requires_approval: false,
//! };
//! assert_eq!(
//!     permissions.decide(&call),
//!     Decision::Deny { reason: "denied by rule `deny bash(command: rm *)`".into() },
//! );
//!
//! // A guard only ever tightens: in plan mode even the allowed call is denied.
//! let args = json!({ "command": "ls" });
//! let call = CallInfo { args: &args, ..call };
//! assert_eq!(permissions.decide(&call), Decision::Allow);
//! assert!(matches!(permissions.guard(PlanMode).decide(&call), Decision::Deny { .. }));
//! # Ok(())
//! # }
//! ```
//!
//! [`Permissions::decide`] settles a call in a fixed order:
//!
//! 1. [`default_decision`]: destructive tools and tools that require approval
//!    ask, every other tool is allowed;
//! 2. [`Rules`]: when any rule matches, the strictest matching rule replaces
//!    the default, so an allow rule can waive the default ask;
//! 3. [`PreExecute`] gates in order: the strictest decision wins, so a gate
//!    can add an ask or a deny but never waive one;
//! 4. [`Guard`]s: they return a [`Tighten`], which has no way to say allow.
//!
//! An ask is then settled by the host's [`Approver`]; that is the pipeline's
//! job, not this module's. Arguments the approver substitutes
//! ([`Approval::ApproveWith`]) are what will run, so the pipeline checks them
//! against the input schema and decides them again, rules, gates and guards;
//! an ask on them goes to the approver once more, and a second change of
//! arguments is refused, so the exchange always ends.
//!
//! Rules and gates see arguments by the names the input schema gives. A
//! `#[serde(alias = "…")]` would let a value reach the tool under a name no
//! rule matches, so [`Registry::register`](crate::Registry::register) refuses
//! args types whose `Deserialize` accepts a name the schema lacks
//! ([`RegisterError::UnnamedField`](crate::RegisterError::UnnamedField)).

use std::fmt;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;

use futures_util::future::BoxFuture;
use glob::Pattern;

/// The error of an invalid glob in [`Rule::when`].
pub use glob::PatternError;
use serde_json::Value;
use uuid::Uuid;

use crate::exec::Exec;

/// How strict a decision is, ordered `Allow < Ask < Deny`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Strictness {
    /// The call runs.
    Allow,
    /// The call runs once approved.
    Ask,
    /// The call does not run.
    Deny,
}

/// Whether a tool call runs.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Decision {
    /// Run the call.
    Allow,
    /// Run the call only if the host's [`Approver`] approves it.
    Ask {
        /// The question put to whoever approves.
        prompt: String,
    },
    /// Do not run the call.
    Deny {
        /// Why, as the model reads it.
        reason: String,
    },
}

impl Decision {
    /// How strict this decision is.
    pub fn strictness(&self) -> Strictness {
        match self {
            Decision::Allow => Strictness::Allow,
            Decision::Ask { .. } => Strictness::Ask,
            Decision::Deny { .. } => Strictness::Deny,
        }
    }

    /// The stricter of `self` and `other`; on a tie, `self` with its text.
    ///
    /// ```
    /// use dsh_sdk::permission::Decision;
    ///
    /// let ask = Decision::Ask { prompt: "first".into() };
    /// let deny = Decision::Deny { reason: "no".into() };
    /// assert_eq!(ask.clone().stricter(deny.clone()), deny);
    /// assert_eq!(deny.clone().stricter(Decision::Allow), deny);
    /// assert_eq!(ask.clone().stricter(Decision::Ask { prompt: "second".into() }), ask);
    /// ```
    #[must_use]
    pub fn stricter(self, other: Decision) -> Decision {
        if other.strictness() > self.strictness() {
            other
        } else {
            self
        }
    }

    /// The stricter of `self` and what a guard asked for; on a tie, `self`
    /// with its text. Never looser than `self`.
    ///
    /// ```
    /// use dsh_sdk::permission::{Decision, Tighten};
    ///
    /// let denied = Decision::Allow.tighten(Tighten::Deny { reason: "plan mode".into() });
    /// assert_eq!(denied, Decision::Deny { reason: "plan mode".into() });
    /// assert_eq!(Decision::Allow.tighten(Tighten::Keep), Decision::Allow);
    /// ```
    #[must_use]
    pub fn tighten(self, by: Tighten) -> Decision {
        match by.into_decision() {
            Some(other) => self.stricter(other),
            None => self,
        }
    }
}

/// What a [`Guard`] returns: keep the decision, or make it stricter.
///
/// There is no `Allow`: combined with [`Decision::tighten`], which keeps the
/// stricter side, a guard cannot loosen a decision.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Tighten {
    /// Leave the decision as it is.
    Keep,
    /// Ask before running, unless the decision is already a deny.
    Ask {
        /// The question put to whoever approves.
        prompt: String,
    },
    /// Do not run the call.
    Deny {
        /// Why, as the model reads it.
        reason: String,
    },
}

impl Tighten {
    /// How strict this is; [`Tighten::Keep`] adds nothing, so it ranks as
    /// [`Strictness::Allow`].
    pub fn strictness(&self) -> Strictness {
        match self {
            Tighten::Keep => Strictness::Allow,
            Tighten::Ask { .. } => Strictness::Ask,
            Tighten::Deny { .. } => Strictness::Deny,
        }
    }

    fn into_decision(self) -> Option<Decision> {
        match self {
            Tighten::Keep => None,
            Tighten::Ask { prompt } => Some(Decision::Ask { prompt }),
            Tighten::Deny { reason } => Some(Decision::Deny { reason }),
        }
    }
}

/// The call being decided, as the permission layer sees it.
#[derive(Debug, Clone, Copy)]
pub struct CallInfo<'a> {
    /// The tool's canonical name, whichever name the model used.
    pub tool: &'a str,
    /// The tool's other names. Rules match the name or any alias, so which
    /// name the model used makes no difference.
    pub aliases: &'a [&'a str],
    /// The arguments, already validated against the input schema.
    pub args: &'a Value,
    /// The tool only reads.
    pub read_only: bool,
    /// The tool may destroy data.
    pub destructive: bool,
    /// The tool asks for approval before every call.
    pub requires_approval: bool,
}

impl CallInfo<'_> {
    fn is_named(&self, name: &str) -> bool {
        self.tool == name || self.aliases.contains(&name)
    }
}

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
/// use dsh_sdk::permission::{CallInfo, Guard, PlanMode, Tighten};
/// use serde_json::json;
///
/// let args = json!({});
/// let call = CallInfo {
///     tool: "edit_file",
///     aliases: &[],
///     args: &args,
///     read_only: false,
///     destructive: true,
///     requires_approval: false,
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

impl<F> PreExecute for F
where
    F: Fn(&CallInfo<'_>) -> Decision + Send + Sync + 'static,
{
    fn check(&self, call: &CallInfo<'_>) -> Decision {
        self(call)
    }
}

/// A permission rule, as in Claude Code's `allow`, `ask` and `deny` lists.
///
/// A rule names a tool, by its name or any alias, and optionally constrains
/// top-level arguments with glob patterns ([`glob::Pattern`]: `*` matches any
/// run of characters, `/` included). A string argument is matched as is; any
/// other value by its compact JSON text (`42`, `true`, `["a","b"]`); a
/// missing argument never matches. With several conditions, all must hold.
///
/// ```
/// use dsh_sdk::permission::{PatternError, Rule};
///
/// # fn main() -> Result<(), PatternError> {
/// let rule = Rule::deny("bash").when("command", "rm *")?;
/// assert_eq!(rule.to_string(), "deny bash(command: rm *)");
/// assert!(Rule::ask("bash").when("command", "[").is_err());
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rule {
    effect: Strictness,
    tool: String,
    conditions: Vec<Condition>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Condition {
    arg: String,
    pattern: Pattern,
}

impl Rule {
    /// A rule that lets matching calls run without asking.
    pub fn allow(tool: impl Into<String>) -> Self {
        Self::new(Strictness::Allow, tool)
    }

    /// A rule that asks before matching calls run.
    pub fn ask(tool: impl Into<String>) -> Self {
        Self::new(Strictness::Ask, tool)
    }

    /// A rule that stops matching calls.
    pub fn deny(tool: impl Into<String>) -> Self {
        Self::new(Strictness::Deny, tool)
    }

    fn new(effect: Strictness, tool: impl Into<String>) -> Self {
        Self {
            effect,
            tool: tool.into(),
            conditions: Vec::new(),
        }
    }

    /// Narrows the rule to calls whose top-level argument `arg` matches the
    /// glob `pattern`. Call it again to add conditions that must all hold.
    ///
    /// # Errors
    ///
    /// An invalid glob (`[`, `***`) is an error here, never at match time.
    pub fn when(mut self, arg: impl Into<String>, pattern: &str) -> Result<Self, PatternError> {
        self.conditions.push(Condition {
            arg: arg.into(),
            pattern: Pattern::new(pattern)?,
        });
        Ok(self)
    }

    /// Whether this rule applies to the call.
    pub fn matches(&self, call: &CallInfo<'_>) -> bool {
        call.is_named(&self.tool)
            && self.conditions.iter().all(|c| match call.args.get(&c.arg) {
                Some(Value::String(text)) => c.pattern.matches(text),
                Some(other) => c.pattern.matches(&other.to_string()),
                None => false,
            })
    }

    fn decision(&self, call: &CallInfo<'_>) -> Decision {
        match self.effect {
            Strictness::Allow => Decision::Allow,
            Strictness::Ask => Decision::Ask {
                prompt: format!("`{}` needs approval by rule `{self}`: allow it?", call.tool),
            },
            Strictness::Deny => Decision::Deny {
                reason: format!("denied by rule `{self}`"),
            },
        }
    }
}

impl fmt::Display for Rule {
    /// `deny bash(command: rm *)`, `allow read_file`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let effect = match self.effect {
            Strictness::Allow => "allow",
            Strictness::Ask => "ask",
            Strictness::Deny => "deny",
        };
        write!(f, "{effect} {}", self.tool)?;
        for (i, c) in self.conditions.iter().enumerate() {
            let open = if i == 0 { "(" } else { ", " };
            write!(f, "{open}{}: {}", c.arg, c.pattern)?;
        }
        if !self.conditions.is_empty() {
            f.write_str(")")?;
        }
        Ok(())
    }
}

/// A set of [`Rule`]s: among the rules that match a call, deny beats ask
/// beats allow.
///
/// ```
/// use dsh_sdk::permission::{CallInfo, Decision, PatternError, Rule, Rules};
/// use serde_json::json;
///
/// # fn main() -> Result<(), PatternError> {
/// let rules = Rules::default()
///     .with(Rule::allow("bash"))
///     .with(Rule::ask("bash").when("command", "git push*")?);
///
/// let args = json!({ "command": "git push origin main" });
/// let call = CallInfo {
///     tool: "bash",
///     aliases: &[],
///     args: &args,
///     read_only: false,
///     destructive: false,
///     requires_approval: false,
/// };
/// assert!(matches!(rules.evaluate(&call), Some(Decision::Ask { .. })));
/// assert_eq!(rules.evaluate(&CallInfo { tool: "grep", ..call }), None);
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Rules {
    rules: Vec<Rule>,
}

impl Rules {
    /// Adds a rule.
    pub fn push(&mut self, rule: Rule) {
        self.rules.push(rule);
    }

    /// Adds a rule, builder style.
    #[must_use]
    pub fn with(mut self, rule: Rule) -> Self {
        self.push(rule);
        self
    }

    /// The decision of the strictest matching rule (the first of equally
    /// strict ones names itself), or `None` when no rule matches.
    #[must_use]
    pub fn evaluate(&self, call: &CallInfo<'_>) -> Option<Decision> {
        let mut strictest: Option<&Rule> = None;
        for rule in self.rules.iter().filter(|rule| rule.matches(call)) {
            if strictest.is_none_or(|best| rule.effect > best.effect) {
                strictest = Some(rule);
            }
        }
        strictest.map(|rule| rule.decision(call))
    }
}

impl FromIterator<Rule> for Rules {
    fn from_iter<I: IntoIterator<Item = Rule>>(iter: I) -> Self {
        Self {
            rules: iter.into_iter().collect(),
        }
    }
}

impl Extend<Rule> for Rules {
    fn extend<I: IntoIterator<Item = Rule>>(&mut self, iter: I) {
        self.rules.extend(iter);
    }
}

/// The decision before any rule, gate or guard: destructive tools and tools
/// that require approval ask, every other tool is allowed.
///
/// ```
/// use dsh_sdk::permission::{default_decision, CallInfo, Decision};
/// use serde_json::json;
///
/// let args = json!({});
/// let call = CallInfo {
///     tool: "edit_file",
///     aliases: &[],
///     args: &args,
///     read_only: false,
///     destructive: true,
///     requires_approval: false,
/// };
/// assert_eq!(
///     default_decision(&call),
///     Decision::Ask { prompt: "`edit_file` may destroy data: allow it?".into() },
/// );
/// ```
#[must_use]
pub fn default_decision(call: &CallInfo<'_>) -> Decision {
    if call.destructive {
        Decision::Ask {
            prompt: format!("`{}` may destroy data: allow it?", call.tool),
        }
    } else if call.requires_approval {
        Decision::Ask {
            prompt: format!("`{}` requires approval: allow it?", call.tool),
        }
    } else {
        Decision::Allow
    }
}

/// How the host settled an [`Decision::Ask`].
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

/// Rules, gates and guards, combined by [`Permissions::decide`].
#[derive(Clone, Default)]
pub struct Permissions {
    rules: Rules,
    gates: Vec<Arc<dyn PreExecute>>,
    guards: Vec<Arc<dyn Guard>>,
}

impl Permissions {
    /// No rules, gates or guards: every call gets its [`default_decision`].
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a rule.
    #[must_use]
    pub fn rule(mut self, rule: Rule) -> Self {
        self.rules.push(rule);
        self
    }

    /// Adds every rule of a set.
    #[must_use]
    pub fn rules(mut self, rules: Rules) -> Self {
        self.rules.extend(rules.rules);
        self
    }

    /// Adds a gate after the ones already added.
    #[must_use]
    pub fn gate(mut self, gate: impl PreExecute) -> Self {
        self.gates.push(Arc::new(gate));
        self
    }

    /// Adds a guard.
    #[must_use]
    pub fn guard(mut self, guard: impl Guard) -> Self {
        self.guards.push(Arc::new(guard));
        self
    }

    /// The decision for a call:
    ///
    /// 1. start from [`default_decision`];
    /// 2. if any rule matches, the strictest matching rule replaces it (an
    ///    allow rule waives the default ask of a destructive tool);
    /// 3. each gate in order combines by strictness, the stricter wins (on a
    ///    tie the earlier text stays), so no gate loosens what came before;
    /// 4. each guard tightens.
    ///
    /// Once the decision is a deny nothing can change it, so the remaining
    /// gates and guards are not consulted.
    ///
    /// A gate or guard that panics denies the call, with a reason naming it
    /// ("the pre-execute gate #2 panicked: …"): the panic goes no further.
    #[must_use]
    pub fn decide(&self, call: &CallInfo<'_>) -> Decision {
        let mut decision = match self.rules.evaluate(call) {
            Some(ruled) => ruled,
            None => default_decision(call),
        };
        for (index, gate) in self.gates.iter().enumerate() {
            if decision.strictness() == Strictness::Deny {
                return decision;
            }
            let checked = catch_unwind(AssertUnwindSafe(|| gate.check(call)));
            decision = decision.stricter(checked.unwrap_or_else(|panic| Decision::Deny {
                reason: panicked(&format!("pre-execute gate #{}", index + 1), panic),
            }));
        }
        for (index, guard) in self.guards.iter().enumerate() {
            if decision.strictness() == Strictness::Deny {
                return decision;
            }
            let checked = catch_unwind(AssertUnwindSafe(|| guard.check(call)));
            decision = decision.tighten(checked.unwrap_or_else(|panic| Tighten::Deny {
                reason: panicked(&format!("guard #{}", index + 1), panic),
            }));
        }
        decision
    }
}

/// "the guard #1 panicked: …".
fn panicked(hook: &str, panic: Box<dyn std::any::Any + Send>) -> String {
    crate::error::hook_panicked(&format!("the {hook}"), panic)
}

impl fmt::Debug for Permissions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Permissions")
            .field("rules", &self.rules)
            .field("gates", &self.gates.len())
            .field("guards", &self.guards.len())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use serde_json::json;

    use super::*;

    const ALIASES: &[&str] = &["cat"];

    fn call<'a>(tool: &'a str, aliases: &'a [&'a str], args: &'a Value) -> CallInfo<'a> {
        CallInfo {
            tool,
            aliases,
            args,
            read_only: false,
            destructive: false,
            requires_approval: false,
        }
    }

    fn ask(prompt: &str) -> Decision {
        Decision::Ask {
            prompt: prompt.into(),
        }
    }

    fn deny(reason: &str) -> Decision {
        Decision::Deny {
            reason: reason.into(),
        }
    }

    #[test]
    fn permission_matrix() {
        let etc = json!({ "path": "/etc/passwd" });
        let home = json!({ "path": "/home/ada/notes" });
        let no_path = json!({});
        // The canonical name first; then the same tool reported under the name
        // the model used, with the canonical one among the aliases.
        let as_called: &[&str] = &["read_file"];
        let calls = [("read_file", ALIASES), ("cat", as_called)];
        for effect in [Strictness::Allow, Strictness::Ask, Strictness::Deny] {
            for rule_name in ["read_file", "cat"] {
                for pattern in [None, Some("/etc/*")] {
                    let mut rule = Rule::new(effect, rule_name);
                    if let Some(pattern) = pattern {
                        rule = rule.when("path", pattern).unwrap();
                    }
                    let rules = Rules::default().with(rule.clone());
                    for (tool, aliases) in calls {
                        for (args, arg_matches) in [(&etc, true), (&home, false), (&no_path, false)]
                        {
                            let call = call(tool, aliases, args);
                            let applies = pattern.is_none() || arg_matches;
                            let got = rules.evaluate(&call);
                            let case = format!("{rule} on {tool} with {args}");
                            assert_eq!(got.is_some(), applies, "{case}");
                            if let Some(got) = got {
                                assert_eq!(got.strictness(), effect, "{case}");
                            }
                        }
                    }
                    let other = call("write_file", &[], &etc);
                    assert_eq!(rules.evaluate(&other), None, "{rule} on write_file");
                }
            }
        }
    }

    #[test]
    fn rule_texts_name_the_rule() {
        let args = json!({ "command": "rm -rf /", "cwd": "/tmp" });
        let call = call("bash", &[], &args);
        let rule = Rule::deny("bash").when("command", "rm *").unwrap();
        assert_eq!(
            Rules::default().with(rule).evaluate(&call),
            Some(deny("denied by rule `deny bash(command: rm *)`"))
        );
        let rule = Rule::ask("bash")
            .when("command", "rm *")
            .unwrap()
            .when("cwd", "/tmp*")
            .unwrap();
        assert_eq!(
            Rules::default().with(rule).evaluate(&call),
            Some(ask(
                "`bash` needs approval by rule `ask bash(command: rm *, cwd: /tmp*)`: allow it?"
            ))
        );
        assert_eq!(
            Rules::default().with(Rule::allow("bash")).evaluate(&call),
            Some(Decision::Allow)
        );
    }

    #[test]
    fn all_conditions_must_hold() {
        let rule = Rule::deny("bash")
            .when("command", "rm *")
            .unwrap()
            .when("cwd", "/tmp*")
            .unwrap();
        let both = json!({ "command": "rm x", "cwd": "/tmp/a" });
        let one = json!({ "command": "rm x", "cwd": "/home" });
        assert!(rule.matches(&call("bash", &[], &both)));
        assert!(!rule.matches(&call("bash", &[], &one)));
    }

    #[test]
    fn non_string_arguments_match_their_compact_json() {
        let args = json!({ "count": 42, "flags": ["-r", "-f"], "force": true, "none": null });
        let call = call("t", &[], &args);
        for (arg, pattern) in [
            ("count", "42"),
            ("flags", r#"["-r","-f"]"#),
            ("force", "true"),
            ("none", "null"),
        ] {
            let rule = Rule::deny("t")
                .when(arg, &glob::Pattern::escape(pattern))
                .unwrap();
            assert!(rule.matches(&call), "{rule}");
        }
        assert!(Rule::deny("t").when("count", "4*").unwrap().matches(&call));
        assert!(!Rule::deny("t").when("missing", "*").unwrap().matches(&call));
    }

    #[test]
    fn arguments_that_are_not_an_object_never_match_a_condition() {
        let args = json!("rm -rf /");
        let rule = Rule::deny("bash").when("command", "*").unwrap();
        assert!(!rule.matches(&call("bash", &[], &args)));
    }

    #[test]
    fn bad_glob_fails_when_building_the_rule() {
        assert!(Rule::deny("bash").when("command", "[").is_err());
        assert!(Rule::deny("bash").when("command", "***").is_err());
    }

    #[test]
    fn deny_beats_ask_beats_allow() {
        let args = json!({ "path": "/etc/passwd" });
        let call = call("read_file", ALIASES, &args);
        let allow = Rule::allow("read_file");
        let ask_rule = Rule::ask("cat");
        let deny_rule = Rule::deny("read_file").when("path", "/etc/*").unwrap();
        let orders = [
            [allow.clone(), ask_rule.clone(), deny_rule.clone()],
            [deny_rule.clone(), ask_rule.clone(), allow.clone()],
            [ask_rule.clone(), deny_rule.clone(), allow.clone()],
        ];
        for order in orders {
            let rules: Rules = order.into_iter().collect();
            assert_eq!(
                rules.evaluate(&call),
                Some(deny("denied by rule `deny read_file(path: /etc/*)`"))
            );
        }
        let rules = Rules::default().with(allow.clone()).with(ask_rule.clone());
        assert_eq!(
            rules.evaluate(&call),
            Some(ask(
                "`read_file` needs approval by rule `ask cat`: allow it?"
            ))
        );
        let rules = Rules::default().with(allow);
        assert_eq!(rules.evaluate(&call), Some(Decision::Allow));
    }

    #[test]
    fn first_of_equally_strict_rules_names_itself() {
        let args = json!({});
        let call = call("read_file", ALIASES, &args);
        let rules = Rules::default()
            .with(Rule::deny("cat"))
            .with(Rule::deny("read_file"));
        assert_eq!(
            rules.evaluate(&call),
            Some(deny("denied by rule `deny cat`"))
        );
    }

    #[test]
    fn default_decisions() {
        let args = json!({});
        let plain = call("edit_file", &[], &args);
        assert_eq!(default_decision(&plain), Decision::Allow);
        let destructive = CallInfo {
            destructive: true,
            ..plain
        };
        assert_eq!(
            default_decision(&destructive),
            ask("`edit_file` may destroy data: allow it?")
        );
        let approval = CallInfo {
            requires_approval: true,
            ..plain
        };
        assert_eq!(
            default_decision(&approval),
            ask("`edit_file` requires approval: allow it?")
        );
        let both = CallInfo {
            requires_approval: true,
            ..destructive
        };
        assert_eq!(
            default_decision(&both),
            ask("`edit_file` may destroy data: allow it?")
        );
        let read_only = CallInfo {
            read_only: true,
            ..plain
        };
        assert_eq!(default_decision(&read_only), Decision::Allow);
    }

    #[test]
    fn rules_replace_the_default() {
        let args = json!({ "path": "/etc/hosts" });
        let destructive = CallInfo {
            destructive: true,
            ..call("edit_file", &[], &args)
        };
        let none = Permissions::new();
        assert_eq!(
            none.decide(&destructive),
            ask("`edit_file` may destroy data: allow it?")
        );
        let allowed = Permissions::new().rule(Rule::allow("edit_file"));
        assert_eq!(allowed.decide(&destructive), Decision::Allow);
        let non_matching =
            Permissions::new().rule(Rule::allow("edit_file").when("path", "/tmp/*").unwrap());
        assert_eq!(
            non_matching.decide(&destructive),
            ask("`edit_file` may destroy data: allow it?")
        );
        let plain = call("edit_file", &[], &args);
        let denied = Permissions::new().rule(Rule::deny("edit_file"));
        assert_eq!(
            denied.decide(&plain),
            deny("denied by rule `deny edit_file`")
        );
    }

    #[test]
    fn gates_run_in_order_and_combine_by_strictness() {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let gate = |name: &'static str, decision: Decision| {
            let seen = Arc::clone(&seen);
            move |_: &CallInfo<'_>| {
                seen.lock().unwrap().push(name);
                decision.clone()
            }
        };
        let args = json!({});
        let call = call("bash", &[], &args);

        let permissions = Permissions::new()
            .gate(gate("allow", Decision::Allow))
            .gate(gate("ask 1", ask("first")))
            .gate(gate("allow again", Decision::Allow))
            .gate(gate("ask 2", ask("second")));
        assert_eq!(permissions.decide(&call), ask("first"));
        assert_eq!(
            *seen.lock().unwrap(),
            ["allow", "ask 1", "allow again", "ask 2"]
        );

        seen.lock().unwrap().clear();
        let permissions = Permissions::new()
            .gate(gate("ask", ask("first")))
            .gate(gate("deny", deny("no")))
            .gate(gate("after deny", Decision::Allow))
            .guard(|_: &CallInfo<'_>| -> Tighten { unreachable!("a deny is final") });
        assert_eq!(permissions.decide(&call), deny("no"));
        assert_eq!(*seen.lock().unwrap(), ["ask", "deny"]);
    }

    #[test]
    fn gates_cannot_loosen_rules_or_defaults() {
        let args = json!({});
        let plain = call("bash", &[], &args);
        let always_allow = |_: &CallInfo<'_>| Decision::Allow;
        let denied = Permissions::new()
            .rule(Rule::deny("bash"))
            .gate(always_allow);
        assert_eq!(denied.decide(&plain), deny("denied by rule `deny bash`"));
        let asked = Permissions::new()
            .rule(Rule::ask("bash"))
            .gate(always_allow);
        assert_eq!(
            asked.decide(&plain),
            ask("`bash` needs approval by rule `ask bash`: allow it?")
        );
        let destructive = CallInfo {
            destructive: true,
            ..plain
        };
        assert_eq!(
            Permissions::new().gate(always_allow).decide(&destructive),
            ask("`bash` may destroy data: allow it?")
        );
    }

    #[test]
    fn plan_mode_denies_all_but_read_only_tools() {
        let args = json!({});
        let permissions = Permissions::new()
            .rule(Rule::allow("edit_file"))
            .guard(PlanMode);
        let edit = call("edit_file", &[], &args);
        assert_eq!(
            permissions.decide(&edit),
            deny("plan mode: `edit_file` is not read-only; only read-only tools run in plan mode")
        );
        let read = CallInfo {
            read_only: true,
            ..call("read_file", ALIASES, &args)
        };
        assert_eq!(permissions.decide(&read), Decision::Allow);
        let read_but_asked = Permissions::new().rule(Rule::ask("cat")).guard(PlanMode);
        assert_eq!(
            read_but_asked.decide(&read),
            ask("`read_file` needs approval by rule `ask cat`: allow it?")
        );
    }

    #[test]
    fn guards_tighten_after_gates() {
        let args = json!({});
        let call = call("bash", &[], &args);
        let permissions = Permissions::new()
            .gate(|_: &CallInfo<'_>| ask("gate"))
            .guard(|_: &CallInfo<'_>| Tighten::Keep)
            .guard(|_: &CallInfo<'_>| Tighten::Ask {
                prompt: "guard".into(),
            });
        assert_eq!(permissions.decide(&call), ask("gate"));
        let permissions = permissions.guard(|_: &CallInfo<'_>| Tighten::Deny {
            reason: "guard".into(),
        });
        assert_eq!(permissions.decide(&call), deny("guard"));
    }

    #[test]
    fn no_guard_can_loosen_a_decision() {
        let decisions = [Decision::Allow, ask("d"), deny("d")];
        let tightens = [
            Tighten::Keep,
            Tighten::Ask { prompt: "t".into() },
            Tighten::Deny { reason: "t".into() },
        ];
        for d in &decisions {
            for t in &tightens {
                let out = d.clone().tighten(t.clone());
                assert!(out.strictness() >= d.strictness(), "{d:?} by {t:?}");
                assert!(out.strictness() >= t.strictness(), "{d:?} by {t:?}");
                assert_eq!(
                    out.strictness(),
                    d.strictness().max(t.strictness()),
                    "{d:?} by {t:?}"
                );
                if t.strictness() <= d.strictness() {
                    assert_eq!(&out, d, "a tie keeps the decision's text");
                }
            }
        }
    }

    #[test]
    fn strictness_orders_allow_ask_deny() {
        assert!(Strictness::Allow < Strictness::Ask);
        assert!(Strictness::Ask < Strictness::Deny);
    }

    #[tokio::test]
    async fn fn_approver_answers() {
        let approver: Arc<dyn Approver> = Arc::new(FnApprover(|request: &ApprovalRequest<'_>| {
            if request.tool == "bash" {
                Approval::Reject {
                    reason: format!("no: {}", request.prompt),
                }
            } else {
                Approval::ApproveWith(json!({ "path": "/tmp/safe" }))
            }
        }));
        let args = json!({});
        let exec = Exec::new("bash");
        let request = |tool| ApprovalRequest {
            tool,
            args: &args,
            prompt: "allow it?",
            invocation_id: Uuid::nil(),
            exec: &exec,
        };
        assert_eq!(
            approver.approve(request("bash")).await,
            Approval::Reject {
                reason: "no: allow it?".into()
            }
        );
        assert_eq!(
            approver.approve(request("edit_file")).await,
            Approval::ApproveWith(json!({ "path": "/tmp/safe" }))
        );
    }
}
