//! MCP tasks: a long-running tool's call answered at once with a task, run
//! through the pipeline in the background, its state kept in a
//! [`TaskStore`] the replicas of a server share.
//!
//! The protocol follows the tasks extension (`io.modelcontextprotocol/tasks`,
//! the 2026-07-28 draft, as rmcp models it): the server decides, for a tool
//! whose calls may run as tasks and a client that declared the extension;
//! `tasks/get` answers the state and, once done, the result; `tasks/cancel`
//! asks the runner to stop; a call that asks the client something leaves
//! the task `input_required` until `tasks/update` brings the answer. The
//! 2025-11-25 methods `tasks/result` (which waits for the end) and
//! `tasks/list` are served to the clients of that era.

pub(crate) mod store;

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use futures_util::future::BoxFuture;
use rmcp::ErrorData;
use rmcp::model::{
    CreateTaskResult, DetailedTask, ErrorCode, InputResponses, JsonObject, Task, TaskPayload,
    TaskStatus,
};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;
use uuid::Uuid;

use crate::pipeline::ToolCall;
use crate::registry::Registry;
use crate::value::event::Event;
use crate::value::event::stream::StreamType;
use crate::value::result::{Cause, ToolResult};

use super::request_state::check_answers;
use super::session::RoundTrip;
use crate::mcp::stores::bus::{BusEvent, BusSlot};
use store::{
    MAX_ANSWER_BYTES, MAX_ANSWERS, TaskOutcome, TaskOwner, TaskRecord, TaskStore, TaskStoreError,
    in_listing_order,
};

/// The target of this module's log lines, the one hosts filter on.
const LOG_TARGET: &str = "dsh_kit::mcp::task";

/// How long a task is kept after it was made, unless the server says: 1 hour.
pub const DEFAULT_TASK_TTL: Duration = Duration::from_secs(3600);

/// How often a client is asked to poll, and a runner looks for a
/// cancellation asked for on another replica: 250 ms.
pub const DEFAULT_TASK_POLL_INTERVAL: Duration = Duration::from_millis(250);

/// How many tasks one server process runs at once: 64.
pub const DEFAULT_MAX_RUNNING_TASKS: usize = 64;

/// The most tasks `tasks/list` answers with.
const MAX_LISTED: usize = 1000;

/// The most tasks a [`MemoryTaskStore`] keeps; past it, the oldest that
/// ended are dropped.
const MAX_KEPT_IN_MEMORY: usize = 10_000;

/// The longest `tasks/result` waits for a task to end: 10 minutes.
const MAX_RESULT_WAIT: Duration = Duration::from_secs(600);

/// The `_meta` key tying a result to its task (MCP 2025-11-25).
const RELATED_TASK: &str = "io.modelcontextprotocol/related-task";

/// What turns a finished call into the `tools/call` result a client gets.
pub(crate) type Finish = Box<dyn FnOnce(ToolResult) -> Value + Send>;

/// Hands a task's waiting requests the answers `tasks/update` stored, and
/// sets its record `input_required` with the requests still waiting, or
/// back to `working`; whether the record changed.
async fn waiting(input: &RoundTrip, store: &dyn TaskStore, record: &mut TaskRecord) -> bool {
    if let Ok(answers) = store.answers(&record.id).await {
        input.answer(answers.into_iter().collect());
    }
    let pending = input.pending();
    let requests = match serde_json::to_value(&pending) {
        Ok(Value::Object(requests)) if !requests.is_empty() => Some(requests),
        _ => None,
    };
    if requests == record.input_requests {
        return false;
    }
    record.status = if requests.is_some() {
        TaskStatus::InputRequired
    } else {
        TaskStatus::Working
    };
    record.input_requests = requests;
    true
}

/// The tasks of one server: its store, and the calls this process runs.
pub(crate) struct Tasks {
    store: Arc<dyn TaskStore>,
    /// Where each change of a task's state is announced.
    bus: BusSlot,
    /// This process, as task records name their runner.
    runner: String,
    ttl: Duration,
    poll: Duration,
    max_running: usize,
    /// The calls this process runs, by task id.
    running: Mutex<HashMap<String, CancellationToken>>,
}

impl Tasks {
    pub(crate) fn new(store: Arc<dyn TaskStore>, bus: BusSlot) -> Self {
        Tasks {
            store,
            bus,
            runner: Uuid::new_v4().to_string(),
            ttl: DEFAULT_TASK_TTL,
            poll: DEFAULT_TASK_POLL_INTERVAL,
            max_running: DEFAULT_MAX_RUNNING_TASKS,
            running: Mutex::default(),
        }
    }

    /// The same settings on another store.
    pub(crate) fn with_store(&self, store: Arc<dyn TaskStore>) -> Self {
        Tasks {
            store,
            ttl: self.ttl,
            poll: self.poll,
            max_running: self.max_running,
            ..Tasks::new(Arc::new(MemoryTaskStore::default()), self.bus.clone())
        }
    }

    pub(crate) fn with_ttl(mut self, ttl: Duration) -> Self {
        self.ttl = ttl;
        self
    }

    pub(crate) fn with_poll_interval(mut self, poll: Duration) -> Self {
        self.poll = poll.max(Duration::from_millis(10));
        self
    }

    pub(crate) fn store(&self) -> &Arc<dyn TaskStore> {
        &self.store
    }

    fn running(&self) -> std::sync::MutexGuard<'_, HashMap<String, CancellationToken>> {
        self.running.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Starts `call` as a task: its record is stored before this returns, the
    /// call runs in the background, and `finish` makes its result. `input`
    /// is where the call's client asks (MCP 2026-07-28): the task is
    /// `input_required` while a request waits, until `tasks/update` brings
    /// its answer.
    pub(crate) async fn start(
        self: &Arc<Self>,
        registry: &Registry,
        tool: &str,
        call: ToolCall,
        owner: &TaskOwner,
        finish: Finish,
        input: Option<Arc<RoundTrip>>,
    ) -> Result<CreateTaskResult, ErrorData> {
        let token = CancellationToken::new();
        let record = TaskRecord::new(tool, self.ttl, self.poll, &self.runner).owned_by(owner);
        {
            let mut running = self.running();
            if running.len() >= self.max_running {
                return Err(ErrorData::new(
                    ErrorCode::INTERNAL_ERROR,
                    format!(
                        "this server runs {} tasks already, its limit; try again when one ends",
                        running.len()
                    ),
                    None,
                ));
            }
            running.insert(record.id.clone(), token.clone());
        }
        if let Err(error) = self.store.put(record.clone()).await {
            self.running().remove(&record.id);
            return Err(store_error(&error));
        }
        self.announce(&record);
        let created = CreateTaskResult::new(mcp_task(&record));
        let tasks = Arc::clone(self);
        let registry = registry.clone();
        // The task's call stays in the trace of the request that made it.
        let running = async move {
            let id = record.id.clone();
            tasks
                .run(
                    registry,
                    call.cancel_on(token.clone()),
                    token,
                    record,
                    finish,
                    input,
                )
                .await;
            tasks.running().remove(&id);
        };
        tokio::spawn(tracing::Instrument::in_current_span(running));
        Ok(created)
    }

    /// Runs one task's call, keeping its record current: the tool's last
    /// progress message as the status message, a cancel asked for on any
    /// replica, and the result.
    async fn run(
        &self,
        registry: Registry,
        call: ToolCall,
        token: CancellationToken,
        record: TaskRecord,
        finish: Finish,
        input: Option<Arc<RoundTrip>>,
    ) {
        let record = Arc::new(tokio::sync::Mutex::new(Some(record)));
        let progress: Arc<Mutex<VecDeque<String>>> = Arc::default();
        let call_id = call.id();
        let chunks = Arc::clone(&progress);
        let _subscription = registry.subscribe(move |event| {
            if let Event::Stream(chunk) = event
                && chunk.invocation_id == call_id
                && chunk.stream_type == StreamType::Progress
            {
                let mut chunks = chunks.lock().unwrap_or_else(PoisonError::into_inner);
                chunks.clear();
                chunks.push_back(chunk.chunk.clone());
            }
        });
        let stop = CancellationToken::new();
        let watch = {
            let store = Arc::clone(&self.store);
            let record = Arc::clone(&record);
            let token = token.clone();
            let stop = stop.clone();
            let poll = self.poll;
            let mut cancels = self.store.cancellations();
            async move {
                loop {
                    tokio::select! {
                        () = stop.cancelled() => return,
                        () = tokio::time::sleep(poll) => {}
                        id = cancelled(cancels.as_mut()) => {
                            let guard = record.lock().await;
                            if guard.as_ref().is_some_and(|current| current.id == id) {
                                token.cancel();
                                return;
                            }
                            continue;
                        }
                    }
                    let mut guard = record.lock().await;
                    let Some(current) = guard.as_mut() else {
                        return;
                    };
                    if matches!(store.cancel_requested(&current.id).await, Ok(true)) {
                        token.cancel();
                        return;
                    }
                    if let Some(input) = &input
                        && waiting(input, store.as_ref(), current).await
                    {
                        current.touch();
                        if let Err(error) = store.put(current.clone()).await {
                            tracing::warn!(target: LOG_TARGET, "a task's input requests were not stored: {error}");
                        }
                    }
                    let message = progress
                        .lock()
                        .unwrap_or_else(PoisonError::into_inner)
                        .pop_front();
                    if let Some(message) = message {
                        current.status_message = Some(message);
                        current.touch();
                        if let Err(error) = store.put(current.clone()).await {
                            tracing::warn!(target: LOG_TARGET, "a task's progress was not stored: {error}");
                        }
                    }
                }
            }
        };
        let watcher = tokio::spawn(watch);
        let result = registry.call_with(call).await;
        // Let a write under way land before the last one, never after it.
        stop.cancel();
        let _ = watcher.await;
        let Some(mut done) = record.lock().await.take() else {
            return;
        };
        done.input_requests = None;
        let cancelled =
            token.is_cancelled() || matches!(self.store.cancel_requested(&done.id).await, Ok(true));
        // A panic is the server failing, not the tool reporting an error:
        // the task fails with the JSON-RPC error it makes (tasks extension).
        let broke = (result.failure.as_ref())
            .is_some_and(|failure| matches!(failure.cause, Cause::Panicked | Cause::HookPanicked));
        if cancelled {
            done.status = TaskStatus::Cancelled;
            done.status_message = Some("the task was cancelled by request".to_owned());
        } else if broke {
            let error = ErrorData::internal_error(
                format!("the task's call broke on the server: {}", result.text()),
                None,
            );
            done.status = TaskStatus::Failed;
            done.status_message = Some(error.message.to_string());
            done.outcome = Some(TaskOutcome::Error(
                serde_json::to_value(&error).unwrap_or_default(),
            ));
        } else {
            done.status = TaskStatus::Completed;
            done.status_message = None;
            done.outcome = Some(TaskOutcome::Result(finish(result)));
        }
        done.touch();
        self.announce(&done);
        if let Err(error) = self.store.put(done).await {
            tracing::warn!(target: LOG_TARGET, "a task's end was not stored: {error}");
        }
    }

    /// Tells the sessions of every replica where the task is, and so the
    /// owner's clients (`notifications/tasks/status`): when it starts and
    /// when it ends (its progress messages stay in the store, where a poll
    /// finds them, rather than wake every session).
    fn announce(&self, record: &TaskRecord) {
        self.bus.publish(BusEvent::TaskStatus {
            task: legacy_task(record),
            owner: record.owner.clone(),
        });
    }

    /// The record of task `id`, or invalid params naming it.
    pub(crate) async fn record(
        &self,
        id: &str,
        owner: &TaskOwner,
    ) -> Result<TaskRecord, ErrorData> {
        match self.store.get(id).await {
            // Another principal's task is answered as one that never was:
            // its id tells nothing.
            Ok(Some(record)) if owner.owns(&record) => Ok(record),
            Ok(_) => Err(ErrorData::invalid_params(
                format!("no task `{}`: it never existed, or it expired", cut(id)),
                None,
            )),
            Err(error) => Err(store_error(&error)),
        }
    }

    /// `tasks/update`: keeps the client's answers to the requests task `id`
    /// waits for, for whichever replica runs it; an answer to a request the
    /// task does not wait for is ignored, as the tasks extension says of
    /// unknown keys.
    pub(crate) async fn update(
        &self,
        id: &str,
        owner: &TaskOwner,
        answers: InputResponses,
    ) -> Result<(), ErrorData> {
        let record = self.record(id, owner).await?;
        check_answers(&answers).map_err(|why| ErrorData::invalid_params(why, None))?;
        let waiting = record.input_requests.unwrap_or_default();
        let answers: JsonObject = answers
            .into_iter()
            .filter(|(key, _)| waiting.contains_key(key))
            .collect();
        if answers.is_empty() {
            return Ok(());
        }
        if let Some(key) = answers
            .iter()
            .find_map(|(key, answer)| (answer.to_string().len() > MAX_ANSWER_BYTES).then_some(key))
        {
            return Err(ErrorData::invalid_params(
                format!(
                    "the answer `{key}` is larger than the {MAX_ANSWER_BYTES} bytes a task keeps"
                ),
                None,
            ));
        }
        let ttl = Duration::from_millis(record.ttl_ms);
        (self.store.put_answers(id, answers, ttl).await).map_err(|error| store_error(&error))
    }

    /// `tasks/get`: the task with its result or error once it ended.
    pub(crate) async fn get(&self, id: &str, owner: &TaskOwner) -> Result<DetailedTask, ErrorData> {
        let mut record = self.record(id, owner).await?;
        // The requests answered since the runner last looked wait no more.
        if let Some(requests) = &mut record.input_requests
            && let Ok(answers) = self.store.answers(id).await
        {
            requests.retain(|key, _| !answers.contains_key(key));
            if requests.is_empty() && record.status == TaskStatus::InputRequired {
                record.status = TaskStatus::Working;
            }
        }
        let payload = match record.status {
            TaskStatus::Completed => TaskPayload::Completed {
                result: object(record.result().cloned()),
            },
            TaskStatus::Failed => TaskPayload::Failed {
                error: object(record.error().cloned()),
            },
            TaskStatus::Cancelled => TaskPayload::Cancelled,
            TaskStatus::InputRequired => TaskPayload::InputRequired {
                input_requests: record
                    .input_requests
                    .clone()
                    .and_then(|requests| serde_json::from_value(Value::Object(requests)).ok())
                    .unwrap_or_default(),
            },
            _ => TaskPayload::Working,
        };
        Ok(DetailedTask::new(mcp_task(&record), payload))
    }

    /// `tasks/cancel`: asks whichever replica runs the task to stop it.
    pub(crate) async fn cancel(
        &self,
        id: &str,
        owner: &TaskOwner,
    ) -> Result<TaskRecord, ErrorData> {
        let record = self.record(id, owner).await?;
        if record.status.is_terminal() {
            return Ok(record);
        }
        self.store
            .request_cancel(id)
            .await
            .map_err(|error| store_error(&error))?;
        if let Some(token) = self.running().get(id) {
            token.cancel();
        }
        Ok(record)
    }

    /// `tasks/result` (MCP 2025-11-25): waits for the task to end, then
    /// answers what the `tools/call` would have.
    pub(crate) async fn result(&self, id: &str, owner: &TaskOwner) -> Result<Value, ErrorData> {
        let waited = tokio::time::timeout(MAX_RESULT_WAIT, async {
            loop {
                let record = self.record(id, owner).await?;
                if record.status.is_terminal() {
                    return Ok(record);
                }
                tokio::time::sleep(Duration::from_millis(
                    record.poll_interval_ms.clamp(10, 5000),
                ))
                .await;
            }
        })
        .await;
        let record = match waited {
            Ok(record) => record?,
            Err(_) => {
                return Err(ErrorData::internal_error(
                    format!(
                        "task `{}` did not end within {} s; ask again, or poll `tasks/get`",
                        cut(id),
                        MAX_RESULT_WAIT.as_secs()
                    ),
                    None,
                ));
            }
        };
        match (record.status, record.outcome) {
            (TaskStatus::Completed, Some(TaskOutcome::Result(mut result))) => {
                if let Value::Object(result) = &mut result {
                    let meta = result
                        .entry("_meta")
                        .or_insert_with(|| Value::Object(serde_json::Map::new()));
                    if let Value::Object(meta) = meta {
                        meta.insert(RELATED_TASK.to_owned(), json!({ "taskId": record.id }));
                    }
                }
                Ok(result)
            }
            (TaskStatus::Failed, Some(TaskOutcome::Error(error))) => {
                Err(serde_json::from_value(error)
                    .unwrap_or_else(|_| ErrorData::internal_error("the task failed", None)))
            }
            _ => Err(ErrorData::invalid_params(
                format!("task `{}` was cancelled: it has no result", record.id),
                None,
            )),
        }
    }

    /// `tasks/list` (MCP 2025-11-25): `owner`'s tasks in the store, in the
    /// 2025-11-25 shape.
    pub(crate) async fn list(&self, owner: &TaskOwner) -> Result<Value, ErrorData> {
        let records = self
            .store
            .list(MAX_LISTED)
            .await
            .map_err(|error| store_error(&error))?;
        let tasks: Vec<Value> = (records.iter())
            .filter(|record| owner.owns(record))
            .map(legacy_task)
            .collect();
        Ok(json!({ "tasks": tasks }))
    }
}

/// The next task id a store's cancellation stream names; never, for a
/// store with none (its runners poll instead), or once the stream closed.
async fn cancelled(cancels: Option<&mut tokio::sync::broadcast::Receiver<String>>) -> String {
    let Some(cancels) = cancels else {
        return std::future::pending().await;
    };
    loop {
        match cancels.recv().await {
            Ok(id) => return id,
            Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {}
            Err(tokio::sync::broadcast::error::RecvError::Closed) => {
                return std::future::pending().await;
            }
        }
    }
}

/// A task as the tasks extension spells it.
fn mcp_task(record: &TaskRecord) -> Task {
    let mut task = Task::new(
        record.id.clone(),
        record.status,
        record.created_at.clone(),
        record.updated_at.clone(),
    )
    .with_ttl_ms(record.ttl_ms)
    .with_poll_interval_ms(record.poll_interval_ms);
    task.status_message = record.status_message.clone();
    task
}

/// A task as MCP 2025-11-25 spells it (`ttl`, `pollInterval`).
pub(crate) fn legacy_task(record: &TaskRecord) -> Value {
    let mut task = json!({
        "taskId": record.id,
        "status": record.status,
        "createdAt": record.created_at,
        "lastUpdatedAt": record.updated_at,
        "ttl": record.ttl_ms,
        "pollInterval": record.poll_interval_ms,
    });
    if let Some(message) = &record.status_message {
        task["statusMessage"] = Value::from(message.as_str());
    }
    task
}

fn object(value: Option<Value>) -> JsonObject {
    match value {
        Some(Value::Object(object)) => object,
        _ => JsonObject::new(),
    }
}

fn store_error(error: &TaskStoreError) -> ErrorData {
    let mut message = error.to_string();
    if let TaskStoreError::Unavailable {
        retry_after,
        source,
    } = error
    {
        message.push_str(": ");
        message.push_str(&source.to_string());
        message.push_str("; retry shortly");
        return crate::mcp::stores::outage::unavailable_error(message, *retry_after);
    }
    let mut source = std::error::Error::source(error);
    while let Some(cause) = source {
        message.push_str(": ");
        message.push_str(&cause.to_string());
        source = cause.source();
    }
    ErrorData::internal_error(message, None)
}

/// An id from the client, cut for an error message.
fn cut(id: &str) -> &str {
    match id.char_indices().nth(64) {
        Some((end, _)) => &id[..end],
        None => id,
    }
}

/// A [`TaskStore`] in this process's memory: the default, for a server
/// with one process. Replicas need a shared one, such as
/// [`FileTaskStore`](super::FileTaskStore).
#[derive(Debug, Default)]
pub struct MemoryTaskStore {
    records: Mutex<HashMap<String, (TaskRecord, bool)>>,
    /// The answers to each task's input requests, by task id.
    answers: Mutex<HashMap<String, JsonObject>>,
}

impl MemoryTaskStore {
    fn records(&self) -> std::sync::MutexGuard<'_, HashMap<String, (TaskRecord, bool)>> {
        self.records.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl TaskStore for MemoryTaskStore {
    fn put(&self, record: TaskRecord) -> BoxFuture<'_, Result<(), TaskStoreError>> {
        let mut records = self.records();
        records.retain(|_, (record, _)| !record.expired());
        let cancelled = records.get(&record.id).is_some_and(|(_, cancel)| *cancel);
        records.insert(record.id.clone(), (record, cancelled));
        if records.len() > MAX_KEPT_IN_MEMORY {
            let mut ended: Vec<(String, String)> = records
                .values()
                .filter(|(record, _)| record.status.is_terminal())
                .map(|(record, _)| (record.updated_at.clone(), record.id.clone()))
                .collect();
            ended.sort();
            let excess = records.len() - MAX_KEPT_IN_MEMORY;
            for (_, id) in ended.into_iter().take(excess) {
                records.remove(&id);
            }
        }
        self.answers
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .retain(|id, _| records.contains_key(id));
        Box::pin(std::future::ready(Ok(())))
    }

    fn get<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<TaskRecord>, TaskStoreError>> {
        let record = self
            .records()
            .get(id)
            .map(|(record, _)| record.clone())
            .filter(|record| !record.expired());
        Box::pin(std::future::ready(Ok(record)))
    }

    fn list(&self, limit: usize) -> BoxFuture<'_, Result<Vec<TaskRecord>, TaskStoreError>> {
        let mut records: Vec<TaskRecord> = self
            .records()
            .values()
            .filter(|(record, _)| !record.expired())
            .map(|(record, _)| record.clone())
            .collect();
        in_listing_order(&mut records);
        records.truncate(limit);
        Box::pin(std::future::ready(Ok(records)))
    }

    fn request_cancel<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<(), TaskStoreError>> {
        if let Some((_, cancel)) = self.records().get_mut(id) {
            *cancel = true;
        }
        Box::pin(std::future::ready(Ok(())))
    }

    fn put_answers<'a>(
        &'a self,
        id: &'a str,
        answers: JsonObject,
        _ttl: Duration,
    ) -> BoxFuture<'a, Result<(), TaskStoreError>> {
        if self.records().contains_key(id) {
            let mut kept = self.answers.lock().unwrap_or_else(PoisonError::into_inner);
            let given = kept.entry(id.to_owned()).or_default();
            for (key, answer) in answers {
                if given.len() < MAX_ANSWERS || given.contains_key(&key) {
                    given.insert(key, answer);
                }
            }
        }
        Box::pin(std::future::ready(Ok(())))
    }

    fn answers<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<JsonObject, TaskStoreError>> {
        let answers = self
            .answers
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(id)
            .cloned()
            .unwrap_or_default();
        Box::pin(std::future::ready(Ok(answers)))
    }

    fn cancel_requested<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<bool, TaskStoreError>> {
        let cancelled = self.records().get(id).is_some_and(|(_, cancel)| *cancel);
        Box::pin(std::future::ready(Ok(cancelled)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_memory_store_keeps_a_cancel_across_writes_and_forgets_expired_tasks() {
        let store = MemoryTaskStore::default();
        let task = TaskRecord::sample();
        store.put(task.clone()).await.unwrap();
        store.request_cancel(&task.id).await.unwrap();
        store.put(task.clone()).await.unwrap();
        assert!(store.cancel_requested(&task.id).await.unwrap());
        assert_eq!(store.list(10).await.unwrap(), vec![task.clone()]);

        let mut old = TaskRecord::new("slow", Duration::ZERO, Duration::from_millis(10), "a");
        old.created_at = "2020-01-01T00:00:00.000Z".to_owned();
        store.put(old.clone()).await.unwrap();
        assert_eq!(store.get(&old.id).await.unwrap(), None);
        assert_eq!(store.list(10).await.unwrap(), vec![task]);
    }
}
