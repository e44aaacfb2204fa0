//! rmcp's [`SessionStore`] and [`EventStore`] on Redis: a 2025-11-25
//! client's session, opened on one replica, is restored on any other that
//! gets one of its requests, a stream it lost resumes anywhere, and a
//! session deleted on one replica ends on all.

use std::collections::{HashMap, VecDeque};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use futures_util::future::BoxFuture;
use redis::Script;
use rmcp::model::ServerJsonRpcMessage;
use rmcp::transport::streamable_http_server::session::{
    EventId, EventStore, EventStoreError, EventStream, ServerSseMessage, SessionState,
    SessionStore, SessionStoreError,
};
use serde::{Deserialize, Serialize};

use super::{Redis, RedisError};
use crate::mcp::stores::outage::{self, Ended, SharedSessions};

/// The target of this module's log lines, the one hosts filter on.
const LOG_TARGET: &str = "dsh_kit::mcp::redis::sessions";

/// The largest session record read back: an `initialize`'s parameters.
const MAX_SESSION_BYTES: usize = 256 * 1024;

/// The longest session or stream id taken (rmcp's are UUIDs, plus a suffix
/// for a stream).
const MAX_ID: usize = 256;

/// The most streams whose fate (a stream or one JSON reply) is not known
/// yet kept in memory; past it, the least recently used is dropped.
const MAX_UNDECIDED_STREAMS: usize = 4096;

/// How long a stream whose fate is not known yet keeps its events.
const UNDECIDED_FOR: Duration = Duration::from_secs(60);

/// The most bytes of events held for streams whose fate is not known yet;
/// past it, the least recently used stream's are dropped.
const MAX_UNDECIDED_BYTES: usize = 16 * 1024 * 1024;

/// The most events a stream keeps for a client to resume from.
const MAX_STREAM_EVENTS: usize = 1000;

/// The largest event read back.
const MAX_EVENT_BYTES: usize = 16 * 1024 * 1024;

/// The most bytes of events one replay reads back; the rest waits for the
/// client's next resumption, from the last event it got.
const MAX_REPLAY_BYTES: usize = 64 * 1024 * 1024;

/// Keeps a session's `initialize` in Redis (`PREFIX:session:ID`, for a day
/// or until the session is deleted), so any replica restores the session.
/// A store or load that finds no Redis within [`Redis::wait`] fails at
/// once, and the request it serves is refused with `503` and
/// `Retry-After` (an `initialize` with it, its session closed).
/// Give it to [`McpServer::session_store`](crate::mcp::McpServer::session_store),
/// or use [`McpServer::redis`](crate::mcp::McpServer::redis).
#[derive(Clone, Debug)]
pub struct RedisSessionStore {
    redis: Redis,
}

impl RedisSessionStore {
    pub(super) fn new(redis: Redis) -> Self {
        RedisSessionStore { redis }
    }

    fn key(&self, id: &str) -> Result<String, RedisError> {
        checked(id)?;
        Ok(self.redis.key(&["session", id]))
    }
}

/// An id from a client: bounded and printable, or an error.
fn checked(id: &str) -> Result<(), RedisError> {
    if id.is_empty() || id.len() > MAX_ID || !id.bytes().all(|b| b.is_ascii_graphic()) {
        return Err(RedisError::Corrupt {
            key: id.chars().take(64).collect(),
            why: format!("a session or stream id is 1 to {MAX_ID} printable ASCII characters"),
        });
    }
    Ok(())
}

/// Reads `key` as a string of at most `max` bytes.
async fn bounded(redis: &Redis, key: &str, max: usize) -> Result<Option<Vec<u8>>, RedisError> {
    let bytes: Option<Vec<u8>> = redis
        .retried(|mut connection| {
            let key = key.to_owned();
            async move {
                redis::cmd("GETRANGE")
                    .arg(key)
                    .arg(0)
                    .arg(max)
                    .query_async::<Option<Vec<u8>>>(&mut connection)
                    .await
            }
        })
        .await?;
    match bytes {
        Some(bytes) if bytes.is_empty() => Ok(None),
        Some(bytes) if bytes.len() > max => Err(RedisError::Corrupt {
            key: key.to_owned(),
            why: format!("it is larger than {max} bytes"),
        }),
        other => Ok(other),
    }
}

/// `error`, told to the request being served when it means Redis did not
/// answer.
fn noted(redis: &Redis, error: RedisError) -> RedisError {
    if matches!(error, RedisError::Unavailable { .. }) {
        outage::note_unavailable(redis.retry_after());
    }
    error
}

#[async_trait::async_trait]
impl SessionStore for RedisSessionStore {
    async fn load(&self, session_id: &str) -> Result<Option<SessionState>, SessionStoreError> {
        let key = self.key(session_id)?;
        let Some(bytes) = bounded(&self.redis, &key, MAX_SESSION_BYTES)
            .await
            .map_err(|error| noted(&self.redis, error))?
        else {
            return Ok(None);
        };
        let state = serde_json::from_slice(&bytes).map_err(|error| RedisError::Corrupt {
            key,
            why: error.to_string(),
        })?;
        Ok(Some(state))
    }

    async fn store(&self, session_id: &str, state: &SessionState) -> Result<(), SessionStoreError> {
        let key = self.key(session_id)?;
        let json = serde_json::to_string(state)?;
        let ttl = super::millis(self.redis.session_ttl());
        self.redis
            .retried(|mut connection| {
                let (key, json) = (key.clone(), json.clone());
                async move {
                    redis::cmd("SET")
                        .arg(key)
                        .arg(json)
                        .arg("PX")
                        .arg(ttl)
                        .query_async::<()>(&mut connection)
                        .await
                }
            })
            .await
            .map_err(|error| noted(&self.redis, error))?;
        Ok(())
    }

    async fn delete(&self, session_id: &str) -> Result<(), SessionStoreError> {
        checked(session_id)?;
        self.redis
            .end_session(session_id)
            .await
            .map_err(|error| noted(&self.redis, error))?;
        Ok(())
    }
}

/// Ends a session: its key, its streams' events, their index; and tells
/// every replica. KEYS: session, streams index. ARGV: the events key
/// prefix (`PREFIX:events:ID:`), the channel, the id.
const END: &str = r"
for _, tag in ipairs(redis.call('SMEMBERS', KEYS[2])) do
  redis.call('DEL', ARGV[1] .. tag)
end
redis.call('DEL', KEYS[1], KEYS[2])
redis.call('PUBLISH', ARGV[2], ARGV[3])
return 1
";

/// Renews a live session's time to live, and its streams', never
/// shortening it. KEYS: session,
/// streams index. ARGV: the time to live (ms), the events key prefix.
const TOUCH: &str = r"
local left = redis.call('PTTL', KEYS[1])
if left < 0 then return 0 end
if left >= tonumber(ARGV[1]) then return 1 end
redis.call('PEXPIRE', KEYS[1], ARGV[1])
redis.call('PEXPIRE', KEYS[2], ARGV[1])
for _, tag in ipairs(redis.call('SMEMBERS', KEYS[2])) do
  redis.call('PEXPIRE', ARGV[2] .. tag, ARGV[1])
end
return 1
";

/// The most sessions whose last renewal this process remembers; past it,
/// those not renewed within a time to live are forgotten.
const MAX_TOUCHED: usize = 65_536;

/// Adds events to a stream of a live session, expiring with it; adds
/// nothing to a session gone. KEYS: session, stream, streams index. ARGV:
/// the stream's tag, the most kept, then each event's number and JSON.
const KEEP: &str = r"
local left = redis.call('PTTL', KEYS[1])
if left <= 0 then return 0 end
for i = 3, #ARGV, 2 do
  redis.call('ZADD', KEYS[2], ARGV[i], ARGV[i] .. ' ' .. ARGV[i + 1])
end
redis.call('ZREMRANGEBYRANK', KEYS[2], 0, -1 - tonumber(ARGV[2]))
redis.call('SADD', KEYS[3], ARGV[1])
redis.call('PEXPIRE', KEYS[2], left)
redis.call('PEXPIRE', KEYS[3], left)
return 1
";

impl Redis {
    /// Ends session `id` in Redis and tells every replica (`PREFIX:ended`).
    pub(super) async fn end_session(&self, id: &str) -> Result<(), RedisError> {
        self.shared
            .touched
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(id);
        let session = self.key(&["session", id]);
        let streams = self.key(&["streams", id]);
        let events = format!("{}:", self.key(&["events", id]));
        let channel = self.key(&["ended"]);
        let script = Script::new(END);
        self.retried(|mut connection| {
            let mut invocation = script.prepare_invoke();
            invocation
                .key(&session)
                .key(&streams)
                .arg(&events)
                .arg(&channel)
                .arg(id);
            async move { invocation.invoke_async::<i64>(&mut connection).await }
        })
        .await
        .map(drop)
    }

    /// Writes `events` of stream `tag` on `session`, in the background.
    fn keep_events(&self, session: &str, tag: &str, events: Vec<(u64, String)>) {
        if events.is_empty() {
            return;
        }
        let redis = self.clone();
        let keys = [
            self.key(&["session", session]),
            self.key(&["events", session, tag]),
            self.key(&["streams", session]),
        ];
        let tag = tag.to_owned();
        self.shared.runtime.spawn(async move {
            let script = Script::new(KEEP);
            let kept = redis
                .retried(|mut connection| {
                    let mut invocation = script.prepare_invoke();
                    for key in &keys {
                        invocation.key(key);
                    }
                    invocation.arg(&tag).arg(MAX_STREAM_EVENTS);
                    for (n, json) in &events {
                        invocation.arg(*n).arg(json);
                    }
                    async move { invocation.invoke_async::<i64>(&mut connection).await }
                })
                .await;
            if let Err(error) = kept {
                tracing::debug!(target: LOG_TARGET, "stream events were not kept in Redis: {error}");
            }
        });
    }
}

impl SharedSessions for Redis {
    fn end<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<(), Duration>> {
        Box::pin(async move {
            if checked(id).is_err() {
                return Ok(());
            }
            match self.end_session(id).await {
                Ok(()) => Ok(()),
                Err(error) => {
                    tracing::debug!(target: LOG_TARGET, "ending session {id} in Redis failed: {error}");
                    Err(self.retry_after())
                }
            }
        })
    }

    fn alive<'a>(&'a self, ids: &'a [String]) -> BoxFuture<'a, Result<Vec<bool>, Duration>> {
        Box::pin(async move {
            let keys: Vec<String> = ids.iter().map(|id| self.key(&["session", id])).collect();
            self.retried(|mut connection| {
                let mut pipe = redis::pipe();
                for key in &keys {
                    pipe.exists(key);
                }
                async move { pipe.query_async::<Vec<bool>>(&mut connection).await }
            })
            .await
            .map_err(|_| self.retry_after())
        })
    }

    fn touch(&self, id: &str) {
        if checked(id).is_err() {
            return;
        }
        let ttl = self.session_ttl();
        {
            let mut touched = self
                .shared
                .touched
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            if touched.get(id).is_some_and(|at| at.elapsed() < ttl / 4) {
                return;
            }
            if touched.len() >= MAX_TOUCHED {
                touched.retain(|_, at| at.elapsed() < ttl);
            }
            touched.insert(id.to_owned(), Instant::now());
        }
        let weak = std::sync::Arc::downgrade(&self.shared);
        let session = self.key(&["session", id]);
        let streams = self.key(&["streams", id]);
        let events = format!("{}:", self.key(&["events", id]));
        let id = id.to_owned();
        self.shared.runtime.spawn(async move {
            let script = Script::new(TOUCH);
            let used = Instant::now();
            // A use while Redis is away renews the session once it is back,
            // while the session would still live.
            while used.elapsed() < ttl {
                let Some(shared) = weak.upgrade() else { return };
                let redis = Redis { shared };
                let ttl = super::millis(ttl.saturating_sub(used.elapsed()));
                let renewed = redis
                    .retried(|mut connection| {
                        let mut invocation = script.prepare_invoke();
                        invocation.key(&session).key(&streams).arg(ttl).arg(&events);
                        async move { invocation.invoke_async::<i64>(&mut connection).await }
                    })
                    .await;
                match renewed {
                    Ok(_) => return,
                    Err(RedisError::Unavailable { .. }) => {}
                    Err(error) => {
                        tracing::debug!(target: LOG_TARGET, "renewing session {id} in Redis failed: {error}");
                        return;
                    }
                }
                drop(redis);
                tokio::time::sleep(Duration::from_millis(500)).await;
            }
        });
    }

    fn endings(&self) -> tokio::sync::broadcast::Receiver<Ended> {
        self.shared.ended.subscribe()
    }

    fn keep_stream(&self, event_id: &str, session: &str) {
        let Some((_, tag)) = event_id.split_once(':') else {
            return;
        };
        if checked(session).is_err() {
            return;
        }
        let events = {
            let mut table = self.shared.streams.table();
            let Some(stream) = table.streams.get_mut(tag) else {
                return;
            };
            if !matches!(stream.fate, Fate::Undecided) {
                return;
            }
            stream.fate = Fate::Kept(session.to_owned());
            let events: Vec<_> = stream.events.drain(..).collect();
            let (bytes, ended) = (std::mem::take(&mut stream.bytes), stream.ended);
            table.bytes -= bytes;
            if ended {
                table.remove(tag);
            }
            events
        };
        self.keep_events(session, tag, events);
    }

    fn drop_stream(&self, event_id: &str) {
        let Some((_, tag)) = event_id.split_once(':') else {
            return;
        };
        let mut table = self.shared.streams.table();
        let Some(stream) = table.streams.get_mut(tag) else {
            return;
        };
        if stream.ended {
            table.remove(tag);
            return;
        }
        // Its later events, until its last, are dropped as they come.
        stream.fate = Fate::Dropped;
        stream.events.clear();
        let bytes = std::mem::take(&mut stream.bytes);
        table.bytes -= bytes;
    }
}
/// One event as stored: its message and retry hint.
#[derive(Serialize, Deserialize)]
struct StoredEvent {
    message: Option<ServerJsonRpcMessage>,
    retry_ms: Option<u64>,
}

/// What becomes of a stream's events.
enum Fate {
    /// Not known yet: they are held here.
    Undecided,
    /// It went out as a stream on this session: they go to Redis.
    Kept(String),
    /// Nothing can resume it: they are dropped.
    Dropped,
}

/// The events of a stream, as this process numbers them, with those not
/// yet known to be worth keeping.
struct Stream {
    fate: Fate,
    /// The next event's number.
    next: u64,
    /// Events held until the stream's fate is known.
    events: VecDeque<(u64, String)>,
    /// The bytes of `events`.
    bytes: usize,
    /// Its last message (a result or an error) went by.
    ended: bool,
    touched: Instant,
}

/// The streams of this process's sessions, by tag.
#[derive(Default)]
pub(super) struct Streams {
    table: Mutex<Table>,
}

#[derive(Default)]
struct Table {
    streams: HashMap<String, Stream>,
    /// The bytes of events held, all streams together.
    bytes: usize,
}

impl Table {
    fn remove(&mut self, tag: &str) -> Option<Stream> {
        let stream = self.streams.remove(tag)?;
        self.bytes -= stream.bytes;
        Some(stream)
    }

    /// Drops, from a full table, the streams whose fate stayed unknown too
    /// long, then the least recently used.
    fn prune(&mut self) {
        if self.streams.len() <= MAX_UNDECIDED_STREAMS && self.bytes <= MAX_UNDECIDED_BYTES {
            return;
        }
        let stale: Vec<String> = self
            .streams
            .iter()
            .filter(|(_, stream)| stream.touched.elapsed() >= UNDECIDED_FOR)
            .map(|(tag, _)| tag.clone())
            .collect();
        for tag in stale {
            self.remove(&tag);
        }
        while self.streams.len() > MAX_UNDECIDED_STREAMS || self.bytes > MAX_UNDECIDED_BYTES {
            let Some(oldest) = self
                .streams
                .iter()
                .min_by_key(|(_, stream)| stream.touched)
                .map(|(tag, _)| tag.clone())
            else {
                break;
            };
            self.remove(&oldest);
        }
    }
}

impl Streams {
    fn table(&self) -> std::sync::MutexGuard<'_, Table> {
        self.table.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The first number of a stream new to this process: microseconds since
/// the epoch, so numbers only grow, even for a stream forgotten and begun
/// again.
fn first_number() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(1, |since| u64::try_from(since.as_micros()).unwrap_or(1))
}

/// The events of a stream after a number, bounded. KEYS: stream. ARGV:
/// the number, how many, the largest event, the most bytes in all.
const REPLAY: &str = r"
local out = {}
local total = 0
local entries = redis.call('ZRANGEBYSCORE', KEYS[1], '(' .. ARGV[1], '+inf', 'LIMIT', 0, tonumber(ARGV[2]))
for _, entry in ipairs(entries) do
  if #entry > tonumber(ARGV[3]) then
    return redis.error_reply('an event is larger than ' .. ARGV[3] .. ' bytes')
  end
  total = total + #entry
  if total > tonumber(ARGV[4]) and #out > 0 then break end
  table.insert(out, entry)
end
return out
";

/// Keeps the events of session streams, so a client resumes a stream
/// (`Last-Event-ID`) on any replica: in Redis (`PREFIX:events:SESSION:TAG`,
/// the last 1,000 of each) only the streams that went out as streams, never
/// a reply sent as one JSON message, expiring with their session and
/// deleted with it. Events are numbered on the replica and written in the
/// background: a stream never waits on Redis (what is sent while Redis is
/// away is delivered, not kept). A `Last-Event-ID` replays only a stream of
/// the session it comes on. An event id is `N:TAG`.
/// Use it through [`McpServer::redis`](crate::mcp::McpServer::redis), which
/// tells it which streams went out as streams; given alone to
/// [`McpServer::event_store`](crate::mcp::McpServer::event_store), it keeps
/// only the session-wide (`GET`) streams.
#[derive(Clone, Debug)]
pub struct RedisEventStore {
    redis: Redis,
    replay: std::sync::Arc<Script>,
}

impl RedisEventStore {
    pub(super) fn new(redis: Redis) -> Self {
        RedisEventStore {
            redis,
            replay: std::sync::Arc::new(Script::new(REPLAY)),
        }
    }
}

/// rmcp's name for the stream of a session's `GET`.
const COMMON: &str = ":common";

#[async_trait::async_trait]
impl EventStore for RedisEventStore {
    async fn store_event(
        &self,
        stream_id: &str,
        event: &ServerSseMessage,
    ) -> Result<EventId, EventStoreError> {
        checked(stream_id)?;
        // A session's `GET` stream is on every replica that holds the
        // session: each numbers its own, under a tag of its own.
        let (tag, session) = match stream_id.strip_suffix(COMMON) {
            Some(session) => (
                format!("{}.common", self.redis.shared.origin),
                Some(session.to_owned()),
            ),
            None => (stream_id.to_owned(), None),
        };
        let stored = StoredEvent {
            message: event.message.as_deref().cloned(),
            retry_ms: event
                .retry
                .map(|retry| u64::try_from(retry.as_millis()).unwrap_or(u64::MAX)),
        };
        let json = serde_json::to_string(&stored)?;
        let last = matches!(
            event.message.as_deref(),
            Some(ServerJsonRpcMessage::Response(_) | ServerJsonRpcMessage::Error(_))
        );
        let (n, keep) = {
            let mut table = self.redis.shared.streams.table();
            table.prune();
            let key = match &session {
                Some(session) => format!("{session}{COMMON}"),
                None => tag.clone(),
            };
            let table = &mut *table;
            let stream = table.streams.entry(key.clone()).or_insert_with(|| Stream {
                fate: session.clone().map_or(Fate::Undecided, Fate::Kept),
                next: first_number(),
                events: VecDeque::new(),
                bytes: 0,
                ended: false,
                touched: Instant::now(),
            });
            let n = stream.next;
            stream.next += 1;
            stream.touched = Instant::now();
            stream.ended |= last;
            let keep = match &stream.fate {
                Fate::Kept(session) => Some(session.clone()),
                Fate::Dropped => None,
                Fate::Undecided => {
                    if stream.events.len() >= MAX_STREAM_EVENTS
                        && let Some((_, old)) = stream.events.pop_front()
                    {
                        stream.bytes -= old.len();
                        table.bytes -= old.len();
                    }
                    stream.bytes += json.len();
                    table.bytes += json.len();
                    stream.events.push_back((n, json.clone()));
                    None
                }
            };
            // A request's stream ends with its result: forget it once its
            // fate is known.
            let decided = !matches!(stream.fate, Fate::Undecided);
            if last && session.is_none() && decided {
                table.remove(&key);
            }
            (n, keep)
        };
        if let Some(session) = keep {
            self.redis.keep_events(&session, &tag, vec![(n, json)]);
        }
        Ok(format!("{n}:{tag}"))
    }

    async fn replay_events_after(
        &self,
        last_event_id: &str,
    ) -> Result<EventStream, EventStoreError> {
        let malformed = || RedisError::Corrupt {
            key: last_event_id.chars().take(64).collect(),
            why: "an event id is `N:TAG`, as this server gave it".to_owned(),
        };
        let (n, tag) = last_event_id.split_once(':').ok_or_else(malformed)?;
        let n: u64 = n.parse().map_err(|_| malformed())?;
        checked(tag)?;
        // Only a stream of the session the request is on.
        let Some(session) = outage::session() else {
            return Ok(Box::pin(futures_util::stream::empty()));
        };
        checked(&session)?;
        let stream = self.redis.key(&["events", &session, tag]);
        // Bounded in Redis, before anything crosses the wire: no event
        // larger than `MAX_EVENT_BYTES`, no more than `MAX_REPLAY_BYTES` in all.
        let entries: Vec<Vec<u8>> = self
            .redis
            .retried(|mut connection| {
                let mut invocation = self.replay.prepare_invoke();
                invocation
                    .key(&stream)
                    .arg(n)
                    .arg(MAX_STREAM_EVENTS)
                    .arg(MAX_EVENT_BYTES)
                    .arg(MAX_REPLAY_BYTES);
                async move { invocation.invoke_async(&mut connection).await }
            })
            .await
            .map_err(|error| noted(&self.redis, error))?;
        let mut events = Vec::with_capacity(entries.len());
        for entry in entries {
            let corrupt = |why: String| RedisError::Corrupt {
                key: stream.clone(),
                why,
            };
            let space = entry
                .iter()
                .position(|&b| b == b' ')
                .ok_or_else(|| corrupt("an event has no number".to_owned()))?;
            let number = std::str::from_utf8(&entry[..space])
                .ok()
                .and_then(|n| n.parse::<u64>().ok())
                .ok_or_else(|| corrupt("an event's number is not a number".to_owned()))?;
            let stored: StoredEvent = serde_json::from_slice(&entry[space + 1..])
                .map_err(|error| corrupt(error.to_string()))?;
            let mut event = ServerSseMessage::default();
            event.event_id = Some(format!("{number}:{tag}"));
            event.message = stored.message.map(std::sync::Arc::new);
            event.retry = stored.retry_ms.map(Duration::from_millis);
            events.push(event);
        }
        Ok(Box::pin(futures_util::stream::iter(events)))
    }
}
