//! [`Playground`]: the HTTP side of the page, on axum.

use std::convert::Infallible;
use std::fmt;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use axum::extract::rejection::JsonRejection;
use axum::extract::{DefaultBodyLimit, Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::sse::{Event as SseEvent, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::serve::ListenerExt;
use axum::{Json, Router};
use futures_util::stream::{self, Stream, StreamExt};
use serde::Deserialize;
use serde_json::{Value, json};
use tokio::sync::broadcast;
use tokio_util::sync::{CancellationToken, DropGuard};

use crate::log::replay::{Outcome, replay};
use crate::log::{Log, LogError};
use crate::permission::Approval;
use crate::pool::Subscription;
use crate::registry::Registry;
use crate::served::{self, Background, BindError, Stopped};
use crate::value::card::web::{CARDS_CSS, CARDS_JS};
use crate::value::event::Event;

use super::approve::PageApprover;
use super::trace;

const INDEX_HTML: &str = include_str!("playground.html");
const PLAYGROUND_JS: &str = include_str!("playground.js");
const PLAYGROUND_CSS: &str = include_str!("playground.css");

/// The largest request body: a session log uploaded from the page.
const MAX_BODY: usize = 32 * 1024 * 1024;
/// The largest session log read from a path.
const MAX_LOG_FILE: u64 = 64 * 1024 * 1024;
/// Events a slow page may fall behind by before it is told it missed some.
const EVENT_BUFFER: usize = 1024;

/// A web playground for a [`Registry`]; see the [module docs](super).
pub struct Playground {
    registry: Registry,
    approver: Option<PageApprover>,
    session_log: Option<PathBuf>,
}

impl Playground {
    /// A playground for `registry`.
    pub fn new(registry: Registry) -> Self {
        Playground {
            registry,
            approver: None,
            session_log: None,
        }
    }

    /// Shows the calls `approver` parks, for the page to answer. Build the
    /// registry with the same approver
    /// ([`RegistryBuilder::approver`](crate::RegistryBuilder::approver)).
    #[must_use]
    pub fn approver(mut self, approver: PageApprover) -> Self {
        self.approver = Some(approver);
        self
    }

    /// The session log the page offers to open, typically the one the host
    /// records this registry's calls in.
    #[must_use]
    pub fn session_log(mut self, path: impl Into<PathBuf>) -> Self {
        self.session_log = Some(path.into());
        self
    }

    /// The playground as an axum [`Router`], to serve with other routes.
    ///
    /// It subscribes to the registry now; dropping the router (and every
    /// clone of it) ends the subscription.
    pub fn router(self) -> Router {
        let (events, _) = broadcast::channel(EVENT_BUFFER);
        let subscription = subscribe(&self.registry, events.clone());
        let stop = CancellationToken::new();
        watch_changes(&self, events.clone(), stop.clone());
        let shared = Arc::new(Shared {
            registry: self.registry,
            approver: self.approver,
            session_log: self.session_log,
            events,
            _subscription: subscription,
            _stop: stop.drop_guard(),
        });
        Router::new()
            .route("/", get(index))
            .route("/cards.js", get(|| asset("text/javascript", CARDS_JS)))
            .route("/cards.css", get(|| asset("text/css", CARDS_CSS)))
            .route(
                "/playground.js",
                get(|| asset("text/javascript", PLAYGROUND_JS)),
            )
            .route("/playground.css", get(|| asset("text/css", PLAYGROUND_CSS)))
            .route("/api/tools", get(tools))
            .route("/api/call", post(call))
            .route("/api/events", get(events_stream))
            .route("/api/approvals", get(approvals))
            .route("/api/approvals/answer", post(answer))
            .route("/api/log", post(open_log))
            .layer(DefaultBodyLimit::max(MAX_BODY))
            .layer(middleware::from_fn(loopback_only))
            .with_state(shared)
    }

    /// Serves the playground on `addr`, a loopback address (`127.0.0.1:0`
    /// picks a free port). Returns once the socket is bound; the server runs
    /// in the background until the handle is shut down or dropped.
    pub async fn serve(self, addr: SocketAddr) -> Result<PlaygroundServer, PlaygroundError> {
        let (listener, local_addr) = served::bind_loopback(addr).await?;
        let router = self.router();
        let stop = CancellationToken::new();
        let shutdown = stop.clone();
        // A reply is several small writes; with Nagle's algorithm the last
        // waits for the browser's delayed ACK, about 40 ms on Linux.
        let listener = listener.tap_io(|stream| {
            if let Err(error) = stream.set_nodelay(true) {
                tracing::warn!("setting TCP_NODELAY on a playground connection failed: {error}");
            }
        });
        let serve = async move {
            axum::serve(listener, router)
                .with_graceful_shutdown(shutdown.cancelled_owned())
                .await
        };
        Ok(PlaygroundServer(Background::spawn(local_addr, stop, serve)))
    }
}

impl fmt::Debug for Playground {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Playground")
            .field("registry", &self.registry)
            .field("session_log", &self.session_log)
            .finish_non_exhaustive()
    }
}

/// A running playground; dropping it shuts the server down.
#[must_use = "dropping the handle shuts the server down at once"]
pub struct PlaygroundServer(Background);

impl PlaygroundServer {
    /// The page's address: `http://127.0.0.1:PORT/`.
    pub fn url(&self) -> String {
        format!("http://{}/", self.local_addr())
    }

    /// The address the server listens on.
    pub fn local_addr(&self) -> SocketAddr {
        self.0.local_addr()
    }

    /// Runs until the server fails (or is shut down from elsewhere).
    pub async fn wait(self) -> Result<(), PlaygroundError> {
        Ok(self.0.wait().await?)
    }

    /// Stops accepting connections and waits for the open ones to finish.
    ///
    /// The page's event streams stay open until their page goes away, so
    /// this waits at most `grace` for them.
    pub async fn shutdown(self, grace: Duration) -> Result<(), PlaygroundError> {
        Ok(self.0.shutdown(Some(grace)).await?)
    }
}

impl fmt::Debug for PlaygroundServer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PlaygroundServer")
            .field("url", &self.url())
            .finish_non_exhaustive()
    }
}

/// Why a [`Playground`] could not serve.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PlaygroundError {
    /// [`Playground::serve`] was given an address that is not loopback.
    #[error(
        "cannot serve the playground on {addr}: only loopback addresses (127.0.0.1, [::1]) are served, since the page runs tools"
    )]
    NotLoopback {
        /// The address given.
        addr: SocketAddr,
    },
    /// The socket could not be bound.
    #[error("cannot serve the playground on {addr}")]
    Bind {
        /// The address given.
        addr: SocketAddr,
        /// Why binding failed.
        #[source]
        source: std::io::Error,
    },
    /// The server stopped on an error.
    #[error("the playground stopped on an error: {0}")]
    Stopped(String),
}

impl From<BindError> for PlaygroundError {
    fn from(error: BindError) -> Self {
        match error {
            BindError::NotLoopback { addr } => PlaygroundError::NotLoopback { addr },
            BindError::Io { addr, source } => PlaygroundError::Bind { addr, source },
        }
    }
}

impl From<Stopped> for PlaygroundError {
    fn from(error: Stopped) -> Self {
        PlaygroundError::Stopped(error.to_string())
    }
}

struct Shared {
    registry: Registry,
    approver: Option<PageApprover>,
    session_log: Option<PathBuf>,
    /// What the page's event streams send: (event name, JSON data).
    events: broadcast::Sender<(&'static str, String)>,
    _subscription: Subscription,
    _stop: DropGuard,
}

type App = State<Arc<Shared>>;

/// Forwards the registry's events to the page: the RAWP-DPS form of each
/// (`rawp`), and the running card and the whole result, which carry the cards.
fn subscribe(
    registry: &Registry,
    events: broadcast::Sender<(&'static str, String)>,
) -> Subscription {
    registry.subscribe(move |event| {
        if events.receiver_count() == 0 {
            return;
        }
        if let Some(rawp) = event.to_rawp() {
            send(&events, "rawp", &rawp);
        }
        match event {
            Event::Running {
                invocation_id,
                tool_name,
                card,
            } => send(
                &events,
                "running",
                &json!({ "invocation_id": invocation_id, "tool_name": tool_name, "card": card }),
            ),
            Event::Result(result) => send(&events, "result", &**result),
            _ => {}
        }
    })
}

fn send(
    events: &broadcast::Sender<(&'static str, String)>,
    name: &'static str,
    data: &impl serde::Serialize,
) {
    if let Ok(text) = serde_json::to_string(data) {
        let _ = events.send((name, text));
    }
}

/// Tells the page when the pool changes or the waiting approvals do.
fn watch_changes(
    playground: &Playground,
    events: broadcast::Sender<(&'static str, String)>,
    stop: CancellationToken,
) {
    let mut tools = playground.registry.watch_tools();
    let mut approvals = playground.approver.as_ref().map(PageApprover::watch);
    tokio::spawn(async move {
        loop {
            let approvals_changed = async {
                match approvals.as_mut() {
                    Some(approvals) => approvals.changed().await.is_ok(),
                    None => std::future::pending().await,
                }
            };
            tokio::select! {
                () = stop.cancelled() => break,
                changed = tools.changed() => {
                    if changed.is_err() { break; }
                    let _ = events.send(("tools", "{}".to_owned()));
                }
                open = approvals_changed => {
                    if !open { break; }
                    let _ = events.send(("approvals", "{}".to_owned()));
                }
            }
        }
    });
}

/// Refuses requests that do not come to a loopback name (DNS rebinding) or
/// that come from a page of another site.
async fn loopback_only(request: Request, next: Next) -> Response {
    let headers = request.headers();
    let host = headers
        .get(header::HOST)
        .and_then(|host| host.to_str().ok())
        .unwrap_or_default();
    if !is_loopback_authority(host) {
        return refuse(
            StatusCode::FORBIDDEN,
            format!("the playground answers only requests to a loopback address, not to `{host}`"),
        );
    }
    if let Some(origin) = headers.get(header::ORIGIN) {
        let origin = origin.to_str().unwrap_or_default();
        let authority = origin.strip_prefix("http://").unwrap_or("");
        if !is_loopback_authority(authority) {
            return refuse(
                StatusCode::FORBIDDEN,
                format!("the playground answers only its own pages, not `{origin}`"),
            );
        }
    }
    next.run(request).await
}

/// `127.0.0.1:3080`, `localhost`, `[::1]:3080`.
fn is_loopback_authority(authority: &str) -> bool {
    let host = match authority.strip_prefix('[') {
        Some(rest) => rest.split(']').next().unwrap_or_default(),
        None => authority.split(':').next().unwrap_or_default(),
    };
    host.eq_ignore_ascii_case("localhost")
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

fn refuse(status: StatusCode, message: String) -> Response {
    (status, Json(json!({ "error": message }))).into_response()
}

/// A request body the endpoint cannot take, refused with what was wrong
/// with it. Only a body sent as `application/json` is read, which another
/// site's page cannot send without asking first.
fn refuse_body(rejection: JsonRejection) -> Response {
    // What serde_json, or reading the body, said, without axum's preamble.
    let detail = || {
        std::error::Error::source(&rejection)
            .map(ToString::to_string)
            .unwrap_or_default()
    };
    let (status, message) = match &rejection {
        JsonRejection::MissingJsonContentType(_) => (
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "send the request as `Content-Type: application/json`".to_owned(),
        ),
        JsonRejection::JsonSyntaxError(_) => (
            StatusCode::BAD_REQUEST,
            format!("the request body is not JSON: {}", detail()),
        ),
        JsonRejection::JsonDataError(_) => (
            StatusCode::BAD_REQUEST,
            format!(
                "the request body is not what this endpoint takes: {}",
                detail()
            ),
        ),
        _ if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE => (
            StatusCode::PAYLOAD_TOO_LARGE,
            format!("the request body is larger than the playground takes ({MAX_BODY} bytes)"),
        ),
        _ => (
            rejection.status(),
            format!("the request body could not be read: {}", detail()),
        ),
    };
    refuse(status, message)
}

async fn asset(content_type: &'static str, body: &'static str) -> impl IntoResponse {
    (
        [
            (header::CONTENT_TYPE, HeaderValue::from_static(content_type)),
            (header::CACHE_CONTROL, HeaderValue::from_static("no-cache")),
        ],
        body,
    )
}

async fn index() -> impl IntoResponse {
    (
        [
            (
                header::CONTENT_TYPE,
                HeaderValue::from_static("text/html; charset=utf-8"),
            ),
            (
                header::CONTENT_SECURITY_POLICY,
                HeaderValue::from_static(
                    "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
                ),
            ),
            (header::CACHE_CONTROL, HeaderValue::from_static("no-cache")),
        ],
        INDEX_HTML,
    )
}

/// Every tool with its flags, status and diagnostics; and the catalog's own diagnostics.
async fn tools(State(shared): App) -> Response {
    let catalog = shared.registry.catalog();
    let tools: Vec<Value> = shared
        .registry
        .tools()
        .iter()
        .map(|tool| {
            let def = tool.definition();
            let listed = catalog
                .tools
                .iter()
                .find(|listed| listed.name == def.name());
            let diagnostics: Vec<_> = catalog
                .diagnostics
                .iter()
                .filter(|diagnostic| diagnostic.tool_name.as_deref() == Some(def.name()))
                .collect();
            json!({
                "name": def.name(),
                "title": def.title(),
                "description": def.description(),
                "aliases": def.aliases().collect::<Vec<_>>(),
                "category": def.category(),
                "output_type": def.output_type(),
                "flags": {
                    "read_only": def.read_only(),
                    "concurrency_safe": def.concurrency_safe(),
                    "destructive": def.destructive(),
                    "idempotent": def.idempotent(),
                    "requires_approval": def.requires_approval(),
                    "deferred": def.defer(),
                    "dynamic": tool.is_dynamic(),
                },
                "presents": tool.presents(),
                "status": listed.map(|listed| listed.status),
                "status_description": listed.and_then(|listed| listed.status_description.clone()),
                "diagnostics": diagnostics,
                "input_schema": tool.input_schema(),
            })
        })
        .collect();
    let general: Vec<_> = catalog
        .diagnostics
        .iter()
        .filter(|diagnostic| diagnostic.tool_name.is_none())
        .collect();
    Json(json!({
        "tools": tools,
        "diagnostics": general,
        "session_log": shared.session_log,
        "approvals": shared.approver.is_some(),
    }))
    .into_response()
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CallRequest {
    tool: String,
    #[serde(default = "empty_object")]
    args: Value,
}

fn empty_object() -> Value {
    json!({})
}

/// Runs one call through the pipeline. The answer has the violations of the
/// input schema, each with its JSON pointer, for the page to show at its
/// field, the cause of a failure, and the result.
async fn call(
    State(shared): App,
    body: Result<Json<CallRequest>, JsonRejection>,
) -> Result<Response, Response> {
    let Json(request) = body.map_err(refuse_body)?;
    let violations: Vec<Value> = shared
        .registry
        .get(&request.tool)
        .map(|tool| tool.violations(&request.args))
        .unwrap_or_default()
        .into_iter()
        .map(|violation| json!({ "pointer": violation.pointer, "message": violation.message }))
        .collect();
    // The call runs on its own task: a page that goes away does not cancel it.
    let registry = shared.registry.clone();
    let CallRequest { tool, args } = request;
    let (result, trace) = tokio::spawn(trace::record(
        async move { registry.call(&tool, args).await },
    ))
    .await
    .map_err(|error| {
        refuse(
            StatusCode::INTERNAL_SERVER_ERROR,
            format!("the call's task failed: {error}"),
        )
    })?;
    Ok(Json(json!({
        "violations": violations,
        "error_kind": result.failure.as_ref().map(|failure| failure.cause),
        "result": result,
        "trace": trace,
    }))
    .into_response())
}

async fn events_stream(
    State(shared): App,
) -> Sse<impl Stream<Item = Result<SseEvent, Infallible>>> {
    let receiver = shared.events.subscribe();
    let hello = SseEvent::default().event("hello").data("{}");
    let live = stream::unfold(receiver, |mut receiver| async move {
        let event = match receiver.recv().await {
            Ok((name, data)) => SseEvent::default().event(name).data(data),
            Err(broadcast::error::RecvError::Lagged(missed)) => SseEvent::default()
                .event("lagged")
                .data(json!({ "missed": missed }).to_string()),
            Err(broadcast::error::RecvError::Closed) => return None,
        };
        Some((Ok(event), receiver))
    });
    Sse::new(stream::iter([Ok(hello)]).chain(live)).keep_alive(KeepAlive::default())
}

async fn approvals(State(shared): App) -> Response {
    let pending = shared
        .approver
        .as_ref()
        .map(PageApprover::pending)
        .unwrap_or_default();
    Json(json!({ "pending": pending })).into_response()
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Answer {
    id: u64,
    approve: bool,
    #[serde(default)]
    reason: Option<String>,
}

async fn answer(
    State(shared): App,
    body: Result<Json<Answer>, JsonRejection>,
) -> Result<Response, Response> {
    let Json(answer) = body.map_err(refuse_body)?;
    let Some(approver) = &shared.approver else {
        return Err(refuse(
            StatusCode::NOT_FOUND,
            "this playground has no approver: calls that ask are settled elsewhere".to_owned(),
        ));
    };
    let approval = if answer.approve {
        Approval::Approve
    } else {
        Approval::Reject {
            reason: answer
                .reason
                .filter(|reason| !reason.trim().is_empty())
                .unwrap_or_else(|| "rejected in the playground".to_owned()),
        }
    };
    if approver.answer(answer.id, approval) {
        Ok(Json(json!({ "answered": answer.id })).into_response())
    } else {
        Err(refuse(
            StatusCode::NOT_FOUND,
            format!(
                "no call waits for approval {}: it was answered already or timed out",
                answer.id
            ),
        ))
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct LogRequest {
    /// A log on this machine.
    #[serde(default)]
    path: Option<PathBuf>,
    /// Or a log's text, uploaded from the page.
    #[serde(default)]
    text: Option<String>,
    /// The uploaded file's name.
    #[serde(default)]
    name: Option<String>,
    /// Replays the calls too.
    #[serde(default)]
    replay: bool,
}

/// Opens a session log: its calls with their cards, and, when asked, the
/// replay of each.
async fn open_log(
    State(shared): App,
    body: Result<Json<LogRequest>, JsonRejection>,
) -> Result<Response, Response> {
    let Json(request) = body.map_err(refuse_body)?;
    let registry = shared.registry.clone();
    let opened = tokio::task::spawn_blocking(move || read_log(&registry, request)).await;
    match opened {
        Ok(Ok(answer)) => Ok(Json(answer).into_response()),
        Ok(Err(error)) => Err(refuse(StatusCode::UNPROCESSABLE_ENTITY, error.to_string())),
        Err(error) => Err(refuse(
            StatusCode::INTERNAL_SERVER_ERROR,
            format!("reading the log failed: {error}"),
        )),
    }
}

/// Why a log could not be opened.
#[derive(Debug, thiserror::Error)]
enum OpenLogError {
    /// The request names no log, or two.
    #[error("give either `path` or `text`, not both or neither")]
    NotOneLog,
    /// The file cannot be looked at.
    #[error("cannot open `{}`: {source}", path.display())]
    Unreadable {
        path: PathBuf,
        source: std::io::Error,
    },
    /// The file is larger than the playground reads.
    #[error("`{}` is {size} bytes; the playground opens logs of at most {MAX_LOG_FILE} bytes", path.display())]
    TooLarge { path: PathBuf, size: u64 },
    /// The log itself is broken.
    #[error(transparent)]
    Log(#[from] LogError),
}

fn read_log(registry: &Registry, request: LogRequest) -> Result<Value, OpenLogError> {
    let log = match (request.path, request.text) {
        (Some(path), None) => {
            let size = match std::fs::metadata(&path) {
                Ok(metadata) => metadata.len(),
                Err(source) => return Err(OpenLogError::Unreadable { path, source }),
            };
            if size > MAX_LOG_FILE {
                return Err(OpenLogError::TooLarge { path, size });
            }
            Log::read(&path)?
        }
        (None, Some(text)) => Log::parse(
            Path::new(request.name.as_deref().unwrap_or("uploaded log")),
            text.as_bytes(),
        )?,
        _ => return Err(OpenLogError::NotOneLog),
    };
    let report = request.replay.then(|| replay(registry, &log));
    let calls: Vec<Value> = log
        .calls()
        .iter()
        .enumerate()
        .map(|(index, call)| {
            let replayed = report.as_ref().and_then(|report| report.calls.get(index));
            json!({
                "invocation_id": call.invocation_id,
                "line": call.line,
                "tool_name": call.tool_name(),
                "args": call.args(),
                "running_card": call.running,
                "stream": call.stream,
                "result": call.result,
                "replay": replayed.map(|replayed| json!({
                    "outcome": match &replayed.outcome {
                        Outcome::Identical => "identical",
                        Outcome::Differs(_) => "differs",
                        Outcome::UnknownTool => "unknown_tool",
                        Outcome::Skipped(_) => "skipped",
                    },
                    "summary": replayed.outcome.to_string(),
                    "differences": match &replayed.outcome {
                        Outcome::Differs(differences) => differences
                            .iter()
                            .map(|difference| json!({
                                "field": difference.field.name(),
                                "expected": difference.expected,
                                "actual": difference.actual,
                            }))
                            .collect(),
                        _ => Vec::new(),
                    },
                })),
            })
        })
        .collect();
    Ok(json!({
        "path": log.path,
        "warnings": log.warnings.iter().map(ToString::to_string).collect::<Vec<_>>(),
        "calls": calls,
        "summary": report.map(|report| report.summary().to_string()),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_loopback_names_are_served() {
        for ok in [
            "127.0.0.1:3080",
            "localhost:3080",
            "LOCALHOST",
            "[::1]:80",
            "127.0.0.2",
        ] {
            assert!(is_loopback_authority(ok), "{ok}");
        }
        for bad in [
            "",
            "example.com",
            "evil.test:3080",
            "10.0.0.1:3080",
            "[::2]:80",
            "127.0.0.1.evil.test",
        ] {
            assert!(!is_loopback_authority(bad), "{bad}");
        }
    }
}
