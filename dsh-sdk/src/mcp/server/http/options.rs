//! [`HttpOptions`]: the limits, timeouts and allow-lists of the HTTP
//! transport, in one value.

use std::time::Duration;

use crate::mcp::server::http::admission::Limits;
use crate::mcp::server::http::{
    DEFAULT_BODY_READ_TIMEOUT, DEFAULT_HEADER_READ_TIMEOUT, DEFAULT_KEEP_ALIVE_TIMEOUT,
    DEFAULT_MAX_BODY_BYTES, DEFAULT_MAX_SESSIONS, DEFAULT_MAX_SESSIONS_PER_CLIENT,
    DEFAULT_SESSION_IDLE_TIMEOUT, DEFAULT_UNUSED_SESSION_TIMEOUT,
};

/// The limits, timeouts and allow-lists of
/// [`McpServer::serve_http`](crate::mcp::McpServer::serve_http) and
/// [`McpServer::router`](crate::mcp::McpServer::router), given to the
/// server with [`McpServer::http`](crate::mcp::McpServer::http).
///
/// [`Default`] is every `DEFAULT_*` of [`mcp`](crate::mcp): loopback
/// origins and hosts only, loopback addresses only. Each setter changes one
/// setting and keeps the rest.
///
/// ```
/// use std::time::Duration;
/// use dsh_kit::mcp::{HttpOptions, McpServer};
///
/// # fn configure(server: McpServer) -> McpServer {
/// server.http(
///     HttpOptions::default()
///         .max_body_bytes(8 * 1024 * 1024)
///         .session_idle_timeout(Duration::from_secs(300))
///         .allowed_origins(["https://app.example.com:443"]),
/// )
/// # }
/// ```
#[derive(Debug, Clone)]
pub struct HttpOptions {
    pub(crate) header_read_timeout: Duration,
    pub(crate) keep_alive_timeout: Duration,
    pub(crate) body_read_timeout: Duration,
    pub(crate) max_body_bytes: usize,
    pub(crate) max_sessions: usize,
    pub(crate) max_sessions_per_client: usize,
    pub(crate) session_idle_timeout: Duration,
    pub(crate) unused_session_timeout: Duration,
    /// Origins allowed besides the loopback ones.
    pub(crate) allowed_origins: Vec<String>,
    /// `Host` names allowed besides the loopback ones.
    pub(crate) allowed_hosts: Vec<String>,
    /// Serving a non-loopback address with no resource server was chosen.
    pub(crate) trusted_network: bool,
}

impl Default for HttpOptions {
    fn default() -> Self {
        HttpOptions {
            header_read_timeout: DEFAULT_HEADER_READ_TIMEOUT,
            keep_alive_timeout: DEFAULT_KEEP_ALIVE_TIMEOUT,
            body_read_timeout: DEFAULT_BODY_READ_TIMEOUT,
            max_body_bytes: DEFAULT_MAX_BODY_BYTES,
            max_sessions: DEFAULT_MAX_SESSIONS,
            max_sessions_per_client: DEFAULT_MAX_SESSIONS_PER_CLIENT,
            session_idle_timeout: DEFAULT_SESSION_IDLE_TIMEOUT,
            unused_session_timeout: DEFAULT_UNUSED_SESSION_TIMEOUT,
            allowed_origins: Vec::new(),
            allowed_hosts: Vec::new(),
            trusted_network: false,
        }
    }
}

impl HttpOptions {
    /// Allows browser pages from `origins` (`"https://app.example.com:443"`,
    /// `"http://localhost:*"`; see rmcp's `allowed_origins` for the syntax)
    /// besides the loopback ones always allowed. A request whose `Origin`
    /// is neither gets `403`; one with no `Origin` (not from a browser) is
    /// served.
    pub fn allowed_origins(mut self, origins: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.allowed_origins
            .extend(origins.into_iter().map(Into::into));
        self
    }

    /// Allows requests whose `Host` names one of `hosts` (`"mcp.example.com"`,
    /// `"mcp.example.com:8443"`) besides the loopback names always allowed:
    /// the public name of a server behind a reverse proxy, or served beyond
    /// loopback. Other `Host`s get `403` (the defence against DNS rebinding).
    pub fn allowed_hosts(mut self, hosts: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.allowed_hosts.extend(hosts.into_iter().map(Into::into));
        self
    }

    /// Serves HTTP beyond loopback with no authentication: on a network where
    /// every host that can reach the server may run every tool it serves
    /// (a private subnet, a container network behind an authenticating
    /// proxy). Without this, or a resource server (`McpServer::resource_server`,
    /// the `oauth` feature),
    /// [`serve_http`](crate::mcp::McpServer::serve_http) refuses an address
    /// that is not loopback. Name the hosts clients reach it by in
    /// [`allowed_hosts`](Self::allowed_hosts).
    pub fn trusted_network_without_auth(mut self) -> Self {
        self.trusted_network = true;
        self
    }

    /// How long a client may take to send a request's headers once their
    /// first byte arrived; then the connection is closed. Defaults to
    /// [`DEFAULT_HEADER_READ_TIMEOUT`](crate::mcp::DEFAULT_HEADER_READ_TIMEOUT), 10 s.
    pub fn header_read_timeout(mut self, timeout: Duration) -> Self {
        self.header_read_timeout = timeout;
        self
    }

    /// How long a kept-alive connection with no request in progress stays
    /// open before the server closes it. Keep it longer than your clients
    /// keep idle connections, so they close first and never send a request
    /// on a connection the server is closing. Defaults to
    /// [`DEFAULT_KEEP_ALIVE_TIMEOUT`](crate::mcp::DEFAULT_KEEP_ALIVE_TIMEOUT), 75 s.
    pub fn keep_alive_timeout(mut self, timeout: Duration) -> Self {
        self.keep_alive_timeout = timeout;
        self
    }

    /// How long a client may take to send a request's body; a late body
    /// gets `408` and the connection is closed. Defaults to
    /// [`DEFAULT_BODY_READ_TIMEOUT`](crate::mcp::DEFAULT_BODY_READ_TIMEOUT), 30 s.
    pub fn body_read_timeout(mut self, timeout: Duration) -> Self {
        self.body_read_timeout = timeout;
        self
    }

    /// The largest request body taken; a larger one gets `413` and the
    /// connection is closed. Defaults to
    /// [`DEFAULT_MAX_BODY_BYTES`](crate::mcp::DEFAULT_MAX_BODY_BYTES), 4 MiB.
    pub fn max_body_bytes(mut self, bytes: usize) -> Self {
        self.max_body_bytes = bytes;
        self
    }

    /// How many MCP sessions may be open at once. An `initialize` past the
    /// cap closes the least recently used idle session; it gets `503` with
    /// `Retry-After` only when every open session is active (a request in
    /// flight, or a stream open). Defaults to
    /// [`DEFAULT_MAX_SESSIONS`](crate::mcp::DEFAULT_MAX_SESSIONS), 4,096.
    pub fn max_sessions(mut self, sessions: usize) -> Self {
        self.max_sessions = sessions;
        self
    }

    /// How many MCP sessions one client may hold at once: its principal
    /// when an authenticating layer in front inserted an
    /// `Arc<`[`Principal`](crate::Principal)`>` into the request's
    /// extensions, its IP address otherwise. A client at its cap that opens
    /// another closes its own least recently used idle session, or gets
    /// `429` with `Retry-After` when all of them are active. Defaults to
    /// [`DEFAULT_MAX_SESSIONS_PER_CLIENT`](crate::mcp::DEFAULT_MAX_SESSIONS_PER_CLIENT), 1,024.
    pub fn max_sessions_per_client(mut self, sessions: usize) -> Self {
        self.max_sessions_per_client = sessions;
        self
    }

    /// How long a session with no traffic is kept before it is closed.
    /// Defaults to [`DEFAULT_SESSION_IDLE_TIMEOUT`](crate::mcp::DEFAULT_SESSION_IDLE_TIMEOUT), 2 minutes.
    pub fn session_idle_timeout(mut self, timeout: Duration) -> Self {
        self.session_idle_timeout = timeout;
        self
    }

    /// How long a session that was initialised and never used (no request
    /// after `initialize` but notifications) is kept. Defaults to
    /// [`DEFAULT_UNUSED_SESSION_TIMEOUT`](crate::mcp::DEFAULT_UNUSED_SESSION_TIMEOUT), 10 s.
    pub fn unused_session_timeout(mut self, timeout: Duration) -> Self {
        self.unused_session_timeout = timeout;
        self
    }
}

impl HttpOptions {
    /// Every origin allowed: a page served from loopback on any port, over
    /// `http` or `https`, then the host's own list. A request with no
    /// `Origin` (not from a browser) is always allowed.
    pub(crate) fn origins(&self) -> Vec<String> {
        let loopback = ["localhost", "127.0.0.1", "[::1]"];
        ["http", "https"]
            .iter()
            .flat_map(|scheme| {
                loopback
                    .iter()
                    .map(move |host| format!("{scheme}://{host}:*"))
            })
            .chain(self.allowed_origins.iter().cloned())
            .collect()
    }

    /// Every `Host` allowed: the loopback names, then the host's own list.
    pub(crate) fn hosts(&self) -> Vec<String> {
        ["localhost", "127.0.0.1", "::1"]
            .into_iter()
            .map(String::from)
            .chain(self.allowed_hosts.iter().cloned())
            .collect()
    }

    /// The limits the session table enforces.
    pub(crate) fn limits(&self) -> Limits {
        Limits {
            max_sessions: self.max_sessions,
            max_per_client: self.max_sessions_per_client,
            unused_timeout: self.unused_session_timeout,
        }
    }
}
