//! Permission rules: a tool name, glob conditions on its arguments, and
//! who they are for.

use std::fmt;

use globset::GlobMatcher;
use serde_json::Value;

use super::decision::Ruling;
use super::path::PathCondition;
use super::pattern::{self, PatternError};
use super::{CallInfo, Decision, Strictness};
use crate::value::path::Roots;
use crate::value::principal::Principal;

/// A permission rule, as in Claude Code's `allow`, `ask` and `deny` lists.
///
/// A rule names a tool, by its name or any alias, and optionally constrains
/// top-level arguments with glob patterns (`*` matches any run of
/// characters, `/` included; see [`Rule::when`]). A string argument is matched as is; any
/// other value by its compact JSON text (`42`, `true`, `["a","b"]`); a
/// missing argument never matches. With several conditions, all must hold.
///
/// A rule can also be for some callers only ([`CallInfo::principal`]): those
/// holding a scope ([`Rule::scope`]), or one subject ([`Rule::subject`]).
/// [`Principal::host`] holds every scope, and its subject is `host`.
///
/// ```
/// use dsh_kit::permission::{PatternError, Rule};
///
/// # fn main() -> Result<(), PatternError> {
/// let rule = Rule::deny("bash").when("command", "rm *")?;
/// assert_eq!(rule.to_string(), "deny bash(command: rm *)");
/// assert!(Rule::ask("bash").when("command", "[").is_err());
///
/// // Callers granted `files:write` edit without being asked.
/// let rule = Rule::allow("edit_file").scope("files:write");
/// assert_eq!(rule.to_string(), "allow edit_file with scope files:write");
/// // mallory never runs bash, nor sees it listed.
/// let rule = Rule::deny("bash").subject("mallory");
/// assert_eq!(rule.to_string(), "deny bash for subject mallory");
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rule {
    effect: Strictness,
    tool: String,
    conditions: Vec<Condition>,
    /// The only subject the rule is for, if it names one.
    subject: Option<String>,
    /// The scopes a caller must all hold for the rule to apply.
    scopes: Vec<String>,
    /// Conditions on path arguments ([`Rule::when_path`]).
    paths: Vec<PathCondition>,
}

#[derive(Debug, Clone)]
struct Condition {
    arg: String,
    /// The glob as written.
    pattern: String,
    matcher: GlobMatcher,
}

impl PartialEq for Condition {
    fn eq(&self, other: &Self) -> bool {
        (&self.arg, &self.pattern) == (&other.arg, &other.pattern)
    }
}

impl Eq for Condition {}

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

    pub(super) fn new(effect: Strictness, tool: impl Into<String>) -> Self {
        Self {
            effect,
            tool: tool.into(),
            conditions: Vec::new(),
            subject: None,
            scopes: Vec::new(),
            paths: Vec::new(),
        }
    }

    /// Narrows the rule to callers granted `scope`. Call it again to add
    /// scopes that must all be held.
    #[must_use]
    pub fn scope(mut self, scope: impl Into<String>) -> Self {
        let scope = scope.into();
        if !self.scopes.contains(&scope) {
            self.scopes.push(scope);
        }
        self
    }

    /// Narrows the rule to calls made by `subject` ([`Principal::subject`]);
    /// a second call replaces the first, as a call has one subject.
    #[must_use]
    pub fn subject(mut self, subject: impl Into<String>) -> Self {
        self.subject = Some(subject.into());
        self
    }

    /// Narrows the rule to calls whose top-level argument `arg` matches the
    /// glob `pattern`. Call it again to add conditions that must all hold.
    ///
    /// - `*` matches any run of characters, `/` included; `**` does too, but
    ///   only alone between slashes (`/etc/**`);
    /// - `?` matches one character; `[abc]`, `[a-z]` and `[!abc]` one of a
    ///   set (`[]]` holds `]`, `[*]` is a plain `*`: see [`escape`](super::escape));
    /// - everything else, braces and backslashes included, matches itself, so
    ///   an object's compact JSON (`{"force":true}`) is its own glob.
    ///
    /// # Errors
    ///
    /// An invalid glob (`[`, `***`, `a**b`) is an error here, never at match
    /// time, saying where and what to write instead.
    pub fn when(mut self, arg: impl Into<String>, pattern: &str) -> Result<Self, PatternError> {
        self.conditions.push(Condition {
            arg: arg.into(),
            matcher: pattern::argument(pattern)?,
            pattern: pattern.to_owned(),
        });
        Ok(self)
    }

    /// Narrows the rule to calls whose path argument `arg` matches the
    /// gitignore-style glob `pattern`, or lies inside a directory it
    /// matches. Path arguments ([`ToolPath`](crate::ToolPath)) reach rules
    /// resolved (`..`, `//`, links: see [`dsh_kit::path`](crate::value::path)), so
    /// the glob is matched against what the file system will open.
    ///
    /// - `*` and `?` stop at `/`; `**` crosses any number of directories;
    ///   `[abc]`, `{a,b}` and `\` escapes as usual;
    /// - an absolute glob (`/etc/**`) matches the resolved path as it is;
    /// - a relative glob is taken against each of the registry's roots
    ///   ([`RegistryBuilder::path_root`](crate::RegistryBuilder::path_root);
    ///   the current directory when there is none, or for a rule used
    ///   outside a registry): `secrets/**`, `src/*.rs`;
    /// - a relative glob without `/` (`*.pem`, `.env`) matches that name at
    ///   any depth under a root, as in `.gitignore`; a trailing `/` is
    ///   ignored, since a glob always covers what a directory it matches holds;
    /// - on macOS and Windows the match ignores case.
    ///
    /// ```
    /// use dsh_kit::Principal;
    /// use dsh_kit::permission::{CallInfo, Rule};
    /// use serde_json::json;
    ///
    /// let rule = Rule::deny("write_file").when_path("path", "/etc").unwrap();
    /// assert_eq!(rule.to_string(), "deny write_file(path in /etc)");
    /// let args = json!({ "path": "/etc/ssh/sshd_config" });
    /// let host = Principal::host();
    /// let call = CallInfo {
    ///     tool: "write_file",
    ///     aliases: &[],
    ///     args: &args,
    ///     read_only: false,
    ///     destructive: true,
    ///     requires_approval: false,
    ///     principal: &host,
    /// };
    /// assert!(rule.matches(&call));
    /// let args = json!({ "path": "/etcetera" });
    /// assert!(!rule.matches(&CallInfo { args: &args, ..call }));
    /// ```
    ///
    /// # Errors
    ///
    /// An invalid glob (`[`, `a**b`) is an error here, never at match time.
    pub fn when_path(
        mut self,
        arg: impl Into<String>,
        pattern: &str,
    ) -> Result<Self, PatternError> {
        self.paths.push(PathCondition::new(arg.into(), pattern)?);
        Ok(self)
    }

    /// Takes the relative globs of [`when_path`](Rule::when_path) against
    /// `roots`.
    pub(crate) fn anchor_paths(&mut self, roots: &Roots) {
        for condition in &mut self.paths {
            condition.anchor(roots);
        }
    }

    /// Whether this rule applies to the call.
    pub fn matches(&self, call: &CallInfo<'_>) -> bool {
        call.is_named(&self.tool)
            && self.is_for(call.principal)
            && self.paths.iter().all(|c| c.matches(call.args))
            && self.conditions.iter().all(|c| match call.args.get(&c.arg) {
                Some(Value::String(text)) => c.matcher.is_match(text),
                Some(other) => c.matcher.is_match(other.to_string()),
                None => false,
            })
    }

    /// Whether the rule applies to calls `principal` makes: its subject,
    /// if it names one, and every scope it requires.
    fn is_for(&self, principal: &Principal) -> bool {
        self.subject
            .as_deref()
            .is_none_or(|subject| principal.subject() == subject)
            && self.scopes.iter().all(|scope| principal.has_scope(scope))
    }

    /// Whether the rule denies every call `principal` makes of the tool
    /// `name` (or one with `aliases`), whatever the arguments: such a tool
    /// is hidden from that caller.
    pub(super) fn denies_outright(
        &self,
        name: &str,
        aliases: &[&str],
        principal: &Principal,
    ) -> bool {
        self.effect == Strictness::Deny
            && self.conditions.is_empty()
            && self.paths.is_empty()
            && (self.tool == name || aliases.contains(&self.tool.as_str()))
            && self.is_for(principal)
    }

    fn ruling(&self, call: &CallInfo<'_>) -> Ruling {
        match self.effect {
            Strictness::Allow => Ruling::from(Decision::Allow),
            Strictness::Ask => {
                Ruling::ask_because(format!("`{}` needs approval by rule `{self}`", call.tool))
            }
            Strictness::Deny => Ruling::from(Decision::Deny {
                reason: format!("denied by rule `{self}`"),
            }),
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
        for (i, c) in self.paths.iter().enumerate() {
            let open = if i + self.conditions.len() == 0 {
                "("
            } else {
                ", "
            };
            write!(f, "{open}{} in {}", c.arg, c.pattern)?;
        }
        if !self.conditions.is_empty() || !self.paths.is_empty() {
            f.write_str(")")?;
        }
        if let Some(subject) = &self.subject {
            write!(f, " for subject {subject}")?;
        }
        for (i, scope) in self.scopes.iter().enumerate() {
            let with = if i == 0 { " with scope " } else { ", " };
            write!(f, "{with}{scope}")?;
        }
        Ok(())
    }
}

/// A set of [`Rule`]s: among the rules that match a call, deny beats ask
/// beats allow.
///
/// ```
/// use dsh_kit::Principal;
/// use dsh_kit::permission::{CallInfo, Decision, PatternError, Rule, Rules};
/// use serde_json::json;
///
/// # fn main() -> Result<(), PatternError> {
/// let rules = Rules::default()
///     .with(Rule::allow("bash"))
///     .with(Rule::ask("bash").when("command", "git push*")?);
///
/// let args = json!({ "command": "git push origin main" });
/// let host = Principal::host();
/// let call = CallInfo {
///     tool: "bash",
///     aliases: &[],
///     args: &args,
///     read_only: false,
///     destructive: false,
///     requires_approval: false,
///     principal: &host,
/// };
/// assert!(matches!(rules.evaluate(&call), Some(Decision::Ask { .. })));
/// assert_eq!(rules.evaluate(&CallInfo { tool: "grep", ..call }), None);
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Rules {
    pub(super) rules: Vec<Rule>,
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

    /// Takes the relative path globs of every rule against `roots`.
    pub(crate) fn anchor_paths(&mut self, roots: &Roots) {
        for rule in &mut self.rules {
            rule.anchor_paths(roots);
        }
    }

    /// The decision of the strictest matching rule (the first of equally
    /// strict ones names itself), or `None` when no rule matches.
    #[must_use]
    pub fn evaluate(&self, call: &CallInfo<'_>) -> Option<Decision> {
        self.ruling(call).map(|ruling| ruling.decision)
    }

    /// [`Rules::evaluate`], with why it asks.
    pub(super) fn ruling(&self, call: &CallInfo<'_>) -> Option<Ruling> {
        let mut strictest: Option<&Rule> = None;
        for rule in self.rules.iter().filter(|rule| rule.matches(call)) {
            if strictest.is_none_or(|best| rule.effect > best.effect) {
                strictest = Some(rule);
            }
        }
        strictest.map(|rule| rule.ruling(call))
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
