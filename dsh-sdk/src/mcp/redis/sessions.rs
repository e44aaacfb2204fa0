//! rmcp's [`SessionStore`] and [`EventStore`] on Redis: a 2025-11-25
//! client's session, opened on one replica, is restored on any other that
//! gets one of its requests, and a stream it lost resumes anywhere.

use std::time::Duration;

use redis::Script;
use rmcp::model::ServerJsonRpcMessage;
use rmcp::transport::streamable_http_server::session::{
    EventId, EventStore, EventStoreError, EventStream, ServerSseMessage, SessionState,
    SessionStore, SessionStoreError,
};
use serde::{Deserialize, Serialize};

use super::{Redis, RedisError};

/// How long a session is kept after its `initialize`, unless closed: a day.
const SESSION_TTL: Duration = Duration::from_secs(24 * 3600);

/// The largest session record read back: an `initialize`'s parameters.
const MAX_SESSION_BYTES: usize = 256 * 1024;

/// The longest session or stream id taken (rmcp's are UUIDs, plus a suffix
/// for a stream).
const MAX_ID: usize = 256;

/// How long a stream's events are kept after its last: an hour.
const STREAM_TTL: Duration = Duration::from_secs(3600);

/// The most events a stream keeps for a client to resume from.
const MAX_STREAM_EVENTS: usize = 1000;

/// The largest event read back.
const MAX_EVENT_BYTES: usize = 16 * 1024 * 1024;

/// The most bytes of events one replay reads back; the rest waits for the
/// client's next resumption, from the last event it got.
const MAX_REPLAY_BYTES: usize = 64 * 1024 * 1024;

/// Keeps a session's `initialize` in Redis (`PREFIX:session:ID`, for a day
/// or until the session is closed), so any replica restores the session.
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

#[async_trait::async_trait]
impl SessionStore for RedisSessionStore {
    async fn load(&self, session_id: &str) -> Result<Option<SessionState>, SessionStoreError> {
        let key = self.key(session_id)?;
        let Some(bytes) = bounded(&self.redis, &key, MAX_SESSION_BYTES).await? else {
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
        let ttl = u64::try_from(SESSION_TTL.as_millis()).unwrap_or(u64::MAX);
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
            .map_err(RedisError::from)?;
        Ok(())
    }

    async fn delete(&self, session_id: &str) -> Result<(), SessionStoreError> {
        let key = self.key(session_id)?;
        self.redis
            .retried(|mut connection| {
                let key = key.clone();
                async move {
                    redis::cmd("DEL")
                        .arg(key)
                        .query_async::<i64>(&mut connection)
                        .await
                }
            })
            .await
            .map_err(RedisError::from)?;
        Ok(())
    }
}

/// One event as stored: its message and retry hint.
#[derive(Serialize, Deserialize)]
struct StoredEvent {
    message: Option<ServerJsonRpcMessage>,
    retry_ms: Option<u64>,
}

/// Appends an event to a stream and answers its number. KEYS: stream,
/// counter. ARGV: the event, the most kept, the time to live (ms).
const APPEND: &str = r"
local n = redis.call('INCR', KEYS[2])
redis.call('ZADD', KEYS[1], n, n .. ' ' .. ARGV[1])
redis.call('ZREMRANGEBYRANK', KEYS[1], 0, -1 - tonumber(ARGV[2]))
redis.call('PEXPIRE', KEYS[1], ARGV[3])
redis.call('PEXPIRE', KEYS[2], ARGV[3])
return n
";

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

/// Keeps the events of session streams in Redis (`PREFIX:stream:ID`, the
/// last 1,000 of each, for an hour after the last), so a client resumes a
/// stream (`Last-Event-ID`) on any replica. An event id is `N:STREAM`.
/// Give it to [`McpServer::event_store`](crate::mcp::McpServer::event_store),
/// or use [`McpServer::redis`](crate::mcp::McpServer::redis).
#[derive(Clone, Debug)]
pub struct RedisEventStore {
    redis: Redis,
    append: std::sync::Arc<Script>,
    replay: std::sync::Arc<Script>,
}

impl RedisEventStore {
    pub(super) fn new(redis: Redis) -> Self {
        RedisEventStore {
            redis,
            append: std::sync::Arc::new(Script::new(APPEND)),
            replay: std::sync::Arc::new(Script::new(REPLAY)),
        }
    }
}

#[async_trait::async_trait]
impl EventStore for RedisEventStore {
    async fn store_event(
        &self,
        stream_id: &str,
        event: &ServerSseMessage,
    ) -> Result<EventId, EventStoreError> {
        checked(stream_id)?;
        let stream = self.redis.key(&["stream", stream_id]);
        let counter = self.redis.key(&["stream-seq", stream_id]);
        let stored = StoredEvent {
            message: event.message.as_deref().cloned(),
            retry_ms: event
                .retry
                .map(|retry| u64::try_from(retry.as_millis()).unwrap_or(u64::MAX)),
        };
        let json = serde_json::to_string(&stored)?;
        let ttl = u64::try_from(STREAM_TTL.as_millis()).unwrap_or(u64::MAX);
        let n: u64 = self
            .redis
            .retried(|mut connection| {
                let mut invocation = self.append.prepare_invoke();
                invocation
                    .key(&stream)
                    .key(&counter)
                    .arg(&json)
                    .arg(MAX_STREAM_EVENTS)
                    .arg(ttl);
                async move { invocation.invoke_async(&mut connection).await }
            })
            .await
            .map_err(RedisError::from)?;
        Ok(format!("{n}:{stream_id}"))
    }

    async fn replay_events_after(
        &self,
        last_event_id: &str,
    ) -> Result<EventStream, EventStoreError> {
        let malformed = || RedisError::Corrupt {
            key: last_event_id.chars().take(64).collect(),
            why: "an event id is `N:STREAM`, as this server gave it".to_owned(),
        };
        let (n, stream_id) = last_event_id.split_once(':').ok_or_else(malformed)?;
        let n: u64 = n.parse().map_err(|_| malformed())?;
        checked(stream_id)?;
        let stream = self.redis.key(&["stream", stream_id]);
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
            .map_err(|error| RedisError::Corrupt {
                key: stream.clone(),
                why: error.to_string(),
            })?;
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
            event.event_id = Some(format!("{number}:{stream_id}"));
            event.message = stored.message.map(std::sync::Arc::new);
            event.retry = stored.retry_ms.map(Duration::from_millis);
            events.push(event);
        }
        Ok(Box::pin(futures_util::stream::iter(events)))
    }
}
