//! [`RedisEventBus`]: bus events over a Redis channel.

use serde::{Deserialize, Serialize};
use tokio::sync::broadcast;

use crate::mcp::stores::bus::{BusEvent, EventBus};

use super::{Redis, Shared};

/// The target of this module's log lines, the one hosts filter on.
const LOG_TARGET: &str = "dsh_kit::mcp::redis::bus";

/// An [`EventBus`] across processes: an event goes at once to this
/// process's subscribers and, through the Redis channel `PREFIX:bus`, to
/// every other replica's. Redis pub/sub delivers to the replicas connected
/// when the event is published; one reconnecting after Redis went away
/// misses what was published meanwhile (a `list_changed` then comes with
/// the next change).
#[derive(Clone, Debug)]
pub struct RedisEventBus {
    redis: Redis,
}

/// An event as it travels on the channel: who published it, and what.
#[derive(Serialize, Deserialize)]
struct Envelope {
    origin: String,
    event: BusEvent,
}

impl RedisEventBus {
    pub(super) fn new(redis: Redis) -> Self {
        RedisEventBus { redis }
    }
}

impl EventBus for RedisEventBus {
    fn publish(&self, event: BusEvent) {
        let _ = self.redis.shared.bus.send(event.clone());
        let envelope = Envelope {
            origin: self.redis.shared.origin.clone(),
            event,
        };
        let Ok(payload) = serde_json::to_string(&envelope) else {
            return;
        };
        let channel = self.redis.key(&["bus"]);
        let redis = self.redis.clone();
        self.redis.shared.runtime.spawn(async move {
            let sent = redis
                .retried(|mut connection| {
                    let channel = channel.clone();
                    let payload = payload.clone();
                    async move {
                        redis::cmd("PUBLISH")
                            .arg(channel)
                            .arg(payload)
                            .query_async::<i64>(&mut connection)
                            .await
                    }
                })
                .await;
            if let Err(error) = sent {
                tracing::warn!(target: LOG_TARGET, "a bus event did not reach Redis: {error}");
            }
        });
    }

    fn subscribe(&self) -> broadcast::Receiver<BusEvent> {
        self.redis.shared.bus.subscribe()
    }
}

/// A message heard on the bus channel: handed to this process's
/// subscribers unless this process published it (they had it already).
pub(super) fn heard(shared: &Shared, payload: &[u8]) {
    match serde_json::from_slice::<Envelope>(payload) {
        Ok(envelope) if envelope.origin == shared.origin => {}
        Ok(envelope) => {
            let _ = shared.bus.send(envelope.event);
        }
        Err(error) => {
            tracing::warn!(target: LOG_TARGET, "a message on the Redis bus channel is not a bus event: {error}");
        }
    }
}
