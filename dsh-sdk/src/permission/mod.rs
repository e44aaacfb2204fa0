//! Whether a tool call may run: permission rules, pre-execute gates, monotone
//! guards, and the approver that settles an ask.
//!
//! ```
//! use dsh_kit::Principal;
//! use dsh_kit::permission::{CallInfo, Decision, PatternError, Permissions, PlanMode, Rule};
//! use serde_json::json;
//!
//! # fn main() -> Result<(), PatternError> {
//! let permissions = Permissions::new()
//!     .rule(Rule::allow("bash"))
//!     .rule(Rule::deny("bash").when("command", "rm *")?);
//!
//! let args = json!({ "command": "rm -rf /" });
//! let host = Principal::host();
//! let call = CallInfo {
//!     tool: "bash",
//!     aliases: &[],
//!     args: &args,
//!     read_only: false,
//!     destructive: true,
//!     requires_approval: false,
//!     principal: &host,
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
//! Before all of that, a caller must see the tool: [`Permissions::shows`]
//! hides from a [`Principal`] every tool whose scopes it does not all hold
//! ([`ToolDef::scopes`]) and every tool a rule for it denies whatever the
//! arguments. A hidden tool is left out of every list the caller reads, and
//! a call of it fails as a call of a tool that does not exist. Rules can be
//! for a scope ([`Rule::scope`]) or a subject ([`Rule::subject`]); gates,
//! guards ([`CallInfo::principal`]), the approver
//! ([`ApprovalRequest::principal`]) and the tool itself
//! ([`Exec::principal`](crate::Exec::principal)) read the caller.
//!
//! ```
//! use dsh_kit::permission::Rule;
//! use dsh_kit::prelude::*;
//! use dsh_kit::{Cause, Principal, Registry, ToolCall};
//!
//! /// Append a line to the caller's own notes.
//! #[tool(scopes = ["notes:write"])]
//! async fn add_note(line: String, exec: &Exec) -> String {
//!     format!("{} noted: {line}", exec.principal().subject())
//! }
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() {
//! let registry = Registry::builder()
//!     .rule(Rule::deny("add_note").subject("mallory"))
//!     .build();
//! registry.register::<add_note>().unwrap().keep();
//!
//! let ada = Principal::new("ada").with_scopes(["notes:write"]);
//! let call = ToolCall::new("add_note", json!({ "line": "hi" })).principal(ada);
//! assert_eq!(registry.call_with(call).await.text(), "ada noted: hi");
//!
//! // Without the scope, or denied outright, the tool is not there at all.
//! let mallory = Principal::new("mallory").with_scopes(["notes:write"]);
//! for caller in [Principal::new("bob"), mallory] {
//!     assert!(registry.as_caller(caller.clone()).tools().is_empty());
//!     let call = ToolCall::new("add_note", json!({ "line": "hi" })).principal(caller);
//!     let result = registry.call_with(call).await;
//!     assert_eq!(result.failure.unwrap().cause, Cause::UnknownTool);
//! }
//! # }
//! ```
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
//!
//! Path arguments ([`ToolPath`](crate::ToolPath)) reach rules, gates, guards
//! and the approver resolved (`..`, `//`, symbolic links, against the
//! registry's roots: [`crate::value::path`]), so a rule on a path is a rule on the
//! file the tool will open; [`Rule::when_path`] writes one as a
//! gitignore-style glob relative to the roots.

mod approver;
mod decision;
mod hook;
mod path;
mod pattern;
mod rule;
#[cfg(test)]
mod tests;

use std::any::Any;
use std::fmt;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;

pub use approver::{Approval, ApprovalRequest, Approver, ElicitApprover, FnApprover};
pub(crate) use decision::Ruling;
pub use decision::{CallInfo, Decision, Strictness, Tighten, default_decision};
use decision::{asks_by_default, default_ruling};
pub use hook::{Guard, PlanMode, PreExecute};
pub use pattern::{PatternError, escape};
pub use rule::{Rule, Rules};

/// The error of an invalid glob in [`Rule::when_path`]: the same type as
/// [`PatternError`], as both kinds of glob are read by one engine.
#[deprecated(note = "use `PatternError`, the error of every glob in a rule")]
pub type PathPatternError = PatternError;

use crate::tool::ToolDef;
use crate::value::principal::Principal;

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
        self.ruling(call).decision
    }

    /// Whether `principal` may see the tool `def`, and so call it: it holds
    /// every scope the tool needs, and no rule for it denies the tool
    /// whatever the arguments. The host ([`Principal::is_host`]) sees every
    /// tool. Gates and guards, which decide by the arguments, hide nothing.
    ///
    /// ```
    /// use dsh_kit::{Principal, ToolDef};
    /// use dsh_kit::permission::{Permissions, Rule};
    ///
    /// let edit = ToolDef::builder("edit_file", "Edit a file.").scopes(&["files:write"]).build();
    /// let bash = ToolDef::builder("bash", "Run a command.").build();
    /// let permissions = Permissions::new().rule(Rule::deny("bash").subject("mallory"));
    ///
    /// let ada = Principal::new("ada").with_scopes(["files:write"]);
    /// let mallory = Principal::new("mallory");
    /// assert!(permissions.shows(&edit, &ada) && permissions.shows(&bash, &ada));
    /// assert!(!permissions.shows(&edit, &mallory) && !permissions.shows(&bash, &mallory));
    /// assert!(permissions.shows(&edit, &Principal::host()));
    /// ```
    pub fn shows(&self, def: &ToolDef, principal: &Principal) -> bool {
        if principal.is_host() {
            return true;
        }
        if !def.scopes().all(|scope| principal.has_scope(scope)) {
            return false;
        }
        let aliases = def.aliases.as_strs();
        !(self.rules.rules.iter()).any(|rule| rule.denies_outright(def.name(), &aliases, principal))
    }

    /// Takes the relative path globs of the rules
    /// ([`Rule::when_path`]) against `roots`: the registry's, when it is built.
    pub(crate) fn anchor_paths(&mut self, roots: &crate::value::path::Roots) {
        self.rules.anchor_paths(roots);
    }

    /// Whether every call of a tool with these flags is allowed without
    /// consulting anything: no rule, gate or guard, and a tool whose
    /// [`default_decision`] allows. Such a call costs nothing here.
    pub(crate) fn allows_outright(&self, destructive: bool, requires_approval: bool) -> bool {
        self.rules.rules.is_empty()
            && self.gates.is_empty()
            && self.guards.is_empty()
            && !asks_by_default(destructive, requires_approval)
    }

    /// [`Permissions::decide`], with why it asks when the default or a
    /// rule asks (see [`Ruling`]).
    pub(crate) fn ruling(&self, call: &CallInfo<'_>) -> Ruling {
        let mut ruling = match self.rules.ruling(call) {
            Some(ruled) => ruled,
            None => default_ruling(call),
        };
        let gates = (self.gates.iter().enumerate()).map(|(index, gate)| Hook::Gate(index, &**gate));
        let guards =
            (self.guards.iter().enumerate()).map(|(index, guard)| Hook::Guard(index, &**guard));
        for hook in gates.chain(guards) {
            if ruling.decision.strictness() == Strictness::Deny {
                break;
            }
            let checked = catch_unwind(AssertUnwindSafe(|| hook.check(call)));
            let checked = checked.unwrap_or_else(|panic| Decision::Deny {
                reason: hook.panicked(panic),
            });
            ruling = ruling.stricter(Ruling::from(checked));
        }
        ruling
    }
}

/// A gate or a guard, with its place among its kind (from 0).
enum Hook<'a> {
    Gate(usize, &'a dyn PreExecute),
    Guard(usize, &'a dyn Guard),
}

impl Hook<'_> {
    /// The hook's decision. A guard's [`Tighten::Keep`] is an allow, which
    /// [`Decision::stricter`] never lets loosen anything.
    fn check(&self, call: &CallInfo<'_>) -> Decision {
        match self {
            Hook::Gate(_, gate) => gate.check(call),
            Hook::Guard(_, guard) => guard.check(call).into_decision().unwrap_or(Decision::Allow),
        }
    }

    /// "the guard #1 panicked: …".
    fn panicked(&self, panic: Box<dyn Any + Send>) -> String {
        let hook = match self {
            Hook::Gate(index, _) => format!("the pre-execute gate #{}", index + 1),
            Hook::Guard(index, _) => format!("the guard #{}", index + 1),
        };
        crate::tool::hook_panicked(&hook, panic)
    }
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
