//! Where MCP tasks live between requests: the [`TaskStore`] trait, and
//! [`FileTaskStore`], a directory that replicas of a server share.

use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use futures_util::future::BoxFuture;
use rmcp::model::TaskStatus;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use uuid::Uuid;

/// The largest task record a [`FileTaskStore`] reads back: 64 MiB (a result
/// is at most the 16 MiB output limit, as JSON with its content copy).
const MAX_RECORD_BYTES: u64 = 64 * 1024 * 1024;

/// The most records [`FileTaskStore::list`] reads at once.
const MAX_LISTED: usize = 1000;

/// One MCP task, as a [`TaskStore`] keeps it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct TaskRecord {
    /// The task id the client polls with: a random UUID.
    pub id: String,
    /// The tool the task calls.
    pub tool: String,
    /// Where the task is.
    pub status: TaskStatus,
    /// What the task is doing, for people (the tool's last progress message).
    pub status_message: Option<String>,
    /// When the task was made (RFC 3339).
    pub created_at: String,
    /// When the task last changed (RFC 3339).
    pub updated_at: String,
    /// How long after `created_at` the task is kept, in milliseconds.
    pub ttl_ms: u64,
    /// How often a client should poll, in milliseconds.
    pub poll_interval_ms: u64,
    /// What the task ended with, once it ended with something: stored as a
    /// `result` or an `error` field beside the others.
    #[serde(
        default,
        flatten,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "TaskOutcome::read"
    )]
    pub outcome: Option<TaskOutcome>,
    /// What the task waits for the client to answer while it is
    /// `input_required`: its `inputRequests`, by key (MCP 2026-07-28's
    /// tasks extension); answers come through
    /// [`TaskStore::put_answers`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_requests: Option<serde_json::Map<String, Value>>,
    /// The server process that runs the task (its replica id).
    pub runner: String,
    /// Who started the task ([`TaskOwner`]): only they may poll, fetch,
    /// cancel or list it. `None` for the host's own tasks (a server with
    /// no authenticator).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub owner: Option<String>,
}

/// The owner a task records for the principal that started it: its issuer
/// and subject, `None` for the host.
///
/// ```
/// use dsh_kit::Principal;
/// use dsh_kit::mcp::TaskOwner;
///
/// assert_eq!(TaskOwner::of(&Principal::host()).key(), None);
/// let ada = Principal::new("ada").with_issuer("https://auth.example.com");
/// assert_eq!(TaskOwner::of(&ada).key(), Some(r#"["https://auth.example.com","ada"]"#));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TaskOwner(Option<String>);

impl TaskOwner {
    /// The owner of the tasks `principal` starts.
    pub fn of(principal: &crate::Principal) -> Self {
        if principal.is_host() {
            return TaskOwner(None);
        }
        let key = serde_json::to_string(&(principal.issuer().unwrap_or(""), principal.subject()))
            .unwrap_or_default();
        TaskOwner(Some(key))
    }

    /// The owner of the tasks `principal` starts through the MCP session
    /// `session`: an authenticated principal owns its tasks in every
    /// session; the host's tasks (a server with no authenticator) belong
    /// to the session they were started in, so that one client never
    /// lists, reads or cancels another's. With no session (stdio, whose one
    /// client is the session; stateless HTTP, which has none to bind to)
    /// the host's tasks are [`of`](Self::of) the host.
    ///
    /// ```
    /// use dsh_kit::Principal;
    /// use dsh_kit::mcp::TaskOwner;
    ///
    /// let host = Principal::host();
    /// let one = TaskOwner::of_session(&host, Some("session-one"));
    /// assert_ne!(one, TaskOwner::of_session(&host, Some("session-two")));
    /// assert_eq!(TaskOwner::of_session(&host, None), TaskOwner::of(&host));
    /// let ada = Principal::new("ada");
    /// assert_eq!(TaskOwner::of_session(&ada, Some("session-one")), TaskOwner::of(&ada));
    /// ```
    pub fn of_session(principal: &crate::Principal, session: Option<&str>) -> Self {
        match session {
            Some(session) if principal.is_host() => {
                TaskOwner(Some(serde_json::json!({ "session": session }).to_string()))
            }
            _ => TaskOwner::of(principal),
        }
    }

    /// The key a [`TaskRecord`] keeps as its `owner`.
    pub fn key(&self) -> Option<&str> {
        self.0.as_deref()
    }

    /// Whether `record` is this owner's.
    pub fn owns(&self, record: &TaskRecord) -> bool {
        record.owner.as_deref() == self.key()
    }
}

/// What a task ended with: one or the other, never both.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TaskOutcome {
    /// The `tools/call` result of a `completed` task.
    Result(Value),
    /// The JSON-RPC error of a `failed` task.
    Error(Value),
}

impl TaskOutcome {
    /// The outcome of a stored record: its `result`, else its `error`; a
    /// field that is null (a record may hold both, one null) is none.
    fn read<'de, D: serde::Deserializer<'de>>(stored: D) -> Result<Option<Self>, D::Error> {
        #[derive(Deserialize)]
        struct Stored {
            #[serde(default)]
            result: Option<Value>,
            #[serde(default)]
            error: Option<Value>,
        }
        let Stored { result, error } = Stored::deserialize(stored)?;
        Ok(result
            .map(TaskOutcome::Result)
            .or(error.map(TaskOutcome::Error)))
    }
}

impl TaskRecord {
    /// A task that starts `working` now, run by `runner`.
    pub fn new(tool: impl Into<String>, ttl: Duration, poll: Duration, runner: &str) -> Self {
        let now = now();
        TaskRecord {
            id: Uuid::new_v4().to_string(),
            tool: tool.into(),
            status: TaskStatus::Working,
            status_message: None,
            created_at: now.clone(),
            updated_at: now,
            ttl_ms: millis(ttl),
            poll_interval_ms: millis(poll),
            outcome: None,
            input_requests: None,
            runner: runner.to_owned(),
            owner: None,
        }
    }

    /// The record, started by `owner`.
    pub fn owned_by(mut self, owner: &TaskOwner) -> Self {
        self.owner = owner.key().map(str::to_owned);
        self
    }

    /// Whether the task's time to live has passed.
    pub fn expired(&self) -> bool {
        let Ok(created) = chrono::DateTime::parse_from_rfc3339(&self.created_at) else {
            return true;
        };
        let age = chrono::Utc::now().signed_duration_since(created);
        age.num_milliseconds() > i64::try_from(self.ttl_ms).unwrap_or(i64::MAX)
    }

    /// The `tools/call` result, once the task completed with one.
    pub fn result(&self) -> Option<&Value> {
        match &self.outcome {
            Some(TaskOutcome::Result(result)) => Some(result),
            _ => None,
        }
    }

    /// The JSON-RPC error, once the task failed with one.
    pub fn error(&self) -> Option<&Value> {
        match &self.outcome {
            Some(TaskOutcome::Error(error)) => Some(error),
            _ => None,
        }
    }

    /// Marks the record changed now.
    pub(crate) fn touch(&mut self) {
        self.updated_at = now();
    }

    /// A `working` task of a minute, for the stores' tests.
    #[cfg(test)]
    pub(crate) fn sample() -> Self {
        TaskRecord::new(
            "slow",
            Duration::from_secs(60),
            Duration::from_millis(10),
            "a",
        )
    }
}

/// Puts `records` in the order every store lists them: oldest first, then
/// by id, so a page of `tasks/list` is the same page on every replica.
pub(crate) fn in_listing_order(records: &mut [TaskRecord]) {
    records.sort_by(|a, b| a.created_at.cmp(&b.created_at).then(a.id.cmp(&b.id)));
}

/// The current time, as MCP's task timestamps spell it.
fn now() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

/// Why a [`TaskStore`] failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TaskStoreError {
    /// The store could not be read or written.
    #[error("the task store failed at {path}")]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// What failed.
        #[source]
        source: io::Error,
    },
    /// A record in the store is not a task record.
    #[error("the task record {path} is unreadable")]
    Corrupt {
        /// The file.
        path: PathBuf,
        /// Why it does not parse.
        #[source]
        source: serde_json::Error,
    },
    /// A record is larger than the store reads.
    #[error("the task record {path} is larger than {MAX_RECORD_BYTES} bytes")]
    TooLarge {
        /// The file.
        path: PathBuf,
    },
    /// An answer in the store is larger than the store reads.
    #[error("the answer {path} is larger than {MAX_ANSWER_BYTES} bytes")]
    AnswerTooLarge {
        /// The file.
        path: PathBuf,
    },
    /// The store keeps no answers to a task's input requests.
    #[error("this task store keeps no answers to a task's input requests")]
    NoAnswers,
    /// Another store failed (for stores outside this crate).
    #[error("the task store failed")]
    Other(#[source] Box<dyn std::error::Error + Send + Sync>),
    /// The store did not answer in time (a shared store is down or
    /// frozen): the request is refused with a JSON-RPC error of code
    /// [`STORE_UNAVAILABLE`](crate::mcp::STORE_UNAVAILABLE) (over HTTP,
    /// `503` with `Retry-After`), to retry after `retry_after`.
    #[error("the task store is unavailable")]
    Unavailable {
        /// When the client should try again.
        retry_after: Duration,
        /// Why.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
}

/// Where an [`McpServer`](crate::mcp::McpServer) keeps its tasks: shared by every
/// replica of a server, so a task started through one is polled, fetched or
/// cancelled through another.
///
/// Object-safe: a server holds an `Arc<dyn TaskStore>`. The default is a
/// [`FileTaskStore`]; a database fits behind the same five methods. A
/// store must make each [`put`](Self::put) atomic (a reader sees the old
/// record or the new one), and keep the cancellation mark apart from the
/// record, so a runner's write never erases a cancel asked for elsewhere.
pub trait TaskStore: Send + Sync + 'static {
    /// Stores `record`, replacing the one with its id.
    fn put(&self, record: TaskRecord) -> BoxFuture<'_, Result<(), TaskStoreError>>;

    /// The task `id`, if the store has it and it has not expired.
    fn get<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<TaskRecord>, TaskStoreError>>;

    /// Every task not expired, at most `limit`, oldest first; expired ones
    /// may be removed on the way.
    fn list(&self, limit: usize) -> BoxFuture<'_, Result<Vec<TaskRecord>, TaskStoreError>>;

    /// Marks task `id` to be cancelled: whichever replica runs it stops it.
    fn request_cancel<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<(), TaskStoreError>>;

    /// Whether cancelling task `id` was asked for.
    fn cancel_requested<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<bool, TaskStoreError>>;

    /// The ids of the tasks whose cancelling is asked for from now on, on
    /// any replica, as it is asked: a runner stops its task at once rather
    /// than at its next look at [`cancel_requested`](Self::cancel_requested).
    /// `None` (the default) for a store that has no such stream; its
    /// runners look every poll interval.
    fn cancellations(&self) -> Option<tokio::sync::broadcast::Receiver<String>> {
        None
    }

    /// Keeps the client's `answers` to task `id`'s input requests
    /// (`tasks/update`), by key, beside those given before, apart from the
    /// record as a cancel is, so a runner's write never erases them; for
    /// `ttl`, the task's time to live. The default, for a store that keeps
    /// none, refuses: its tasks cannot take input.
    fn put_answers<'a>(
        &'a self,
        id: &'a str,
        answers: serde_json::Map<String, Value>,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<(), TaskStoreError>> {
        let _ = (id, answers, ttl);
        Box::pin(async { Err(TaskStoreError::NoAnswers) })
    }

    /// Every answer given to task `id`'s input requests, by key; none for a
    /// store that keeps none (the default).
    fn answers<'a>(
        &'a self,
        id: &'a str,
    ) -> BoxFuture<'a, Result<serde_json::Map<String, Value>, TaskStoreError>> {
        let _ = id;
        Box::pin(async { Ok(serde_json::Map::new()) })
    }
}

/// The most answers a task keeps, and the largest one, in bytes: what a
/// store reads back stays bounded whatever clients send.
pub(crate) const MAX_ANSWERS: usize = 64;
pub(crate) const MAX_ANSWER_BYTES: usize = 256 * 1024;

/// A [`TaskStore`] in a directory: one JSON file per task, written to a
/// temporary file then renamed into place (atomic on one file system), and
/// an empty `ID.cancel` file per cancelled task, and an `ID.answers`
/// directory of the answers to its input requests. Replicas on one host, or on
/// hosts that share the directory over a file system with atomic rename,
/// share it.
#[derive(Clone, Debug)]
pub struct FileTaskStore {
    dir: PathBuf,
}

impl FileTaskStore {
    /// A store in `dir`, made if missing.
    pub fn new(dir: impl Into<PathBuf>) -> Result<Self, TaskStoreError> {
        let dir = dir.into();
        std::fs::create_dir_all(&dir).map_err(|source| TaskStoreError::Io {
            path: dir.clone(),
            source,
        })?;
        Ok(FileTaskStore { dir })
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The record's file; `None` for an id that is not a UUID (so no id
    /// names a path outside the directory).
    fn path(&self, id: &str, extension: &str) -> Option<PathBuf> {
        let id = Uuid::parse_str(id).ok()?;
        Some(self.dir.join(format!("{}.{extension}", id.hyphenated())))
    }

    fn read(&self, path: &Path) -> Result<Option<TaskRecord>, TaskStoreError> {
        let io = |source| TaskStoreError::Io {
            path: path.to_owned(),
            source,
        };
        let file = match std::fs::File::open(path) {
            Ok(file) => file,
            Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(error) => return Err(io(error)),
        };
        if file.metadata().map_err(io)?.len() > MAX_RECORD_BYTES {
            return Err(TaskStoreError::TooLarge {
                path: path.to_owned(),
            });
        }
        let record: TaskRecord =
            serde_json::from_reader(io::BufReader::new(file)).map_err(|source| {
                TaskStoreError::Corrupt {
                    path: path.to_owned(),
                    source,
                }
            })?;
        if record.expired() {
            self.remove(&record.id);
            return Ok(None);
        }
        Ok(Some(record))
    }

    fn write(&self, record: &TaskRecord) -> Result<(), TaskStoreError> {
        let Some(path) = self.path(&record.id, "json") else {
            return Err(TaskStoreError::Io {
                path: self.dir.join(&record.id),
                source: io::Error::new(io::ErrorKind::InvalidInput, "a task id is a UUID"),
            });
        };
        let io = |source| TaskStoreError::Io {
            path: path.clone(),
            source,
        };
        let staging = self
            .dir
            .join(format!(".{}.{}.tmp", record.id, Uuid::new_v4().simple()));
        let written = (|| {
            let mut file = std::fs::File::create(&staging)?;
            serde_json::to_writer(&mut file, record)?;
            file.flush()?;
            file.sync_data()?;
            std::fs::rename(&staging, &path)
        })();
        if written.is_err() {
            let _ = std::fs::remove_file(&staging);
        }
        written.map_err(io)
    }

    fn remove(&self, id: &str) {
        for extension in ["json", "cancel"] {
            if let Some(path) = self.path(id, extension) {
                let _ = std::fs::remove_file(path);
            }
        }
        if let Some(path) = self.path(id, "answers") {
            let _ = std::fs::remove_dir_all(path);
        }
    }

    fn list_now(&self, limit: usize) -> Result<Vec<TaskRecord>, TaskStoreError> {
        let io = |source| TaskStoreError::Io {
            path: self.dir.clone(),
            source,
        };
        let mut records = Vec::new();
        for entry in std::fs::read_dir(&self.dir).map_err(io)? {
            let path = entry.map_err(io)?.path();
            let is_record = path
                .extension()
                .is_some_and(|extension| extension == "json")
                && path
                    .file_stem()
                    .and_then(|stem| stem.to_str())
                    .is_some_and(|stem| Uuid::parse_str(stem).is_ok());
            if !is_record {
                continue;
            }
            // A record removed or half-read by another replica is skipped.
            if let Ok(Some(record)) = self.read(&path) {
                records.push(record);
            }
            if records.len() >= limit.min(MAX_LISTED) {
                break;
            }
        }
        in_listing_order(&mut records);
        Ok(records)
    }
}

/// Runs blocking file work off the async threads.
async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, TaskStoreError> + Send + 'static,
) -> Result<T, TaskStoreError> {
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|error| TaskStoreError::Other(Box::new(error)))?
}

impl TaskStore for FileTaskStore {
    fn put(&self, record: TaskRecord) -> BoxFuture<'_, Result<(), TaskStoreError>> {
        let store = self.clone();
        Box::pin(blocking(move || store.write(&record)))
    }

    fn get<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<TaskRecord>, TaskStoreError>> {
        let store = self.clone();
        let path = self.path(id, "json");
        Box::pin(async move {
            match path {
                Some(path) => blocking(move || store.read(&path)).await,
                None => Ok(None),
            }
        })
    }

    fn list(&self, limit: usize) -> BoxFuture<'_, Result<Vec<TaskRecord>, TaskStoreError>> {
        let store = self.clone();
        Box::pin(blocking(move || store.list_now(limit)))
    }

    fn request_cancel<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<(), TaskStoreError>> {
        let path = self.path(id, "cancel");
        Box::pin(async move {
            let Some(path) = path else { return Ok(()) };
            blocking(move || {
                std::fs::File::create(&path)
                    .map(drop)
                    .map_err(|source| TaskStoreError::Io { path, source })
            })
            .await
        })
    }

    fn cancel_requested<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<bool, TaskStoreError>> {
        let path = self.path(id, "cancel");
        Box::pin(async move {
            let Some(path) = path else { return Ok(false) };
            blocking(move || Ok(path.exists())).await
        })
    }

    fn put_answers<'a>(
        &'a self,
        id: &'a str,
        answers: serde_json::Map<String, Value>,
        _ttl: Duration,
    ) -> BoxFuture<'a, Result<(), TaskStoreError>> {
        let store = self.clone();
        let dir = self.path(id, "answers");
        Box::pin(async move {
            let Some(dir) = dir else { return Ok(()) };
            blocking(move || store.write_answers(&dir, &answers)).await
        })
    }

    fn answers<'a>(
        &'a self,
        id: &'a str,
    ) -> BoxFuture<'a, Result<serde_json::Map<String, Value>, TaskStoreError>> {
        let dir = self.path(id, "answers");
        Box::pin(async move {
            let Some(dir) = dir else {
                return Ok(serde_json::Map::new());
            };
            blocking(move || read_answers(&dir)).await
        })
    }
}

impl FileTaskStore {
    /// Writes each answer to its own file in `dir`, named by its key in hex,
    /// through a temporary file renamed into place.
    fn write_answers(
        &self,
        dir: &Path,
        answers: &serde_json::Map<String, Value>,
    ) -> Result<(), TaskStoreError> {
        let io = |source| TaskStoreError::Io {
            path: dir.to_owned(),
            source,
        };
        std::fs::create_dir_all(dir).map_err(io)?;
        for (key, answer) in answers {
            let name: String = key.bytes().map(|byte| format!("{byte:02x}")).collect();
            let path = dir.join(format!("{name}.json"));
            let staging = dir.join(format!(".{name}.{}.tmp", Uuid::new_v4().simple()));
            let written = (|| {
                let mut file = std::fs::File::create(&staging)?;
                serde_json::to_writer(&mut file, answer)?;
                file.flush()?;
                std::fs::rename(&staging, &path)
            })();
            if written.is_err() {
                let _ = std::fs::remove_file(&staging);
            }
            written.map_err(io)?;
        }
        Ok(())
    }
}

/// The answers in `dir`, each file an answer named by its key in hex; at
/// most [`MAX_ANSWERS`], each at most [`MAX_ANSWER_BYTES`].
fn read_answers(dir: &Path) -> Result<serde_json::Map<String, Value>, TaskStoreError> {
    let io = |source| TaskStoreError::Io {
        path: dir.to_owned(),
        source,
    };
    let mut answers = serde_json::Map::new();
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(answers),
        Err(error) => return Err(io(error)),
    };
    for entry in entries {
        let path = entry.map_err(io)?.path();
        let Some(key) = path
            .file_name()
            .and_then(|name| name.to_str())
            .and_then(|name| name.strip_suffix(".json"))
            .and_then(unhex)
        else {
            continue;
        };
        let Ok(bytes) = std::fs::read(&path) else {
            continue;
        };
        if bytes.len() > MAX_ANSWER_BYTES {
            return Err(TaskStoreError::AnswerTooLarge { path });
        }
        let answer = serde_json::from_slice(&bytes)
            .map_err(|source| TaskStoreError::Corrupt { path, source })?;
        answers.insert(key, answer);
        if answers.len() >= MAX_ANSWERS {
            break;
        }
    }
    Ok(answers)
}

/// The key a file of answers is named by, from its hex.
fn unhex(hex: &str) -> Option<String> {
    if !hex.len().is_multiple_of(2) {
        return None;
    }
    let bytes: Option<Vec<u8>> = (0..hex.len())
        .step_by(2)
        .map(|at| u8::from_str_radix(hex.get(at..at + 2)?, 16).ok())
        .collect();
    String::from_utf8(bytes?).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The outcome is stored as a `result` or an `error` field, only the
    /// one the task ended with; a record that still holds both fields, one
    /// of them null, reads as the one that is set.
    #[test]
    fn an_outcome_is_stored_as_its_own_field() {
        let mut task = TaskRecord::sample();
        let stored = serde_json::to_value(&task).unwrap();
        assert!(stored.get("result").is_none() && stored.get("error").is_none());
        assert_eq!(serde_json::from_value::<TaskRecord>(stored).unwrap(), task);

        task.status = TaskStatus::Failed;
        task.outcome = Some(TaskOutcome::Error(serde_json::json!({ "code": -32603 })));
        let stored = serde_json::to_value(&task).unwrap();
        assert_eq!(stored["error"], serde_json::json!({ "code": -32603 }));
        assert!(stored.get("result").is_none());
        let read: TaskRecord = serde_json::from_value(stored.clone()).unwrap();
        assert_eq!(read.error(), Some(&serde_json::json!({ "code": -32603 })));
        assert_eq!(read.result(), None);

        let mut both = stored;
        both["status"] = serde_json::json!("completed");
        both["result"] = serde_json::json!({ "content": [] });
        both.as_object_mut().unwrap().remove("error");
        both["error"] = serde_json::Value::Null;
        let read: TaskRecord = serde_json::from_value(both).unwrap();
        assert_eq!(read.result(), Some(&serde_json::json!({ "content": [] })));
    }

    #[tokio::test]
    async fn a_record_written_by_one_store_is_read_by_another_on_the_same_directory() {
        let dir = tempfile::tempdir().unwrap();
        let one = FileTaskStore::new(dir.path()).unwrap();
        let other = FileTaskStore::new(dir.path()).unwrap();
        let mut task = TaskRecord::sample();
        one.put(task.clone()).await.unwrap();
        assert_eq!(other.get(&task.id).await.unwrap(), Some(task.clone()));
        task.status = TaskStatus::Completed;
        task.outcome = Some(TaskOutcome::Result(serde_json::json!({"content": []})));
        other.put(task.clone()).await.unwrap();
        assert_eq!(one.get(&task.id).await.unwrap(), Some(task.clone()));
        assert_eq!(one.list(10).await.unwrap(), vec![task]);
        // No staging file is left behind.
        let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(names.len(), 1);
    }

    #[tokio::test]
    async fn a_cancel_is_kept_apart_from_the_record_so_a_later_write_keeps_it() {
        let dir = tempfile::tempdir().unwrap();
        let store = FileTaskStore::new(dir.path()).unwrap();
        let task = TaskRecord::sample();
        store.put(task.clone()).await.unwrap();
        assert!(!store.cancel_requested(&task.id).await.unwrap());
        store.request_cancel(&task.id).await.unwrap();
        store.put(task.clone()).await.unwrap();
        assert!(store.cancel_requested(&task.id).await.unwrap());
    }

    #[tokio::test]
    async fn ids_that_are_not_uuids_name_no_file() {
        let dir = tempfile::tempdir().unwrap();
        let store = FileTaskStore::new(dir.path()).unwrap();
        assert_eq!(store.get("../../etc/passwd").await.unwrap(), None);
        store.request_cancel("../escape").await.unwrap();
        assert!(!store.cancel_requested("../escape").await.unwrap());
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    #[tokio::test]
    async fn an_expired_task_is_gone() {
        let dir = tempfile::tempdir().unwrap();
        let store = FileTaskStore::new(dir.path()).unwrap();
        let mut task = TaskRecord::sample();
        task.ttl_ms = 0;
        task.created_at = "2020-01-01T00:00:00.000Z".to_owned();
        store.put(task.clone()).await.unwrap();
        assert_eq!(store.get(&task.id).await.unwrap(), None);
        assert!(store.list(10).await.unwrap().is_empty());
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    #[tokio::test]
    async fn a_corrupt_record_is_an_error_not_a_panic() {
        let dir = tempfile::tempdir().unwrap();
        let store = FileTaskStore::new(dir.path()).unwrap();
        let id = Uuid::new_v4().to_string();
        std::fs::write(dir.path().join(format!("{id}.json")), b"{not json").unwrap();
        assert!(matches!(
            store.get(&id).await,
            Err(TaskStoreError::Corrupt { .. })
        ));
    }
}
