//! [`Registry`]: the pool of tools a model can call, and its configuration.
//!
//! The pool (`pool.rs`: register, unregister, look up), the settings every
//! call reads (`builder.rs`), the handles that keep tools registered
//! (`handle.rs`) and the subscribers that observe calls (`subscribe.rs`).
//! What a tool is at run time lives in `tool/`, what a call does in `pipeline/`.

use arc_swap::ArcSwap;
use std::any::Any;
use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::sync::atomic::{AtomicU64, AtomicUsize};
use std::sync::{Arc, OnceLock, PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard};

use crate::catalog::Catalog;
use crate::tool::{Exec, ExecBuilder, Host, State, Surroundings};
use crate::tool::Entry;
// Where hosts and the export formats have always found it.
pub use crate::tool::ToolInfo;

mod builder;
mod handle;
mod pool;
mod subscribe;

pub(crate) use builder::Config;
pub use builder::RegistryBuilder;
pub use handle::{ScopedTool, ToolHandle};
use subscribe::Subscriber;
pub use subscribe::Subscription;

/// The longest name [`Registry::closest`] compares: twice the longest valid
/// tool name.
const CLOSEST_MAX_CHARS: usize = 128;

/// The tools a model can call, cheap to clone and shared across tasks.
///
/// Registering returns a [`ToolHandle`]: the tool stays registered until the
/// handle's [`unregister`](ToolHandle::unregister), or until the
/// [`scoped`](ToolHandle::scoped) guard made from it is dropped.
///
/// ```
/// use dsh_sdk::prelude::*;
///
/// /// Greet someone by name.
/// #[tool(aliases = ["hello"])]
/// async fn greet(
///     /// The name to greet
///     name: String,
/// ) -> String {
///     format!("Hello, {name}!")
/// }
///
/// let registry = Registry::new();
/// let handle = registry.register::<greet>().unwrap();
/// assert!(registry.get("hello").is_some());
/// handle.unregister();
/// assert!(registry.get("greet").is_none());
/// ```
#[derive(Clone, Default)]
pub struct Registry {
    pub(crate) inner: Arc<Inner>,
}

pub(crate) struct Inner {
    pub(super) tools: RwLock<Tools>,
    pub(crate) state: State,
    pub(crate) config: Config,
    /// Copied on write, so that emitting reads a snapshot without a lock
    /// or a shared reference count, and calls the subscribers with none held:
    /// a subscriber may subscribe or unsubscribe.
    pub(super) subscribers: ArcSwap<Vec<(u64, Subscriber)>>,
    /// How many subscribers there are, read without a lock on the hot path.
    pub(super) listened: AtomicUsize,
    /// What every call's context shares; made once, on first use.
    pub(crate) surroundings: OnceLock<Arc<Surroundings>>,
    /// Each tool's status and the diagnostics (`catalog.rs`).
    pub(crate) catalog: Catalog,
    /// Deferred tools loaded by tool search, in the order they were loaded.
    pub(super) loaded: RwLock<Vec<String>>,
    /// Marked changed whenever a tool comes or goes, for those who wait on it
    /// ([`Registry::watch_tools`]).
    pub(super) changed: tokio::sync::watch::Sender<()>,
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

impl Registry {
    /// An empty registry with no shared state.
    pub fn new() -> Self {
        Registry::default()
    }

    /// The tool registered under `name` or one of its aliases.
    pub fn get(&self, name: &str) -> Option<ToolInfo> {
        self.entry(name).map(|entry| ToolInfo { entry })
    }

    /// Every registered tool, in pool order: the built-in (typed)
    /// tools sorted by name as one block, then the dynamic tools sorted by
    /// name. Names are unique, and the order depends on nothing but the
    /// names, so the same tools give the same list whatever the order they
    /// were registered or their servers connected in: the built-in block stays
    /// a stable prompt prefix when dynamic tools come and go.
    pub fn tools(&self) -> Vec<ToolInfo> {
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
    /// unregistered, or a deferred tool is loaded: what an MCP server sends
    /// `notifications/tools/list_changed` from.
    ///
    /// ```
    /// # use dsh_sdk::prelude::*;
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
    pub fn watch_tools(&self) -> tokio::sync::watch::Receiver<()> {
        self.inner.changed.subscribe()
    }

    /// The tools the model sees, in the order it sees them: every tool that
    /// is not deferred (or is marked `always_load`), in pool order, then the
    /// deferred tools tool search has loaded, in the order they were loaded.
    pub fn visible_tools(&self) -> Vec<ToolInfo> {
        let mut visible: Vec<ToolInfo> = self
            .tools()
            .into_iter()
            .filter(|tool| {
                let def = tool.definition();
                !def.is_deferred() || def.is_always_loaded()
            })
            .collect();
        let loaded = self
            .inner
            .loaded
            .read()
            .unwrap_or_else(PoisonError::into_inner);
        visible.extend(loaded.iter().filter_map(|name| self.get(name)));
        visible
    }

    /// Loads deferred tools into the exported list, after everything already
    /// there. Names that are not deferred, not registered, or already loaded
    /// are skipped.
    pub fn load_deferred<'a>(&self, names: impl IntoIterator<Item = &'a str>) {
        let mut loaded = self
            .inner
            .loaded
            .write()
            .unwrap_or_else(PoisonError::into_inner);
        for name in names {
            let Some(tool) = self.get(name) else { continue };
            let def = tool.definition();
            let hidden = def.is_deferred() && !def.is_always_loaded();
            if hidden && !loaded.iter().any(|loaded| loaded == tool.name()) {
                loaded.push(tool.name().to_owned());
                self.inner.changed.send_replace(());
            }
        }
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
    pub fn closest(&self, name: &str) -> Vec<String> {
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
        for candidate in crate::schema::suggest::closest(name, candidates) {
            let canonical = tools
                .resolve_name(candidate)
                .unwrap_or(candidate)
                .to_owned();
            if !names.contains(&canonical) {
                names.push(canonical);
            }
        }
        names.truncate(3);
        names
    }

    /// The state shared with every tool.
    pub fn state(&self) -> &State {
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

    /// The settings every call reads.
    pub(crate) fn config(&self) -> &Config {
        &self.inner.config
    }

    /// The registry as a call's context holds it: not kept alive.
    pub(crate) fn host(&self) -> Host {
        let inner: Arc<dyn Any + Send + Sync> = Arc::clone(&self.inner) as _;
        Arc::downgrade(&inner)
    }

    /// The registry `host` stands for, while it lives.
    fn from_host(host: &Host) -> Option<Registry> {
        let inner = host.upgrade()?.downcast::<Inner>().ok()?;
        Some(Registry { inner })
    }
}

// A call's context reaches the registry it runs in; written here, so that
// the context (`exec.rs`) depends on nothing of the pool's.
impl Exec {
    /// The registry this call runs in, for tools that call other tools or
    /// look at the pool (tool search). `None` outside a registry.
    pub fn registry(&self) -> Option<Registry> {
        Registry::from_host(self.host()?)
    }
}

impl ExecBuilder {
    /// Lets the tool reach the registry it runs in.
    pub fn registry(self, registry: &Registry) -> Self {
        self.host(registry.host())
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

impl fmt::Debug for Registry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Registry")
            .field("tools", &self.read().by_name.keys().collect::<Vec<_>>())
            .finish_non_exhaustive()
    }
}
