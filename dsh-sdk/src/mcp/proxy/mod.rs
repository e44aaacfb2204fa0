//! [`McpProxy`]: the tools of another MCP server, as dynamic tools.

mod client;
mod forward;
mod gone;
mod link;
mod watch;

use std::fmt;
use std::pin::pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use rmcp::model::ProtocolVersion;
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use rmcp::{ClientLifecycleMode, ClientServiceExt, RoleClient};
use tokio::sync::Notify;
use tokio_util::sync::{CancellationToken, DropGuard};

use crate::rawp::{Diagnostic, ToolStatus};
use crate::registry::Registry;

use super::pins::{ContractPins, TOOL_CONTRACT_CHANGED};
use client::ProxyClient;
use link::Link;

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
    pins: ContractPins,
}

impl McpProxy {
    /// Starts a connection to the MCP server called `server`, the name its
    /// diagnostics and error messages use.
    pub fn builder(server: impl Into<String>) -> McpProxyBuilder {
        McpProxyBuilder {
            server: server.into(),
            prefix: String::new(),
            pins: ContractPins::new(),
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
        let Some(definition) = self
            .link
            .tools()
            .get(name)
            .map(|(definition, _)| definition.clone())
        else {
            return false;
        };
        self.link
            .pins
            .pin(name, crate::digest::contract_hash(&definition));
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

    /// Checks the tools against `pins` ([`ContractPins`]): a tool whose
    /// definition hashes to something other than its pin is blocked with a
    /// [`TOOL_CONTRACT_CHANGED`] diagnostic until re-approved. Without this,
    /// the proxy pins each tool when it first sees it.
    pub fn pins(mut self, pins: ContractPins) -> Self {
        self.pins = pins;
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
            pins: self.pins,
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
        tokio::spawn(watch::watch(
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
