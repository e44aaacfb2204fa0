//! Replicas of a server that share their state through Redis: tasks
//! ([`RedisTaskStore`]), the events their sessions hear ([`RedisEventBus`]),
//! and the sessions of 2025-11-25 clients with their stream events
//! ([`RedisSessionStore`], [`RedisEventStore`]), so a plain round-robin load
//! balancer, not sticky, sits in front of any number of them.
//!
//! Needs the `redis` cargo feature. One [`Redis`] per process connects once
//! and hands out all four; [`McpServer::redis`](crate::mcp::McpServer::redis)
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
//! - `PREFIX:session:ID`, a session's `initialize`, for a day
//!   ([`Redis::with_session_ttl`]) after its last use (renewed in the
//!   background at most every quarter of that), or until it is deleted.
//! - `PREFIX:events:ID:STREAM`, the last events of a stream that went out
//!   as a stream (`text/event-stream`) on session `ID`, and
//!   `PREFIX:streams:ID`, that session's streams: they expire with the
//!   session key, to the millisecond, and go with it on `DELETE`. A reply
//!   that went out as one JSON message keeps nothing. A `Last-Event-ID`
//!   replays only a stream of the session it is sent on.
//! - Channels `PREFIX:bus` (the [`BusEvent`](crate::mcp::BusEvent)s),
//!   `PREFIX:cancel` (task ids to stop at once) and `PREFIX:ended` (sessions
//!   deleted).
//!
//! Every key has a time to live. What is read back is bounded in size and
//! checked; a record that does not parse is an error naming its key, never
//! a panic. Redis Cluster is not supported: the scripts touch keys they
//! derive.
//!
//! # When Redis is down or frozen
//!
//! No request waits on Redis longer than [`Redis::wait`]
//! ([`DEFAULT_WAIT`], 3 s; a command failing because Redis went away is
//! retried within it, the connection reconnecting by itself):
//!
//! - A request whose answer needs no Redis goes on: a call on a session
//!   this replica holds, with no task. Stream events are assigned on the
//!   replica and written to Redis in the background.
//! - A request whose answer needs Redis (a session another replica opened,
//!   a task, `initialize`, `DELETE`) gets, within the wait, HTTP `503` with
//!   `Retry-After` and a JSON-RPC error of code
//!   [`STORE_UNAVAILABLE`](crate::mcp::STORE_UNAVAILABLE). An `initialize`
//!   whose session could not be stored is refused so, and its session
//!   closed: no session exists that only one replica knows.
//! - A task that ends (or reports progress) while Redis is away keeps its
//!   record on its replica, which answers polls from it and writes it as
//!   soon as Redis answers, even over a `failed` its lapsed lease earned
//!   meanwhile. At most [`MAX_PENDING_TASK_BYTES`] of records wait so; past
//!   that the oldest is dropped with a warning (its task then ends `failed`
//!   when its lease lapses).
//! - Replicas hear of a session ended (`DELETE`) elsewhere over the channel
//!   `PREFIX:ended` and close it at once (it gets `404`); a replica that
//!   was cut off checks every session it holds once it hears Redis again.
//! - Losing Redis and finding it again are logged as warnings (target
//!   `dsh_kit::mcp::redis`), once each.

mod bus;
mod sessions;
mod task_store;

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use futures_util::StreamExt;
use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use tokio::sync::broadcast;
use tokio_util::sync::CancellationToken;
use uuid::Uuid;

use crate::Backoff;
use crate::mcp::stores::bus::BUS_CAPACITY;
use crate::mcp::stores::outage::Ended;

pub use bus::RedisEventBus;
pub use sessions::{RedisEventStore, RedisSessionStore};
pub use task_store::{DEFAULT_LEASE, MAX_PENDING_TASK_BYTES, RedisTaskStore};

/// The target of this module's log lines, the one hosts filter on.
const LOG_TARGET: &str = "dsh_kit::mcp::redis";

/// How long a request waits on Redis before it is refused with `503` and
/// `Retry-After`: 3 seconds. A command that failed because Redis is
/// unreachable is retried within it.
pub const DEFAULT_WAIT: Duration = Duration::from_secs(3);

/// How long a session is kept in Redis after its last use, unless
/// deleted: a day.
pub const DEFAULT_SESSION_TTL: Duration = Duration::from_secs(24 * 3600);

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
    /// Redis answered with an error.
    #[error("Redis failed: {0}")]
    Command(#[from] redis::RedisError),
    /// Redis did not answer within the wait ([`Redis::wait`]): it is down,
    /// unreachable or frozen.
    #[error("Redis did not answer within {} ms: {why}", waited.as_millis())]
    Unavailable {
        /// How long was waited.
        waited: Duration,
        /// The last error seen, or that nothing came back.
        why: String,
    },
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
    /// How long a request waits on Redis, in milliseconds.
    wait_ms: AtomicU64,
    /// How long a session is kept, in milliseconds.
    session_ttl_ms: AtomicU64,
    /// Whether the last command found Redis: a change is logged once.
    up: AtomicBool,
    /// The sessions deleted on any replica, as the channel tells them.
    ended: broadcast::Sender<crate::mcp::stores::outage::Ended>,
    /// The streams whose events are kept in this process until it is
    /// known whether they went out as streams.
    streams: sessions::Streams,
    /// When this process last renewed each session's time to live.
    touched: Mutex<std::collections::HashMap<String, std::time::Instant>>,
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
                wait_ms: AtomicU64::new(millis(DEFAULT_WAIT)),
                session_ttl_ms: AtomicU64::new(millis(DEFAULT_SESSION_TTL)),
                up: AtomicBool::new(true),
                ended: broadcast::channel(BUS_CAPACITY).0,
                streams: sessions::Streams::default(),
                touched: Mutex::default(),
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

    /// How long a request waits on Redis (every handle of this connection):
    /// a request whose answer needs Redis, which does not answer within
    /// `wait`, gets `503` with `Retry-After`. Defaults to [`DEFAULT_WAIT`],
    /// 3 s; at least 10 ms.
    pub fn with_wait(self, wait: Duration) -> Self {
        let wait = wait.max(Duration::from_millis(10));
        self.shared.wait_ms.store(millis(wait), Ordering::Relaxed);
        self
    }

    /// How long a request waits on Redis; see [`with_wait`](Self::with_wait).
    pub fn wait(&self) -> Duration {
        Duration::from_millis(self.shared.wait_ms.load(Ordering::Relaxed))
    }

    /// How long a session is kept in Redis after its last use, unless
    /// deleted (every handle of this connection); the events of its
    /// streams expire with it. Each replica renews it, in the background,
    /// at most every quarter of it, so a session in use lives on. Defaults to [`DEFAULT_SESSION_TTL`], a day;
    /// at least a second.
    pub fn with_session_ttl(self, ttl: Duration) -> Self {
        let ttl = ttl.max(Duration::from_secs(1));
        self.shared
            .session_ttl_ms
            .store(millis(ttl), Ordering::Relaxed);
        self
    }

    fn session_ttl(&self) -> Duration {
        Duration::from_millis(self.shared.session_ttl_ms.load(Ordering::Relaxed))
    }

    /// The session store on this connection: a session is kept
    /// [`with_session_ttl`](Self::with_session_ttl) (a day) after its
    /// `initialize`, or until it is deleted.
    pub fn session_store(&self) -> RedisSessionStore {
        RedisSessionStore::new(self.clone())
    }

    /// The event store on this connection: a stream that went out as a
    /// stream keeps its last 1,000 events, for as long as its session.
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
    /// Redis being unreachable, or the [wait](Self::wait) passed: then
    /// [`RedisError::Unavailable`].
    async fn retried<T, F, Fut>(&self, mut command: F) -> Result<T, RedisError>
    where
        F: FnMut(ConnectionManager) -> Fut,
        Fut: Future<Output = Result<T, redis::RedisError>>,
    {
        let wait = self.wait();
        let mut last = String::from("no answer came back");
        let attempts = async {
            // Until the wait ends the attempts.
            let backoff = Backoff::new(Duration::from_millis(20), Duration::from_millis(500));
            let mut attempt = 0;
            loop {
                match command(self.connection()).await {
                    Ok(value) => return Ok(value),
                    Err(error) if unreachable(&error) => {
                        tracing::debug!(target: LOG_TARGET, "Redis is unreachable, retrying: {error}");
                        last = error.to_string();
                        tokio::time::sleep(backoff.delay(attempt)).await;
                        attempt = attempt.saturating_add(1);
                    }
                    Err(error) => return Err(RedisError::Command(error)),
                }
            }
        };
        let outcome = match tokio::time::timeout(wait, attempts).await {
            Ok(outcome) => outcome,
            Err(_) => Err(RedisError::Unavailable {
                waited: wait,
                why: last,
            }),
        };
        self.saw(outcome.as_ref().map(drop));
        outcome
    }

    /// Logs, once each, that Redis went away or came back.
    fn saw(&self, outcome: Result<(), &RedisError>) {
        match outcome {
            Err(error @ RedisError::Unavailable { .. }) => {
                if self.shared.up.swap(false, Ordering::Relaxed) {
                    tracing::warn!(target: LOG_TARGET,
                        "Redis (prefix `{}`) is unreachable; requests that need it get 503 with Retry-After, finished task results wait in memory: {error}",
                        self.shared.prefix
                    );
                }
            }
            _ => {
                if !self.shared.up.swap(true, Ordering::Relaxed) {
                    tracing::warn!(target: LOG_TARGET, "Redis (prefix `{}`) answers again", self.shared.prefix);
                }
            }
        }
    }

    /// The wait as the `Retry-After` a refused client gets: at least 1 s.
    fn retry_after(&self) -> Duration {
        self.wait().max(Duration::from_secs(1))
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
        let ended_channel = self.key(&["ended"]);
        self.shared.runtime.spawn(async move {
            // Until the connection is dropped: Redis may come back any time.
            let backoff = Backoff::new(Duration::from_millis(50), Duration::from_secs(1));
            let mut attempt = 0;
            while !stopped.is_cancelled() {
                let listened = async {
                    let mut pubsub = client.get_async_pubsub().await?;
                    pubsub.subscribe(&bus_channel).await?;
                    pubsub.subscribe(&cancel_channel).await?;
                    pubsub.subscribe(&ended_channel).await?;
                    Ok::<_, redis::RedisError>(pubsub)
                };
                let pubsub = tokio::select! {
                    () = stopped.cancelled() => return,
                    pubsub = listened => pubsub,
                };
                match pubsub {
                    Ok(mut pubsub) => {
                        attempt = 0;
                        // Whatever was ended while unsubscribed was missed.
                        if let Some(shared) = weak.upgrade() {
                            let _ = shared.ended.send(Ended::Resync);
                        }
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
                                tracing::warn!(target: LOG_TARGET,
                                    "a Redis message of {} bytes on `{}` was dropped: the limit is {MAX_MESSAGE_BYTES}",
                                    payload.len(),
                                    message.get_channel_name()
                                );
                                continue;
                            }
                            let channel = message.get_channel_name();
                            if channel == cancel_channel {
                                if let Ok(id) = std::str::from_utf8(payload) {
                                    let _ = shared.cancels.send(id.to_owned());
                                }
                            } else if channel == ended_channel {
                                if let Ok(id) = std::str::from_utf8(payload) {
                                    let _ = shared.ended.send(Ended::Session(id.to_owned()));
                                }
                            } else {
                                bus::heard(&shared, payload);
                            }
                        }
                        tracing::warn!(target: LOG_TARGET, "the Redis subscription ended; reconnecting");
                    }
                    Err(error) => {
                        tracing::warn!(target: LOG_TARGET, "subscribing to Redis failed, retrying: {error}");
                    }
                }
                tokio::select! {
                    () = stopped.cancelled() => return,
                    () = tokio::time::sleep(backoff.delay(attempt)) => {}
                }
                attempt = attempt.saturating_add(1);
            }
        });
    }
}

fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
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
