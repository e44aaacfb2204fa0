//! Each tool's status and the diagnostics, as the pool holds them, and the
//! rules they impose on calls: what the pipeline checks before a call runs.
//! Changing them, and publishing the catalog, is `catalog/`'s.

use std::collections::HashMap;
use std::ops::{Deref, DerefMut};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{RwLock, RwLockReadGuard, RwLockWriteGuard};

use crate::value::event::rawp::{Diagnostic, Severity, ToolStatus};

/// The code of the warning a `degraded` status gives in [`Registry::warnings`].
///
/// [`Registry::warnings`]: crate::Registry::warnings
pub const TOOL_DEGRADED: &str = "TOOL_DEGRADED";

/// Statuses and diagnostics, held by the registry.
#[derive(Debug, Default)]
pub(crate) struct CatalogState {
    /// Canonical tool name → its status and the reason for it. A tool with
    /// no entry is `available`. Kept by name, so a status outlives a
    /// re-registration of the same tool: a missing executable is still missing.
    pub(crate) statuses: HashMap<String, (ToolStatus, Option<String>)>,
    /// Sorted: catalog-wide ones first, then by tool name, then by code.
    pub(crate) diagnostics: Vec<Diagnostic>,
}

/// The registry's [`CatalogState`], with whether it holds nothing, which
/// every call reads without taking the lock: most registries never mark a
/// tool, and calls on many threads then share no lock here.
pub(crate) struct Catalog {
    state: RwLock<CatalogState>,
    /// No status and no diagnostic; kept by [`CatalogWrite`] as it is dropped.
    clear: AtomicBool,
    /// Changed by the pool itself (a diagnostic of a shadowed tool) since
    /// the catalog was last published: the registry publishes it.
    unpublished: AtomicBool,
}

impl Default for Catalog {
    fn default() -> Self {
        Catalog {
            state: RwLock::default(),
            clear: AtomicBool::new(true),
            unpublished: AtomicBool::new(false),
        }
    }
}

/// The catalog's state, written: dropped, it records whether it is clear.
pub(crate) struct CatalogWrite<'a> {
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
impl Catalog {
    /// What the catalog says of a call of the tool `name` (canonical): why it
    /// is refused, or else the warnings to stream before it runs.
    pub(crate) fn check(&self, name: &str) -> Result<Vec<Diagnostic>, Refusal> {
        if self.clear.load(Ordering::Acquire) {
            return Ok(Vec::new());
        }
        let state = self.read();
        match state.refusal(name) {
            Some(refusal) => Err(refusal),
            None => Ok(state.warnings(name)),
        }
    }

    /// Adds `diagnostic`, replacing any of the same tool and code; `true`
    /// if that changed the diagnostics. `diagnostic.tool_name` is canonical.
    pub(crate) fn add(&self, diagnostic: Diagnostic) -> bool {
        let mut state = self.write();
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
    }

    /// Adds `diagnostic` on the pool's own account, to be published by
    /// whoever next asks [`take_unpublished`](Self::take_unpublished).
    pub(crate) fn add_unpublished(&self, diagnostic: Diagnostic) {
        if self.add(diagnostic) {
            self.unpublished.store(true, Ordering::Release);
        }
    }

    /// Whether the pool changed the catalog since this was last asked.
    pub(crate) fn take_unpublished(&self) -> bool {
        self.unpublished.swap(false, Ordering::AcqRel)
    }

    /// The statuses and diagnostics, read.
    pub(crate) fn read(&self) -> RwLockReadGuard<'_, CatalogState> {
        crate::tool::sync::read(&self.state)
    }

    /// The statuses and diagnostics, written.
    pub(crate) fn write(&self) -> CatalogWrite<'_> {
        CatalogWrite {
            state: crate::tool::sync::write(&self.state),
            clear: &self.clear,
        }
    }
}

impl CatalogState {
    /// Why a call of the tool `name` (canonical) must be refused, if it must.
    pub(crate) fn refusal(&self, name: &str) -> Option<Refusal> {
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
    pub(crate) fn warnings(&self, tool: &str) -> Vec<Diagnostic> {
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
