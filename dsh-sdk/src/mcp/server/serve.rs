//! Serving a server: one client over stdio, or many over streamable HTTP,
//! with the limits that bound hostile clients.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use rmcp::ServiceExt;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::session::{EventStore, SessionStore};
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use tokio_util::sync::CancellationToken;

#[cfg(feature = "oauth")]
use crate::mcp::auth::layer::{self, Protection};
#[cfg(feature = "oauth")]
use crate::mcp::auth::{METADATA_PATH, ResourceServer};
use axum::middleware::from_fn_with_state;
use tower::ServiceBuilder;
#[cfg(not(feature = "oauth"))]
use tower::layer::util::Identity;

use crate::mcp::server::http::admission::Sessions;
use crate::mcp::server::http::body::{self, BodyLimits};
#[cfg(feature = "oauth")]
use crate::mcp::server::http::drain;
use crate::mcp::server::http::gate::{self, Gate};
use crate::mcp::server::http::reply;
use crate::mcp::server::http::{
    self, HTTP_PATH, HttpOptions, HttpSettings, McpHttpServer, ServeError,
};
use crate::served::{self, Background};

use super::McpServer;

impl McpServer {
    /// The HTTP settings, to change: shared by every handler cloned
    /// from this one until then.
    fn http_mut(&mut self) -> &mut HttpSettings {
        Arc::make_mut(&mut self.http)
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

    /// The limits, timeouts and allow-lists of
    /// [`serve_http`](Self::serve_http) and [`router`](Self::router): see
    /// [`HttpOptions`], whose [`Default`] is the defaults. Replaces the
    /// options given before.
    ///
    /// ```
    /// use dsh_kit::mcp::{HttpOptions, McpServer};
    ///
    /// # fn configure(registry: dsh_kit::Registry) -> McpServer {
    /// McpServer::new(registry).http(
    ///     HttpOptions::default()
    ///         .max_sessions(256)
    ///         .allowed_hosts(["mcp.example.com"]),
    /// )
    /// # }
    /// ```
    pub fn http(mut self, options: HttpOptions) -> Self {
        self.http_mut().options = options;
        self
    }

    /// Protects the HTTP endpoint as an OAuth 2.1 resource server: every
    /// request needs a bearer token the [`ResourceServer`]'s authenticator
    /// takes, and the principal it names reaches each call
    /// ([`Exec::principal`](crate::Exec::principal)). See [`crate::mcp::auth`].
    /// A protected server may be served on any address; name the hosts
    /// clients reach it by in [`HttpOptions::allowed_hosts`].
    ///
    /// Needs the `oauth` cargo feature.
    #[cfg(feature = "oauth")]
    pub fn resource_server(mut self, server: ResourceServer) -> Self {
        self.http_mut().resource_server = Some(server);
        self
    }

    /// Keeps each HTTP session's `initialize` in `store` (rmcp's
    /// [`SessionStore`]), so that a request on a session this process does
    /// not hold (another replica opened it, behind a load balancer that is
    /// not sticky) restores it here rather than getting `404`. See
    /// `mcp::redis::RedisSessionStore` (the `redis` feature).
    pub fn session_store(mut self, store: Arc<dyn SessionStore>) -> Self {
        self.http_mut().session_store = Some(store);
        self
    }

    /// Keeps the events of HTTP session streams in `store` (rmcp's
    /// [`EventStore`]), so that a client that lost its stream resumes it
    /// with `Last-Event-ID` on any replica. See
    /// `mcp::redis::RedisEventStore` (the `redis` feature).
    pub fn event_store(mut self, store: Arc<dyn EventStore>) -> Self {
        self.http_mut().event_store = Some(store);
        self
    }

    /// The HTTP side as an axum [`Router`](axum::Router), to put in your own
    /// app beside your routes and middleware: MCP at `path`, with every limit
    /// [`serve_http`](Self::serve_http) keeps (the body size and read
    /// timeout, the session cap, `Host` and `Origin`) and, with a
    /// [`resource_server`](Self::resource_server), its authentication and
    /// its metadata at `/.well-known/oauth-protected-resource` plus the
    /// resource URI's path. [`merge`](axum::Router::merge) it into your
    /// router (nesting it would move the well-known route).
    ///
    /// Header read timeouts belong to the connection, not the router: set
    /// them where you serve the app. Serve it with the peer's address
    /// (`into_make_service_with_connect_info::<SocketAddr>()`), so that
    /// unauthenticated clients get a session share each rather than one
    /// between them all.
    ///
    /// ```no_run
    /// # async fn run(registry: dsh_kit::Registry) -> std::io::Result<()> {
    /// use dsh_kit::mcp::McpServer;
    ///
    /// let app = axum::Router::new()
    ///     .route("/health", axum::routing::get(|| async { "ok" }))
    ///     .merge(McpServer::new(registry).router("/tools/mcp"));
    /// let listener = tokio::net::TcpListener::bind("127.0.0.1:8080").await?;
    /// let app = app.into_make_service_with_connect_info::<std::net::SocketAddr>();
    /// axum::serve(listener, app).await
    /// # }
    /// ```
    pub fn router(self, path: &str) -> axum::Router {
        let (router, sessions) = self.build_router(path, CancellationToken::new());
        // Sessions never used are closed by a sweep, which ends once the
        // router is gone; outside a runtime, only eviction bounds them.
        if let (Some(sessions), Ok(runtime)) = (sessions, tokio::runtime::Handle::try_current()) {
            runtime.spawn(sessions.sweep(CancellationToken::new()));
        }
        router
    }

    /// The router, and the session table its session layer keeps (none when
    /// stateless).
    fn build_router(
        self,
        path: &str,
        stop: CancellationToken,
    ) -> (axum::Router, Option<Arc<Sessions>>) {
        self.forward_tool_changes();
        let settings = HttpSettings::clone(&self.http);
        // JSON replies wherever rmcp can give them (no sessions, or the
        // 2026-07-28 protocol): a request whose first message back is its
        // result gets it as `application/json`; a stream only when the
        // handler sends something before it.
        let mut config = StreamableHttpServerConfig::default()
            .with_json_response(true)
            .with_legacy_session_mode(!self.stateless)
            .with_cancellation_token(stop.clone())
            .with_allowed_hosts(settings.options.hosts())
            .with_allowed_origins(settings.options.origins())
            // The body layer in front already took the body within the
            // limit: the one place it is enforced.
            .with_max_request_body_bytes(usize::MAX);
        config.session_store = settings.session_store.clone();
        let mut manager = LocalSessionManager::default();
        if let Some(events) = &settings.event_store {
            manager = manager.with_event_store(Arc::clone(events));
        }
        manager.session_config.keep_alive = Some(settings.options.session_idle_timeout);
        let manager = Arc::new(manager);
        let sessions = (!self.stateless).then(|| {
            Arc::new(Sessions::new(
                settings.options.limits(),
                Arc::clone(&manager),
            ))
        });
        if let (Some(sessions), Some(shared), Ok(runtime)) = (
            &sessions,
            &settings.shared_sessions,
            tokio::runtime::Handle::try_current(),
        ) {
            runtime.spawn(end_sessions_ended_elsewhere(
                Arc::downgrade(sessions),
                Arc::clone(shared),
                stop.clone(),
            ));
        }
        #[cfg(feature = "oauth")]
        let protection = settings.resource_server.clone().map(|server| {
            Arc::new(Protection::new(
                server,
                self.registry.clone(),
                Arc::clone(&manager),
            ))
        });
        // Whatever answers before the body is read (authentication, the
        // metadata route), the rest of the body is read or the connection
        // is closed with `Connection: close`. Elsewhere the body layer
        // reads every body whole first.
        #[cfg(feature = "oauth")]
        let drain = from_fn_with_state(settings.options.max_body_bytes, drain::whole_request);
        #[cfg(feature = "oauth")]
        let (authenticate, scopes, metadata) = (
            (protection.clone()).map(|p| {
                ServiceBuilder::new()
                    .layer(drain.clone())
                    .layer(from_fn_with_state(p, layer::authenticate))
                    .into_inner()
            }),
            (protection.clone()).map(|p| from_fn_with_state(p, layer::scopes)),
            protection,
        );
        #[cfg(not(feature = "oauth"))]
        let (authenticate, scopes) = (None::<Identity>, None::<Identity>);
        let service = shared(StreamableHttpService::new(
            move || Ok(self.clone()),
            manager,
            config,
        ));
        let limits = BodyLimits {
            max_bytes: settings.options.max_body_bytes,
            read_timeout: settings.options.body_read_timeout,
        };
        let gate = sessions.clone().map(|sessions| {
            let gate = Gate {
                sessions,
                shared: settings.shared_sessions.clone(),
            };
            from_fn_with_state(Arc::new(gate), gate::sessions)
        });
        // The reply is shaped where it may be a stream of one message (a
        // session's), or a refusal for want of a store.
        let shape = (sessions.is_some() || settings.may_refuse_for_a_store())
            .then(|| from_fn_with_state(settings.shared_sessions.clone(), reply::shape));
        // The layers in front of rmcp on the MCP route (and the router's
        // fallback), outermost first, one concern each.
        let layers = ServiceBuilder::new()
            // Who calls, with a resource server (the rest of a body it
            // refused read, as above).
            .option_layer(authenticate)
            // The body, read whole within its size limit and read timeout.
            .layer(body::ReadWholeLayer(limits))
            // The reply: JSON when one message, `503` for want of the store.
            .option_layer(shape)
            // Sessions: admitted by the session rules, kept while in use.
            .option_layer(gate)
            // The scopes of the tool called, with a resource server.
            .option_layer(scopes);
        let router = axum::Router::new()
            .route_service(path, service)
            .layer(layers);
        #[cfg(feature = "oauth")]
        let router = match metadata {
            Some(protection) => with_metadata(router, protection, drain),
            None => router,
        };
        (router, sessions)
    }

    /// Serves streamable HTTP on `addr` (`127.0.0.1:0` picks a free port), at
    /// the path `/mcp`; see [`McpHttpServer::url`].
    ///
    /// Returns once the socket is bound; the server runs in the background
    /// until the returned handle is shut down or dropped. A loopback address
    /// is always served; any other only by a server that authenticates its
    /// callers ([`resource_server`](Self::resource_server)) or was told its
    /// network is trusted
    /// ([`HttpOptions::trusted_network_without_auth`]).
    /// Only `Host` headers naming a loopback address or one of the
    /// [`HttpOptions::allowed_hosts`] are served (rmcp's defence against
    /// DNS rebinding).
    ///
    /// Hostile clients are bounded by the [`HttpOptions`] given with
    /// [`http`](Self::http): a request whose `Origin` is neither a loopback
    /// page nor one of the allowed origins gets `403` (a request with no
    /// `Origin`, not from a browser, is served); headers must arrive within
    /// the header read timeout and a body within the body read timeout, or
    /// the connection is closed; bodies are capped in size, open sessions
    /// in number (for the server, and for each client), an idle session
    /// closes after the session idle timeout, and one never used after the
    /// unused session timeout.
    ///
    /// A request whose reply needs no stream (the result is the first and
    /// only message back) is answered `application/json`; one whose tool
    /// sends progress, log messages or requests first gets
    /// `text/event-stream`.
    ///
    /// This is [`router`](Self::router) on a socket of its own.
    pub async fn serve_http(self, addr: SocketAddr) -> Result<McpHttpServer, ServeError> {
        let remote = self.http.may_serve_remote();
        let (listener, local_addr) = served::bind(addr, remote).await?;
        let stop = CancellationToken::new();
        let timeouts = http::Timeouts {
            header_read: self.http.options.header_read_timeout,
            keep_alive: self.http.options.keep_alive_timeout,
        };
        let (router, sessions) = self.build_router(HTTP_PATH, stop.child_token());
        let serve = http::serve(listener, router, timeouts, stop.clone());
        let sweep = sessions
            .clone()
            .map(|sessions| sessions.sweep(stop.clone()));
        let serve = async move {
            match sweep {
                Some(sweep) => tokio::join!(serve, sweep).0,
                None => serve.await,
            }
        };
        Ok(McpHttpServer {
            background: Background::spawn(local_addr, stop, serve),
            sessions,
        })
    }
}

/// Until `stop` or the sessions are gone: ends here each session ended on
/// another replica, and, when what was ended meanwhile may have been
/// missed, every session held here that the shared store no longer holds.
async fn end_sessions_ended_elsewhere(
    sessions: std::sync::Weak<Sessions>,
    shared: crate::mcp::stores::outage::Shared,
    stop: CancellationToken,
) {
    use crate::mcp::stores::outage::Ended;
    use tokio::sync::broadcast::error::RecvError;
    let mut endings = shared.endings();
    // Checked now and then, so that a router dropped ends this too.
    let mut ticks = tokio::time::interval(Duration::from_secs(30));
    loop {
        let ended = tokio::select! {
            () = stop.cancelled() => return,
            _ = ticks.tick() => {
                if sessions.strong_count() == 0 {
                    return;
                }
                continue;
            }
            ended = endings.recv() => ended,
        };
        let Some(held) = sessions.upgrade() else {
            return;
        };
        match ended {
            Ok(Ended::Session(id)) => held.end(&id).await,
            Ok(Ended::Resync) | Err(RecvError::Lagged(_)) => {
                let ids = held.ids();
                if ids.is_empty() {
                    continue;
                }
                match shared.alive(&ids).await {
                    Ok(alive) => {
                        for (id, alive) in ids.iter().zip(alive) {
                            if !alive {
                                held.end(id).await;
                            }
                        }
                    }
                    Err(_) => tracing::debug!(
                        "checking the sessions held here against the shared store failed; the next reconnection checks again"
                    ),
                }
            }
            Err(RecvError::Closed) => return,
        }
    }
}

/// rmcp's service behind one `Arc`. As a tower service it is cloned on
/// every request, its configuration with it (the allowed hosts and origins,
/// a string each), twice (by the router, then by its own `call`); its
/// `handle` needs only a reference.
fn shared<S, M>(
    service: StreamableHttpService<S, M>,
) -> impl tower::Service<
    axum::extract::Request,
    Response = axum::response::Response,
    Error = std::convert::Infallible,
    Future = impl Future<Output = Result<axum::response::Response, std::convert::Infallible>> + Send,
> + Clone
+ Send
+ Sync
+ 'static
where
    S: rmcp::ServerHandler + Send + 'static,
    M: rmcp::transport::streamable_http_server::SessionManager,
{
    let service = Arc::new(service);
    tower::service_fn(move |request: axum::extract::Request| {
        let service = Arc::clone(&service);
        async move {
            let response = service.handle(request).await;
            Ok(response.map(axum::body::Body::new))
        }
    })
}

/// The protected resource metadata of `protection` beside the MCP route:
/// served to anyone, as the authentication layers wrap the MCP route alone.
#[cfg(feature = "oauth")]
fn with_metadata<D>(mcp: axum::Router, protection: Arc<Protection>, drain: D) -> axum::Router
where
    D: tower::Layer<axum::routing::Route> + Clone + Send + Sync + 'static,
    D::Service: tower::Service<axum::extract::Request, Error = std::convert::Infallible>
        + Clone
        + Send
        + Sync
        + 'static,
    <D::Service as tower::Service<axum::extract::Request>>::Response:
        axum::response::IntoResponse + 'static,
    <D::Service as tower::Service<axum::extract::Request>>::Future: Send + 'static,
{
    let route = protection.server().metadata_route();
    let root_route = (route != METADATA_PATH).then_some(METADATA_PATH);
    let answer = move || {
        let metadata = Arc::clone(&protection);
        async move { metadata.metadata() }
    };
    let get = |answer| axum::routing::get(answer).layer(drain.clone());
    let mut router = mcp.route(&route, get(answer.clone()));
    // Clients that try the root form first (`/.well-known/oauth-protected-resource`).
    if let Some(root) = root_route {
        router = router.route(root, get(answer));
    }
    router
}
