//! [`Skills`]: the skills a registry serves, shared by its clones.

use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, PoisonError, RwLock, Weak};

use tokio::sync::watch;

use super::{SkillContents, SkillEntry, SkillReadError, SkillSource};

/// The skills a [`Registry`](crate::Registry) serves beside its tools: those
/// of [`RegistryBuilder::skill`](crate::RegistryBuilder::skill), and those
/// [`add`](Self::add)ed since (an MCP proxy adds the skills of its server).
/// At most one skill per URI: a skill added at the URI of another replaces it.
/// Cheap to clone; clones share the skills.
#[derive(Clone)]
pub struct Skills(Arc<Inner>);

struct Inner {
    slots: RwLock<Vec<Slot>>,
    next: AtomicU64,
    changed: watch::Sender<()>,
}

struct Slot {
    id: u64,
    uri: String,
    source: Arc<dyn SkillSource>,
}

/// A skill [`Skills::add`] added: it is served until the handle is dropped
/// (or the skill is replaced by another at its URI).
#[must_use = "dropping the handle removes the skill"]
pub struct SkillHandle {
    skills: Weak<Inner>,
    id: u64,
}

impl Default for Skills {
    fn default() -> Self {
        Skills(Arc::new(Inner {
            slots: RwLock::default(),
            next: AtomicU64::new(0),
            changed: watch::channel(()).0,
        }))
    }
}

impl Skills {
    /// Serves `source` until the handle is dropped, in place of any skill at
    /// its URI.
    pub fn add(&self, source: impl SkillSource) -> SkillHandle {
        self.add_shared(Arc::new(source))
    }

    /// [`add`](Self::add), for a source already shared.
    pub fn add_shared(&self, source: Arc<dyn SkillSource>) -> SkillHandle {
        SkillHandle {
            skills: Arc::downgrade(&self.0),
            id: self.insert(source),
        }
    }

    /// Serves `source` for as long as the registry lives.
    pub(crate) fn serve(&self, source: Arc<dyn SkillSource>) {
        self.insert(source);
    }

    fn insert(&self, source: Arc<dyn SkillSource>) -> u64 {
        let id = self.0.next.fetch_add(1, Ordering::Relaxed);
        let uri = source.entry().uri;
        {
            let mut slots = self.0.slots.write().unwrap_or_else(PoisonError::into_inner);
            slots.retain(|slot| slot.uri != uri);
            slots.push(Slot { id, uri, source });
            slots.sort_by(|a, b| a.uri.cmp(&b.uri));
        }
        self.0.changed.send_replace(());
        id
    }

    /// How many skills are served.
    pub fn len(&self) -> usize {
        self.read_slots().len()
    }

    /// Whether none is.
    pub fn is_empty(&self) -> bool {
        self.read_slots().is_empty()
    }

    /// The entries of every skill, sorted by URI.
    pub fn entries(&self) -> Vec<SkillEntry> {
        self.sources().iter().map(|source| source.entry()).collect()
    }

    /// The entry of the skill whose `SKILL.md` is at `uri`.
    pub fn get(&self, uri: &str) -> Option<SkillEntry> {
        let source = self
            .read_slots()
            .iter()
            .find(|slot| slot.uri == uri)
            .map(|slot| Arc::clone(&slot.source))?;
        Some(source.entry())
    }

    /// The file at `uri` of whichever skill serves it; `None` when none does.
    pub async fn read(&self, uri: &str) -> Option<Result<SkillContents, SkillReadError>> {
        for source in self.sources() {
            if let Some(read) = source.read(uri).await {
                return Some(read);
            }
        }
        None
    }

    /// A receiver marked changed each time a skill is added or removed.
    pub fn watch(&self) -> watch::Receiver<()> {
        self.0.changed.subscribe()
    }

    fn sources(&self) -> Vec<Arc<dyn SkillSource>> {
        self.read_slots()
            .iter()
            .map(|slot| Arc::clone(&slot.source))
            .collect()
    }

    fn read_slots(&self) -> std::sync::RwLockReadGuard<'_, Vec<Slot>> {
        self.0.slots.read().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Drop for SkillHandle {
    fn drop(&mut self) {
        let Some(skills) = self.skills.upgrade() else {
            return;
        };
        let removed = {
            let mut slots = skills.slots.write().unwrap_or_else(PoisonError::into_inner);
            let before = slots.len();
            slots.retain(|slot| slot.id != self.id);
            slots.len() != before
        };
        if removed {
            skills.changed.send_replace(());
        }
    }
}

impl fmt::Debug for Skills {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list()
            .entries(self.read_slots().iter().map(|slot| &slot.uri))
            .finish()
    }
}

impl fmt::Debug for SkillHandle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SkillHandle").field("id", &self.id).finish()
    }
}
