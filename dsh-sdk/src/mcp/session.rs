//! One MCP session's side of a call: the [`Client`] a tool reaches through
//! [`Exec`](crate::Exec) (log messages, elicitation, sampling over rmcp's
//! peer), the log level the client set, and its resource subscriptions.
//!
//! rmcp marks logging and sampling deprecated: the 2026-07-28 protocol drops
//! server-to-client requests. Clients on the 2025 protocols, most of them
//! today, still use them, so this module does too. On 2026-07-28, a tool's
//! elicitation or sampling becomes multi-round-trip input ([`RoundTrip`]).
#![allow(deprecated)]

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use futures_util::future::BoxFuture;
use rmcp::model::{
    ClientCapabilities, ClientResult, CreateMessageRequest, CreateMessageRequestParams,
    CreateMessageResult, CustomNotification, ElicitRequest, ElicitRequestParams, ElicitResult,
    ElicitationAction, InputRequest, InputRequests, InputResponses, ListRootsRequest,
    ListRootsResult, LoggingLevel, LoggingMessageNotificationParam, ProgressNotificationParam,
    ProgressToken, ProtocolVersion, ResourceUpdatedNotificationParam, ServerNotification,
    ServerRequest,
};
use rmcp::service::ServiceError;
use rmcp::{Peer, RoleServer};
use serde_json::{Value, json};
use tokio::sync::{broadcast, mpsc};
use tokio::task::JoinHandle;
use tokio_util::sync::{CancellationToken, DropGuard};
use uuid::Uuid;

use crate::mcp::stores::bus::{BusEvent, BusSlot};
use crate::pool::Subscription;
use crate::registry::Registry;
use crate::tool::client::{
    Client, ClientError, ElicitRequest as DshElicitRequest, Elicitation, ElicitationId, LogLevel,
    LogMessage, ROOTS, Root, RootsRequest, Sample, SampleRequest, URL_ELICITATION,
    UrlElicitRequest,
};
use crate::value::event::Event;
use crate::value::event::stream::StreamType;

/// What one session remembers between requests.
#[derive(Default)]
pub(super) struct Session {
    /// The lowest level the client wants (`logging/setLevel`); `info` until it says.
    log_level: Arc<Mutex<Option<LogLevel>>>,
    /// The resources the client subscribed to.
    subscriptions: Arc<Mutex<BTreeSet<String>>>,
    /// Forwards updates of subscribed resources while the session lasts.
    forward: Mutex<Option<DropGuard>>,
    /// The calls running on this session, for a cancel that reached another
    /// replica.
    pub(super) calls: Arc<Calls>,
}

/// The calls running on one session, by request id, and the session's id.
#[derive(Default)]
pub(super) struct Calls {
    /// The HTTP session id, once a request named it.
    id: std::sync::OnceLock<String>,
    running: Mutex<std::collections::HashMap<String, CancellationToken>>,
}

impl Calls {
    /// Call `request` runs on session `session` until the guard drops;
    /// `token` stops it.
    pub(super) fn track(
        self: &Arc<Self>,
        session: String,
        request: String,
        token: CancellationToken,
    ) -> CallGuard {
        let _ = self.id.set(session);
        lock(&self.running).insert(request.clone(), token);
        CallGuard {
            calls: Arc::clone(self),
            request,
        }
    }

    /// Stops call `request` if it runs here on session `session`.
    pub(super) fn cancel(&self, session: &str, request: &str) {
        if self.id.get().map(String::as_str) != Some(session) {
            return;
        }
        if let Some(token) = lock(&self.running).get(request) {
            token.cancel();
        }
    }
}

/// A call tracked by [`Calls::track`], until dropped.
pub(super) struct CallGuard {
    calls: Arc<Calls>,
    request: String,
}

impl Drop for CallGuard {
    fn drop(&mut self) {
        lock(&self.calls.running).remove(&self.request);
    }
}

impl Session {
    /// `logging/setLevel`.
    pub(super) fn set_log_level(&self, level: LoggingLevel) {
        *lock(&self.log_level) = Some(level_of(level));
    }

    /// The [`Client`] of a call on this session, made on `protocol` by a
    /// client with `capabilities`, that asked for `log_level` on the request
    /// (2026-07-28, where no log goes out unless it did); `round_trip`
    /// carries elicitation, sampling and roots on 2026-07-28.
    pub(super) fn client(
        &self,
        peer: &Peer<RoleServer>,
        protocol: Option<ProtocolVersion>,
        capabilities: Option<ClientCapabilities>,
        log_level: Option<LoggingLevel>,
        round_trip: Option<Arc<RoundTrip>>,
    ) -> Arc<dyn Client> {
        let per_request = (protocol.as_ref())
            .is_some_and(|version| version.as_str() >= ProtocolVersion::V_2026_07_28.as_str());
        let log_level = if per_request {
            LogGate::Request(log_level.map(level_of))
        } else {
            LogGate::Session(Arc::clone(&self.log_level))
        };
        Arc::new(McpClient {
            peer: peer.clone(),
            protocol,
            capabilities,
            round_trip,
            log_level,
        })
    }

    /// `resources/subscribe`: from now on, each update of `uri` announced on
    /// `updates` goes to the client as `notifications/resources/updated`.
    pub(super) fn subscribe(&self, uri: String, peer: &Peer<RoleServer>, updates: &BusSlot) {
        lock(&self.subscriptions).insert(uri);
        let mut forward = lock(&self.forward);
        if forward.is_some() {
            return;
        }
        let stop = CancellationToken::new();
        let stopped = stop.clone();
        let mut updates = updates.subscribe();
        let subscriptions = Arc::clone(&self.subscriptions);
        let peer = peer.clone();
        tokio::spawn(async move {
            loop {
                let uri = tokio::select! {
                    () = stopped.cancelled() => break,
                    update = updates.recv() => match update {
                        Ok(BusEvent::ResourceUpdated { uri }) => uri,
                        Ok(_) | Err(broadcast::error::RecvError::Lagged(_)) => continue,
                        Err(broadcast::error::RecvError::Closed) => break,
                    },
                };
                if !lock(&subscriptions).contains(&uri) {
                    continue;
                }
                let update = ResourceUpdatedNotificationParam::new(uri);
                if peer.notify_resource_updated(update).await.is_err() {
                    break;
                }
            }
        });
        *forward = Some(stop.drop_guard());
    }

    /// `resources/unsubscribe`: no more updates of `uri`.
    pub(super) fn unsubscribe(&self, uri: &str) {
        lock(&self.subscriptions).remove(uri);
    }
}

/// MCP's log level as dsh names it.
fn level_of(level: LoggingLevel) -> LogLevel {
    serde_json::to_value(level)
        .and_then(serde_json::from_value)
        .unwrap_or(LogLevel::Debug)
}

/// The lowest level of log message a call's client wants.
enum LogGate {
    /// The session's, set by `logging/setLevel`; `info` until it is.
    Session(Arc<Mutex<Option<LogLevel>>>),
    /// The request's own (`_meta` `io.modelcontextprotocol/logLevel`, MCP
    /// 2026-07-28); none means no log at all.
    Request(Option<LogLevel>),
}

impl LogGate {
    /// The lowest level that goes out; `None`, nothing does.
    fn wanted(&self) -> Option<LogLevel> {
        match self {
            LogGate::Session(level) => Some(lock(level).unwrap_or(LogLevel::Info)),
            LogGate::Request(level) => *level,
        }
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The multi-round-trip input of one `tools/call` on MCP 2026-07-28, where
/// the server sends no requests of its own: a tool that elicits, samples or
/// lists roots for an answer the client has not sent yet stops the round,
/// and the client gets the requests in an `InputRequiredResult`; it retries
/// the call with the answers, and the tool runs again from the start, this
/// time getting them. A request goes by the key the tool gave it, else by
/// kind and order (`elicitation-0`, `sampling-1`), so a tool that asks the
/// same questions in the same order finds each answer under its key. The
/// answers of earlier rounds come back sealed in the `requestState`.
///
/// A task's call asks the same way, and waits: the task is
/// `input_required` with the requests, and [`answer`](Self::answer) hands it
/// the answers that come through `tasks/update`.
#[derive(Default)]
pub(super) struct RoundTrip {
    /// The request the round belongs to (its
    /// [`binding`](crate::mcp::request_state::binding)), which the next
    /// round's state is sealed for.
    binding: String,
    /// The answers of this round and the earlier ones.
    answers: Mutex<InputResponses>,
    /// Wakes the requests waiting for answers that came.
    arrived: tokio::sync::Notify,
    /// The answers the tool read so far, for the next round's state.
    used: Mutex<InputResponses>,
    /// How many requests the tool made so far in this round.
    asked: AtomicUsize,
    /// The requests with no answer yet.
    needed: Mutex<InputRequests>,
    /// A capability the tool needed and the client did not declare.
    missing: Mutex<Option<&'static str>>,
    wake: tokio::sync::Notify,
}

impl RoundTrip {
    pub(super) fn new(binding: String, answers: InputResponses) -> Arc<Self> {
        Arc::new(RoundTrip {
            binding,
            answers: Mutex::new(answers),
            ..RoundTrip::default()
        })
    }

    /// The request the round belongs to.
    pub(super) fn binding(&self) -> &str {
        &self.binding
    }

    /// Hands the waiting requests the answers among `given` they did not
    /// have; whether there was any.
    pub(super) fn answer(&self, given: InputResponses) -> bool {
        let mut answers = lock(&self.answers);
        let mut needed = lock(&self.needed);
        let mut new = false;
        for (key, answer) in given {
            if answers.contains_key(&key) {
                continue;
            }
            needed.remove(&key);
            answers.insert(key, answer);
            new = true;
        }
        drop((answers, needed));
        if new {
            self.arrived.notify_waiters();
        }
        new
    }

    /// The requests waiting for an answer now, left in place.
    pub(super) fn pending(&self) -> InputRequests {
        lock(&self.needed).clone()
    }

    /// Waits for the requests the client must answer before the call goes
    /// on: every one the tool made before it stopped to wait, so a tool that
    /// asks several things at once (`join!`) gets them in one round.
    pub(super) async fn needed(&self) -> InputRequests {
        loop {
            self.wake.notified().await;
            // The tool's other requests of the same poll, made on another
            // worker, land before it waits.
            let mut seen = 0;
            loop {
                tokio::task::yield_now().await;
                let now = lock(&self.needed).len();
                if now == seen {
                    break;
                }
                seen = now;
            }
            let needed = std::mem::take(&mut *lock(&self.needed));
            if !needed.is_empty() {
                return needed;
            }
        }
    }

    /// The answers the tool read, for the state of the next round.
    pub(super) fn used(&self) -> InputResponses {
        lock(&self.used).clone()
    }

    /// The capability the tool asked for and the client did not declare.
    pub(super) fn missing(&self) -> Option<&'static str> {
        *lock(&self.missing)
    }

    /// The client's answer to the request named `key` (or, with none, to
    /// the next request of `kind`), or, when it has none, the request handed
    /// to the server and a wait for it (a call's round ends there, and the
    /// server answers with the requests; a task waits for `tasks/update`).
    async fn ask(
        &self,
        kind: &str,
        key: Option<String>,
        request: InputRequest,
    ) -> Result<Value, ClientError> {
        let order = self.asked.fetch_add(1, Ordering::SeqCst);
        let key = key.unwrap_or_else(|| format!("{kind}-{order}"));
        loop {
            let arrived = self.arrived.notified();
            tokio::pin!(arrived);
            arrived.as_mut().enable();
            let answer = lock(&self.answers).get(&key).cloned();
            if let Some(answer) = answer {
                lock(&self.used).insert(key.clone(), answer.clone());
                // A client that could not fulfil a request answers with an error.
                if answer.get("code").is_some() && answer.get("message").is_some() {
                    return Err(ClientError::Failed(format!(
                        "the client could not answer the {kind} request `{key}`: {}",
                        answer["message"]
                    )));
                }
                return Ok(answer);
            }
            lock(&self.needed)
                .entry(key.clone())
                .or_insert_with(|| request.clone());
            self.wake.notify_one();
            arrived.await;
        }
    }
}

/// The error of a call whose tool needed `capability` and the client did
/// not declare it on the request (MCP 2026-07-28's
/// `MissingRequiredClientCapabilityError`, HTTP 400): its data names the
/// capability as `ClientCapabilities` do.
pub(super) fn missing_capability(capability: &'static str) -> rmcp::ErrorData {
    let required = match capability {
        URL_ELICITATION => json!({ "elicitation": { "url": {} } }),
        ROOTS => json!({ "roots": {} }),
        "elicitation" => json!({ "elicitation": {} }),
        _ => json!({ "sampling": {} }),
    };
    rmcp::ErrorData::new(
        rmcp::model::ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY,
        format!(
            "the tool needs the client's {capability} capability, which this request did not declare in `_meta` `io.modelcontextprotocol/clientCapabilities`"
        ),
        Some(json!({ "requiredCapabilities": required })),
    )
}

/// The MCP client of one session, as a tool sees it.
struct McpClient {
    peer: Peer<RoleServer>,
    /// The protocol of the call's request.
    protocol: Option<ProtocolVersion>,
    /// What the client declared: on the request (2026-07-28) or at `initialize`.
    capabilities: Option<ClientCapabilities>,
    /// Elicitation and sampling as multi-round-trip input (2026-07-28).
    round_trip: Option<Arc<RoundTrip>>,
    log_level: LogGate,
}

impl McpClient {
    /// Fails unless the client declared `capability`.
    fn require(&self, capability: &'static str) -> Result<(), ClientError> {
        if let Some(version) = &self.protocol
            && version.as_str() >= ProtocolVersion::V_2026_07_28.as_str()
            && self.round_trip.is_none()
        {
            return Err(ClientError::Failed(format!(
                "the session speaks MCP {version}, which has no requests from server to client, and this call cannot take multi-round-trip input"
            )));
        }
        let declared = self
            .capabilities
            .as_ref()
            .is_some_and(|capabilities| match capability {
                // An empty `elicitation` is forms alone; `{"url": {}}` is URLs alone.
                "elicitation" => (capabilities.elicitation.as_ref()).is_some_and(|elicitation| {
                    elicitation.form.is_some() || elicitation.url.is_none()
                }),
                URL_ELICITATION => (capabilities.elicitation.as_ref())
                    .is_some_and(|elicitation| elicitation.url.is_some()),
                ROOTS => capabilities.roots.is_some(),
                _ => capabilities.sampling.is_some(),
            });
        if declared {
            return Ok(());
        }
        if let Some(round_trip) = &self.round_trip {
            lock(&round_trip.missing).get_or_insert(capability);
        }
        Err(ClientError::Unsupported { capability })
    }

    async fn request(&self, request: ServerRequest) -> Result<ClientResult, ClientError> {
        self.peer.send_request(request).await.map_err(failed)
    }

    /// Asks the client: a request from the server on the 2025 protocols,
    /// multi-round-trip input on 2026-07-28.
    async fn ask(
        &self,
        key: Option<String>,
        request: InputRequest,
    ) -> Result<ClientResult, ClientError> {
        let Some(round_trip) = &self.round_trip else {
            let request = match request {
                InputRequest::Elicitation(request) => ServerRequest::ElicitRequest(request),
                InputRequest::CreateMessage(request) => {
                    ServerRequest::CreateMessageRequest(request)
                }
                InputRequest::ListRoots(request) => ServerRequest::ListRootsRequest(request),
                other => {
                    return Err(ClientError::Failed(format!(
                        "no tool asks the client for {other:?}"
                    )));
                }
            };
            return self.request(request).await;
        };
        Ok(match request {
            InputRequest::Elicitation(request) => {
                let answer = round_trip
                    .ask("elicitation", key, InputRequest::Elicitation(request))
                    .await?;
                ClientResult::ElicitResult(from_json::<ElicitResult>(
                    answer,
                    "the elicitation answer",
                )?)
            }
            InputRequest::ListRoots(request) => {
                let answer = round_trip
                    .ask("roots", key, InputRequest::ListRoots(request))
                    .await?;
                ClientResult::ListRootsResult(from_json::<ListRootsResult>(
                    answer,
                    "the roots answer",
                )?)
            }
            request => {
                let answer = round_trip.ask("sampling", key, request).await?;
                ClientResult::CreateMessageResult(Box::new(from_json::<CreateMessageResult>(
                    answer,
                    "the sampling answer",
                )?))
            }
        })
    }

    /// Sends an `elicitation/create` with `params` and reads the answer.
    async fn elicitation(
        &self,
        key: Option<String>,
        params: Value,
    ) -> Result<Elicitation, ClientError> {
        let params: ElicitRequestParams = from_json(params, "the elicitation request")?;
        let answer = self
            .ask(key, InputRequest::Elicitation(ElicitRequest::new(params)))
            .await?;
        let ClientResult::ElicitResult(answer) = answer else {
            return Err(ClientError::Failed(
                "the client answered an elicitation with something else".to_owned(),
            ));
        };
        Ok(match answer.action {
            ElicitationAction::Accept => match answer.content {
                Some(Value::Object(content)) => Elicitation::Accept(content),
                None => Elicitation::Accept(serde_json::Map::new()),
                Some(other) => {
                    return Err(ClientError::Failed(format!(
                        "the client accepted an elicitation with content that is not an object: {other}"
                    )));
                }
            },
            ElicitationAction::Decline => Elicitation::Decline,
            ElicitationAction::Cancel => Elicitation::Cancel,
            other => {
                return Err(ClientError::Failed(format!(
                    "the client answered an elicitation with an unknown action: {other:?}"
                )));
            }
        })
    }
}

fn failed(error: ServiceError) -> ClientError {
    ClientError::Failed(error.to_string())
}

/// Builds an rmcp value from its JSON shape: rmcp's types are non-exhaustive.
fn from_json<T: serde::de::DeserializeOwned>(value: Value, what: &str) -> Result<T, ClientError> {
    serde_json::from_value(value)
        .map_err(|error| ClientError::Failed(format!("{what} does not fit MCP: {error}")))
}

impl Client for McpClient {
    fn log(&self, message: LogMessage) -> BoxFuture<'_, Result<(), ClientError>> {
        Box::pin(async move {
            let Some(wanted) = self.log_level.wanted() else {
                return Ok(());
            };
            if message.level < wanted {
                return Ok(());
            }
            let level: LoggingLevel = from_json(json!(message.level), "a log level")?;
            let mut param = LoggingMessageNotificationParam::new(level, message.data);
            param.logger = Some(message.logger);
            // MCP logging is what the 2025 protocols offer a tool to reach its user's log.
            #[allow(deprecated)]
            let sent = self.peer.notify_logging_message(param).await;
            sent.map_err(failed)
        })
    }

    fn elicit(&self, request: DshElicitRequest) -> BoxFuture<'_, Result<Elicitation, ClientError>> {
        Box::pin(async move {
            self.require("elicitation")?;
            let params = json!({
                "mode": "form",
                "message": request.message,
                "requestedSchema": request.schema,
            });
            self.elicitation(request.key, params).await
        })
    }

    fn elicit_url(
        &self,
        request: UrlElicitRequest,
    ) -> BoxFuture<'_, Result<Elicitation, ClientError>> {
        Box::pin(async move {
            self.require(URL_ELICITATION)?;
            // 2026-07-28 dropped the id with the completion notice it
            // named, but rmcp writes the field in every era: the id, then,
            // rather than an empty one (a retried call asks with a new id).
            let params = json!({
                "mode": "url",
                "message": request.message,
                "url": request.url,
                "elicitationId": request.id.as_str(),
            });
            self.elicitation(None, params).await
        })
    }

    fn elicitation_complete(&self, id: &ElicitationId) -> BoxFuture<'_, Result<(), ClientError>> {
        let params = json!({ "elicitationId": id.as_str() });
        Box::pin(async move {
            // On 2026-07-28 the server sends nothing outside a reply: the
            // client learns of it when it retries the call.
            let modern = (self.protocol.as_ref())
                .is_some_and(|version| version.as_str() >= ProtocolVersion::V_2026_07_28.as_str());
            if modern || self.round_trip.is_some() {
                return Ok(());
            }
            let notification =
                CustomNotification::new("notifications/elicitation/complete", Some(params));
            (self.peer)
                .send_notification(ServerNotification::CustomNotification(notification))
                .await
                .map_err(failed)
        })
    }

    fn sample(&self, request: SampleRequest) -> BoxFuture<'_, Result<Sample, ClientError>> {
        Box::pin(async move {
            self.require("sampling")?;
            let messages: Vec<Value> = request
                .messages
                .iter()
                .map(|message| {
                    json!({
                        "role": message.role,
                        "content": { "type": "text", "text": message.text },
                    })
                })
                .collect();
            let mut params = json!({ "messages": messages, "maxTokens": request.max_tokens });
            if let Some(system) = &request.system_prompt {
                params["systemPrompt"] = Value::from(system.as_str());
            }
            let params: CreateMessageRequestParams = from_json(params, "the sampling request")?;
            let answer = self
                .ask(
                    request.key,
                    InputRequest::CreateMessage(CreateMessageRequest::new(params)),
                )
                .await?;
            let ClientResult::CreateMessageResult(answer) = answer else {
                return Err(ClientError::Failed(
                    "the client answered a sampling request with something else".to_owned(),
                ));
            };
            let answer = serde_json::to_value(&answer)
                .map_err(|error| ClientError::Failed(error.to_string()))?;
            let blocks = match &answer["content"] {
                Value::Array(blocks) => blocks.clone(),
                block => vec![block.clone()],
            };
            let text = blocks
                .iter()
                .filter_map(|block| block.get("text").and_then(Value::as_str))
                .collect::<Vec<_>>()
                .join("\n");
            Ok(Sample {
                text,
                model: answer["model"].as_str().unwrap_or_default().to_owned(),
                stop_reason: answer["stopReason"].as_str().map(str::to_owned),
            })
        })
    }

    fn roots(&self, request: RootsRequest) -> BoxFuture<'_, Result<Vec<Root>, ClientError>> {
        Box::pin(async move {
            self.require(ROOTS)?;
            let answer = self
                .ask(
                    request.key,
                    InputRequest::ListRoots(ListRootsRequest::default()),
                )
                .await?;
            let ClientResult::ListRootsResult(answer) = answer else {
                return Err(ClientError::Failed(
                    "the client answered a roots request with something else".to_owned(),
                ));
            };
            Ok(answer
                .roots
                .into_iter()
                .map(|root| Root {
                    uri: root.uri,
                    name: root.name,
                })
                .collect())
        })
    }
}

/// How long a finished call waits for its last progress notifications to go out.
const PROGRESS_DRAIN: Duration = Duration::from_secs(2);

/// Sends one call's `progress` chunks to the client as `notifications/progress`.
pub(super) struct ProgressForward {
    subscription: Subscription,
    task: JoinHandle<()>,
}

impl ProgressForward {
    pub(super) fn start(
        registry: &Registry,
        call: Uuid,
        token: ProgressToken,
        peer: &Peer<RoleServer>,
    ) -> Self {
        let (sender, mut chunks) = mpsc::unbounded_channel();
        let subscription = registry.subscribe(move |event| {
            if let Event::Stream(chunk) = event
                && chunk.invocation_id == call
                && chunk.stream_type == StreamType::Progress
            {
                let _ = sender.send((chunk.sequence, chunk.progress, chunk.chunk.clone()));
            }
        });
        let peer = peer.clone();
        let task = tokio::spawn(async move {
            let mut last = f64::NEG_INFINITY;
            while let Some((sequence, numbers, message)) = chunks.recv().await {
                // The tool's own numbers when it gave them, else the chunk's
                // 1-based count; `progress` must grow with every
                // notification, so one that does not is the least step up
                // from the last, and its message still goes out.
                let wanted = numbers.map_or((sequence + 1) as f64, |numbers| numbers.progress);
                let value = if wanted > last {
                    wanted
                } else {
                    last.next_up()
                };
                last = value;
                let mut progress =
                    ProgressNotificationParam::new(token.clone(), value).with_message(message);
                if let Some(total) = numbers.and_then(|numbers| numbers.total) {
                    progress = progress.with_total(total);
                }
                if peer.notify_progress(progress).await.is_err() {
                    break;
                }
            }
        });
        ProgressForward { subscription, task }
    }

    /// Waits, briefly, for the notifications still queued to go out before
    /// the result does.
    pub(super) async fn finish(self) {
        drop(self.subscription);
        let _ = tokio::time::timeout(PROGRESS_DRAIN, self.task).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cancel_stops_a_call_of_its_session_while_it_is_tracked() {
        let calls = Arc::new(Calls::default());
        let token = CancellationToken::new();
        let guard = calls.track("session-a".into(), "7".into(), token.clone());
        calls.cancel("session-b", "7");
        calls.cancel("session-a", "8");
        assert!(
            !token.is_cancelled(),
            "another session's or request's cancel"
        );
        calls.cancel("session-a", "7");
        assert!(token.is_cancelled());

        let later = CancellationToken::new();
        drop(guard);
        let _guard = calls.track("session-a".into(), "9".into(), later.clone());
        calls.cancel("session-a", "7");
        assert!(
            !later.is_cancelled(),
            "a call that ended is no longer found"
        );
    }
}
