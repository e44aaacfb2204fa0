//! The deferred tools a caller's tool search loaded: one set per session
//! (an MCP session, a host's conversation) or, for a caller that has none,
//! per principal. One caller's search never changes what another sees.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError, RwLock};

use crate::value::principal::Principal;

use super::Pool;

/// The most principals whose loaded tools the pool keeps at once; past it,
/// the sets no view or call holds any more are forgotten.
const MAX_PRINCIPALS: usize = 4096;

/// The deferred tools one caller loaded, in the order it loaded them, and
/// a receiver marked when the set grows: what that caller's MCP session
/// sends `notifications/tools/list_changed` from.
#[derive(Debug)]
pub(crate) struct Loaded {
    names: RwLock<Vec<String>>,
    changed: tokio::sync::watch::Sender<()>,
}

impl Default for Loaded {
    fn default() -> Self {
        Loaded {
            names: RwLock::default(),
            changed: tokio::sync::watch::Sender::new(()),
        }
    }
}

impl Loaded {
    /// The names loaded, in the order they were.
    pub(crate) fn names(&self) -> Vec<String> {
        self.names
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Adds `name` unless it is there; whether it was added (and the
    /// watchers told).
    pub(crate) fn add(&self, name: &str) -> bool {
        let mut names = self.names.write().unwrap_or_else(PoisonError::into_inner);
        if names.iter().any(|loaded| loaded == name) {
            return false;
        }
        names.push(name.to_owned());
        self.changed.send_replace(());
        true
    }

    /// A receiver marked changed each time a tool is loaded into this set.
    #[cfg(feature = "mcp")]
    pub(crate) fn watch(&self) -> tokio::sync::watch::Receiver<()> {
        self.changed.subscribe()
    }
}

/// Who a per-principal set belongs to: the host, or an issuer and subject.
type PrincipalKey = Option<(Option<String>, String)>;

fn key(principal: &Principal) -> PrincipalKey {
    (!principal.is_host()).then(|| {
        (
            principal.issuer().map(str::to_owned),
            principal.subject().to_owned(),
        )
    })
}

/// The per-principal sets of a pool.
#[derive(Default)]
pub(crate) struct ByPrincipal(Mutex<HashMap<PrincipalKey, Arc<Loaded>>>);

impl Pool {
    /// The tools `principal` loaded outside any session: the same set for
    /// every view of that principal.
    pub(crate) fn loaded_by(&self, principal: &Principal) -> Arc<Loaded> {
        let mut sets = (self.inner.loaded.0)
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let key = key(principal);
        if let Some(loaded) = sets.get(&key) {
            return Arc::clone(loaded);
        }
        if sets.len() >= MAX_PRINCIPALS {
            sets.retain(|_, loaded| Arc::strong_count(loaded) > 1);
        }
        let loaded = Arc::new(Loaded::default());
        if sets.len() < MAX_PRINCIPALS {
            sets.insert(key, Arc::clone(&loaded));
        }
        loaded
    }
}
