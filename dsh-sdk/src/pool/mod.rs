//! The pool: the tools a model can call, under their names and aliases,
//! with what every call shares (the state, the subscribers, each tool's
//! status and diagnostics, the index over the deferred tools).
//!
//! Registering and looking up (`register.rs`), the handles that keep tools
//! registered (`handle.rs`), the subscribers that observe calls
//! (`subscribe.rs`), and the statuses and diagnostics (`catalog.rs`). The
//! pipeline's settings are `pipeline/`'s, the host's handle on all of it is
//! [`Registry`](crate::Registry).

use arc_swap::ArcSwap;
use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::sync::atomic::{AtomicU64, AtomicUsize};
use std::sync::{Arc, PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard};

use crate::tool::{Entry, RegistryLimits, State, ToolInfo};

mod catalog;
mod handle;
mod loaded;
mod register;
mod subscribe;

pub use catalog::TOOL_DEGRADED;
pub(crate) use catalog::{Catalog, Refusal};
pub use handle::{ScopedTool, ToolHandle};
pub(crate) use loaded::Loaded;
use subscribe::Subscriber;
pub use subscribe::Subscription;

/// The longest name [`Pool::closest`] compares: twice the longest valid
/// tool name.
const CLOSEST_MAX_CHARS: usize = 128;

/// The tools a model can call, cheap to clone and shared across tasks.
#[derive(Clone, Default)]
pub(crate) struct Pool {
    pub(crate) inner: Arc<Inner>,
}

#[derive(Default)]
pub(crate) struct Inner {
    pub(super) tools: RwLock<Tools>,
    pub(crate) state: State,
    /// What the registry holds every tool to unless the tool says
    /// otherwise, folded into each entry when it is registered.
    pub(crate) limits: RegistryLimits,
    /// Copied on write, so that emitting reads a snapshot without a lock
    /// or a shared reference count, and calls the subscribers with none held:
    /// a subscriber may subscribe or unsubscribe.
    pub(super) subscribers: ArcSwap<Vec<(u64, Subscriber)>>,
    /// How many subscribers there are, read without a lock on the hot path.
    pub(super) listened: AtomicUsize,
    /// Each tool's status and the diagnostics (`catalog.rs`).
    pub(crate) catalog: Catalog,
    /// Deferred tools loaded by tool search, per principal, for the callers
    /// that have no session of their own (`loaded.rs`).
    pub(crate) loaded: loaded::ByPrincipal,
    /// Marked changed whenever a tool comes or goes, for those who wait on it
    /// ([`Registry::watch_tools`]).
    pub(crate) changed: tokio::sync::watch::Sender<()>,
    /// The index over the deferred tools (`search/`), updated with the pool.
    pub(crate) search: crate::search::Index,
    pub(super) next_id: AtomicU64,
}

#[derive(Default)]
pub(super) struct Tools {
    pub(super) by_name: BTreeMap<String, Arc<Entry>>,
    /// Alias → the name of the tool that holds it.
    pub(super) aliases: HashMap<String, String>,
}

impl Pool {
    /// An empty pool sharing `state` with every tool, holding them to
    /// `limits` unless they say otherwise.
    pub(crate) fn new(state: State, limits: RegistryLimits) -> Self {
        Pool {
            inner: Arc::new(Inner {
                state,
                limits,
                ..Inner::default()
            }),
        }
    }

    /// The pool's statuses and diagnostics.
    pub(crate) fn catalog(&self) -> &Catalog {
        &self.inner.catalog
    }

    /// The tool registered under `name` or one of its aliases.
    pub(crate) fn get(&self, name: &str) -> Option<ToolInfo> {
        self.entry(name).map(|entry| ToolInfo { entry })
    }

    /// Every registered tool, in pool order: the built-in (typed)
    /// tools sorted by name as one block, then the dynamic tools sorted by
    /// name. Names are unique, and the order depends on nothing but the
    /// names, so the same tools give the same list whatever the order they
    /// were registered or their servers connected in: the built-in block stays
    /// a stable prompt prefix when dynamic tools come and go.
    pub(crate) fn tools(&self) -> Vec<ToolInfo> {
        let (mut pool, dynamic): (Vec<ToolInfo>, Vec<ToolInfo>) = self
            .read()
            .by_name
            .values()
            .map(|entry| ToolInfo {
                entry: Arc::clone(entry),
            })
            .partition(|tool| !tool.is_dynamic());
        pool.extend(dynamic);
        pool
    }

    /// A receiver marked changed each time a tool is registered or
    /// unregistered: what an MCP server sends
    /// `notifications/tools/list_changed` from.
    ///
    /// ```
    /// # use dsh_kit::prelude::*;
    /// # use dsh_kit::Registry;
    /// /// Greet someone by name.
    /// #[tool]
    /// async fn greet(
    ///     /// The name to greet
    ///     name: String,
    /// ) -> String {
    ///     format!("Hello, {name}!")
    /// }
    ///
    /// let registry = Registry::new();
    /// let mut changes = registry.watch_tools();
    /// assert!(!changes.has_changed().unwrap());
    /// let greet = registry.register::<greet>().unwrap();
    /// assert!(changes.has_changed().unwrap());
    /// changes.mark_unchanged();
    /// greet.unregister();
    /// assert!(changes.has_changed().unwrap());
    /// ```
    pub(crate) fn watch_tools(&self) -> tokio::sync::watch::Receiver<()> {
        self.inner.changed.subscribe()
    }

    /// Tells those watching the pool (the MCP server's `list_changed`) that
    /// what it lists has changed.
    pub(crate) fn notify_changed(&self) {
        self.inner.changed.send_replace(());
    }

    /// The names of the registered tools closest to `name`, best first.
    ///
    /// A name longer than 128 characters, far beyond any
    /// valid tool name, is close to none: the comparison costs time in
    /// proportion to the name's length.
    pub(crate) fn closest(&self, name: &str) -> Vec<String> {
        self.closest_where(name, |_| true)
    }

    /// [`Pool::closest`] among the tools `keep` lets through: a caller is
    /// never offered a name it may not see.
    pub(crate) fn closest_where(&self, name: &str, keep: impl Fn(&Entry) -> bool) -> Vec<String> {
        if name.chars().nth(CLOSEST_MAX_CHARS).is_some() {
            return Vec::new();
        }
        let tools = self.read();
        let candidates = tools
            .by_name
            .keys()
            .map(String::as_str)
            .chain(tools.aliases.keys().map(String::as_str));
        let mut names: Vec<String> = Vec::new();
        for candidate in crate::value::schema::suggest::closest(name, candidates) {
            let canonical = tools
                .resolve_name(candidate)
                .unwrap_or(candidate)
                .to_owned();
            let kept = tools
                .by_name
                .get(&canonical)
                .is_some_and(|entry| keep(entry));
            if kept && !names.contains(&canonical) {
                names.push(canonical);
            }
        }
        names.truncate(3);
        names
    }

    /// The state shared with every tool.
    pub(crate) fn state(&self) -> &State {
        &self.inner.state
    }

    pub(crate) fn entry(&self, name: &str) -> Option<Arc<Entry>> {
        let tools = self.read();
        if let Some(entry) = tools.by_name.get(name) {
            return Some(Arc::clone(entry));
        }
        tools.by_name.get(tools.aliases.get(name)?).cloned()
    }

    pub(super) fn read(&self) -> RwLockReadGuard<'_, Tools> {
        self.inner
            .tools
            .read()
            .unwrap_or_else(PoisonError::into_inner)
    }

    pub(super) fn write(&self) -> RwLockWriteGuard<'_, Tools> {
        self.inner
            .tools
            .write()
            .unwrap_or_else(PoisonError::into_inner)
    }
}

impl Tools {
    /// The canonical name for a name or alias.
    fn resolve_name<'a>(&'a self, name: &'a str) -> Option<&'a str> {
        if self.by_name.contains_key(name) {
            Some(name)
        } else {
            self.aliases.get(name).map(String::as_str)
        }
    }
}

impl fmt::Debug for Pool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Pool")
            .field("tools", &self.read().by_name.keys().collect::<Vec<_>>())
            .finish_non_exhaustive()
    }
}
