//! [`McpProxy`]: the tools of another MCP server, as dynamic tools.

mod client;
mod events;
mod forward;
mod gone;
mod link;
mod progress;
mod skills;
mod sync;
mod tls;
mod watch;

pub use events::{ProxyEvent, ToolListDiff};
pub use tls::TlsError;

use std::fmt;
use std::future::Future;
use std::pin::{Pin, pin};
use std::sync::atomic::Ordering;
use std::sync::{Arc, PoisonError};
use std::time::Duration;

use rmcp::model::ProtocolVersion;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use rmcp::{ClientLifecycleMode, ClientServiceExt, RoleClient};
use tokio::sync::Notify;
use tokio_util::sync::{CancellationToken, DropGuard};

use crate::Backoff;
use crate::registry::Registry;
use crate::value::event::rawp::{Diagnostic, ToolStatus};

#[cfg(feature = "oauth")]
use super::auth::{ClientCredentials, ClientFlowError, client_credentials_token};
use super::pins::{ContractPins, TOOL_CONTRACT_CHANGED};
use client::ProxyClient;
use link::Link;
use sync::sync;
use tls::TlsRoots;
use watch::{Dial, Running, Watch};

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
/// # async fn run() -> Result<(), dsh_kit::mcp::ConnectError> {
/// use dsh_kit::Registry;
/// use dsh_kit::mcp::McpProxy;
///
/// let registry = Registry::new();
/// let files = McpProxy::builder("files")
///     .stdio(&registry, tokio::process::Command::new("mcp-server-files"))
///     .await?;
/// let search = McpProxy::builder("search")
///     .prefix("search_")
///     .http(&registry, "http://127.0.0.1:8931/mcp")
///     .await?;
/// let remote = McpProxy::builder("remote")
///     .root_certificates_pem(std::fs::read("private-ca.pem").unwrap())
///     .http(&registry, "https://mcp.internal.example:8443/mcp")
///     .await?;
/// println!("{:?} {:?} {:?}", files.tools(), search.tools(), remote.tools());
/// # Ok(()) }
/// ```
///
/// - Each remote tool keeps its name (after the [prefix](McpProxyBuilder::prefix)),
///   description, title and input schema; its annotations become flags
///   (`readOnlyHint` → `read_only` and `concurrency_safe`, `destructiveHint` →
///   `destructive`, `idempotentHint` → `idempotent`, an absent hint → off;
///   `openWorldHint` → `open_world` as given, an absent one unsaid),
///   and its category is `mcp`.
/// - Its canonical value is the `structuredContent` when it declares an
///   output schema, validated against it; the model sees the server's own
///   `content` beside it (what its render said), unless that is only the
///   value's JSON or over the registry's output limits, when it sees the
///   value's default rendering. That content is recorded with the value
///   ([`Event::Executed`](crate::value::event::Event::Executed)'s
///   `remote_content`), so a replay gives it without the server. A tool
///   without an output schema has the `content` blocks themselves as its
///   value, which render as they are. `isError: true` is the tool's error.
/// - A tool of a dsh server that presents its own card (its definition links
///   a dsh card view) presents it here too: each result's card comes in its
///   `_meta` ([`CARD_META_KEY`](crate::value::card::web::CARD_META_KEY)), is
///   checked (within the registry's output limits, one of the [`Card`](crate::value::card::Card)
///   types; else the generic card shows, with a warning), and is recorded
///   with the value ([`Event::Executed`](crate::value::event::Event::Executed)'s
///   `remote_card`), so that present stays a function of what was recorded
///   and a replay of the session log shows the same card without the
///   server. A server in front of this registry passes the card on.
/// - A tool that cannot be registered is skipped, with a warning diagnostic
///   in the [catalog](crate::catalog): `TOOL_SHADOWED` when a built-in tool
///   has its name (built-in tools win), [`TOOL_SKIPPED`] otherwise.
/// - The connection tries `server/discover` (protocol 2026-07-28, where a
///   structured output can be any JSON value) and falls back to `initialize`.
/// - `notifications/tools/list_changed` from the server re-reads its tools.
/// - When the server goes away, its tools stay in the pool but turn
///   `unavailable`, with a status description naming the server, and every
///   call of them is refused with that text at once. A child process is seen
///   to go when it exits; an HTTP server, at the first call or
///   [heartbeat](McpProxyBuilder::heartbeat) ping nothing answers.
/// - A proxy that can open its connection again ([`http`](McpProxyBuilder::http),
///   [`stdio_with`](McpProxyBuilder::stdio_with)) then tries to, waiting
///   [`Backoff`] between attempts. When the server is back its list is read
///   again: new tools are registered, gone ones dropped, changed ones (by
///   contract hash) replaced and checked against their [pins](ContractPins),
///   and the tools turn `available`. Each step is a [`ProxyEvent`]
///   ([`events`](McpProxy::events)), the diff included, and the registry
///   republishes its catalog and tool list (an MCP server in front of it
///   sends `list_changed`).
/// - `https://` servers are reached with rustls (no system OpenSSL), trusting
///   the system's roots plus any [root certificates](McpProxyBuilder::root_certificates_pem)
///   given.
/// - A server that declares the Skills extension has its skills served by
///   the registry ([`Registry::skills`](crate::Registry::skills)), as it
///   lists them, each file read from the server when a client asks for it;
///   the list is read again with the tools. A skill that breaks the
///   extension's rules, or whose URI a skill of the registry's own holds,
///   is left out (with a warning in the log).
/// - Dropping the proxy unregisters its tools and skills and ends the
///   connection (a child process is stopped).
pub struct McpProxy {
    link: Arc<Link>,
    _stop: DropGuard,
}

/// Connects an [`McpProxy`]: [`McpProxy::builder`].
#[derive(Clone, Debug)]
pub struct McpProxyBuilder {
    server: String,
    prefix: String,
    pins: ContractPins,
    backoff: Backoff,
    heartbeat: Option<Duration>,
    roots: TlsRoots,
    credentials: Option<Credentials>,
}

/// What a proxy presents to a protected HTTP server.
#[derive(Clone)]
enum Credentials {
    /// A bearer token got elsewhere.
    Bearer(String),
    /// The client credentials grant, run after discovery from the server's `401`.
    #[cfg(feature = "oauth")]
    Client(ClientCredentials),
}

impl fmt::Debug for Credentials {
    /// Never the token or the secret.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Credentials::Bearer(_) => f.write_str("Bearer(..)"),
            #[cfg(feature = "oauth")]
            Credentials::Client(credentials) => credentials.fmt(f),
        }
    }
}

impl Credentials {
    /// The token to present to the server at `url`: a fresh one for each
    /// connection, under the client credentials grant.
    #[cfg_attr(not(feature = "oauth"), allow(unused_variables))]
    async fn token(
        &self,
        http: &reqwest::Client,
        server: &str,
        url: &str,
    ) -> Result<String, ConnectError> {
        match self {
            Credentials::Bearer(token) => Ok(token.clone()),
            #[cfg(feature = "oauth")]
            Credentials::Client(credentials) => client_credentials_token(http, url, credentials)
                .await
                .map_err(|source| ConnectError::Authorization {
                    server: server.to_owned(),
                    source,
                }),
        }
    }
}

/// How often a proxy pings its server by default, to see it go while no call runs.
pub const DEFAULT_HEARTBEAT: Duration = Duration::from_secs(15);

/// The shortest heartbeat: pings back to back would be a busy loop.
const MIN_HEARTBEAT: Duration = Duration::from_millis(50);

impl McpProxy {
    /// Starts a connection to the MCP server called `server`, the name its
    /// diagnostics and error messages use.
    pub fn builder(server: impl Into<String>) -> McpProxyBuilder {
        McpProxyBuilder {
            server: server.into(),
            prefix: String::new(),
            pins: ContractPins::new(),
            backoff: Backoff::default(),
            heartbeat: Some(DEFAULT_HEARTBEAT),
            roots: TlsRoots::default(),
            credentials: None,
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

    /// Approves the current definition of the proxied tool `name` after it
    /// changed from its pinned contract: pins its new hash and lifts the
    /// [`TOOL_CONTRACT_CHANGED`] block. Whether `name` is one of this
    /// proxy's tools.
    pub fn approve_contract(&self, name: &str) -> bool {
        let Some(contract) = self
            .link
            .tools()
            .get(name)
            .map(|tool| tool.contract.clone())
        else {
            return false;
        };
        self.link.pins.pin(name, contract);
        self.link
            .registry
            .remove_diagnostic(Some(name), TOOL_CONTRACT_CHANGED);
        true
    }

    /// The pins this proxy checks its tools against.
    pub fn pins(&self) -> &ContractPins {
        &self.link.pins
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

impl McpProxy {
    /// What happens to the connection from now on: drops, failed and
    /// successful reconnections with the tool list's diff, re-read lists.
    ///
    /// ```no_run
    /// # async fn run(proxy: dsh_kit::mcp::McpProxy) {
    /// use dsh_kit::mcp::ProxyEvent;
    ///
    /// let mut events = proxy.events();
    /// while let Ok(event) = events.recv().await {
    ///     if let ProxyEvent::Reconnected { diff, .. } = event {
    ///         println!("{} is back: {diff}", proxy.server());
    ///     }
    /// }
    /// # }
    /// ```
    pub fn events(&self) -> tokio::sync::broadcast::Receiver<ProxyEvent> {
        self.link.subscribe()
    }

    /// Ends the current connection as if the server went away, saying
    /// `reason` (a child process is stopped): a proxy that can reconnect
    /// ([`stdio_with`](McpProxyBuilder::stdio_with), [`http`](McpProxyBuilder::http))
    /// then opens a fresh one, re-reads the tools and reports the diff
    /// ([`ProxyEvent::Reconnected`]), as a development loop does after a
    /// rebuild. Does nothing while the server is already gone.
    pub fn restart(&self, reason: impl Into<String>) {
        self.link.mark_gone(reason.into());
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
        // Its skills go with its tools.
        drop(std::mem::take(
            &mut *self
                .link
                .skills
                .lock()
                .unwrap_or_else(PoisonError::into_inner),
        ));
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

    /// Checks the tools against `pins` ([`ContractPins`]): a tool whose
    /// definition hashes to something other than its pin is blocked with a
    /// [`TOOL_CONTRACT_CHANGED`] diagnostic until re-approved. Without this,
    /// the proxy pins each tool when it first sees it.
    pub fn pins(mut self, pins: ContractPins) -> Self {
        self.pins = pins;
        self
    }

    /// How to wait between attempts to reach the server again after it went
    /// away ([`Backoff::default`] unless set; [`Backoff::never`] to stay gone).
    /// Only a proxy that can open its connection again reconnects.
    pub fn reconnect(mut self, backoff: Backoff) -> Self {
        self.backoff = backoff;
        self
    }

    /// Pings the server every `every` (at least 50 ms) while connected, so a
    /// server that went away is seen before the next call; a ping not
    /// answered within `every` (at least a second) counts as gone
    /// ([`DEFAULT_HEARTBEAT`] unless set). `None`: no pings.
    pub fn heartbeat(mut self, every: Option<Duration>) -> Self {
        self.heartbeat = every.map(|every| every.max(MIN_HEARTBEAT));
        self
    }

    /// Trusts the certificates in `pem` (one or more `CERTIFICATE` blocks) as
    /// roots for an `https://` server, beside the system's: a private CA, a
    /// test certificate. Read when the proxy connects.
    pub fn root_certificates_pem(mut self, pem: impl Into<Vec<u8>>) -> Self {
        self.roots.add_pem(pem.into());
        self
    }

    /// Trusts one DER-encoded certificate as a root, like
    /// [`root_certificates_pem`](Self::root_certificates_pem).
    pub fn root_certificate_der(mut self, der: impl Into<Vec<u8>>) -> Self {
        self.roots.add_der(der.into());
        self
    }

    /// Trusts only the root certificates given here, not the system's.
    pub fn only_given_roots(mut self) -> Self {
        self.roots.only_these();
        self
    }

    /// Presents `token` to an HTTP server (`Authorization: Bearer`), on every
    /// connection.
    pub fn bearer_token(mut self, token: impl Into<String>) -> Self {
        self.credentials = Some(Credentials::Bearer(token.into()));
        self
    }

    /// Gets a token for a protected HTTP server on each connection: the
    /// server's `401` names its protected resource metadata, which names its
    /// authorization server, whose token endpoint gives a token for the
    /// server's resource URI under the client credentials grant.
    ///
    /// Needs the `oauth` cargo feature.
    #[cfg(feature = "oauth")]
    pub fn client_credentials(mut self, credentials: ClientCredentials) -> Self {
        self.credentials = Some(Credentials::Client(credentials));
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

    /// Like [`stdio`](Self::stdio), with a fresh `command()` for each
    /// connection: when the process exits, the proxy starts it again.
    pub async fn stdio_with(
        self,
        registry: &Registry,
        command: impl Fn() -> tokio::process::Command + Send + Sync + 'static,
    ) -> Result<McpProxy, ConnectError> {
        let server = self.server.clone();
        let spawn = move || {
            let command = command();
            let program = command
                .as_std()
                .get_program()
                .to_string_lossy()
                .into_owned();
            TokioChildProcess::new(command).map_err(|source| ConnectError::Spawn {
                server: server.clone(),
                program,
                source,
            })
        };
        let first = spawn()?;
        let server = self.server.clone();
        let dial = move |client: ProxyClient| -> Dialing {
            let spawned = spawn();
            let server = server.clone();
            Box::pin(async move { handshake(&server, client, spawned?).await })
        };
        self.start(registry, first, Some(Box::new(dial))).await
    }

    /// Speaks MCP over streamable HTTP to `url`: `http://host:port/mcp`, or
    /// `https://…` over rustls with the system's roots and those given
    /// ([`root_certificates_pem`](Self::root_certificates_pem)). The proxy
    /// reconnects when the server goes ([`reconnect`](Self::reconnect)).
    pub async fn http(self, registry: &Registry, url: &str) -> Result<McpProxy, ConnectError> {
        let client = self
            .roots
            .http_client()
            .map_err(|source| ConnectError::Tls {
                server: self.server.clone(),
                source,
            })?;
        // A server that lost the session (it restarted) is reconnected to
        // here, so the tool list is read again and diffed; rmcp's own quiet
        // re-initialization would hide the restart.
        let config =
            StreamableHttpClientTransportConfig::with_uri(url).reinit_on_expired_session(false);
        let http = client.clone();
        let transport = move |token: Option<String>| {
            let config = match token {
                Some(token) => config.clone().auth_header(token),
                None => config.clone(),
            };
            StreamableHttpClientTransport::with_client(http.clone(), config)
        };
        let credentials = self.credentials.clone();
        let url = url.to_owned();
        let token = match &credentials {
            Some(credentials) => Some(credentials.token(&client, &self.server, &url).await?),
            None => None,
        };
        let first = transport(token);
        let server = self.server.clone();
        let dial = move |proxy: ProxyClient| -> Dialing {
            let transport = transport.clone();
            let credentials = credentials.clone();
            let (http, server, url) = (client.clone(), server.clone(), url.clone());
            Box::pin(async move {
                let token = match &credentials {
                    Some(credentials) => Some(credentials.token(&http, &server, &url).await?),
                    None => None,
                };
                handshake(&server, proxy, transport(token)).await
            })
        };
        self.start(registry, first, Some(Box::new(dial))).await
    }

    /// Speaks MCP over any rmcp client transport. It cannot be opened again,
    /// so a server that goes away stays gone.
    pub async fn connect<T, E, A>(
        self,
        registry: &Registry,
        transport: T,
    ) -> Result<McpProxy, ConnectError>
    where
        T: rmcp::transport::IntoTransport<RoleClient, E, A>,
        E: std::error::Error + Send + Sync + 'static,
    {
        self.start(registry, transport, None).await
    }

    /// Connects over `transport`, lists the tools, and starts the watcher,
    /// which opens new connections with `redial`.
    async fn start<T, E, A>(
        self,
        registry: &Registry,
        transport: T,
        redial: Option<Redial>,
    ) -> Result<McpProxy, ConnectError>
    where
        T: rmcp::transport::IntoTransport<RoleClient, E, A>,
        E: std::error::Error + Send + Sync + 'static,
    {
        let client = ProxyClient {
            progress: Arc::default(),
            list_changed: Arc::new(Notify::new()),
        };
        let list_changed = Arc::clone(&client.list_changed);
        let running = handshake(&self.server, client.clone(), transport).await?;
        let link = Arc::new(Link::new(
            self.server,
            self.prefix,
            self.pins,
            registry,
            running.peer().clone(),
            Arc::clone(&client.progress),
        ));
        let gone = link.attach(running.peer().clone());
        if let Err(error) = sync(&link).await {
            // The connection is ended by dropping `running`.
            return Err(ConnectError::ListTools {
                server: link.server.clone(),
                reason: error.to_string(),
            });
        }
        let dial = redial.map(|redial| -> Dial { Arc::new(move || redial(client.clone())) });
        let stop = CancellationToken::new();
        let watch = Watch {
            link: Arc::clone(&link),
            stop: stop.clone(),
            list_changed,
            dial,
            backoff: self.backoff,
            heartbeat: self.heartbeat,
        };
        tokio::spawn(watch.run(running, gone));
        Ok(McpProxy {
            link,
            _stop: stop.drop_guard(),
        })
    }
}

/// A connection being opened.
type Dialing = Pin<Box<dyn Future<Output = Result<Running, ConnectError>> + Send>>;

/// Opens a new connection to the server, with the proxy's client handler.
type Redial = Box<dyn Fn(ProxyClient) -> Dialing + Send + Sync>;

/// The MCP handshake over `transport`: `server/discover` first (2026-07-28:
/// any JSON value as structured output), `initialize` for servers that do
/// not know it.
async fn handshake<T, E, A>(
    server: &str,
    client: ProxyClient,
    transport: T,
) -> Result<Running, ConnectError>
where
    T: rmcp::transport::IntoTransport<RoleClient, E, A>,
    E: std::error::Error + Send + Sync + 'static,
{
    let lifecycle = ClientLifecycleMode::Auto {
        preferred_versions: vec![ProtocolVersion::V_2026_07_28],
        legacy_version: None,
    };
    client
        .serve_with_lifecycle(transport, lifecycle)
        .await
        .map_err(|error| ConnectError::Handshake {
            server: server.to_owned(),
            // What went wrong, not the transport types it went wrong in.
            reason: gone::handshake_failure(&error),
        })
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
    /// The HTTPS client could not be set up (a root certificate that cannot be read).
    #[error("cannot set up HTTPS for the MCP server `{server}`")]
    Tls {
        /// The server's name.
        server: String,
        /// What went wrong.
        #[source]
        source: TlsError,
    },
    /// No token could be got for a protected server.
    #[cfg(feature = "oauth")]
    #[error("cannot get an access token for the MCP server `{server}`")]
    Authorization {
        /// The server's name.
        server: String,
        /// What went wrong.
        #[source]
        source: ClientFlowError,
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
