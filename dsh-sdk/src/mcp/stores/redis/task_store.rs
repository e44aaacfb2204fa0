//! [`RedisTaskStore`]: tasks in Redis, each change one Lua script, with
//! leases that turn the task of a replica that died `failed`.
//!
//! One file, past the usual length: each change of a task is a Lua script
//! beside the method that runs it, and they share the key layout and the
//! records held while Redis is away; the file ends with its unit tests.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::{Arc, Mutex, PoisonError, Weak};
use std::time::Duration;

use futures_util::future::BoxFuture;
use redis::Script;
use rmcp::model::{ErrorCode, TaskStatus};
use serde_json::json;

use crate::mcp::tasks::store::{
    MAX_ANSWER_BYTES, MAX_ANSWERS, TaskOutcome, TaskRecord, TaskStore, TaskStoreError,
    in_listing_order,
};

use super::{Redis, RedisError};

/// The target of this module's log lines, the one hosts filter on.
const LOG_TARGET: &str = "dsh_kit::mcp::redis::task_store";

/// How long a replica's hold on a task it runs lasts unless renewed: 10
/// seconds. It renews every third of that; a task whose lease lapses turns
/// `failed`.
pub const DEFAULT_LEASE: Duration = Duration::from_secs(10);

/// The most bytes of task records (as JSON) a replica holds while Redis is
/// away, waiting to write them: 64 MiB. Past it the oldest is dropped,
/// with a warning; its task then ends `failed` once its lease lapses.
pub const MAX_PENDING_TASK_BYTES: usize = 64 * 1024 * 1024;

/// How often records held while Redis is away are tried again.
const FLUSH_EVERY: Duration = Duration::from_millis(200);

/// The largest task record read back: 64 MiB, as the file store.
const MAX_RECORD_BYTES: i64 = 64 * 1024 * 1024;

/// The most tasks `list` reads.
const MAX_LISTED: usize = 1000;

/// The most lapsed leases one sweep ends.
const MAX_REAPED: usize = 100;

/// The longest a task id may be: a UUID is 36 characters.
const MAX_ID: usize = 64;

/// The current time in Redis, in milliseconds, as the scripts read it.
const NOW: &str = "local t = redis.call('TIME') local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)";

/// Makes `key` live at least until `at` (ms), keeping a later expiry.
const EXTEND: &str = "local function extend(key, at) local left = redis.call('PTTL', key) if left < 0 or now + left < at then redis.call('PEXPIREAT', key, at) end end";

/// Stores a record unless its task ended already (an ended task's result
/// is stored once) or expired. KEYS: task, index, leases. ARGV: id, record,
/// status, expiry (ms), lease (ms), whether the status ends the task.
const PUT: &str = r"
local cur = redis.call('HGET', KEYS[1], 'status')
if cur == 'completed' or cur == 'failed' or cur == 'cancelled' then
  -- The runner's own end replaces the failure its lapsed lease was taken
  -- for (it lost Redis, not its task).
  if not (cur == 'failed' and ARGV[6] == '1' and redis.call('HGET', KEYS[1], 'lapsed') == '1') then return 0 end
end
local expiry = tonumber(ARGV[4])
if expiry <= now then return 0 end
redis.call('HSET', KEYS[1], 'record', ARGV[2], 'status', ARGV[3])
redis.call('HDEL', KEYS[1], 'lapsed')
redis.call('PEXPIREAT', KEYS[1], expiry)
redis.call('ZADD', KEYS[2], expiry, ARGV[1])
extend(KEYS[2], expiry)
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
if ARGV[6] == '1' then
  redis.call('ZREM', KEYS[3], ARGV[1])
else
  redis.call('ZADD', KEYS[3], now + tonumber(ARGV[5]), ARGV[1])
  -- A lapsed lease must outlive its deadline to be seen lapsed: the set
  -- lives as long as its longest-lived task.
  extend(KEYS[3], expiry)
end
return 1
";

/// Reads a record, bounded: `{record, lapsed}`, `{false, size}` when too
/// large, or nil. KEYS: task, leases. ARGV: id, the largest size.
const GET: &str = r"
local size = redis.call('HSTRLEN', KEYS[1], 'record')
if size == 0 then return nil end
if size > tonumber(ARGV[2]) then return {false, size} end
local record = redis.call('HGET', KEYS[1], 'record')
local lapsed = 0
local deadline = redis.call('ZSCORE', KEYS[2], ARGV[1])
if deadline and tonumber(deadline) <= now then lapsed = 1 end
return {record, lapsed}
";

/// Ends a task whose lease lapsed, if it still runs and its lease is still
/// lapsed. KEYS: task, leases. ARGV: id, the failed record.
const FAIL_LAPSED: &str = r"
local deadline = redis.call('ZSCORE', KEYS[2], ARGV[1])
if not deadline or tonumber(deadline) > now then return 0 end
redis.call('ZREM', KEYS[2], ARGV[1])
local cur = redis.call('HGET', KEYS[1], 'status')
if cur == false or cur == 'completed' or cur == 'failed' or cur == 'cancelled' then return 0 end
redis.call('HSET', KEYS[1], 'record', ARGV[2], 'status', 'failed', 'lapsed', '1')
return 1
";

/// Renews the leases of the tasks a replica runs; answers the ids that hold
/// none any more (they ended, or lapsed). KEYS: leases. ARGV: lease (ms), ids.
const RENEW: &str = r"
local deadline = now + tonumber(ARGV[1])
local gone = {}
for i = 2, #ARGV do
  if redis.call('ZADD', KEYS[1], 'XX', 'CH', deadline, ARGV[i]) == 0 and not redis.call('ZSCORE', KEYS[1], ARGV[i]) then
    table.insert(gone, ARGV[i])
  end
end
return gone
";

/// Marks a cancel and tells the runner, if the task exists. KEYS: task,
/// cancel mark. ARGV: the channel, id.
const CANCEL: &str = r"
local left = redis.call('PTTL', KEYS[1])
if left <= 0 then return 0 end
redis.call('SET', KEYS[2], '1', 'PX', left)
redis.call('PUBLISH', ARGV[1], ARGV[2])
return 1
";

/// The lapsed leases, oldest first. KEYS: leases. ARGV: how many.
const LAPSED: &str = r"
return redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, tonumber(ARGV[1]))
";

/// The live tasks. KEYS: index. ARGV: how many.
const LIVE: &str = r"
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
return redis.call('ZRANGEBYSCORE', KEYS[1], now, '+inf', 'LIMIT', 0, tonumber(ARGV[1]))
";

fn script(body: &str) -> Script {
    Script::new(&format!("{NOW}\n{EXTEND}\n{body}"))
}

struct Scripts {
    put: Script,
    get: Script,
    fail_lapsed: Script,
    renew: Script,
    cancel: Script,
    lapsed: Script,
    live: Script,
}

/// A [`TaskStore`] in Redis, shared by every replica connected to it.
///
/// Each change is one Lua script, so replicas never race on a read then a
/// write; a task that ended is never written again. The replica that runs a
/// task holds a lease on it and renews it every third of the lease
/// ([`DEFAULT_LEASE`], 10 s); when the replica dies, the lease lapses, and
/// the next replica to look at the task (a poll, a list, or its own sweep
/// every half lease) marks it `failed`, saying its runner stopped. A cancel
/// reaches the runner at once over the channel `PREFIX:cancel`.
///
/// A record the runner writes while Redis does not answer (within
/// [`Redis::wait`](super::Redis::wait)) is held on the runner, which
/// answers `tasks/get` from it, and written as soon as Redis answers: a
/// finished task's result survives an outage of any length, up to
/// [`MAX_PENDING_TASK_BYTES`] held. A new task that cannot be stored is
/// refused ([`TaskStoreError::Unavailable`]).
#[derive(Clone)]
pub struct RedisTaskStore {
    inner: Arc<Inner>,
}

struct Inner {
    redis: Redis,
    lease: Duration,
    scripts: Scripts,
    /// The tasks this process runs (stored `working` and not ended).
    running: Mutex<HashSet<String>>,
    /// Records written while Redis was away, waiting to be written.
    pending: Mutex<Pending>,
}

/// Task records waiting for Redis: the latest of each task, oldest first.
#[derive(Default)]
struct Pending {
    records: HashMap<String, Held>,
    order: BTreeMap<u64, String>,
    bytes: usize,
    next: u64,
}

struct Held {
    seq: u64,
    record: TaskRecord,
    bytes: usize,
}

impl Pending {
    /// Holds `record`, replacing its task's earlier one; drops the oldest
    /// past the cap.
    fn hold(&mut self, record: TaskRecord, bytes: usize) {
        self.remove(&record.id, None);
        let seq = self.next;
        self.next += 1;
        self.order.insert(seq, record.id.clone());
        self.bytes += bytes;
        self.records
            .insert(record.id.clone(), Held { seq, record, bytes });
        while self.bytes > MAX_PENDING_TASK_BYTES {
            let Some((_, id)) = self.order.pop_first() else {
                break;
            };
            if let Some(held) = self.records.remove(&id) {
                self.bytes -= held.bytes;
                tracing::warn!(target: LOG_TARGET,
                    "the record of task {id} was dropped: Redis is away and {MAX_PENDING_TASK_BYTES} bytes of task records wait already"
                );
            }
        }
    }

    /// Forgets the record held for `id` (only if it is still the one of
    /// `seq`, when given).
    fn remove(&mut self, id: &str, seq: Option<u64>) {
        let Some(held) = self.records.get(id) else {
            return;
        };
        if seq.is_some_and(|seq| seq != held.seq) {
            return;
        }
        let held = self.records.remove(id).expect("just found");
        self.order.remove(&held.seq);
        self.bytes -= held.bytes;
    }
}

impl std::fmt::Debug for RedisTaskStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisTaskStore")
            .field("prefix", &self.inner.redis.prefix())
            .field("lease", &self.inner.lease)
            .finish_non_exhaustive()
    }
}

impl RedisTaskStore {
    pub(super) fn new(redis: Redis, lease: Duration) -> Self {
        let store = RedisTaskStore {
            inner: Arc::new(Inner {
                redis,
                lease,
                scripts: Scripts {
                    put: script(PUT),
                    get: script(GET),
                    fail_lapsed: script(FAIL_LAPSED),
                    renew: script(RENEW),
                    cancel: script(CANCEL),
                    lapsed: script(LAPSED),
                    live: script(LIVE),
                },
                running: Mutex::default(),
                pending: Mutex::default(),
            }),
        };
        store.keep_leases();
        store.flush_pending();
        store
    }

    /// The same store with leases of `lease` (at least a second): how long
    /// a task of a replica that died stays `working` at most.
    pub fn with_lease(self, lease: Duration) -> Self {
        RedisTaskStore::new(self.inner.redis.clone(), lease.max(Duration::from_secs(1)))
    }

    /// Renews this process's leases every third of a lease, and ends the
    /// lapsed ones of any replica every half lease, while the store lives.
    fn keep_leases(&self) {
        let weak: Weak<Inner> = Arc::downgrade(&self.inner);
        let stopped = self.inner.redis.shared.stopped.clone();
        let every = self.inner.lease / 3;
        self.inner.redis.shared.runtime.spawn(async move {
            let mut ticks = tokio::time::interval(every);
            ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            let mut swept = tokio::time::Instant::now();
            loop {
                tokio::select! {
                    () = stopped.cancelled() => return,
                    _ = ticks.tick() => {}
                }
                let Some(inner) = weak.upgrade() else { return };
                let store = RedisTaskStore { inner };
                if let Err(error) = store.renew().await {
                    tracing::warn!(target: LOG_TARGET, "renewing task leases failed: {error}");
                }
                if swept.elapsed() >= store.inner.lease / 2 {
                    swept = tokio::time::Instant::now();
                    if let Err(error) = store.sweep().await {
                        tracing::warn!(target: LOG_TARGET, "ending tasks whose lease lapsed failed: {error}");
                    }
                }
            }
        });
    }

    /// Writes the records held while Redis was away, oldest first, every
    /// [`FLUSH_EVERY`] while the store lives.
    fn flush_pending(&self) {
        let weak: Weak<Inner> = Arc::downgrade(&self.inner);
        let stopped = self.inner.redis.shared.stopped.clone();
        self.inner.redis.shared.runtime.spawn(async move {
            loop {
                tokio::select! {
                    () = stopped.cancelled() => return,
                    () = tokio::time::sleep(FLUSH_EVERY) => {}
                }
                let Some(inner) = weak.upgrade() else { return };
                let store = RedisTaskStore { inner };
                let held: Vec<(u64, TaskRecord)> = {
                    let pending = store.pending();
                    pending
                        .order
                        .values()
                        .filter_map(|id| pending.records.get(id))
                        .map(|held| (held.seq, held.record.clone()))
                        .collect()
                };
                for (seq, record) in held {
                    let id = record.id.clone();
                    match store.write(record).await {
                        Ok(_) => store.pending().remove(&id, Some(seq)),
                        Err(RedisError::Unavailable { .. }) => break,
                        Err(error) => {
                            tracing::warn!(target: LOG_TARGET, "the record of task {id}, held while Redis was away, was not written: {error}");
                            store.pending().remove(&id, Some(seq));
                        }
                    }
                }
            }
        });
    }

    fn pending(&self) -> std::sync::MutexGuard<'_, Pending> {
        self.inner
            .pending
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    fn running(&self) -> std::sync::MutexGuard<'_, HashSet<String>> {
        self.inner
            .running
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    async fn renew(&self) -> Result<(), RedisError> {
        let ids: Vec<String> = self.running().iter().cloned().collect();
        if ids.is_empty() {
            return Ok(());
        }
        let leases = self.inner.redis.key(&["leases"]);
        let lease = millis(self.inner.lease);
        let gone: Vec<String> = self
            .inner
            .redis
            .retried(|mut connection| {
                let mut invocation = self.inner.scripts.renew.key(&leases);
                invocation.arg(lease);
                for id in &ids {
                    invocation.arg(id);
                }
                async move { invocation.invoke_async(&mut connection).await }
            })
            .await?;
        let mut running = self.running();
        for id in gone {
            running.remove(&id);
        }
        Ok(())
    }

    /// Ends the tasks whose lease lapsed, on any replica.
    async fn sweep(&self) -> Result<(), TaskStoreError> {
        let leases = self.inner.redis.key(&["leases"]);
        let lapsed: Vec<String> = self
            .inner
            .redis
            .retried(|mut connection| {
                let mut invocation = self.inner.scripts.lapsed.prepare_invoke();
                invocation.key(&leases).arg(MAX_REAPED);
                async move { invocation.invoke_async(&mut connection).await }
            })
            .await
            .map_err(other)?;
        for id in lapsed {
            let _ = self.get_now(&id).await?;
        }
        Ok(())
    }

    /// The record of `id`, ending it first when its lease lapsed.
    async fn get_now(&self, id: &str) -> Result<Option<TaskRecord>, TaskStoreError> {
        if id.len() > MAX_ID || id.is_empty() {
            return Ok(None);
        }
        // Newer than what Redis holds, which has not had it yet.
        if let Some(held) = self.pending().records.get(id) {
            return Ok((!held.record.expired()).then(|| held.record.clone()));
        }
        let key = self.inner.redis.key(&["task", id]);
        let leases = self.inner.redis.key(&["leases"]);
        let read: Option<(redis::Value, i64)> = self
            .inner
            .redis
            .retried(|mut connection| {
                let mut invocation = self.inner.scripts.get.prepare_invoke();
                invocation
                    .key(&key)
                    .key(&leases)
                    .arg(id)
                    .arg(MAX_RECORD_BYTES);
                async move { invocation.invoke_async(&mut connection).await }
            })
            .await
            .map_err(other)?;
        let Some((record, lapsed)) = read else {
            return Ok(None);
        };
        let record = match record {
            redis::Value::BulkString(bytes) => bytes,
            _ => {
                return Err(other(RedisError::Corrupt {
                    key,
                    why: format!("the record is larger than {MAX_RECORD_BYTES} bytes ({lapsed})"),
                }));
            }
        };
        let mut record: TaskRecord = serde_json::from_slice(&record).map_err(|error| {
            other(RedisError::Corrupt {
                key: key.clone(),
                why: error.to_string(),
            })
        })?;
        if record.id != id {
            return Err(other(RedisError::Corrupt {
                key,
                why: format!("it holds task `{}`", cut(&record.id)),
            }));
        }
        if lapsed == 1 && !record.status.is_terminal() {
            record.status = TaskStatus::Failed;
            let why = format!(
                "the server replica running this task stopped renewing its lease within {} ms: it died, or lost Redis; the call's outcome is unknown",
                millis(self.inner.lease)
            );
            record.outcome = Some(TaskOutcome::Error(json!({
                "code": ErrorCode::INTERNAL_ERROR.0,
                "message": why,
            })));
            record.status_message = Some(why);
            record.touch();
            let failed =
                serde_json::to_string(&record).map_err(|error| other(RedisError::from(error)))?;
            let ended: i64 = self
                .inner
                .redis
                .retried(|mut connection| {
                    let mut invocation = self.inner.scripts.fail_lapsed.prepare_invoke();
                    invocation.key(&key).key(&leases).arg(id).arg(&failed);
                    async move { invocation.invoke_async(&mut connection).await }
                })
                .await
                .map_err(other)?;
            if ended == 0 {
                // Renewed, or ended by its runner, meanwhile: read again.
                return Box::pin(self.get_now(id)).await;
            }
        }
        if record.expired() {
            return Ok(None);
        }
        Ok(Some(record))
    }

    async fn put_now(&self, record: TaskRecord) -> Result<(), TaskStoreError> {
        if record.id.len() > MAX_ID || record.id.is_empty() {
            return Err(other(RedisError::Corrupt {
                key: self.inner.redis.key(&["task", "…"]),
                why: format!("a task id is 1 to {MAX_ID} bytes"),
            }));
        }
        let ours = record.status.is_terminal()
            || self.running().contains(&record.id)
            || self.pending().records.contains_key(&record.id);
        // Written after the records held for it, never before.
        if self.pending().records.contains_key(&record.id) {
            self.hold(record);
            return Ok(());
        }
        match self.write(record.clone()).await {
            Ok(_) => Ok(()),
            // A task this replica runs keeps its record until Redis is back;
            // a new one is refused.
            Err(RedisError::Unavailable { .. }) if ours => {
                self.hold(record);
                Ok(())
            }
            Err(error) => Err(other(error)),
        }
    }

    /// Holds `record` until Redis answers.
    fn hold(&self, record: TaskRecord) {
        let bytes = serde_json::to_string(&record).map_or(0, |json| json.len());
        self.pending().hold(record, bytes);
    }

    /// Writes `record` in Redis: whether it was stored (an ended task's is
    /// not written again).
    async fn write(&self, record: TaskRecord) -> Result<bool, RedisError> {
        let key = self.inner.redis.key(&["task", &record.id]);
        let index = self.inner.redis.key(&["tasks"]);
        let leases = self.inner.redis.key(&["leases"]);
        let status = serde_json::to_value(record.status)
            .ok()
            .and_then(|status| status.as_str().map(str::to_owned))
            .unwrap_or_default();
        let ended = record.status.is_terminal();
        let expiry = expiry_ms(&record);
        let json = serde_json::to_string(&record)?;
        let lease = millis(self.inner.lease);
        let stored = self
            .inner
            .redis
            .retried(|mut connection| {
                let mut invocation = self.inner.scripts.put.prepare_invoke();
                invocation
                    .key(&key)
                    .key(&index)
                    .key(&leases)
                    .arg(&record.id)
                    .arg(&json)
                    .arg(&status)
                    .arg(expiry)
                    .arg(lease)
                    .arg(if ended { "1" } else { "0" });
                async move { invocation.invoke_async::<i64>(&mut connection).await }
            })
            .await?;
        // Renewed from now on, once the lease is in Redis (a renewal that
        // ran first would find no lease and drop it), while the task runs.
        if stored == 1 && !ended {
            self.running().insert(record.id.clone());
        } else {
            self.running().remove(&record.id);
        }
        Ok(stored == 1)
    }

    async fn list_now(&self, limit: usize) -> Result<Vec<TaskRecord>, TaskStoreError> {
        let index = self.inner.redis.key(&["tasks"]);
        let limit = limit.min(MAX_LISTED);
        let ids: Vec<String> = self
            .inner
            .redis
            .retried(|mut connection| {
                let mut invocation = self.inner.scripts.live.prepare_invoke();
                invocation.key(&index).arg(limit);
                async move { invocation.invoke_async(&mut connection).await }
            })
            .await
            .map_err(other)?;
        let mut records = Vec::with_capacity(ids.len());
        for id in ids {
            // A record gone or unreadable meanwhile is left out.
            if let Ok(Some(record)) = self.get_now(&id).await {
                records.push(record);
            }
        }
        // Records held while Redis was away are newer than Redis's.
        {
            let pending = self.pending();
            for record in &mut records {
                if let Some(held) = pending.records.get(&record.id) {
                    *record = held.record.clone();
                }
            }
        }
        in_listing_order(&mut records);
        Ok(records)
    }
}

/// When `record` expires, in milliseconds since the epoch.
fn expiry_ms(record: &TaskRecord) -> i64 {
    let created = chrono::DateTime::parse_from_rfc3339(&record.created_at)
        .map(|created| created.timestamp_millis())
        .unwrap_or(0);
    created.saturating_add(i64::try_from(record.ttl_ms).unwrap_or(i64::MAX))
}

fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

fn other(error: impl Into<RedisError>) -> TaskStoreError {
    match error.into() {
        error @ RedisError::Unavailable { waited, .. } => TaskStoreError::Unavailable {
            retry_after: waited.max(Duration::from_secs(1)),
            source: Box::new(error),
        },
        error => TaskStoreError::Other(Box::new(error)),
    }
}

impl From<serde_json::Error> for RedisError {
    fn from(error: serde_json::Error) -> Self {
        RedisError::Corrupt {
            key: String::new(),
            why: error.to_string(),
        }
    }
}

fn cut(id: &str) -> &str {
    match id.char_indices().nth(MAX_ID) {
        Some((end, _)) => &id[..end],
        None => id,
    }
}

impl TaskStore for RedisTaskStore {
    fn put(&self, record: TaskRecord) -> BoxFuture<'_, Result<(), TaskStoreError>> {
        Box::pin(self.put_now(record))
    }

    fn get<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<TaskRecord>, TaskStoreError>> {
        Box::pin(self.get_now(id))
    }

    fn list(&self, limit: usize) -> BoxFuture<'_, Result<Vec<TaskRecord>, TaskStoreError>> {
        Box::pin(self.list_now(limit))
    }

    fn request_cancel<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<(), TaskStoreError>> {
        Box::pin(async move {
            if id.len() > MAX_ID || id.is_empty() {
                return Ok(());
            }
            let key = self.inner.redis.key(&["task", id]);
            let mark = self.inner.redis.key(&["cancel", id]);
            let channel = self.inner.redis.key(&["cancel"]);
            self.inner
                .redis
                .retried(|mut connection| {
                    let mut invocation = self.inner.scripts.cancel.prepare_invoke();
                    invocation.key(&key).key(&mark).arg(&channel).arg(id);
                    async move { invocation.invoke_async::<i64>(&mut connection).await }
                })
                .await
                .map(drop)
                .map_err(other)
        })
    }

    fn cancel_requested<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<bool, TaskStoreError>> {
        Box::pin(async move {
            if id.len() > MAX_ID || id.is_empty() {
                return Ok(false);
            }
            let mark = self.inner.redis.key(&["cancel", id]);
            self.inner
                .redis
                .retried(|mut connection| {
                    let mark = mark.clone();
                    async move {
                        redis::cmd("EXISTS")
                            .arg(mark)
                            .query_async::<i64>(&mut connection)
                            .await
                    }
                })
                .await
                .map(|found| found == 1)
                .map_err(other)
        })
    }

    fn cancellations(&self) -> Option<tokio::sync::broadcast::Receiver<String>> {
        Some(self.inner.redis.shared.cancels.subscribe())
    }

    /// A hash of answers by key beside the record, living as long as the
    /// task.
    fn put_answers<'a>(
        &'a self,
        id: &'a str,
        answers: serde_json::Map<String, serde_json::Value>,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<(), TaskStoreError>> {
        Box::pin(async move {
            if id.len() > MAX_ID || id.is_empty() || answers.is_empty() {
                return Ok(());
            }
            let key = self.inner.redis.key(&["answers", id]);
            let mut fields = Vec::with_capacity(answers.len());
            for (field, answer) in answers.into_iter().take(MAX_ANSWERS) {
                fields.push((field, serde_json::to_string(&answer).map_err(other)?));
            }
            self.inner
                .redis
                .retried(|mut connection| {
                    let mut pipe = redis::pipe();
                    pipe.atomic()
                        .hset_multiple(&key, &fields)
                        .ignore()
                        .pexpire(&key, i64::try_from(millis(ttl)).unwrap_or(i64::MAX))
                        .ignore();
                    async move { pipe.query_async::<()>(&mut connection).await }
                })
                .await
                .map_err(other)
        })
    }

    fn answers<'a>(
        &'a self,
        id: &'a str,
    ) -> BoxFuture<'a, Result<serde_json::Map<String, serde_json::Value>, TaskStoreError>> {
        Box::pin(async move {
            let mut answers = serde_json::Map::new();
            if id.len() > MAX_ID || id.is_empty() {
                return Ok(answers);
            }
            let key = self.inner.redis.key(&["answers", id]);
            let stored: Vec<(String, String)> = self
                .inner
                .redis
                .retried(|mut connection| {
                    let key = key.clone();
                    async move {
                        redis::cmd("HGETALL")
                            .arg(key)
                            .query_async::<Vec<(String, String)>>(&mut connection)
                            .await
                    }
                })
                .await
                .map_err(other)?;
            for (field, answer) in stored.into_iter().take(MAX_ANSWERS) {
                // Answers are bounded before they are stored: a larger one
                // was not written by a server, as with the file store.
                if answer.len() > MAX_ANSWER_BYTES {
                    return Err(other(RedisError::Corrupt {
                        key: key.clone(),
                        why: format!(
                            "the answer `{field}` is larger than {MAX_ANSWER_BYTES} bytes"
                        ),
                    }));
                }
                let answer = serde_json::from_str(&answer).map_err(|error| {
                    other(RedisError::Corrupt {
                        key: key.clone(),
                        why: error.to_string(),
                    })
                })?;
                answers.insert(field, answer);
            }
            Ok(answers)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn held_records_keep_the_latest_of_each_task_and_drop_the_oldest_past_the_cap() {
        let mut pending = Pending::default();
        let first = TaskRecord::sample();
        let mut newer = first.clone();
        newer.status_message = Some("newer".to_owned());
        pending.hold(first.clone(), 10);
        pending.hold(newer.clone(), 12);
        assert_eq!(pending.records.len(), 1);
        assert_eq!(pending.bytes, 12);
        assert_eq!(pending.records[&first.id].record, newer);

        // Three records of a third of the cap each, and one more: the
        // oldest goes.
        let third = MAX_PENDING_TASK_BYTES / 3;
        let big: Vec<TaskRecord> = (0..3).map(|_| TaskRecord::sample()).collect();
        for record in &big {
            pending.hold(record.clone(), third);
        }
        assert!(pending.bytes <= MAX_PENDING_TASK_BYTES);
        assert!(
            !pending.records.contains_key(&first.id),
            "the oldest was dropped"
        );
        assert!(
            big.iter()
                .all(|record| pending.records.contains_key(&record.id))
        );

        // A record written is forgotten only if it is still the one held.
        let seq = pending.records[&big[0].id].seq;
        pending.hold(big[0].clone(), 1);
        pending.remove(&big[0].id, Some(seq));
        assert!(
            pending.records.contains_key(&big[0].id),
            "a newer record stays"
        );
        let seq = pending.records[&big[0].id].seq;
        pending.remove(&big[0].id, Some(seq));
        assert!(!pending.records.contains_key(&big[0].id));
        assert_eq!(pending.order.len(), pending.records.len());
    }
}
