//! The tool catalog (RAWP-DPS `tool.catalog.publish`): what [`Registry::catalog`] publishes,
//! each tool's status, the diagnostics, and the rules they impose on calls.
//!
//! - `unavailable` status, or a `fatal` diagnostic (the tool's own, or one
//!   about the whole catalog): every call is refused with an error result
//!   saying why (the spec's `session.error`), before its arguments are even
//!   read.
//! - `degraded` status, or an `error` diagnostic: calls run, and the user is
//!   warned: [`Registry::warnings`] lists the warnings for a host to show,
//!   and each call streams them as `progress` chunks (`warning: CODE: …`)
//!   before the tool runs, so a UI following the call shows them and the
//!   session log keeps them. The model is not told: the spec asks for the
//!   user to be warned.
//! - `warning` and `info` diagnostics are for the log and a UI, and change
//!   nothing about calls.
//!
//! Any change to a status or the diagnostics republishes the catalog to
//! subscribers as [`Event::Catalog`]; a host publishes it once at session
//! start with [`Registry::publish_catalog`], and again after it changes the
//! set of tools.
//!
//! ```
//! use dsh_sdk::prelude::*;
//! use dsh_sdk::rawp::ToolStatus;
//!
//! /// Search with ripgrep.
//! #[tool(read_only, category = "search")]
//! async fn rg(
//!     /// The pattern
//!     pattern: String,
//! ) -> String {
//!     pattern
//! }
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() {
//! let registry = Registry::new();
//! registry.register::<rg>().unwrap();
//! registry.set_status("rg", ToolStatus::Unavailable, Some("`rg` is not on the PATH")).unwrap();
//!
//! let result = registry.call("rg", json!({ "pattern": "fn main" })).await;
//! assert!(result.is_error);
//! assert_eq!(result.text(), "`rg` is unavailable and cannot be called: `rg` is not on the PATH");
//!
//! // ripgrep installed: the status goes back, and the catalog is republished.
//! registry.set_status("rg", ToolStatus::Available, None).unwrap();
//! assert!(!registry.call("rg", json!({ "pattern": "fn main" })).await.is_error);
//! # }
//! ```

use std::collections::HashMap;
use std::ops::{Deref, DerefMut};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{RwLock, RwLockReadGuard, RwLockWriteGuard};

use crate::event::Event;
use crate::event::rawp::{CatalogPublish, CatalogTool, Diagnostic, Severity, ToolStatus};
use crate::pool::Registry;

/// The code of the warning a `degraded` status gives in [`Registry::warnings`].
pub const TOOL_DEGRADED: &str = "TOOL_DEGRADED";

/// Statuses and diagnostics, held by the registry.
#[derive(Debug, Default)]
pub(crate) struct CatalogState {
    /// Canonical tool name → its status and the reason for it. A tool with
    /// no entry is `available`. Kept by name, so a status outlives a
    /// re-registration of the same tool: a missing executable is still missing.
    statuses: HashMap<String, (ToolStatus, Option<String>)>,
    /// Sorted: catalog-wide ones first, then by tool name, then by code.
    diagnostics: Vec<Diagnostic>,
}

/// The registry's [`CatalogState`], with whether it holds nothing, which
/// every call reads without taking the lock: most registries never mark a
/// tool, and calls on many threads then share no lock here.
pub(crate) struct Catalog {
    state: RwLock<CatalogState>,
    /// No status and no diagnostic; kept by [`CatalogWrite`] as it is dropped.
    clear: AtomicBool,
}

impl Default for Catalog {
    fn default() -> Self {
        Catalog {
            state: RwLock::default(),
            clear: AtomicBool::new(true),
        }
    }
}

/// The catalog's state, written: dropped, it records whether it is clear.
struct CatalogWrite<'a> {
    state: RwLockWriteGuard<'a, CatalogState>,
    clear: &'a AtomicBool,
}

impl Deref for CatalogWrite<'_> {
    type Target = CatalogState;

    fn deref(&self) -> &CatalogState {
        &self.state
    }
}

impl DerefMut for CatalogWrite<'_> {
    fn deref_mut(&mut self) -> &mut CatalogState {
        &mut self.state
    }
}

impl Drop for CatalogWrite<'_> {
    fn drop(&mut self) {
        let clear = self.state.statuses.is_empty() && self.state.diagnostics.is_empty();
        // Stored while the write lock is still held, so that it is never
        // older than the state a reader then sees under the lock.
        self.clear.store(clear, Ordering::Release);
    }
}

/// Why a catalog change was refused.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CatalogError {
    /// No tool of that name or alias is registered.
    #[error("cannot set the status of `{name}`: no tool of that name is registered{}", crate::schema::suggest::hint(.closest))]
    UnknownTool {
        /// The name given.
        name: String,
        /// The registered names closest to it, best first.
        closest: Vec<String>,
    },
}

/// Why the catalog refuses a call of a tool.
#[derive(Debug, thiserror::Error)]
pub(crate) enum Refusal {
    /// The tool's status is `unavailable`.
    #[error("`{tool}` is unavailable and cannot be called{}", because(description.as_deref()))]
    Unavailable {
        tool: String,
        /// The status description, when one was given.
        description: Option<String>,
    },
    /// A `fatal` diagnostic is about the tool or the whole catalog.
    #[error(
        "`{tool}` is blocked by {} and cannot be called: {}: {}",
        whose(diagnostic),
        diagnostic.code,
        diagnostic.message
    )]
    Blocked {
        tool: String,
        diagnostic: Diagnostic,
    },
}

/// `: {description}`, or nothing without one.
fn because(description: Option<&str>) -> String {
    description.map_or_else(String::new, |description| format!(": {description}"))
}

/// Whose fatal diagnostic `diagnostic` is.
fn whose(diagnostic: &Diagnostic) -> &'static str {
    match diagnostic.tool_name {
        Some(_) => "a fatal diagnostic",
        None => "a fatal diagnostic of the whole catalog",
    }
}

impl Registry {
    /// The `tool.catalog.publish` payload: every tool, sorted by name, with
    /// its description, input schema, declared `output_type`, whether it asks
    /// for approval, category and status; then the diagnostics.
    ///
    /// `requires_approval` is whether a call asks by default, before the
    /// host's rules: a `requires_approval` or a `destructive` tool.
    /// `output_type` is the declaration alone, so that a receiver applying
    /// the `output_type` rule falls through to the category default where the tool declared
    /// none.
    pub fn catalog(&self) -> CatalogPublish {
        let tools = self.tools();
        let state = self.catalog_state();
        let tools = tools
            .iter()
            .map(|tool| {
                let def = tool.definition();
                let (status, status_description) =
                    state.statuses.get(def.name()).cloned().unwrap_or_default();
                CatalogTool {
                    name: def.name().to_owned(),
                    version: def.version_text().map(str::to_owned),
                    description: def.description().to_owned(),
                    input_schema: Some(tool.input_schema().clone()),
                    output_type: def.declared_output_type(),
                    requires_approval: Some(def.is_approval_required() || def.is_destructive()),
                    category: def.category_kind(),
                    status,
                    status_description,
                    contract_hash: Some(tool.contract_hash()),
                }
            })
            .collect();
        CatalogPublish {
            tools,
            diagnostics: state.diagnostics.clone(),
        }
    }

    /// Sends the catalog to every subscriber as [`Event::Catalog`]: at session
    /// start, and after registering or unregistering tools. Status and
    /// diagnostic changes publish it by themselves.
    pub fn publish_catalog(&self) {
        self.emit_with(|| Event::Catalog(self.catalog()));
    }

    /// Sets the status of the tool `name` (or alias), with the reason a UI
    /// shows; `None` shows none. A change republishes the catalog.
    ///
    /// `unavailable` refuses every call; `degraded` lets calls run and warns
    /// the user (see [`warnings`](Self::warnings)); `available` lifts both.
    pub fn set_status(
        &self,
        name: &str,
        status: ToolStatus,
        description: Option<&str>,
    ) -> Result<(), CatalogError> {
        let Some(entry) = self.entry(name) else {
            return Err(CatalogError::UnknownTool {
                name: name.to_owned(),
                closest: self.closest(name),
            });
        };
        let tool = entry.def.name();
        let new = (status, description.map(str::to_owned));
        let changed = {
            let mut state = self.catalog_state_mut();
            let old = state.statuses.get(tool).cloned().unwrap_or_default();
            if new == <(ToolStatus, Option<String>)>::default() {
                state.statuses.remove(tool);
            } else {
                state.statuses.insert(tool.to_owned(), new.clone());
            }
            old != new
        };
        if changed {
            // MCP `tools/list` shows each tool's status: its clients re-read it.
            self.notify_changed();
            self.publish_catalog();
        }
        Ok(())
    }

    /// Adds a diagnostic, replacing any with the same tool and code. A tool
    /// named by an alias is recorded under its name; a name no tool has is
    /// kept as given (a tool that failed to load, say). A change republishes
    /// the catalog.
    pub fn add_diagnostic(&self, mut diagnostic: Diagnostic) {
        if let Some(name) = &diagnostic.tool_name
            && let Some(entry) = self.entry(name)
        {
            diagnostic.tool_name = Some(entry.def.name().to_owned());
        }
        let changed = {
            let mut state = self.catalog_state_mut();
            let same = |other: &Diagnostic| {
                other.tool_name == diagnostic.tool_name && other.code == diagnostic.code
            };
            let changed = !state.diagnostics.contains(&diagnostic);
            state.diagnostics.retain(|other| !same(other));
            state.diagnostics.push(diagnostic);
            state
                .diagnostics
                .sort_by(|a, b| (&a.tool_name, &a.code).cmp(&(&b.tool_name, &b.code)));
            changed
        };
        if changed {
            self.publish_catalog();
        }
    }

    /// Removes the diagnostic with `code` about the tool `tool_name` (`None`:
    /// about the whole catalog). Whether there was one; a removal republishes
    /// the catalog.
    pub fn remove_diagnostic(&self, tool_name: Option<&str>, code: &str) -> bool {
        let tool_name = tool_name.map(|name| self.canonical(name));
        self.remove_diagnostics(|diagnostic| {
            diagnostic.tool_name.as_deref() == tool_name.as_deref() && diagnostic.code == code
        })
    }

    /// Removes every diagnostic about the tool `tool_name` (`None`: every one
    /// about the whole catalog). Whether there was any; a removal republishes
    /// the catalog.
    pub fn clear_diagnostics(&self, tool_name: Option<&str>) -> bool {
        let tool_name = tool_name.map(|name| self.canonical(name));
        self.remove_diagnostics(|diagnostic| {
            diagnostic.tool_name.as_deref() == tool_name.as_deref()
        })
    }

    /// What a host must warn the user of before a call of `name` runs: the
    /// `error` diagnostics about it and about the whole catalog, then, when
    /// it is `degraded`, a warning with code [`TOOL_DEGRADED`] and its
    /// status description. Empty when there is nothing to warn of.
    pub fn warnings(&self, name: &str) -> Vec<Diagnostic> {
        self.catalog_state().warnings(&self.canonical(name))
    }

    /// What the catalog says of a call of the tool `name` (canonical): why it
    /// is refused, or else the warnings to stream before it runs.
    pub(crate) fn catalog_check(&self, name: &str) -> Result<Vec<Diagnostic>, Refusal> {
        if self.inner.catalog.clear.load(Ordering::Acquire) {
            return Ok(Vec::new());
        }
        let state = self.catalog_state();
        match state.refusal(name) {
            Some(refusal) => Err(refusal),
            None => Ok(state.warnings(name)),
        }
    }

    fn remove_diagnostics(&self, remove: impl Fn(&Diagnostic) -> bool) -> bool {
        let changed = {
            let mut state = self.catalog_state_mut();
            let before = state.diagnostics.len();
            state.diagnostics.retain(|diagnostic| !remove(diagnostic));
            state.diagnostics.len() != before
        };
        if changed {
            self.publish_catalog();
        }
        changed
    }

    /// The tool's name for a name or alias; the name itself when no tool has it.
    fn canonical(&self, name: &str) -> String {
        self.entry(name)
            .map_or_else(|| name.to_owned(), |entry| entry.def.name().to_owned())
    }

    fn catalog_state(&self) -> RwLockReadGuard<'_, CatalogState> {
        crate::tool::sync::read(&self.inner.catalog.state)
    }

    fn catalog_state_mut(&self) -> CatalogWrite<'_> {
        let catalog = &self.inner.catalog;
        CatalogWrite {
            state: crate::tool::sync::write(&catalog.state),
            clear: &catalog.clear,
        }
    }
}

impl CatalogState {
    /// Why a call of the tool `name` (canonical) must be refused, if it must.
    fn refusal(&self, name: &str) -> Option<Refusal> {
        if let Some((ToolStatus::Unavailable, description)) = self.statuses.get(name) {
            return Some(Refusal::Unavailable {
                tool: name.to_owned(),
                description: description.clone(),
            });
        }
        let fatal = self
            .diagnostics
            .iter()
            .find(|diagnostic| diagnostic.severity == Severity::Fatal && about(diagnostic, name))?;
        Some(Refusal::Blocked {
            tool: name.to_owned(),
            diagnostic: fatal.clone(),
        })
    }

    /// See [`Registry::warnings`]; `tool` is canonical.
    fn warnings(&self, tool: &str) -> Vec<Diagnostic> {
        let mut warnings: Vec<Diagnostic> = self
            .diagnostics
            .iter()
            .filter(|diagnostic| diagnostic.severity == Severity::Error && about(diagnostic, tool))
            .cloned()
            .collect();
        if let Some((ToolStatus::Degraded, description)) = self.statuses.get(tool) {
            let message = match description {
                Some(description) => description.clone(),
                None => format!("`{tool}` works with limits"),
            };
            warnings.push(Diagnostic::new(Severity::Warning, TOOL_DEGRADED, message).tool(tool));
        }
        warnings
    }
}

/// Whether `diagnostic` is about the tool `name`: its own, or the whole catalog's.
fn about(diagnostic: &Diagnostic, name: &str) -> bool {
    diagnostic
        .tool_name
        .as_deref()
        .is_none_or(|tool| tool == name)
}
