//! What a decision is: its strictness, a guard's [`Tighten`], the
//! [`CallInfo`] it is about, and the [`default_decision`] rules start from.

use serde_json::Value;

use crate::value::principal::Principal;

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
    /// Run the call only if the host's [`Approver`](super::Approver) approves it.
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
    /// use dsh_kit::permission::Decision;
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
    /// use dsh_kit::permission::{Decision, Tighten};
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

/// What a [`Guard`](super::Guard) returns: keep the decision, or make it stricter.
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
    /// How strict this is: the strictness of the decision it asks for, and
    /// [`Strictness::Allow`] for [`Tighten::Keep`], which adds nothing.
    pub fn strictness(&self) -> Strictness {
        self.clone()
            .into_decision()
            .map_or(Strictness::Allow, |decision| decision.strictness())
    }

    pub(super) fn into_decision(self) -> Option<Decision> {
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
    /// Who makes the call ([`Principal::host`] for the host's own calls).
    pub principal: &'a Principal,
}

impl CallInfo<'_> {
    pub(super) fn is_named(&self, name: &str) -> bool {
        self.tool == name || self.aliases.contains(&name)
    }
}

/// The decision before any rule, gate or guard: destructive tools and tools
/// that require approval ask, every other tool is allowed.
///
/// ```
/// use dsh_kit::Principal;
/// use dsh_kit::permission::{default_decision, CallInfo, Decision};
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
///     default_decision(&call),
///     Decision::Ask { prompt: "`edit_file` may destroy data: allow it?".into() },
/// );
/// ```
#[must_use]
pub fn default_decision(call: &CallInfo<'_>) -> Decision {
    default_ruling(call).decision
}

/// [`default_decision`], with why it asks.
pub(super) fn default_ruling(call: &CallInfo<'_>) -> Ruling {
    if !asks_by_default(call.destructive, call.requires_approval) {
        return Ruling::from(Decision::Allow);
    }
    let why = if call.destructive {
        "may destroy data"
    } else {
        "requires approval"
    };
    Ruling::ask_because(format!("`{}` {why}", call.tool))
}

/// Whether a tool with these flags asks by default: a destructive tool,
/// or one that requires approval.
pub(super) fn asks_by_default(destructive: bool, requires_approval: bool) -> bool {
    destructive || requires_approval
}

/// A decision and, for an ask the permission layer raised itself (the
/// default of a destructive tool or one that requires approval, an `ask`
/// rule), why it asks. An ask a gate or guard raised in its own words has
/// no reason apart from its prompt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Ruling {
    /// The decision.
    pub(crate) decision: Decision,
    /// Why it asks; `None` for any decision but an ask the layer raised.
    pub(crate) why: Option<String>,
}

impl Ruling {
    /// An ask for `why`, whose prompt puts the question: "`why`: allow it?".
    pub(super) fn ask_because(why: String) -> Self {
        Ruling {
            decision: Decision::Ask {
                prompt: format!("{why}: allow it?"),
            },
            why: Some(why),
        }
    }

    /// The stricter of `self` and `other`, each with its reason; on a tie,
    /// `self` (see [`Decision::stricter`]).
    #[must_use]
    pub(super) fn stricter(self, other: Ruling) -> Ruling {
        if other.decision.strictness() > self.decision.strictness() {
            other
        } else {
            self
        }
    }
}

impl From<Decision> for Ruling {
    /// A decision made in its own words: no reason apart from its text.
    fn from(decision: Decision) -> Self {
        Ruling {
            decision,
            why: None,
        }
    }
}
