//! [`McpProxy`]: the tools of another MCP server, as dynamic tools.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt;
use std::pin::pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CancelledNotificationParam, ClientCapabilities, ClientConfig,
    ClientRequest, Implementation, ProgressNotificationParam, ProgressToken, ProtocolVersion,
    Request, RequestId, ServerNotification, ServerResult, SubscriptionFilter, Tool,
};
use rmcp::service::{NotificationContext, PeerRequestOptions, RunningService, Subscription};
use rmcp::transport::streamable_http_client::StreamableHttpError;
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use rmcp::{ClientHandler, ClientLifecycleMode, ClientServiceExt, Peer, RoleClient};
use serde::Deserialize;
use serde_json::Value;
use tokio::sync::Notify;
use tokio_util::sync::{CancellationToken, DropGuard};

use crate::content::{ContentBlock, joined_text, render_default};
use crate::definition::{Category, ToolDef};
use crate::dynamic::DynamicTool;
use crate::error::{RegisterError, ToolError};
use crate::exec::Exec;
use crate::rawp::{Diagnostic, Severity, ToolStatus};
use crate::registry::{Registry, ScopedTool};

use super::content::from_mcp;

/// The code of the warning diagnostic that says a tool of a proxied MCP
/// server was left out (a name no provider accepts, a malformed schema, a
/// name another dynamic tool holds).
pub const TOOL_SKIPPED: &str = "MCP_TOOL_SKIPPED";

/// How long a dropped proxy waits for its server to wind down.
const CLOSE_TIMEOUT: Duration = Duration::from_secs(5);

/// A connection to another MCP server whose tools are registered as
/// [dynamic tools](crate::DynamicTool): a call of one goes to that server,
/// through the full pipeline on this side (the server's input schema checked
/// here first, its output schema if it declares one, cancellation and
/// progress forwarded both ways).
///
/// ```no_run
/// # async fn run() -> Result<(), dsh_sdk::mcp::ConnectError> {
/// use dsh_sdk::Registry;
/// use dsh_sdk::mcp::McpProxy;
///
/// let registry = Registry::new();
/// let files = McpProxy::builder("files")
///     .stdio(&registry, tokio::process::Command::new("mcp-server-files"))
///     .await?;
/// let search = McpProxy::builder("search")
///     .prefix("search_")
///     .http(&registry, "http://127.0.0.1:8931/mcp")
///     .await?;
/// println!("{:?} {:?}", files.tools(), search.tools());
/// # Ok(()) }
/// ```
///
/// - Each remote tool keeps its name (after the [prefix](McpProxyBuilder::prefix)),
///   description, title and input schema; its annotations become flags
///   (`readOnlyHint` → `read_only` and `concurrency_safe`, `destructiveHint` →
///   `destructive`, `idempotentHint` → `idempotent`, an absent hint → off),
///   and its category is `mcp`.
/// - Its canonical value is the `structuredContent` when it declares an
///   output schema, validated against it and rendered by the default render;
///   otherwise the `content` blocks themselves, which render as they are.
///   `isError: true` is the tool's error.
/// - A tool that cannot be registered is skipped, with a warning diagnostic
///   in the [catalog](crate::catalog): `TOOL_SHADOWED` when a built-in tool
///   has its name (built-in tools win), [`TOOL_SKIPPED`] otherwise.
/// - The connection tries `server/discover` (protocol 2026-07-28, where a
///   structured output can be any JSON value) and falls back to `initialize`.
/// - `notifications/tools/list_changed` from the server re-reads its tools.
/// - When the server goes away, its tools stay in the pool but turn
///   `unavailable`, with a status description naming the server, and every
///   call of them is refused with that text. A child process is seen to go
///   when it exits; an HTTP server, at the first call nothing answers.
/// - Dropping the proxy unregisters its tools and ends the connection (a
///   child process is stopped).
pub struct McpProxy {
    link: Arc<Link>,
    _stop: DropGuard,
}

/// Connects an [`McpProxy`]: [`McpProxy::builder`].
#[derive(Clone, Debug)]
pub struct McpProxyBuilder {
    server: String,
    prefix: String,
}

impl McpProxy {
    /// Starts a connection to the MCP server called `server`, the name its
    /// diagnostics and error messages use.
    pub fn builder(server: impl Into<String>) -> McpProxyBuilder {
        McpProxyBuilder {
            server: server.into(),
            prefix: String::new(),
        }
    }

    /// The server's name, as given to [`builder`](Self::builder).
    pub fn server(&self) -> &str {
        &self.link.server
    }

    /// The names of the tools registered from the server, sorted.
    pub fn tools(&self) -> Vec<String> {
        self.link.tools().keys().cloned().collect()
    }

    /// Why each tool of the server that was left out was left out.
    pub fn diagnostics(&self) -> Vec<Diagnostic> {
        self.link
            .skipped
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Whether the server is still there.
    pub fn is_connected(&self) -> bool {
        self.link.gone().is_none()
    }

    /// Waits until the server goes away, and says how it went.
    pub async fn closed(&self) -> String {
        loop {
            let mut notified = pin!(self.link.closed.notified());
            // Registered before the check, so a wake-up in between is not lost.
            notified.as_mut().enable();
            if let Some(reason) = self.link.gone() {
                return reason;
            }
            notified.await;
        }
    }
}

impl Drop for McpProxy {
    fn drop(&mut self) {
        let tools = {
            let mut tools = self.link.tools();
            self.link.dropped.store(true, Ordering::SeqCst);
            std::mem::take(&mut *tools)
        };
        for name in tools.keys() {
            // The statuses are this proxy's; they must not outlive its tools.
            let _ = self
                .link
                .registry
                .set_status(name, ToolStatus::Available, None);
        }
        drop(tools);
        self.link.forget_skipped();
    }
}

impl fmt::Debug for McpProxy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("McpProxy")
            .field("server", &self.link.server)
            .field("tools", &self.tools())
            .field("connected", &self.is_connected())
            .finish_non_exhaustive()
    }
}

impl McpProxyBuilder {
    /// Puts `prefix` before each remote tool's name (`files_` makes `read`
    /// `files_read`), to keep servers' tools apart.
    pub fn prefix(mut self, prefix: impl Into<String>) -> Self {
        self.prefix = prefix.into();
        self
    }

    /// Starts `command` and speaks MCP over its standard input and output.
    /// Its standard error goes where this process's goes.
    pub async fn stdio(
        self,
        registry: &Registry,
        command: tokio::process::Command,
    ) -> Result<McpProxy, ConnectError> {
        let program = command
            .as_std()
            .get_program()
            .to_string_lossy()
            .into_owned();
        let transport = TokioChildProcess::new(command).map_err(|source| ConnectError::Spawn {
            server: self.server.clone(),
            program,
            source,
        })?;
        self.connect(registry, transport).await
    }

    /// Speaks MCP over streamable HTTP to `url` (`http://host:port/mcp`).
    pub async fn http(self, registry: &Registry, url: &str) -> Result<McpProxy, ConnectError> {
        let transport = StreamableHttpClientTransport::from_uri(url);
        self.connect(registry, transport).await
    }

    /// Speaks MCP over any rmcp client transport.
    pub async fn connect<T, E, A>(
        self,
        registry: &Registry,
        transport: T,
    ) -> Result<McpProxy, ConnectError>
    where
        T: rmcp::transport::IntoTransport<RoleClient, E, A>,
        E: std::error::Error + Send + Sync + 'static,
    {
        let client = ProxyClient {
            progress: Arc::default(),
            list_changed: Arc::new(Notify::new()),
        };
        let progress = Arc::clone(&client.progress);
        let list_changed = Arc::clone(&client.list_changed);
        // `server/discover` first (2026-07-28: any JSON value as structured
        // output), `initialize` for servers that do not know it.
        let lifecycle = ClientLifecycleMode::Auto {
            preferred_versions: vec![ProtocolVersion::V_2026_07_28],
            legacy_version: None,
        };
        let running = client
            .serve_with_lifecycle(transport, lifecycle)
            .await
            .map_err(|error| ConnectError::Handshake {
                server: self.server.clone(),
                reason: error.to_string(),
            })?;
        let link = Arc::new(Link {
            server: self.server,
            prefix: self.prefix,
            registry: registry.clone(),
            peer: running.peer().clone(),
            progress,
            tools: Mutex::default(),
            skipped: Mutex::default(),
            dropped: AtomicBool::new(false),
            gone: Mutex::default(),
            closed: Notify::new(),
        });
        if let Err(reason) = link.sync().await {
            // The connection is ended by dropping `running`.
            return Err(ConnectError::ListTools {
                server: link.server.clone(),
                reason,
            });
        }
        let stop = CancellationToken::new();
        tokio::spawn(watch(
            running,
            Arc::clone(&link),
            stop.clone(),
            list_changed,
        ));
        Ok(McpProxy {
            link,
            _stop: stop.drop_guard(),
        })
    }
}

/// Follows the connection: re-reads the tools when the server says they
/// changed, marks them unavailable when it goes, and ends it when the proxy
/// is dropped.
async fn watch(
    running: RunningService<RoleClient, ProxyClient>,
    link: Arc<Link>,
    stop: CancellationToken,
    list_changed: Arc<Notify>,
) {
    // From 2026-07-28 on, `list_changed` comes on a `subscriptions/listen`
    // stream; before, as a plain notification (`ProxyClient`).
    let mut subscription = listen(running.peer()).await;
    let cancel = running.cancellation_token();
    let mut waiting = pin!(running.waiting());
    loop {
        let next_change = async {
            match subscription.as_mut() {
                Some(subscription) => subscription.next().await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            change = next_change => match change {
                Ok(Some(ServerNotification::ToolListChangedNotification(_))) => list_changed.notify_one(),
                Ok(Some(_)) => {}
                Ok(None) | Err(_) => subscription = None,
            },
            () = stop.cancelled() => {
                cancel.cancel();
                let _ = tokio::time::timeout(CLOSE_TIMEOUT, waiting).await;
                return;
            }
            () = list_changed.notified() => {
                if let Err(reason) = link.sync().await {
                    tracing::warn!(server = %link.server, "cannot re-read the tools of an MCP server: {reason}");
                }
            }
            quit = &mut waiting => {
                let reason = match quit {
                    Ok(reason) => format!("{reason:?}"),
                    Err(error) => error.to_string(),
                };
                link.mark_gone(describe_quit(&reason));
                return;
            }
        }
    }
}

/// A `list_changed` subscription, when the server is on 2026-07-28 or later
/// and says its tool list changes.
async fn listen(peer: &Peer<RoleClient>) -> Option<Subscription> {
    let info = peer.peer_info()?;
    let modern = info.protocol_version.as_str() >= ProtocolVersion::V_2026_07_28.as_str();
    let changes = info
        .capabilities
        .tools
        .as_ref()
        .and_then(|tools| tools.list_changed)
        == Some(true);
    if !(modern && changes) {
        return None;
    }
    let filter = SubscriptionFilter::builder().tools_list_changed().build();
    peer.listen(filter).await.ok()
}

/// Why the server is gone, when `error` says it is: the connection closed,
/// or nothing answers at its address.
fn unreachable(error: &rmcp::ServiceError) -> Option<String> {
    use std::io::ErrorKind;
    match error {
        rmcp::ServiceError::TransportClosed => Some("its connection closed".to_owned()),
        rmcp::ServiceError::TransportSend(_) => {
            let refused = causes(error).any(|cause| {
                let http_connect = cause
                    .downcast_ref::<reqwest::Error>()
                    .is_some_and(reqwest::Error::is_connect);
                let io_refused = cause.downcast_ref::<std::io::Error>().is_some_and(|io| {
                    matches!(
                        io.kind(),
                        ErrorKind::ConnectionRefused
                            | ErrorKind::ConnectionReset
                            | ErrorKind::ConnectionAborted
                            | ErrorKind::BrokenPipe
                            | ErrorKind::NotConnected
                    )
                });
                http_connect || io_refused
            });
            refused.then(|| format!("nothing answers at its address ({})", root_cause(error)))
        }
        _ => None,
    }
}

/// An error and its sources, looking inside rmcp's HTTP client errors, which
/// do not name their cause as a source.
fn causes<'a>(
    error: &'a (dyn std::error::Error + 'static),
) -> impl Iterator<Item = &'a (dyn std::error::Error + 'static)> {
    std::iter::successors(Some(error), |current| {
        match current.downcast_ref::<StreamableHttpError<reqwest::Error>>() {
            Some(StreamableHttpError::Client(http)) => {
                Some(http as &(dyn std::error::Error + 'static))
            }
            _ => current.source(),
        }
    })
}

/// The innermost error of a chain: what went wrong, without the layers
/// (transport types and all) it was wrapped in.
fn root_cause(error: &(dyn std::error::Error + 'static)) -> String {
    causes(error)
        .last()
        .map_or_else(|| error.to_string(), ToString::to_string)
}

/// A person's words for rmcp's `QuitReason`.
fn describe_quit(reason: &str) -> String {
    if reason.starts_with("Closed") {
        "its connection closed".to_owned()
    } else if reason.starts_with("Cancelled") {
        "the connection was ended".to_owned()
    } else {
        format!("the connection failed ({reason})")
    }
}

/// What the proxy, its tools' handlers and the watcher share.
struct Link {
    server: String,
    prefix: String,
    registry: Registry,
    peer: Peer<RoleClient>,
    /// Progress token → the call it reports on.
    progress: Progress,
    /// Registered name → the remote definition it was made from, and its handle.
    tools: Mutex<BTreeMap<String, (Value, ScopedTool)>>,
    skipped: Mutex<Vec<Diagnostic>>,
    /// Set when the proxy is dropped: a re-read still running registers nothing.
    dropped: AtomicBool,
    /// Why the server is gone, once it is.
    gone: Mutex<Option<String>>,
    closed: Notify,
}

impl Link {
    fn tools(&self) -> MutexGuard<'_, BTreeMap<String, (Value, ScopedTool)>> {
        self.tools.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn gone(&self) -> Option<String> {
        self.gone
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Registers the server's tools, replacing those that changed and
    /// dropping those it no longer has.
    async fn sync(self: &Arc<Self>) -> Result<(), String> {
        let remote = self
            .peer
            .list_all_tools()
            .await
            .map_err(|error| error.to_string())?;
        // The registry is only ever called with no lock of ours held: it
        // publishes the catalog to subscribers, who may ask this proxy.
        let known: BTreeMap<String, Value> = self
            .tools()
            .iter()
            .map(|(name, (definition, _))| (name.clone(), definition.clone()))
            .collect();
        self.forget_skipped();
        let mut skipped = Vec::new();
        let mut fresh = Vec::new();
        let mut seen = BTreeSet::new();
        for tool in remote {
            let name = format!("{}{}", self.prefix, tool.name);
            seen.insert(name.clone());
            let definition = serde_json::to_value(&tool).unwrap_or(Value::Null);
            if known.get(&name) == Some(&definition) {
                continue;
            }
            // A changed tool: the old one goes first, freeing the name.
            let old = self.tools().remove(&name);
            drop(old);
            match self
                .registry
                .register_dynamic(self.dynamic_tool(&name, &tool))
            {
                Ok(handle) => {
                    let _ = self.registry.set_status(&name, ToolStatus::Available, None);
                    fresh.push((name, (definition, handle.scoped())));
                }
                Err(error) => skipped.push(self.skip(&name, &tool, &error)),
            }
        }
        let leftovers: Vec<ScopedTool> = {
            let mut tools = self.tools();
            if self.dropped.load(Ordering::SeqCst) {
                // The proxy went while this ran: nothing it registered stays.
                fresh.into_iter().map(|(_, (_, handle))| handle).collect()
            } else {
                tools.extend(fresh);
                let stale: Vec<String> = tools
                    .keys()
                    .filter(|name| !seen.contains(*name))
                    .cloned()
                    .collect();
                stale
                    .iter()
                    .filter_map(|name| tools.remove(name))
                    .map(|(_, handle)| handle)
                    .collect()
            }
        };
        // Unregistered here, with the lock released.
        drop(leftovers);
        *self.skipped.lock().unwrap_or_else(PoisonError::into_inner) = skipped;
        Ok(())
    }

    /// Takes this proxy's `TOOL_SKIPPED` diagnostics out of the catalog.
    fn forget_skipped(&self) {
        let skipped =
            std::mem::take(&mut *self.skipped.lock().unwrap_or_else(PoisonError::into_inner));
        for diagnostic in skipped {
            if diagnostic.code == TOOL_SKIPPED {
                self.registry
                    .remove_diagnostic(diagnostic.tool_name.as_deref(), TOOL_SKIPPED);
            }
        }
    }

    /// Records why the remote `tool` could not be registered as `name`.
    fn skip(&self, name: &str, tool: &Tool, error: &RegisterError) -> Diagnostic {
        let server = &self.server;
        let remote = &tool.name;
        if let RegisterError::Duplicate { existing, .. } = error
            && self
                .registry
                .get(existing)
                .is_some_and(|tool| !tool.is_dynamic())
        {
            // The registry recorded `TOOL_SHADOWED` already.
            return Diagnostic::new(
                Severity::Warning,
                crate::dynamic::TOOL_SHADOWED,
                format!(
                    "the tool `{remote}` of the MCP server `{server}` is left out: the built-in tool `{existing}` has the name `{name}`"
                ),
            )
            .tool(name);
        }
        let diagnostic = Diagnostic::new(
            Severity::Warning,
            TOOL_SKIPPED,
            format!("the tool `{remote}` of the MCP server `{server}` is left out: {error}"),
        )
        .tool(name);
        self.registry.add_diagnostic(diagnostic.clone());
        diagnostic
    }

    /// The server went away: its tools turn unavailable. The first reason stays.
    fn mark_gone(&self, reason: String) {
        let description = format!("the MCP server `{}` is gone: {reason}", self.server);
        {
            let mut gone = self.gone.lock().unwrap_or_else(PoisonError::into_inner);
            if gone.is_some() {
                return;
            }
            *gone = Some(reason);
        }
        let names: Vec<String> = self.tools().keys().cloned().collect();
        for name in names {
            let _ = self
                .registry
                .set_status(&name, ToolStatus::Unavailable, Some(&description));
        }
        self.closed.notify_waiters();
    }

    /// The dynamic tool `name` that forwards each call to the remote `tool`.
    fn dynamic_tool(self: &Arc<Self>, name: &str, tool: &Tool) -> DynamicTool {
        let annotations = tool.annotations.clone().unwrap_or_default();
        let read_only = annotations.read_only_hint == Some(true);
        let mut def = ToolDef::owned(name, tool.description.as_deref().unwrap_or_default())
            .category(Category::Mcp)
            .read_only(read_only)
            .concurrency_safe(read_only)
            .destructive(!read_only && annotations.destructive_hint == Some(true))
            .idempotent(annotations.idempotent_hint == Some(true));
        if let Some(title) = tool.title.clone().or(annotations.title) {
            def = def.with_title(title);
        }
        // What a dsh server says of its tools beyond MCP's fields.
        let meta = tool.meta.as_ref().map(|meta| &meta.0);
        if let Some(version) = meta
            .and_then(|meta| meta.get(crate::export::META_VERSION))
            .and_then(Value::as_str)
        {
            def = def.with_version(version);
        }
        let failure_schema = meta
            .and_then(|meta| meta.get(crate::export::META_FAILURE_SCHEMA))
            .cloned();
        let forward = Forward {
            link: Arc::clone(self),
            remote: tool.name.to_string(),
            structured: tool.output_schema.is_some(),
        };
        let mut dynamic = DynamicTool::new(
            def,
            Value::Object((*tool.input_schema).clone()),
            move |args, exec| forward.clone().call(args, exec),
        );
        if let Some(schema) = failure_schema {
            dynamic = dynamic.failure_schema(schema);
        }
        match &tool.output_schema {
            Some(schema) => dynamic.output_schema(Value::Object((**schema).clone())),
            None => dynamic.render(|_args, value| {
                Vec::<ContentBlock>::deserialize(value).unwrap_or_else(|_| render_default(value))
            }),
        }
    }
}

/// One remote tool's call, forwarded.
#[derive(Clone)]
struct Forward {
    link: Arc<Link>,
    remote: String,
    /// Whether the tool declares an output schema, so its value is the
    /// `structuredContent`.
    structured: bool,
}

impl Forward {
    async fn call(self, args: Value, exec: Exec) -> Result<Value, ToolError> {
        let server = &self.link.server;
        let remote = &self.remote;
        if let Some(reason) = self.link.gone() {
            return Err(ToolError::new(format!(
                "the MCP server `{server}` is gone: {reason}"
            )));
        }
        let Value::Object(arguments) = args else {
            return Err(ToolError::new("internal: the arguments are not an object"));
        };
        let failed = |error: rmcp::ServiceError| {
            if let Some(reason) = unreachable(&error) {
                self.link.mark_gone(reason);
            }
            ToolError::new(match self.link.gone() {
                Some(reason) => format!("the MCP server `{server}` is gone: {reason}"),
                None => format!(
                    "the MCP server `{server}` could not run `{remote}`: {}",
                    root_cause(&error)
                ),
            })
        };
        let params = CallToolRequestParams::new(remote.clone()).with_arguments(arguments);
        let peer = &self.link.peer;
        let handle = peer
            .send_request_with_option(
                ClientRequest::CallToolRequest(Request::new(params)),
                PeerRequestOptions::no_options(),
            )
            .await
            .map_err(failed)?;
        // rmcp gives every request a progress token of its own.
        let _reporting =
            Reporting::start(&self.link.progress, handle.progress_token.clone(), &exec);
        // Dropped before the answer (the call cancelled, or timed out here):
        // the server is told to stop.
        let abandon = Abandon {
            peer: peer.clone(),
            request: Some(handle.id.clone()),
        };
        let response = tokio::select! {
            response = handle.await_response() => response,
            () = exec.cancellation().cancelled() => {
                return Err(ToolError::new(format!("the call of `{remote}` was cancelled")));
            }
        };
        abandon.disarm();
        // rmcp hands each notification to a task of its own: give those that
        // came before the answer a turn to reach the call while it still runs.
        tokio::task::yield_now().await;
        let result = match response.map_err(failed)? {
            ServerResult::CallToolResult(result) => result,
            other => {
                return Err(ToolError::new(format!(
                    "the MCP server `{server}` answered a call of `{remote}` with something else than a tool result: {other:?}"
                )));
            }
        };
        let blocks: Vec<ContentBlock> = result.content.iter().map(from_mcp).collect();
        if result.is_error == Some(true) {
            let text = joined_text(&blocks);
            let mut error = ToolError::new(if text.is_empty() {
                format!("`{remote}` on the MCP server `{server}` failed and said nothing more")
            } else {
                text
            });
            // A dsh server's typed failure: the tool's kind and value carry over.
            let failure = result
                .meta
                .as_ref()
                .and_then(|meta| meta.0.get(crate::export::META_FAILURE))
                .and_then(|failure| {
                    serde_json::from_value::<crate::result::Failure>(failure.clone()).ok()
                });
            if let Some(failure) = failure {
                if let Some(kind) = failure.kind {
                    error = error.with_kind(kind);
                }
                if let Some(data) = failure.data {
                    error = error.with_data(data);
                }
            }
            return Err(error);
        }
        if self.structured {
            // A server that declares an output schema must send
            // `structuredContent`; older ones put the JSON in a text block.
            return result
                .structured_content
                .or_else(|| {
                    blocks
                        .first()
                        .and_then(ContentBlock::as_text)
                        .and_then(|text| serde_json::from_str(text).ok())
                })
                .ok_or_else(|| {
                    ToolError::new(format!(
                        "`{remote}` on the MCP server `{server}` declares an output schema but sent no structured content"
                    ))
                });
        }
        serde_json::to_value(blocks)
            .map_err(|error| ToolError::new(format!("the content could not be kept: {error}")))
    }
}

/// Tells the server to stop a call this side no longer waits for.
struct Abandon {
    peer: Peer<RoleClient>,
    request: Option<RequestId>,
}

impl Abandon {
    fn disarm(mut self) {
        self.request = None;
    }
}

impl Drop for Abandon {
    fn drop(&mut self) {
        let Some(request) = self.request.take() else {
            return;
        };
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let peer = self.peer.clone();
        runtime.spawn(async move {
            let reason = "the caller cancelled the call".to_owned();
            let _ = peer
                .notify_cancelled(CancelledNotificationParam::new(Some(request), Some(reason)))
                .await;
        });
    }
}

/// Progress token → the call whose progress it reports.
type Progress = Arc<Mutex<HashMap<ProgressToken, Exec>>>;

/// Routes a call's progress notifications to its [`Exec`] while it runs.
struct Reporting {
    calls: Progress,
    token: ProgressToken,
}

impl Reporting {
    fn start(calls: &Progress, token: ProgressToken, exec: &Exec) -> Self {
        calls
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(token.clone(), exec.clone());
        Reporting {
            calls: Arc::clone(calls),
            token,
        }
    }
}

impl Drop for Reporting {
    fn drop(&mut self) {
        self.calls
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&self.token);
    }
}

/// The client side of the connection: receives progress and list changes.
struct ProxyClient {
    progress: Progress,
    list_changed: Arc<Notify>,
}

impl ClientHandler for ProxyClient {
    fn get_info(&self) -> ClientConfig {
        ClientConfig::new(
            ClientCapabilities::default(),
            Implementation::new("dsh-sdk", env!("CARGO_PKG_VERSION")),
        )
    }

    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        let exec = self
            .progress
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(&params.progress_token)
            .cloned();
        if let Some(exec) = exec {
            exec.progress(match (params.message, params.total) {
                (Some(message), _) => message,
                (None, Some(total)) => format!("{} of {total}", params.progress),
                (None, None) => params.progress.to_string(),
            });
        }
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.list_changed.notify_one();
    }
}

/// Why an [`McpProxy`] could not connect.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ConnectError {
    /// The server's process could not be started.
    #[error("cannot start the MCP server `{server}` (`{program}`)")]
    Spawn {
        /// The server's name.
        server: String,
        /// The program run.
        program: String,
        /// Why it could not start.
        #[source]
        source: std::io::Error,
    },
    /// The MCP handshake failed.
    #[error("cannot connect to the MCP server `{server}`: {reason}")]
    Handshake {
        /// The server's name.
        server: String,
        /// What went wrong.
        reason: String,
    },
    /// The server did not list its tools.
    #[error("the MCP server `{server}` did not list its tools: {reason}")]
    ListTools {
        /// The server's name.
        server: String,
        /// What went wrong.
        reason: String,
    },
}
