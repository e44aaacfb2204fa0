//! Replicas of a server that share their state through Redis: tasks
//! ([`RedisTaskStore`]), the events their sessions hear ([`RedisEventBus`]),
//! and the sessions of 2025-11-25 clients with their stream events
//! ([`RedisSessionStore`], [`RedisEventStore`]), so a plain round-robin load
//! balancer, not sticky, sits in front of any number of them.
//!
//! Needs the `redis` cargo feature. One [`Redis`] per process connects once
//! and hands out all four; [`McpServer::redis`](super::McpServer::redis)
//! puts them all in place:
//!
//! ```no_run
//! # async fn run(registry: dsh_kit::Registry) -> Result<(), Box<dyn std::error::Error>> {
//! use dsh_kit::mcp::McpServer;
//! use dsh_kit::mcp::redis::Redis;
//!
//! let redis = Redis::connect("redis://127.0.0.1:6379/", "my-server").await?;
//! let server = McpServer::new(registry).redis(&redis);
//! let http = server.serve_http("127.0.0.1:8080".parse()?).await?;
//! # Ok(()) }
//! ```
//!
//! What it keeps, under the key prefix given (one per deployment):
//!
//! - `PREFIX:task:ID`, a hash of the task's record and status, expiring
//!   with the task; `PREFIX:tasks`, the live tasks by expiry, and
//!   `PREFIX:leases`, the running ones by lease deadline; `PREFIX:cancel:ID`
//!   marks a cancel. Every state change is one Lua script: atomic, and an
//!   ended task is never written again (its result is stored once).
//! - A replica renews the lease of every task it runs; a task whose lease
//!   lapses (its replica died, or lost Redis for longer than the lease)
//!   turns `failed`, saying so, at the next look at it by any replica.
//! - `PREFIX:session:ID`, a session's `initialize`, and
//!   `PREFIX:stream:ID` with its counter, a stream's last events; both
//!   expire.
//! - Channels `PREFIX:bus` (the [`BusEvent`](super::BusEvent)s) and
//!   `PREFIX:cancel` (task ids to stop at once).
//!
//! Every key has a time to live. What is read back is bounded in size and
//! checked; a record that does not parse is an error naming its key, never
//! a panic. A command that fails because Redis went away is retried (the
//! connection reconnects by itself) for up to [`DEFAULT_RETRY_FOR`], so a
//! task that ends while Redis restarts still stores its result. Redis
//! Cluster is not supported: the scripts touch keys they derive.

mod bus;
mod sessions;
mod task_store;

use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use futures_util::StreamExt;
use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use tokio::sync::broadcast;
use tokio_util::sync::CancellationToken;
use uuid::Uuid;

use super::bus::BUS_CAPACITY;

pub use bus::RedisEventBus;
pub use sessions::{RedisEventStore, RedisSessionStore};
pub use task_store::{DEFAULT_LEASE, RedisTaskStore};

/// How long a command that failed because Redis is unreachable is retried
/// before its error is given up to the caller: 30 seconds.
pub const DEFAULT_RETRY_FOR: Duration = Duration::from_secs(30);

/// The longest key prefix taken.
const MAX_PREFIX: usize = 128;

/// The largest message taken from a channel.
const MAX_MESSAGE_BYTES: usize = 64 * 1024;

/// Why Redis could not be used.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RedisError {
    /// The URL is not a Redis URL.
    #[error("`{url}` is not a Redis URL")]
    Url {
        /// The URL, without its password.
        url: String,
        /// Why.
        #[source]
        source: redis::RedisError,
    },
    /// The key prefix is empty, too long, or holds a character other than
    /// ASCII letters, digits, `-`, `_`, `.` and `:`.
    #[error("the key prefix `{0}` is not 1 to 128 ASCII letters, digits, `-`, `_`, `.` or `:`")]
    Prefix(String),
    /// Redis did not answer, or answered with an error.
    #[error("Redis failed: {0}")]
    Command(#[from] redis::RedisError),
    /// What Redis holds under `key` is not what this module stores there.
    #[error("the Redis key `{key}` holds no valid record: {why}")]
    Corrupt {
        /// The key.
        key: String,
        /// What is wrong with it.
        why: String,
    },
}

/// One connection to Redis for a process, and the state it shares with the
/// other replicas under a key prefix: cloning shares it. Hands out the task
/// store, event bus, session store and event store.
#[derive(Clone)]
pub struct Redis {
    shared: Arc<Shared>,
}

struct Shared {
    client: redis::Client,
    manager: ConnectionManager,
    prefix: String,
    /// This process, as the bus names the origin of an event.
    origin: String,
    retry_for: Duration,
    /// The bus events other replicas published.
    bus: broadcast::Sender<crate::mcp::BusEvent>,
    /// The task ids whose cancel any replica asked for.
    cancels: broadcast::Sender<String>,
    /// Whether the subscriber runs.
    subscribed: Mutex<bool>,
    /// The runtime `connect` ran on, where background work is spawned, so
    /// that a handle used from another thread (a resource update announced
    /// from a file watcher) needs no runtime of its own.
    runtime: tokio::runtime::Handle,
    /// Stops the subscriber and the lease keeper when the last handle drops.
    _stop: tokio_util::sync::DropGuard,
    stopped: CancellationToken,
}

impl std::fmt::Debug for Redis {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Redis")
            .field("prefix", &self.shared.prefix)
            .finish_non_exhaustive()
    }
}

impl Redis {
    /// Connects to Redis at `url` (`redis://[:PASSWORD@]HOST[:PORT][/DB]`),
    /// keeping this deployment's keys and channels under `prefix`. Fails
    /// when Redis does not answer. Background work (the subscriber, lease
    /// renewals, publishing) runs on the tokio runtime this is called on.
    pub async fn connect(url: &str, prefix: &str) -> Result<Self, RedisError> {
        let valid = !prefix.is_empty()
            && prefix.len() <= MAX_PREFIX
            && prefix
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"-_.:".contains(&b));
        if !valid {
            return Err(RedisError::Prefix(
                prefix.chars().take(MAX_PREFIX).collect(),
            ));
        }
        let client = redis::Client::open(url).map_err(|source| RedisError::Url {
            url: without_password(url),
            source,
        })?;
        let config = ConnectionManagerConfig::new()
            .set_connection_timeout(Some(Duration::from_secs(2)))
            .set_response_timeout(Some(Duration::from_secs(10)))
            .set_number_of_retries(2)
            .set_max_delay(Duration::from_millis(500));
        let manager = client.get_connection_manager_with_config(config).await?;
        let stopped = CancellationToken::new();
        let redis = Redis {
            shared: Arc::new(Shared {
                client,
                manager,
                prefix: prefix.to_owned(),
                origin: Uuid::new_v4().to_string(),
                retry_for: DEFAULT_RETRY_FOR,
                bus: broadcast::channel(BUS_CAPACITY).0,
                cancels: broadcast::channel(BUS_CAPACITY).0,
                subscribed: Mutex::new(false),
                runtime: tokio::runtime::Handle::current(),
                _stop: stopped.clone().drop_guard(),
                stopped,
            }),
        };
        redis.subscribe();
        Ok(redis)
    }

    /// The task store on this connection: leases of [`DEFAULT_LEASE`].
    pub fn task_store(&self) -> RedisTaskStore {
        RedisTaskStore::new(self.clone(), DEFAULT_LEASE)
    }

    /// The event bus on this connection.
    pub fn event_bus(&self) -> RedisEventBus {
        RedisEventBus::new(self.clone())
    }

    /// The session store on this connection: a session is kept a day after
    /// its `initialize`, or until it is closed.
    pub fn session_store(&self) -> RedisSessionStore {
        RedisSessionStore::new(self.clone())
    }

    /// The event store on this connection: a stream keeps its last 1,000
    /// events for an hour after the last.
    pub fn event_store(&self) -> RedisEventStore {
        RedisEventStore::new(self.clone())
    }

    /// The key prefix.
    pub fn prefix(&self) -> &str {
        &self.shared.prefix
    }

    fn key(&self, parts: &[&str]) -> String {
        let mut key = self.shared.prefix.clone();
        for part in parts {
            key.push(':');
            key.push_str(part);
        }
        key
    }

    fn connection(&self) -> ConnectionManager {
        self.shared.manager.clone()
    }

    /// Runs `command` until it succeeds, fails for a reason other than
    /// Redis being unreachable, or [`DEFAULT_RETRY_FOR`] passed.
    async fn retried<T, F, Fut>(&self, mut command: F) -> Result<T, redis::RedisError>
    where
        F: FnMut(ConnectionManager) -> Fut,
        Fut: Future<Output = Result<T, redis::RedisError>>,
    {
        let deadline = tokio::time::Instant::now() + self.shared.retry_for;
        let mut delay = Duration::from_millis(50);
        loop {
            match command(self.connection()).await {
                Ok(value) => return Ok(value),
                Err(error) if unreachable(&error) && tokio::time::Instant::now() < deadline => {
                    tracing::debug!("Redis is unreachable, retrying: {error}");
                    tokio::time::sleep(delay).await;
                    delay = (delay * 2).min(Duration::from_secs(1));
                }
                Err(error) => return Err(error),
            }
        }
    }

    /// Starts, once, the subscriber that hears the channels of this prefix,
    /// reconnecting whenever Redis goes away.
    fn subscribe(&self) {
        let mut subscribed = self
            .shared
            .subscribed
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if *subscribed {
            return;
        }
        *subscribed = true;
        let weak = Arc::downgrade(&self.shared);
        let stopped = self.shared.stopped.clone();
        let client = self.shared.client.clone();
        let bus_channel = self.key(&["bus"]);
        let cancel_channel = self.key(&["cancel"]);
        self.shared.runtime.spawn(async move {
            let mut delay = Duration::from_millis(50);
            while !stopped.is_cancelled() {
                let listened = async {
                    let mut pubsub = client.get_async_pubsub().await?;
                    pubsub.subscribe(&bus_channel).await?;
                    pubsub.subscribe(&cancel_channel).await?;
                    Ok::<_, redis::RedisError>(pubsub)
                };
                let pubsub = tokio::select! {
                    () = stopped.cancelled() => return,
                    pubsub = listened => pubsub,
                };
                match pubsub {
                    Ok(mut pubsub) => {
                        delay = Duration::from_millis(50);
                        let mut messages = pubsub.on_message();
                        loop {
                            let message = tokio::select! {
                                () = stopped.cancelled() => return,
                                message = messages.next() => message,
                            };
                            let Some(message) = message else { break };
                            let Some(shared) = weak.upgrade() else { return };
                            let payload = message.get_payload_bytes();
                            if payload.len() > MAX_MESSAGE_BYTES {
                                tracing::warn!(
                                    "a Redis message of {} bytes on `{}` was dropped: the limit is {MAX_MESSAGE_BYTES}",
                                    payload.len(),
                                    message.get_channel_name()
                                );
                                continue;
                            }
                            if message.get_channel_name() == cancel_channel {
                                if let Ok(id) = std::str::from_utf8(payload) {
                                    let _ = shared.cancels.send(id.to_owned());
                                }
                            } else {
                                bus::heard(&shared, payload);
                            }
                        }
                        tracing::warn!("the Redis subscription ended; reconnecting");
                    }
                    Err(error) => {
                        tracing::warn!("subscribing to Redis failed, retrying: {error}");
                    }
                }
                tokio::select! {
                    () = stopped.cancelled() => return,
                    () = tokio::time::sleep(delay) => {}
                }
                delay = (delay * 2).min(Duration::from_secs(1));
            }
        });
    }
}

/// Whether `error` means Redis could not be reached (worth retrying), not
/// that it refused the command.
fn unreachable(error: &redis::RedisError) -> bool {
    error.is_io_error()
        || error.is_connection_dropped()
        || error.is_connection_refusal()
        || error.is_timeout()
        || error.kind() == redis::ErrorKind::Server(redis::ServerErrorKind::BusyLoading)
}

/// `url` with any password replaced by `***`, for an error message.
fn without_password(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(scheme), Some(at)) if at > scheme => {
            format!("{}***{}", &url[..scheme + 3], &url[at..])
        }
        _ => url.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_password_never_reaches_an_error_message() {
        assert_eq!(
            without_password("redis://:hunter2@db:6379/0"),
            "redis://***@db:6379/0"
        );
        assert_eq!(without_password("redis://db/"), "redis://db/");
    }
}
