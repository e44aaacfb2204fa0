//! [`McpServer`]: a registry served to MCP clients.

use std::fmt;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock as McpBlock,
    CustomRequest, CustomResult, ErrorCode, Implementation, InitializeRequestParams,
    InitializeResult, ListToolsResult, MetaObject, PaginatedRequestParams,
    ProgressNotificationParam, ProgressToken, ProtocolVersion, ServerCapabilities, ServerConfig,
    SubscriptionFilter, Tool,
};
use rmcp::service::{NotificationContext, RequestContext, SubscriptionContext};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ErrorData, Peer, RoleServer, ServerHandler, ServiceExt};
use serde_json::Value;
use tokio::sync::{mpsc, watch};
use tokio::task::JoinHandle;
use tokio_util::sync::{CancellationToken, DropGuard};
use uuid::Uuid;

use crate::event::{Event, StreamType};
use crate::export::{Format, META_FAILURE, export_tool};
use crate::pipeline::ToolCall;
use crate::registry::{Registry, Subscription};
use crate::result::ToolResult;

use super::apps;
use super::content::to_mcp;
use super::http::{Guard, HttpSettings};
use super::prompts::{Prompt, Prompts};
use super::resources::{ResourceProvider, ResourceUpdates, Resources};
use super::session::Session;

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

/// The path [`McpServer::serve_http`] serves MCP on.
const HTTP_PATH: &str = "/mcp";

/// How long a finished call waits for its last progress notifications to go out.
const PROGRESS_DRAIN: Duration = Duration::from_secs(2);

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
///   [`CONTRACT_META_KEY`]: SHA-256 of its canonical definition, for a client
///   to pin. [`McpProxy`](super::McpProxy) checks it.
/// - MCP Apps: a tool that presents its own card (`#[tool(present = …)]`)
///   links, in its `_meta.ui.resourceUri`, to a `ui://dsh-sdk/cards/TOOL`
///   resource (`resources/list`, `resources/read`, MIME type
///   `text/html;profile=mcp-app`) that draws the card of each of its results
///   ([`card_app_html`](crate::web::card_app_html)); its results carry the
///   card in `_meta["dsh-sdk/card"]`. Hosts without MCP Apps still get
///   `content` and `structuredContent`.
/// - `notifications/cancelled` from the client cancels the call.
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
        }
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
            .with_legacy_session_mode(true)
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
        let call = ToolCall::new(request.name.as_ref(), args)
            .cancel_on(context.ct.clone())
            .client(
                self.session
                    .client(&context.peer, context.protocol_version()),
            );
        let progress = context
            .meta
            .get_progress_token()
            .map(|token| ProgressForward::start(&self.registry, call.id(), token, &context.peer));
        let result = self.registry.call_with(call).await;
        if let Some(progress) = progress {
            progress.finish().await;
        }
        if result.is_error && self.registry.get(&request.name).is_none() {
            // The pipeline's message names the closest tools.
            return Err(ErrorData::invalid_params(result.text(), None));
        }
        // The card view of a tool that presents one draws the card from `_meta`.
        let card = match &result.card {
            Some(card)
                if self
                    .registry
                    .get(&request.name)
                    .is_some_and(|tool| tool.presents()) =>
            {
                Some(card.clone())
            }
            _ => None,
        };
        let mut call = call_tool_result(result, object_output_only);
        if let Some(card) = card {
            apps::attach_card(&mut call, &card);
        }
        Ok(CallToolResponse::Complete(call))
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

/// The `_meta` key of a listed tool's [contract hash](crate::digest).
pub const CONTRACT_META_KEY: &str = "dsh-sdk/contract";

/// The dialect of every schema dsh makes.
const JSON_SCHEMA_2020_12: &str = "https://json-schema.org/draft/2020-12/schema";

/// An MCP tool definition from its [`Format::Mcp`] export, its input schema
/// declaring its dialect: MCP clients from before 2025-11-25 assumed
/// draft-07, and the `$defs` and `$ref`s of a dsh schema are 2020-12's.
///
/// Its `_meta` carries the definition's contract hash under
/// [`CONTRACT_META_KEY`], for a client to pin.
fn mcp_tool(mut exported: Value) -> Result<Tool, ErrorData> {
    let hash = crate::digest::contract_hash(&exported);
    if let Value::Object(tool) = &mut exported {
        let meta = tool
            .entry("_meta")
            .or_insert_with(|| Value::Object(serde_json::Map::new()));
        if let Value::Object(meta) = meta {
            meta.insert(CONTRACT_META_KEY.to_owned(), Value::String(hash));
        }
    }
    if let Some(Value::Object(input)) = exported.get_mut("inputSchema") {
        input
            .entry("$schema")
            .or_insert_with(|| Value::from(JSON_SCHEMA_2020_12));
    }
    serde_json::from_value(exported).map_err(|error| {
        ErrorData::internal_error(
            format!("a tool definition does not fit MCP's `Tool`: {error}"),
            None,
        )
    })
}

/// What the client gets for a call's result.
///
/// `object_output_only`: the client's protocol predates 2026-07-28, where
/// `structuredContent` must be an object.
fn call_tool_result(result: ToolResult, object_output_only: bool) -> CallToolResult {
    let mut content: Vec<McpBlock> = result.content.iter().map(to_mcp).collect();
    let says_nothing = content.iter().all(|block| {
        block
            .as_text()
            .is_some_and(|text| text.text.trim().is_empty())
    });
    if says_nothing {
        content = vec![McpBlock::text(format!(
            "`{}` finished with no output",
            result.tool_name
        ))];
    }
    if result.is_error {
        let mut call = CallToolResult::error(content);
        // Typed, for clients that switch on why the call failed.
        if let Some(failure) = &result.failure
            && let Ok(failure) = serde_json::to_value(failure)
        {
            let mut meta = serde_json::Map::new();
            meta.insert(META_FAILURE.to_owned(), failure);
            call.meta = Some(MetaObject(meta));
        }
        return call;
    }
    let structured = result
        .value
        .filter(|value| !object_output_only || value.is_object());
    // Clients that read only `content` still get the value: when a custom
    // render's text does not already carry it, its JSON follows the render's
    // blocks, as MCP recommends.
    if let Some(value) = &structured
        && !carries(&content, value)
    {
        content.push(McpBlock::text(value.to_string()));
    }
    let mut call = CallToolResult::success(content);
    call.structured_content = structured;
    call
}

/// Whether the text of `content` is `value` already: its JSON, or the string itself.
fn carries(content: &[McpBlock], value: &Value) -> bool {
    let text: Vec<&str> = content
        .iter()
        .filter_map(|block| block.as_text().map(|text| text.text.as_str()))
        .collect();
    let text = text.join("\n");
    let json = value.to_string();
    text == json || value.as_str() == Some(text.as_str())
}

/// Sends one call's `progress` chunks to the client as `notifications/progress`.
struct ProgressForward {
    subscription: Subscription,
    task: JoinHandle<()>,
}

impl ProgressForward {
    fn start(
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
                let _ = sender.send((chunk.sequence, chunk.chunk.clone()));
            }
        });
        let peer = peer.clone();
        let task = tokio::spawn(async move {
            while let Some((sequence, message)) = chunks.recv().await {
                // `progress` must grow with every notification; the chunk's
                // 0-based sequence number does.
                let progress = ProgressNotificationParam::new(token.clone(), (sequence + 1) as f64)
                    .with_message(message);
                if peer.notify_progress(progress).await.is_err() {
                    break;
                }
            }
        });
        ProgressForward { subscription, task }
    }

    /// Waits, briefly, for the notifications still queued to go out before
    /// the result does.
    async fn finish(self) {
        drop(self.subscription);
        let _ = tokio::time::timeout(PROGRESS_DRAIN, self.task).await;
    }
}

/// A running streamable-HTTP MCP server; dropping it shuts the server down.
#[must_use = "dropping the handle shuts the server down at once"]
pub struct McpHttpServer {
    local_addr: SocketAddr,
    stop: DropGuard,
    task: JoinHandle<std::io::Result<()>>,
}

impl McpHttpServer {
    /// The address the server listens on.
    pub fn local_addr(&self) -> SocketAddr {
        self.local_addr
    }

    /// The URL an MCP client connects to: `http://127.0.0.1:PORT/mcp`.
    pub fn url(&self) -> String {
        format!("http://{}{HTTP_PATH}", self.local_addr)
    }

    /// Runs until the server fails (or is shut down from elsewhere).
    pub async fn wait(self) -> Result<(), ServeError> {
        let McpHttpServer { stop, task, .. } = self;
        let result = task.await;
        drop(stop);
        flatten(result)
    }

    /// Stops accepting connections, ends every session, and waits for the
    /// server to finish.
    pub async fn shutdown(self) -> Result<(), ServeError> {
        let McpHttpServer { stop, task, .. } = self;
        drop(stop);
        flatten(task.await)
    }
}

fn flatten(result: Result<std::io::Result<()>, tokio::task::JoinError>) -> Result<(), ServeError> {
    match result {
        Ok(Ok(())) => Ok(()),
        Ok(Err(error)) => Err(ServeError::Stopped(error.to_string())),
        Err(error) => Err(ServeError::Stopped(error.to_string())),
    }
}

impl fmt::Debug for McpHttpServer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("McpHttpServer")
            .field("url", &self.url())
            .finish_non_exhaustive()
    }
}

/// Why an [`McpServer`] could not serve.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ServeError {
    /// [`McpServer::serve_http`] was given an address that is not loopback.
    #[error(
        "cannot serve MCP over HTTP on {addr}: only loopback addresses (127.0.0.1, [::1]) are served; put a reverse proxy in front to expose the server"
    )]
    NotLoopback {
        /// The address given.
        addr: SocketAddr,
    },
    /// The HTTP socket could not be bound.
    #[error("cannot serve MCP over HTTP on {addr}")]
    Bind {
        /// The address given.
        addr: SocketAddr,
        /// Why binding failed.
        #[source]
        source: std::io::Error,
    },
    /// The session with the client could not start.
    #[error("the MCP session could not start: {0}")]
    Start(String),
    /// The server stopped on an error.
    #[error("the MCP server stopped on an error: {0}")]
    Stopped(String),
}
