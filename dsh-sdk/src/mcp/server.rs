//! [`McpServer`]: a registry served to MCP clients.
//!
//! About 800 lines in one file because most of it is one trait impl, rmcp's
//! `ServerHandler`, one method per MCP request; the wire shapes are in
//! `wire`, the socket side in `http`, a call's client side in `session`,
//! and tasks in `task`.

use std::fmt;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CustomRequest, CustomResult, ErrorCode,
    Implementation, InitializeRequestParams, InitializeResult, ListToolsResult,
    PaginatedRequestParams, ProtocolVersion, ServerCapabilities, ServerConfig, SubscriptionFilter,
    TASKS_EXTENSION_ID, Tool,
};
use rmcp::model::{
    CancelTaskParams, GetTaskParams, GetTaskResult, InputRequiredResult, UpdateTaskParams,
};
use rmcp::service::{NotificationContext, RequestContext, SubscriptionContext};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use serde_json::Value;
use tokio::sync::watch;
use tokio_util::sync::{CancellationToken, DropGuard};

use crate::definition::TaskSupport;
use crate::export::{Format, export_tool};
use crate::pipeline::ToolCall;
use crate::registry::Registry;

use super::apps;
use super::http::{Guard, HTTP_PATH, HttpSettings, McpHttpServer, ServeError};
use super::prompts::{Prompt, Prompts};
use super::resources::{ResourceProvider, ResourceUpdates, Resources};
use super::session::{ProgressForward, RoundTrip, Session};
use super::task::{Finish, MemoryTaskStore, Tasks};
use super::task_store::TaskStore;
use super::wire::{complete, mcp_tool, request_state};

/// The methods MCP defines for a client to call: a request for one that
/// rmcp could not read has invalid params.
const KNOWN_METHODS: &[&str] = &[
    "initialize",
    "ping",
    "tools/list",
    "tools/call",
    "resources/list",
    "resources/templates/list",
    "resources/read",
    "resources/subscribe",
    "resources/unsubscribe",
    "prompts/list",
    "prompts/get",
    "completion/complete",
    "logging/setLevel",
    "subscriptions/listen",
    "server/discover",
];

/// A [`Registry`] as an MCP server: an rmcp [`ServerHandler`], with
/// [`serve_stdio`](Self::serve_stdio) and [`serve_http`](Self::serve_http)
/// for the two standard transports. Any other rmcp transport works through
/// rmcp's [`ServiceExt::serve`].
///
/// - `tools/list` is [`Registry::export`] in [`Format::Mcp`], the very list a
///   model would see (deferred tools only once tool search loaded them):
///   `inputSchema` (declaring its dialect, JSON Schema 2020-12, in `$schema`), `outputSchema`, `title`, and `annotations` from the flags
///   (`read_only` → `readOnlyHint`, `destructive` → `destructiveHint`,
///   `idempotent` → `idempotentHint`). Clients on a protocol older than
///   2026-07-28 do not get output schemas whose root is not an object, which
///   they cannot read.
/// - `tools/call` runs [`Registry::call_with`], the full pipeline. `content`
///   is what the tool's render made (a call that rendered nothing says so, so
///   the text is never empty; a custom render's text that does not carry the
///   value is followed by the value's JSON, for clients that read `content`
///   alone) and `structuredContent` the canonical value: any
///   JSON value from 2026-07-28 on, an object only before (a string or an
///   array is then left to `content`). Every failure the pipeline reports —
///   invalid arguments with every violation, a refusal, the tool's own error,
///   a timeout — is a result with `isError: true` and its message, for the
///   model to act on; only an unknown tool is a protocol error (`-32602`), as
///   the MCP spec asks, and its message names the closest tools.
/// - Each tool's `_meta` carries its [contract hash](crate::digest) under
///   [`CONTRACT_META_KEY`](super::CONTRACT_META_KEY): SHA-256 of its canonical definition, for a client
///   to pin. [`McpProxy`](super::McpProxy) checks it.
/// - MCP Apps: a tool that presents its own card (`#[tool(present = …)]`)
///   links, in its `_meta.ui.resourceUri`, to a `ui://dsh-sdk/cards/TOOL`
///   resource (`resources/list`, `resources/read`, MIME type
///   `text/html;profile=mcp-app`) that draws the card of each of its results
///   ([`card_app_html`](crate::web::card_app_html)); its results carry the
///   card in `_meta["dsh-sdk/card"]`. Hosts without MCP Apps still get
///   `content` and `structuredContent`.
/// - `notifications/cancelled` from the client cancels the call.
/// - Tasks: a tool flagged `task` (or `task_required`) answers a client that
///   declared the tasks extension with a task at once and runs the call in
///   the background; `tasks/get`, `tasks/cancel`, and MCP 2025-11-25's
///   `tasks/result` and `tasks/list` follow it in the
///   [task store](Self::task_store). Its task support is in `tools/list`
///   `_meta` under [`TASK_SUPPORT_META_KEY`](super::TASK_SUPPORT_META_KEY), and in the registry's MCP export
///   as `execution.taskSupport`.
/// - On 2026-07-28, a tool's elicitation and sampling are multi-round-trip
///   input: the client gets an `InputRequiredResult`, answers, and retries
///   with a `requestState` checked to be this call's; the tool runs again
///   from the start and finds its answers.
/// - A call whose request carries a `progressToken` gets each `progress`
///   chunk the tool sends through [`Exec::progress`](crate::Exec::progress)
///   as `notifications/progress`, with the chunk as its message.
/// - Registering or dropping a tool, or loading a deferred one, sends
///   `notifications/tools/list_changed` to every session that began with
///   `initialize`, and, from 2026-07-28 on, on every `subscriptions/listen`
///   stream that asked for it.
///
/// Cloning gives a handler for another session: it shares the registry.
pub struct McpServer {
    registry: Registry,
    info: Implementation,
    instructions: Option<String>,
    /// This session's `list_changed` notifications: the changes since
    /// `initialize`, then what stops the sender when the session, and so
    /// this handler, ends.
    list_changed: Mutex<ListChanged>,
    /// Timeouts, caps and allowed origins of [`serve_http`](Self::serve_http).
    http: HttpSettings,
    /// Resources and prompts, shared by every session.
    offers: Arc<Offers>,
    /// This session's log level and resource subscriptions.
    session: Session,
    /// Tasks: their store, and the calls this process runs.
    tasks: Arc<Tasks>,
    /// Serve HTTP with no session: any replica answers any request.
    stateless: bool,
}

/// What a server offers beside its tools.
#[derive(Clone)]
struct Offers {
    resources: Resources,
    prompts: Prompts,
}

/// Where a session that began with `initialize` is in sending `list_changed`.
#[derive(Default)]
enum ListChanged {
    /// No `initialize` yet.
    #[default]
    Idle,
    /// Initialized, not yet confirmed: the changes since `initialize`.
    Pending(watch::Receiver<()>),
    /// Sending; dropping the guard stops it.
    Sending { _stop: DropGuard },
}

impl McpServer {
    /// Serves `registry`, naming itself `dsh-sdk` with this crate's version.
    pub fn new(registry: Registry) -> Self {
        let card_views = apps::CardViews(registry.clone());
        McpServer {
            registry,
            info: Implementation::new("dsh-sdk", env!("CARGO_PKG_VERSION")),
            instructions: None,
            list_changed: Mutex::default(),
            http: HttpSettings::default(),
            offers: Arc::new(Offers {
                resources: {
                    let mut resources = Resources::default();
                    resources.add(Arc::new(card_views));
                    resources
                },
                prompts: Prompts::default(),
            }),
            session: Session::default(),
            tasks: Arc::new(Tasks::new(Arc::new(MemoryTaskStore::default()))),
            stateless: false,
        }
    }

    /// Where tasks are kept (see [`TaskStore`]). The default keeps them in
    /// this process's memory; replicas of a server behind a load balancer
    /// share one store, such as a [`FileTaskStore`](super::FileTaskStore)
    /// on a directory they all see, so a task started through one replica
    /// is polled, fetched and cancelled through any.
    pub fn task_store(mut self, store: impl TaskStore) -> Self {
        self.tasks = Arc::new(self.tasks.with_store(Arc::new(store)));
        self
    }

    /// How long a task is kept after it starts; defaults to
    /// [`DEFAULT_TASK_TTL`](super::DEFAULT_TASK_TTL), 1 hour.
    pub fn task_ttl(mut self, ttl: Duration) -> Self {
        let store = Arc::clone(self.tasks.store());
        self.tasks = Arc::new(self.tasks.with_store(store).with_ttl(ttl));
        self
    }

    /// How often clients are asked to poll a task, and how often a task's
    /// runner looks for a cancel asked for on another replica; defaults to
    /// [`DEFAULT_TASK_POLL_INTERVAL`](super::DEFAULT_TASK_POLL_INTERVAL), 250 ms.
    pub fn task_poll_interval(mut self, poll: Duration) -> Self {
        let store = Arc::clone(self.tasks.store());
        self.tasks = Arc::new(self.tasks.with_store(store).with_poll_interval(poll));
        self
    }

    /// Serves streamable HTTP with no sessions (`false` by default): every
    /// request stands alone, so N replicas of the server sit behind a plain
    /// round-robin load balancer. Clients on the 2026-07-28 protocol are
    /// served this way in any case; clients on the 2025 protocols get no
    /// `Mcp-Session-Id`, no stream for notifications outside a request, and
    /// no requests from the server between their own. Put tasks in a shared
    /// [`task_store`](Self::task_store).
    pub fn stateless(mut self, stateless: bool) -> Self {
        self.stateless = stateless;
        self
    }

    /// Serves a resource, or a family of them: a [`StaticResource`](super::StaticResource),
    /// a [`ResourceTemplate`](super::ResourceTemplate), or any
    /// [`ResourceProvider`]. Providers are asked in the order they were
    /// added, after the card views of the tools that present a card.
    pub fn resource(mut self, provider: impl ResourceProvider) -> Self {
        Arc::make_mut(&mut self.offers)
            .resources
            .add(Arc::new(provider));
        self
    }

    /// Offers a prompt (`prompts/list`, `prompts/get`, `completion/complete`).
    /// A prompt of the same name replaces the earlier one.
    pub fn prompt(mut self, prompt: Prompt) -> Self {
        Arc::make_mut(&mut self.offers).prompts.add(prompt);
        self
    }

    /// Where to announce that a resource changed, so sessions subscribed to
    /// it (`resources/subscribe`) get `notifications/resources/updated`.
    pub fn resource_updates(&mut self) -> ResourceUpdates {
        ResourceUpdates(Arc::make_mut(&mut self.offers).resources.updates())
    }

    /// The name and version the server gives clients (`serverInfo`).
    pub fn named(mut self, name: impl Into<String>, version: impl Into<String>) -> Self {
        self.info = Implementation::new(name, version);
        self
    }

    /// What the server tells clients about using its tools (`instructions`).
    pub fn instructions(mut self, instructions: impl Into<String>) -> Self {
        self.instructions = Some(instructions.into());
        self
    }

    /// The registry served.
    pub fn registry(&self) -> &Registry {
        &self.registry
    }

    /// Serves one client over this process's standard input and output, until
    /// the client closes its end.
    pub async fn serve_stdio(self) -> Result<(), ServeError> {
        let running = self
            .serve(rmcp::transport::stdio_pipes())
            .await
            .map_err(|error| ServeError::Start(error.to_string()))?;
        running
            .waiting()
            .await
            .map_err(|error| ServeError::Stopped(error.to_string()))?;
        Ok(())
    }

    /// Allows browser pages from `origins` (`"https://app.example.com:443"`,
    /// `"http://localhost:*"`; see rmcp's `allowed_origins` for the syntax)
    /// besides the loopback ones [`serve_http`](Self::serve_http) always
    /// allows.
    pub fn allowed_origins(mut self, origins: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.http
            .allowed_origins
            .extend(origins.into_iter().map(Into::into));
        self
    }

    /// How long an HTTP client may take to send a request's headers; also how
    /// long an idle kept-alive connection stays open. Defaults to
    /// [`DEFAULT_HEADER_READ_TIMEOUT`](super::DEFAULT_HEADER_READ_TIMEOUT), 10 s.
    pub fn header_read_timeout(mut self, timeout: Duration) -> Self {
        self.http.header_read_timeout = timeout;
        self
    }

    /// How long an HTTP client may take to send a request's body; a late
    /// body gets `408` and the connection is closed. Defaults to
    /// [`DEFAULT_BODY_READ_TIMEOUT`](super::DEFAULT_BODY_READ_TIMEOUT), 30 s.
    pub fn body_read_timeout(mut self, timeout: Duration) -> Self {
        self.http.body_read_timeout = timeout;
        self
    }

    /// The largest HTTP request body taken; a larger one gets `413`. Defaults
    /// to [`DEFAULT_MAX_BODY_BYTES`](super::DEFAULT_MAX_BODY_BYTES), 4 MiB.
    pub fn max_body_bytes(mut self, bytes: usize) -> Self {
        self.http.max_body_bytes = bytes;
        self
    }

    /// How many MCP sessions may be open at once over HTTP; an `initialize`
    /// past the cap gets `503`. Defaults to
    /// [`DEFAULT_MAX_SESSIONS`](super::DEFAULT_MAX_SESSIONS), 64.
    pub fn max_sessions(mut self, sessions: usize) -> Self {
        self.http.max_sessions = sessions;
        self
    }

    /// How long an HTTP session with no traffic is kept before it is closed.
    /// Defaults to [`DEFAULT_SESSION_IDLE_TIMEOUT`](super::DEFAULT_SESSION_IDLE_TIMEOUT), 2 minutes.
    pub fn session_idle_timeout(mut self, timeout: Duration) -> Self {
        self.http.session_idle_timeout = timeout;
        self
    }

    /// Serves streamable HTTP on `addr`, a loopback address (`127.0.0.1:0`
    /// picks a free port), at the path `/mcp`; see [`McpHttpServer::url`].
    ///
    /// Returns once the socket is bound; the server runs in the background
    /// until the returned handle is shut down or dropped. Only loopback
    /// addresses are accepted, and only `Host` headers naming one (rmcp's
    /// defence against DNS rebinding): to expose the server, put a reverse
    /// proxy in front.
    ///
    /// Hostile clients are bounded: a request whose `Origin` is neither a
    /// loopback page nor in [`allowed_origins`](Self::allowed_origins) gets
    /// `403` (a request with no `Origin`, not from a browser, is served);
    /// headers must arrive within the [header read
    /// timeout](Self::header_read_timeout) and a body within the [body read
    /// timeout](Self::body_read_timeout), or the connection is closed; bodies
    /// are capped by [`max_body_bytes`](Self::max_body_bytes), open sessions
    /// by [`max_sessions`](Self::max_sessions), and an idle session closes
    /// after the [session idle timeout](Self::session_idle_timeout).
    pub async fn serve_http(self, addr: SocketAddr) -> Result<McpHttpServer, ServeError> {
        if !addr.ip().is_loopback() {
            return Err(ServeError::NotLoopback { addr });
        }
        let bind = |source| ServeError::Bind { addr, source };
        let listener = tokio::net::TcpListener::bind(addr).await.map_err(bind)?;
        let local_addr = listener.local_addr().map_err(bind)?;
        let stop = CancellationToken::new();
        let settings = self.http.clone();
        let config = StreamableHttpServerConfig::default()
            .with_legacy_session_mode(!self.stateless)
            .with_cancellation_token(stop.child_token())
            .with_allowed_origins(settings.origins())
            .with_max_request_body_bytes(settings.max_body_bytes);
        let mut sessions = LocalSessionManager::default();
        sessions.session_config.keep_alive = Some(settings.session_idle_timeout);
        let sessions = Arc::new(sessions);
        let service =
            StreamableHttpService::new(move || Ok(self.clone()), Arc::clone(&sessions), config);
        let header_read_timeout = settings.header_read_timeout;
        let guard = Arc::new(Guard::new(settings, sessions));
        let router = axum::Router::new().nest_service(HTTP_PATH, service).layer(
            axum::middleware::from_fn_with_state(guard, super::http::guard),
        );
        let task = tokio::spawn(super::http::serve(
            listener,
            router,
            header_read_timeout,
            stop.clone(),
        ));
        Ok(McpHttpServer {
            local_addr,
            stop: stop.drop_guard(),
            task,
        })
    }

    fn list_changed(&self) -> std::sync::MutexGuard<'_, ListChanged> {
        self.list_changed
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// The MCP definitions of the registry's tools.
    fn mcp_tools(&self) -> Result<Vec<Tool>, ErrorData> {
        match self.registry.export(Format::Mcp) {
            Value::Array(tools) => tools
                .into_iter()
                .map(|tool| mcp_tool(tool).map(|tool| apps::link_card_view(&self.registry, tool)))
                .collect(),
            _ => Ok(Vec::new()),
        }
    }
}

impl Clone for McpServer {
    /// A handler for another session, on the same registry.
    fn clone(&self) -> Self {
        McpServer {
            registry: self.registry.clone(),
            info: self.info.clone(),
            instructions: self.instructions.clone(),
            list_changed: Mutex::default(),
            http: self.http.clone(),
            offers: Arc::clone(&self.offers),
            session: Session::default(),
            tasks: Arc::clone(&self.tasks),
            stateless: self.stateless,
        }
    }
}

impl fmt::Debug for McpServer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("McpServer")
            .field("registry", &self.registry)
            .field("info", &self.info)
            .finish_non_exhaustive()
    }
}

impl ServerHandler for McpServer {
    fn get_info(&self) -> ServerConfig {
        let mut capabilities = ServerCapabilities::builder()
            .enable_tools()
            .enable_tool_list_changed()
            .enable_resources()
            .enable_tasks()
            .build();
        self.offers.extend_capabilities(&mut capabilities);
        let config = ServerConfig::new(capabilities).with_server_info(self.info.clone());
        match &self.instructions {
            Some(instructions) => config.with_instructions(instructions.clone()),
            None => config,
        }
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let tools = super::status::marked(&self.registry, self.mcp_tools()?);
        Ok(super::cache::tools_list(tools))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        let tool = self.registry.get(name)?;
        mcp_tool(export_tool(&tool, Format::Mcp))
            .ok()
            .map(|tool| apps::link_card_view(&self.registry, tool))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let object_output_only = context
            .protocol_version()
            .is_none_or(|version| version.as_str() < ProtocolVersion::V_2026_07_28.as_str());
        let args = Value::Object(request.arguments.unwrap_or_default());
        let tasks = self
            .registry
            .get(&request.name)
            .map_or(TaskSupport::Forbidden, |tool| tool.definition().tasks());
        if tasks != TaskSupport::Forbidden {
            let takes_tasks = context
                .client_capabilities()
                .is_some_and(|capabilities| capabilities.supports_tasks());
            if takes_tasks {
                // A task outlives its request: no client to reach, no cancel
                // but `tasks/cancel`.
                let call = ToolCall::new(request.name.as_ref(), args);
                let registry = self.registry.clone();
                let name = request.name.to_string();
                let finish: Finish = Box::new(move |result| {
                    let call = complete(&registry, &name, result, object_output_only);
                    serde_json::to_value(call).unwrap_or_default()
                });
                let task = self
                    .tasks
                    .start(&self.registry, &request.name, call, finish)
                    .await?;
                return Ok(CallToolResponse::Task(task));
            }
            if tasks == TaskSupport::Required {
                return Err(ErrorData::new(
                    ErrorCode::METHOD_NOT_FOUND,
                    format!(
                        "`{}` runs only as a task, and this client did not declare the `{TASKS_EXTENSION_ID}` extension",
                        request.name
                    ),
                    None,
                ));
            }
        }
        // MCP 2026-07-28 has no requests from server to client: what a tool
        // asks of the client goes back in an `InputRequiredResult`, and the
        // retry brings the answers and the state given here.
        let round_trip = (!object_output_only).then(|| RoundTrip::new(request.input_responses));
        let state = request_state(&request.name, &args);
        if let Some(echoed) = &request.request_state
            && *echoed != state
        {
            return Err(ErrorData::invalid_params(
                "`requestState` is not the one this server gave for this tool and these arguments",
                None,
            ));
        }
        let call = ToolCall::new(request.name.as_ref(), args)
            .cancel_on(context.ct.clone())
            .client(self.session.client(
                &context.peer,
                context.protocol_version(),
                context.client_capabilities(),
                round_trip.clone(),
            ));
        let progress = context
            .meta
            .get_progress_token()
            .map(|token| ProgressForward::start(&self.registry, call.id(), token, &context.peer));
        let result = match &round_trip {
            None => self.registry.call_with(call).await,
            Some(round_trip) => tokio::select! {
                result = self.registry.call_with(call) => result,
                // The call is dropped, and runs again with the answer.
                needed = round_trip.needed() => {
                    if let Some(progress) = progress {
                        progress.finish().await;
                    }
                    return Ok(CallToolResponse::InputRequired(InputRequiredResult::new(
                        Some(needed),
                        Some(state),
                    )));
                }
            },
        };
        if let Some(progress) = progress {
            progress.finish().await;
        }
        if result.is_error && self.registry.get(&request.name).is_none() {
            // The pipeline's message names the closest tools.
            return Err(ErrorData::invalid_params(result.text(), None));
        }
        Ok(CallToolResponse::Complete(complete(
            &self.registry,
            &request.name,
            result,
            object_output_only,
        )))
    }

    async fn get_task(
        &self,
        request: GetTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetTaskResult, ErrorData> {
        Ok(GetTaskResult::new(self.tasks.get(&request.task_id).await?))
    }

    async fn cancel_task(
        &self,
        request: CancelTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.tasks.cancel(&request.task_id).await.map(drop)
    }

    /// No task of this server asks for input: responses are acknowledged
    /// and ignored, as the extension says of unknown keys.
    async fn update_task(
        &self,
        request: UpdateTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.tasks.record(&request.task_id).await.map(drop)
    }

    /// Every provider's resources: first the MCP Apps card views, one `ui://`
    /// resource per tool that presents a card.
    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::ListResourcesResult, ErrorData> {
        Ok(self.offers.resources.list())
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::ListResourceTemplatesResult, ErrorData> {
        Ok(self.offers.resources.templates())
    }

    async fn read_resource(
        &self,
        request: rmcp::model::ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::ReadResourceResponse, ErrorData> {
        self.offers
            .resources
            .read(&request.uri)
            .await
            .map(Into::into)
    }

    #[allow(
        deprecated,
        reason = "clients on the 2025 protocols subscribe this way"
    )]
    async fn subscribe(
        &self,
        request: rmcp::model::SubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let Some(updates) = self.offers.resources.update_sender() else {
            return Err(ErrorData::method_not_found::<
                rmcp::model::SubscribeRequestMethod,
            >());
        };
        self.session.subscribe(request.uri, &context.peer, updates);
        Ok(())
    }

    #[allow(
        deprecated,
        reason = "clients on the 2025 protocols unsubscribe this way"
    )]
    async fn unsubscribe(
        &self,
        request: rmcp::model::UnsubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.session.unsubscribe(&request.uri);
        Ok(())
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::ListPromptsResult, ErrorData> {
        Ok(self.offers.prompts.list())
    }

    async fn get_prompt(
        &self,
        request: rmcp::model::GetPromptRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::GetPromptResponse, ErrorData> {
        self.offers
            .prompts
            .get(&request.name, request.arguments)
            .map(Into::into)
    }

    async fn complete(
        &self,
        request: rmcp::model::CompleteRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::CompleteResult, ErrorData> {
        let completion = match &request.r#ref {
            rmcp::model::Reference::Prompt(prompt) => self.offers.prompts.complete(
                &prompt.name,
                &request.argument.name,
                &request.argument.value,
            )?,
            // Templates suggest nothing (yet): an empty list is a valid answer.
            _ => rmcp::model::CompletionInfo::default(),
        };
        Ok(rmcp::model::CompleteResult::new(completion))
    }

    #[allow(
        deprecated,
        reason = "clients on the 2025 protocols set the level this way"
    )]
    async fn set_level(
        &self,
        request: rmcp::model::SetLevelRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.session.set_log_level(request.level);
        Ok(())
    }

    async fn initialize(
        &self,
        request: InitializeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<InitializeResult, ErrorData> {
        // Changes from here on are news to the client: it lists the tools
        // after this answer.
        *self.list_changed() = ListChanged::Pending(self.registry.watch_tools());
        context.peer.set_peer_info(request.clone());
        self.negotiate_initialize(&request)
    }

    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        let mut changes = match std::mem::take(&mut *self.list_changed()) {
            ListChanged::Pending(changes) => changes,
            _ => self.registry.watch_tools(),
        };
        let stop = CancellationToken::new();
        let peer = context.peer;
        let stopped = stop.clone();
        tokio::spawn(async move {
            loop {
                tokio::select! {
                    () = stopped.cancelled() => break,
                    changed = changes.changed() => {
                        if changed.is_err() || peer.notify_tool_list_changed().await.is_err() {
                            break;
                        }
                    }
                }
            }
        });
        *self.list_changed() = ListChanged::Sending {
            _stop: stop.drop_guard(),
        };
    }

    /// A request rmcp could not read as any method it knows lands here: one
    /// naming a method MCP defines failed on its params, which is JSON-RPC's
    /// invalid params (-32602), not an unknown method (-32601).
    async fn on_custom_request(
        &self,
        request: CustomRequest,
        _context: RequestContext<RoleServer>,
    ) -> Result<CustomResult, ErrorData> {
        let CustomRequest { method, params, .. } = request;
        let task_id = || {
            params
                .as_ref()
                .and_then(|params| params.get("taskId"))
                .and_then(Value::as_str)
                .map(str::to_owned)
                .ok_or_else(|| {
                    ErrorData::invalid_params(format!("`{method}` needs a `taskId`"), None)
                })
        };
        // MCP 2025-11-25's task methods that the tasks extension dropped.
        match method.as_str() {
            "tasks/result" => return self.tasks.result(&task_id()?).await.map(CustomResult),
            "tasks/list" => return self.tasks.list().await.map(CustomResult),
            _ => {}
        }
        if !KNOWN_METHODS.contains(&method.as_str()) {
            return Err(ErrorData::new(ErrorCode::METHOD_NOT_FOUND, method, None));
        }
        let why = match method.as_str() {
            "tools/call" => {
                serde_json::from_value::<CallToolRequestParams>(params.unwrap_or(Value::Null))
                    .err()
                    .map(|error| error.to_string())
            }
            _ => None,
        };
        let message = match why {
            Some(why) => format!("invalid params for `{method}`: {why}"),
            None => format!("invalid params for `{method}`"),
        };
        Err(ErrorData::invalid_params(message, None))
    }

    fn accepted_subscription_filter(
        &self,
        requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        Some(requested.supported_by(&self.get_info().capabilities))
    }

    async fn listen(&self, context: SubscriptionContext) -> Result<(), ErrorData> {
        if context.accepted().tools_list_changed != Some(true) {
            context.cancelled().await;
            return Ok(());
        }
        let mut changes = self.registry.watch_tools();
        changes.mark_unchanged();
        loop {
            tokio::select! {
                () = context.cancelled() => return Ok(()),
                changed = changes.changed() => {
                    if changed.is_err() || context.sink().notify_tool_list_changed().await.is_err() {
                        return Ok(());
                    }
                }
            }
        }
    }
}

impl Offers {
    /// Declares what the offers need beside tools and resources.
    fn extend_capabilities(&self, capabilities: &mut ServerCapabilities) {
        // Tools log to their client through `Exec::log`.
        #[allow(
            deprecated,
            reason = "logging is how the 2025 protocols carry a tool's log"
        )]
        {
            capabilities.logging = Some(Default::default());
        }
        if !self.prompts.is_empty() {
            capabilities.prompts = Some(Default::default());
            capabilities.completions = Some(Default::default());
        }
        if self.resources.update_sender().is_some()
            && let Some(resources) = &mut capabilities.resources
        {
            resources.subscribe = Some(true);
        }
    }
}
