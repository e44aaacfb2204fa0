//! What one replica of a server tells the others: the [`EventBus`] that
//! carries `list_changed`, resource updates and task status changes to the
//! sessions of every replica, and [`LocalEventBus`], the default, for a
//! server with one process.

use std::sync::{Arc, RwLock};

use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio::sync::broadcast;

/// How many events a subscriber that falls behind may miss before it is
/// told it lagged.
pub(crate) const BUS_CAPACITY: usize = 256;

/// One event the sessions of a server hear, whichever replica it happened on.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[non_exhaustive]
pub enum BusEvent {
    /// The tools changed (registered, dropped, loaded, or their status or
    /// catalog republished): sessions send `notifications/tools/list_changed`.
    ToolsChanged,
    /// The resource at `uri` changed: sessions subscribed to it send
    /// `notifications/resources/updated`.
    ResourceUpdated {
        /// The resource.
        uri: String,
    },
    /// The client of HTTP session `session` cancelled its request
    /// `request` (`notifications/cancelled`), which may run on another
    /// replica than the one the notification reached: the one running it
    /// stops it.
    RequestCancelled {
        /// The session (`Mcp-Session-Id`).
        session: String,
        /// The request id, as JSON (`7`, `"abc"`).
        request: String,
    },
    /// A task started or ended: `task` is the task as MCP 2025-11-25's
    /// `notifications/tasks/status` carries it, sent to the sessions of
    /// the principal that started it (`owner`, a
    /// [`TaskOwner`](crate::mcp::TaskOwner) key; `None` for the host's).
    TaskStatus {
        /// The task (`taskId`, `status`, `statusMessage`, times).
        task: Value,
        /// Who started it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        owner: Option<String>,
    },
}

/// Carries [`BusEvent`]s to every replica of a server: an event published
/// on one reaches the subscribers of all of them, this one included.
///
/// Object-safe: a server holds an `Arc<dyn EventBus>`. The default is a
/// [`LocalEventBus`]; with the `redis` feature,
/// `mcp::redis::RedisEventBus` spans processes.
pub trait EventBus: Send + Sync + 'static {
    /// Sends `event` to every subscriber, here and on the other replicas;
    /// never waits. An event no one hears is not an error.
    fn publish(&self, event: BusEvent);

    /// The events published from now on, on any replica.
    fn subscribe(&self) -> broadcast::Receiver<BusEvent>;
}

/// An [`EventBus`] within one process: a tokio broadcast channel.
#[derive(Clone, Debug)]
pub struct LocalEventBus(broadcast::Sender<BusEvent>);

impl Default for LocalEventBus {
    fn default() -> Self {
        LocalEventBus(broadcast::channel(BUS_CAPACITY).0)
    }
}

impl EventBus for LocalEventBus {
    fn publish(&self, event: BusEvent) {
        let _ = self.0.send(event);
    }

    fn subscribe(&self) -> broadcast::Receiver<BusEvent> {
        self.0.subscribe()
    }
}

/// The bus a server and every handle it gave out use: replaced in place
/// when the server is given another, so a [`ResourceUpdates`](crate::mcp::ResourceUpdates)
/// taken earlier publishes on the new one.
#[derive(Clone)]
pub(crate) struct BusSlot(Arc<RwLock<Arc<dyn EventBus>>>);

impl Default for BusSlot {
    fn default() -> Self {
        BusSlot(Arc::new(RwLock::new(Arc::new(LocalEventBus::default()))))
    }
}

impl std::fmt::Debug for BusSlot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("BusSlot")
    }
}

impl BusSlot {
    fn current(&self) -> Arc<dyn EventBus> {
        Arc::clone(
            &self
                .0
                .read()
                .unwrap_or_else(std::sync::PoisonError::into_inner),
        )
    }

    /// Puts `bus` in place of the one in use.
    pub(crate) fn replace(&self, bus: Arc<dyn EventBus>) {
        *self
            .0
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = bus;
    }

    pub(crate) fn publish(&self, event: BusEvent) {
        self.current().publish(event);
    }

    pub(crate) fn subscribe(&self) -> broadcast::Receiver<BusEvent> {
        self.current().subscribe()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_handle_taken_before_the_bus_is_replaced_publishes_on_the_new_one() {
        let slot = BusSlot::default();
        let handle = slot.clone();
        let bus = LocalEventBus::default();
        slot.replace(Arc::new(bus.clone()));
        let mut heard = bus.subscribe();
        handle.publish(BusEvent::ResourceUpdated {
            uri: "a://b".into(),
        });
        assert_eq!(
            heard.recv().await.unwrap(),
            BusEvent::ResourceUpdated {
                uri: "a://b".into()
            }
        );
    }
}
