//! Subscribers: who observes every call's events, and the cheap check of
//! whether anyone does.

use std::fmt;
use std::panic::AssertUnwindSafe;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Weak};

use super::{Inner, Pool};
use crate::value::event::Event;
use crate::value::event::rawp::RawpEvent;

/// One subscriber's callback.
pub(super) type Subscriber = Arc<dyn Fn(&Event) + Send + Sync>;

impl Pool {
    /// Calls `subscriber` with the RAWP-DPS form of every event from now on:
    /// `tool.invoke.request`, `tool.invoke.stream`, `tool.invoke.result` and
    /// `tool.catalog.publish`. Dropping the [`Subscription`] stops it.
    pub(crate) fn subscribe_rawp(
        &self,
        subscriber: impl Fn(&RawpEvent) + Send + Sync + 'static,
    ) -> Subscription {
        self.subscribe(move |event| {
            if let Some(event) = event.to_rawp() {
                subscriber(&event);
            }
        })
    }

    /// Calls `subscriber` with every event from now on: requests, stream
    /// chunks and results, errors included. Dropping the [`Subscription`]
    /// stops it.
    pub(crate) fn subscribe(
        &self,
        subscriber: impl Fn(&Event) + Send + Sync + 'static,
    ) -> Subscription {
        let id = self.inner.next_id.fetch_add(1, Ordering::Relaxed);
        let subscriber: Subscriber = Arc::new(subscriber);
        self.inner.subscribers.rcu(|subscribers| {
            let mut subscribers = Vec::clone(subscribers);
            subscribers.push((id, Arc::clone(&subscriber)));
            subscribers
        });
        self.inner.listened.fetch_add(1, Ordering::Relaxed);
        Subscription {
            registry: Arc::downgrade(&self.inner),
            id,
        }
    }

    /// Whether anyone subscribed.
    pub(crate) fn listening(&self) -> bool {
        self.inner.listened.load(Ordering::Relaxed) > 0
    }

    /// Builds and emits an event only when someone listens.
    pub(crate) fn emit_with(&self, event: impl FnOnce() -> Event) {
        if self.inner.listened.load(Ordering::Relaxed) > 0 {
            self.inner.emit(&event());
        }
    }
}

impl Pool {
    /// Calls every subscriber with `event`.
    pub(crate) fn emit(&self, event: &Event) {
        self.inner.emit(event);
    }
}

impl Inner {
    fn emit(&self, event: &Event) {
        let subscribers = self.subscribers.load();
        for (_, subscriber) in subscribers.iter() {
            // A panicking subscriber must not take the call down with it.
            let _ = std::panic::catch_unwind(AssertUnwindSafe(|| subscriber(event)));
        }
    }
}

/// Keeps a subscriber subscribed; dropping it unsubscribes.
#[must_use = "dropping the subscription unsubscribes at once"]
pub struct Subscription {
    registry: Weak<Inner>,
    id: u64,
}

impl Drop for Subscription {
    fn drop(&mut self) {
        if let Some(inner) = self.registry.upgrade() {
            inner.subscribers.rcu(|subscribers| {
                let mut subscribers = Vec::clone(subscribers);
                subscribers.retain(|(id, _)| *id != self.id);
                subscribers
            });
            inner.listened.fetch_sub(1, Ordering::Relaxed);
        }
    }
}

impl fmt::Debug for Subscription {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Subscription")
            .field("id", &self.id)
            .finish()
    }
}
