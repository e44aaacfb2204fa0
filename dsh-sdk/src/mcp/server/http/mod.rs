//! The socket side of [`McpServer::serve_http`](crate::mcp::McpServer::serve_http):
//! HTTP/1 connections with header and keep-alive timeouts
//! ([`connection`]), and the layers in front of rmcp's streamable-HTTP
//! service, each with one concern: the rest of a body answered early
//! (`drain`, with a resource server), the body's size and read timeout
//! ([`body`]), the reply's shape ([`reply`]) and the session rules
//! ([`gate`], by [`admission`]'s table). rmcp itself checks `Host` and
//! `Origin`. Each request carries its peer's address in its extensions as
//! axum's [`ConnectInfo`]. The host sets the limits with [`HttpOptions`]
//! ([`options`]).

pub(crate) mod admission;
pub(crate) mod body;
pub(crate) mod connection;
#[cfg(feature = "oauth")]
pub(crate) mod drain;
pub(crate) mod gate;
pub(crate) mod options;
pub(crate) mod reply;

use std::convert::Infallible;
use std::fmt;
use std::net::SocketAddr;
use std::sync::Arc;

use rmcp::transport::streamable_http_server::session::{EventStore, SessionStore};
use std::time::Duration;

use axum::body::Body;
use axum::extract::ConnectInfo;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::TcpListener;
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;
use tower::ServiceExt;

use crate::mcp::stores::outage;
use crate::served::{Background, BindError, Stopped};
use admission::Sessions;
pub(crate) use connection::Timeouts;
use connection::{Activity, HeadersLate, Watched};
pub use options::HttpOptions;

/// The target of this module's log lines, the one hosts filter on.
const LOG_TARGET: &str = "dsh_kit::mcp::http";

/// How long a client may take to send a request's headers once their first
/// byte arrived: 10 seconds.
pub const DEFAULT_HEADER_READ_TIMEOUT: Duration = Duration::from_secs(10);

/// How long a kept-alive connection with no request stays open: 75 seconds
/// (nginx's default), longer than common clients keep an idle connection
/// (httpx 5 s, Node 4-5 s, browsers and Go about 60-90 s), so it is the
/// client that closes it, never the server just as a request is sent.
pub const DEFAULT_KEEP_ALIVE_TIMEOUT: Duration = Duration::from_secs(75);

/// How long a client may take to send a request's body once its headers
/// arrived: 30 seconds.
pub const DEFAULT_BODY_READ_TIMEOUT: Duration = Duration::from_secs(30);

/// The largest request body taken: 4 MiB.
pub const DEFAULT_MAX_BODY_BYTES: usize = 4 * 1024 * 1024;

/// How many MCP sessions may be open at once: 4,096.
///
/// Sized by memory: an idle session costs about 58 KiB of resident memory
/// (the growth over 1,000 sessions opened one after another, measured by
/// `cargo bench -p dsh-kit --features mcp --bench http`), so a full server
/// holds about 230 MiB of sessions. Sessions opened and closed in a flood
/// cost more, as the allocator keeps what they freed for the next: 30 s of
/// a flood that opened 1,555 sessions, at most 220 at once, grew the
/// resident set by 32 MiB (the test
/// `mcp::sessions::a_flood_of_unused_sessions_leaves_every_honest_call_served`
/// prints it). When full, an `initialize` closes the least recently
/// used idle session; only when every session is active is it refused.
pub const DEFAULT_MAX_SESSIONS: usize = 4096;

/// How many MCP sessions one client may hold at once: 1,024, a quarter of
/// [`DEFAULT_MAX_SESSIONS`]. A client is its principal when an
/// authenticating layer in front named one, its IP address otherwise. A
/// client at its cap that opens another closes its own least recently used
/// idle session.
pub const DEFAULT_MAX_SESSIONS_PER_CLIENT: usize = 1024;

/// How long a session with no traffic is kept: 2 minutes.
pub const DEFAULT_SESSION_IDLE_TIMEOUT: Duration = Duration::from_secs(120);

/// How long a session initialised and never used (no request but
/// `notifications/initialized`) is kept: 10 seconds.
pub const DEFAULT_UNUSED_SESSION_TIMEOUT: Duration = Duration::from_secs(10);

/// Everything the HTTP transport is set up with: the host's
/// [`HttpOptions`], and what the server plugs in (authentication, stores).
#[derive(Debug, Clone, Default)]
pub(crate) struct HttpSettings {
    /// The limits, timeouts and allow-lists.
    pub(crate) options: HttpOptions,
    /// The OAuth resource server every request goes through, if any.
    #[cfg(feature = "oauth")]
    pub(crate) resource_server: Option<crate::mcp::auth::ResourceServer>,
    /// Where sessions are kept for other replicas to take over, if anywhere.
    pub(crate) session_store: Option<Arc<dyn SessionStore>>,
    /// Where the events of session streams are kept for a client to resume
    /// (`Last-Event-ID`) on any replica, if anywhere.
    pub(crate) event_store: Option<Arc<dyn EventStore>>,
    /// The sessions shared with other replicas (Redis), if they are.
    pub(crate) shared_sessions: Option<outage::Shared>,
    /// Whether a task store of the host's is plugged in: one that may be
    /// down, whose refusals ([`STORE_UNAVAILABLE`](crate::mcp::STORE_UNAVAILABLE))
    /// go out as `503`. The built-in store, in memory, never is.
    pub(crate) hosts_task_store: bool,
}

impl HttpSettings {
    /// Whether a reply may refuse its request for want of a shared store:
    /// sessions are shared, or a task store of the host's is plugged in.
    pub(crate) fn may_refuse_for_a_store(&self) -> bool {
        self.shared_sessions.is_some() || self.hosts_task_store
    }
}

impl HttpSettings {
    /// Whether an address beyond loopback may be served: callers are
    /// authenticated, or the network was declared trusted.
    pub(crate) fn may_serve_remote(&self) -> bool {
        #[cfg(feature = "oauth")]
        if self.resource_server.is_some() {
            return true;
        }
        self.options.trusted_network
    }
}

/// The path [`McpServer::serve_http`](crate::mcp::McpServer::serve_http) serves MCP on.
pub(crate) const HTTP_PATH: &str = "/mcp";

/// How long shutting down waits for open connections to finish: 5 seconds.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(5);

/// Serves `router` on `listener` until `stop`: HTTP/1 only, each connection
/// closed when a request's headers take longer than `timeouts.header_read`
/// once they start, or no request comes within `timeouts.keep_alive`.
pub(crate) async fn serve(
    listener: TcpListener,
    router: axum::Router,
    timeouts: Timeouts,
    stop: CancellationToken,
) -> std::io::Result<()> {
    let mut connections = JoinSet::new();
    loop {
        tokio::select! {
            () = stop.cancelled() => break,
            accepted = listener.accept() => {
                let (stream, peer) = match accepted {
                    Ok((stream, peer)) => {
                        // A reply is several small writes; with Nagle's
                        // algorithm the last waits for the client's delayed
                        // ACK, about 40 ms on Linux.
                        if let Err(error) = stream.set_nodelay(true) {
                            tracing::warn!(target: LOG_TARGET, "setting TCP_NODELAY on an MCP connection failed: {error}");
                        }
                        (stream, peer)
                    }
                    // Out of file descriptors, say: wait a little, not spin.
                    Err(error) => {
                        tracing::warn!(target: LOG_TARGET, "accepting an MCP connection failed: {error}");
                        tokio::time::sleep(Duration::from_millis(50)).await;
                        continue;
                    }
                };
                connections.spawn(connection(stream, peer, router.clone(), timeouts, stop.clone()));
            }
            Some(_) = connections.join_next(), if !connections.is_empty() => {}
        }
    }
    let drained = async { while connections.join_next().await.is_some() {} };
    if tokio::time::timeout(SHUTDOWN_GRACE, drained).await.is_err() {
        connections.abort_all();
    }
    Ok(())
}

async fn connection(
    stream: tokio::net::TcpStream,
    peer: SocketAddr,
    router: axum::Router,
    timeouts: Timeouts,
    stop: CancellationToken,
) {
    let activity = Activity::new();
    let mut builder = hyper::server::conn::http1::Builder::new();
    // hyper's own header timer also runs while a kept-alive connection
    // waits; the socket, `Watched`, times the two apart.
    builder.timer(TokioTimer::new()).header_read_timeout(None);
    let answering = Arc::clone(&activity);
    let service = hyper::service::service_fn(
        move |mut request: axum::http::Request<hyper::body::Incoming>| {
            let answering = answering.begin();
            request.extensions_mut().insert(ConnectInfo(peer));
            let response = router.clone().oneshot(request.map(Body::new));
            async move {
                let Ok(response) = response.await;
                Ok::<_, Infallible>(connection::answering(response, answering))
            }
        },
    );
    let io = TokioIo::new(Watched::new(stream, activity, timeouts));
    let connection = builder.serve_connection(io, service);
    tokio::pin!(connection);
    let served = tokio::select! {
        served = connection.as_mut() => served,
        () = stop.cancelled() => {
            connection.as_mut().graceful_shutdown();
            connection.await
        }
    };
    if let Err(error) = served {
        connection_failed(peer, &error);
    }
}

/// Says why a connection ended in error, when a host should know: a
/// request refused before it reached the router (its headers too large, so
/// a huge bearer token among them, or not HTTP at all) leaves no other
/// trace.
fn connection_failed(peer: SocketAddr, error: &hyper::Error) {
    let late = std::error::Error::source(error)
        .and_then(|source| source.downcast_ref::<std::io::Error>())
        .and_then(|io| io.get_ref())
        .is_some_and(|inner| inner.is::<HeadersLate>());
    if late {
        tracing::debug!(target: LOG_TARGET, %peer, "closed an MCP connection: a request's headers did not arrive within the header read timeout");
    } else if error.is_parse_too_large() {
        tracing::warn!(target: LOG_TARGET,
            %peer,
            "refused an MCP request: its headers are larger than the server reads (answered 431); a bearer token that large is no token"
        );
    } else if error.is_parse() {
        tracing::warn!(target: LOG_TARGET, %peer, "refused an MCP request: it is not valid HTTP/1 ({error})");
    } else {
        tracing::debug!(target: LOG_TARGET, %peer, "an MCP connection ended: {error}");
    }
}

/// A running streamable-HTTP MCP server; dropping it shuts the server down.
///
/// Hold it for as long as the server should serve: `.wait().await` serves
/// until the server stops (a `main` that only serves ends with it), and
/// [`shutdown`](Self::shutdown) stops it gracefully. Dropping it stops the
/// server at once, so that a server started by a test, or beside other
/// work, never outlives the code that started it.
///
/// ```no_run
/// # async fn serve(server: dsh_kit::mcp::McpServer) -> Result<(), Box<dyn std::error::Error>> {
/// let server = server.serve_http("127.0.0.1:8931".parse()?).await?;
/// println!("serving {}", server.url());
/// server.wait().await?;
/// # Ok(())
/// # }
/// ```
#[must_use = "the server stops when this handle is dropped: call `.wait().await` on it to serve until it stops, or keep it in a variable for as long as it should serve"]
pub struct McpHttpServer {
    pub(crate) background: Background,
    /// The open sessions; `None` when serving with no sessions.
    pub(crate) sessions: Option<Arc<Sessions>>,
}

impl McpHttpServer {
    /// How many MCP sessions are open now (those being opened included);
    /// always 0 for a [stateless](crate::mcp::McpServer::stateless) server.
    pub fn open_sessions(&self) -> usize {
        self.sessions.as_deref().map_or(0, Sessions::open)
    }

    /// The URL an MCP client connects to: `http://127.0.0.1:PORT/mcp`.
    pub fn url(&self) -> String {
        format!("http://{}{HTTP_PATH}", self.local_addr())
    }

    /// The address the server listens on.
    pub fn local_addr(&self) -> SocketAddr {
        self.background.local_addr()
    }

    /// Runs until the server fails (or is shut down from elsewhere).
    pub async fn wait(self) -> Result<(), ServeError> {
        Ok(self.background.wait().await?)
    }

    /// Stops accepting connections, ends every session, and waits for the
    /// server to finish.
    pub async fn shutdown(self) -> Result<(), ServeError> {
        Ok(self.background.shutdown(None).await?)
    }
}

impl fmt::Debug for McpHttpServer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("McpHttpServer")
            .field("url", &self.url())
            .finish_non_exhaustive()
    }
}

/// Why an [`McpServer`](crate::mcp::McpServer) could not serve.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ServeError {
    /// [`McpServer::serve_http`](crate::mcp::McpServer::serve_http) was given an address that is not
    /// loopback, and the server authenticates nobody.
    #[error(
        "cannot serve MCP over HTTP on {addr}: it is not a loopback address (127.0.0.1, [::1]), and the server has no resource server to authenticate callers; give it one (`McpServer::resource_server`), or, on a network whose every host you trust, say so (`HttpOptions::trusted_network_without_auth`)"
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

impl From<BindError> for ServeError {
    fn from(error: BindError) -> Self {
        match error {
            BindError::NotLoopback { addr } => ServeError::NotLoopback { addr },
            BindError::Io { addr, source } => ServeError::Bind { addr, source },
        }
    }
}

impl From<Stopped> for ServeError {
    fn from(error: Stopped) -> Self {
        ServeError::Stopped(error.to_string())
    }
}
