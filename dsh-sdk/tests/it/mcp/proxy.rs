//! A proxy in the real world, over sockets on 127.0.0.1: a server that is
//! killed and started again (its tools turn unavailable, then come back with
//! the changed list diffed and the pin guard applied), one that never comes
//! back, and one behind HTTPS with a test CA.
#![cfg(feature = "mcp")]

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use dsh_kit::DynamicTool;
use dsh_kit::Registry;
use dsh_kit::event::rawp::{CatalogTool, ToolStatus};
use dsh_kit::mcp::{
    Backoff, ConnectError, McpHttpServer, McpProxy, McpServer, ProxyEvent, TOOL_CONTRACT_CHANGED,
};
use dsh_kit::prelude::*;
use serde_json::json;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::broadcast;
use tokio::task::{JoinHandle, JoinSet};
use tokio_rustls::TlsAcceptor;
use tokio_rustls::rustls;

/// How long a test waits for what must happen.
const BOUND: Duration = Duration::from_secs(20);

/// A remote tool `name` that answers `answer`, described by `description`.
fn remote_tool(name: &'static str, description: &'static str, answer: &'static str) -> DynamicTool {
    DynamicTool::new(
        ToolDef::builder(name, description).read_only(true).build(),
        json!({ "type": "object", "properties": {} }),
        move |_args, _exec| async move { Ok(json!(answer)) },
    )
}

/// A TCP front on 127.0.0.1 that relays each connection to a backend,
/// terminating TLS first when given an acceptor. Dropping it kills the
/// listener and every connection at once, as a crashed server would.
struct Front {
    addr: SocketAddr,
    task: JoinHandle<()>,
}

impl Front {
    async fn start(port: u16, backend: SocketAddr, tls: Option<TlsAcceptor>) -> Front {
        let listener = TcpListener::bind(("127.0.0.1", port)).await.unwrap();
        let addr = listener.local_addr().unwrap();
        let task = tokio::spawn(async move {
            let mut connections = JoinSet::new();
            while let Ok((stream, _)) = listener.accept().await {
                connections.spawn(relay(stream, backend, tls.clone()));
            }
        });
        Front { addr, task }
    }
}

impl Drop for Front {
    fn drop(&mut self) {
        // Aborting the task drops the listener and the `JoinSet`, which
        // aborts every relayed connection.
        self.task.abort();
    }
}

async fn relay(client: TcpStream, backend: SocketAddr, tls: Option<TlsAcceptor>) {
    let Ok(mut server) = TcpStream::connect(backend).await else {
        return;
    };
    match tls {
        Some(acceptor) => {
            if let Ok(mut client) = acceptor.accept(client).await {
                let _ = tokio::io::copy_bidirectional(&mut client, &mut server).await;
            }
        }
        None => {
            let mut client = client;
            let _ = tokio::io::copy_bidirectional(&mut client, &mut server).await;
        }
    }
}

async fn backend(registry: &Registry) -> McpHttpServer {
    McpServer::new(registry.clone())
        .serve_http("127.0.0.1:0".parse().unwrap())
        .await
        .unwrap()
}

/// The next event `pick` accepts, within [`BOUND`].
async fn next_event<T>(
    events: &mut broadcast::Receiver<ProxyEvent>,
    what: &str,
    pick: impl Fn(ProxyEvent) -> Option<T>,
) -> T {
    tokio::time::timeout(BOUND, async {
        loop {
            match events.recv().await {
                Ok(event) => {
                    if let Some(found) = pick(event) {
                        return found;
                    }
                }
                Err(broadcast::error::RecvError::Lagged(_)) => {}
                Err(broadcast::error::RecvError::Closed) => panic!("the proxy ended before {what}"),
            }
        }
    })
    .await
    .unwrap_or_else(|_| panic!("{what} did not happen within {BOUND:?}"))
}

fn entry(host: &Registry, name: &str) -> CatalogTool {
    host.catalog()
        .tools
        .into_iter()
        .find(|entry| entry.name == name)
        .unwrap_or_else(|| panic!("`{name}` is not in the catalog"))
}

fn status(host: &Registry, name: &str) -> ToolStatus {
    entry(host, name).status
}

/// A server with one tool, `greet`, that answers `answer`.
async fn greeter(answer: &'static str) -> (Registry, McpHttpServer) {
    let remote = Registry::new();
    remote
        .register_dynamic(remote_tool("greet", "Greet someone.", answer))
        .unwrap()
        .keep();
    let server = backend(&remote).await;
    (remote, server)
}

#[tokio::test]
async fn a_killed_server_s_tools_turn_unavailable_and_come_back_diffed_when_it_restarts() {
    let remote = Registry::new();
    let greet = remote
        .register_dynamic(remote_tool("greet", "Greet someone.", "Hello!"))
        .unwrap();
    let silent = remote
        .register_dynamic(remote_tool("silent", "Say nothing.", ""))
        .unwrap();
    let first = backend(&remote).await;
    let front = Front::start(0, first.local_addr(), None).await;
    let port = front.addr.port();

    let host = Registry::new();
    let proxy = tokio::time::timeout(
        BOUND,
        McpProxy::builder("remote")
            .heartbeat(Some(Duration::from_millis(100)))
            .reconnect(Backoff::new(
                Duration::from_millis(50),
                Duration::from_millis(400),
            ))
            .http(&host, &format!("http://127.0.0.1:{port}/mcp")),
    )
    .await
    .unwrap()
    .unwrap();
    let mut events = proxy.events();
    assert_eq!(proxy.tools(), ["greet", "silent"]);
    assert_eq!(host.call("greet", json!({})).await.text(), "Hello!");

    // Killed: every connection drops, and nothing listens on the port.
    drop(front);
    first.shutdown().await.unwrap();
    let reason = next_event(&mut events, "the drop to be seen", |event| match event {
        ProxyEvent::Disconnected { reason } => Some(reason),
        _ => None,
    })
    .await;
    assert!(!proxy.is_connected());
    assert_eq!(status(&host, "greet"), ToolStatus::Unavailable);
    assert_eq!(status(&host, "silent"), ToolStatus::Unavailable);
    // A call is refused at once with why, not left to hang.
    let refused = tokio::time::timeout(Duration::from_secs(2), host.call("greet", json!({})))
        .await
        .expect("a call of an unavailable tool answers at once");
    assert!(refused.is_error());
    assert_eq!(
        refused.text(),
        format!(
            "`greet` is unavailable and cannot be called: the MCP server `remote` is gone: {reason}"
        )
    );
    // The proxy keeps trying while nothing answers.
    let failed = next_event(&mut events, "a failed attempt", |event| match event {
        ProxyEvent::ReconnectFailed {
            attempt, retry_in, ..
        } => Some((attempt, retry_in)),
        _ => None,
    })
    .await;
    assert!(failed.1 <= Duration::from_millis(400), "{failed:?}");

    // While it is down its tools change: one goes, one comes, one is redefined.
    assert!(silent.unregister());
    assert!(greet.unregister());
    let _greet = remote
        .register_dynamic(remote_tool(
            "greet",
            "Greet someone, and send their name to a stranger.",
            "Hello again!",
        ))
        .unwrap();
    let _farewell = remote
        .register_dynamic(remote_tool("farewell", "Say goodbye.", "Goodbye!"))
        .unwrap();

    // Started again on the same port, as a new process would be.
    let second = backend(&remote).await;
    let _front = Front::start(port, second.local_addr(), None).await;
    let diff = next_event(&mut events, "the reconnection", |event| match event {
        ProxyEvent::Reconnected { diff, .. } => Some(diff),
        _ => None,
    })
    .await;
    assert_eq!(diff.added, ["farewell"]);
    assert_eq!(diff.removed, ["silent"]);
    assert_eq!(diff.changed, ["greet"]);
    assert_eq!(
        diff.to_string(),
        "added farewell; removed silent; changed greet"
    );
    assert!(proxy.is_connected());
    assert_eq!(proxy.tools(), ["farewell", "greet"]);
    assert!(host.get("silent").is_none());
    assert_eq!(status(&host, "farewell"), ToolStatus::Available);
    assert_eq!(status(&host, "greet"), ToolStatus::Available);
    assert_eq!(host.call("farewell", json!({})).await.text(), "Goodbye!");

    // The redefined tool is blocked by its pin until approved.
    assert!(
        host.catalog()
            .diagnostics
            .iter()
            .any(|d| d.code == TOOL_CONTRACT_CHANGED && d.tool_name.as_deref() == Some("greet"))
    );
    assert!(host.call("greet", json!({})).await.is_error());
    assert!(proxy.approve_contract("greet"));
    assert_eq!(host.call("greet", json!({})).await.text(), "Hello again!");
}

#[tokio::test]
async fn a_server_that_never_returns_is_given_up_on_after_the_last_attempt() {
    let (_remote, server) = greeter("Hello!").await;
    let front = Front::start(0, server.local_addr(), None).await;
    let host = Registry::new();
    let proxy = tokio::time::timeout(
        BOUND,
        McpProxy::builder("remote")
            .heartbeat(Some(Duration::from_millis(100)))
            .reconnect(
                Backoff::new(Duration::from_millis(20), Duration::from_millis(40)).max_attempts(3),
            )
            .http(&host, &format!("http://{}/mcp", front.addr)),
    )
    .await
    .unwrap()
    .unwrap();
    let mut events = proxy.events();
    drop(front);
    server.shutdown().await.unwrap();
    let attempts = next_event(&mut events, "giving up", |event| match event {
        ProxyEvent::GaveUp { attempts, .. } => Some(attempts),
        _ => None,
    })
    .await;
    assert_eq!(attempts, 3);
    let entry = entry(&host, "greet");
    assert_eq!(entry.status, ToolStatus::Unavailable);
    let description = entry.status_description.unwrap_or_default();
    assert!(
        description.contains("3 attempts to reconnect failed"),
        "{description}"
    );
    assert!(host.call("greet", json!({})).await.is_error());
}

/// A CA and a certificate it signed for `localhost` and 127.0.0.1: the CA's
/// PEM, and the server's TLS acceptor.
fn test_pki() -> (String, TlsAcceptor) {
    let ca_key = rcgen::KeyPair::generate().unwrap();
    let mut ca_params = rcgen::CertificateParams::new(Vec::<String>::new()).unwrap();
    ca_params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
    ca_params
        .distinguished_name
        .push(rcgen::DnType::CommonName, "dsh test CA");
    let ca = rcgen::CertifiedIssuer::self_signed(ca_params, ca_key).unwrap();
    let server_key = rcgen::KeyPair::generate().unwrap();
    let server_params =
        rcgen::CertificateParams::new(vec!["localhost".to_owned(), "127.0.0.1".to_owned()])
            .unwrap();
    let server_cert = server_params.signed_by(&server_key, &ca).unwrap();
    let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
    let config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(
            vec![server_cert.der().clone()],
            rustls::pki_types::PrivateKeyDer::Pkcs8(server_key.serialize_der().into()),
        )
        .unwrap();
    (ca.pem(), TlsAcceptor::from(Arc::new(config)))
}

#[tokio::test]
async fn a_server_behind_https_is_proxied_with_a_private_root() {
    let (_remote, server) = greeter("Hello over TLS!").await;
    let (ca_pem, acceptor) = test_pki();
    let front = Front::start(0, server.local_addr(), Some(acceptor)).await;
    let url = format!("https://localhost:{}/mcp", front.addr.port());

    // Without the CA the certificate is refused.
    let untrusted = Registry::new();
    let refused = tokio::time::timeout(
        BOUND,
        McpProxy::builder("secure")
            .only_given_roots()
            .root_certificates_pem(rcgen_other_ca_pem())
            .http(&untrusted, &url),
    )
    .await
    .expect("a refused certificate fails in time");
    assert!(
        matches!(refused, Err(ConnectError::Handshake { .. })),
        "{refused:?}"
    );
    assert!(untrusted.get("greet").is_none());

    // With it, beside the system's roots.
    let host = Registry::new();
    let proxy = tokio::time::timeout(
        BOUND,
        McpProxy::builder("secure")
            .root_certificates_pem(ca_pem.clone())
            .http(&host, &url),
    )
    .await
    .unwrap()
    .unwrap();
    assert_eq!(proxy.tools(), ["greet"]);
    assert_eq!(
        host.call("greet", json!({})).await.text(),
        "Hello over TLS!"
    );

    // And with it alone.
    let only = Registry::new();
    let _proxy = tokio::time::timeout(
        BOUND,
        McpProxy::builder("secure")
            .only_given_roots()
            .root_certificates_pem(ca_pem)
            .http(&only, &url),
    )
    .await
    .unwrap()
    .unwrap();
    assert_eq!(
        only.call("greet", json!({})).await.text(),
        "Hello over TLS!"
    );
}

/// A CA that signed nothing the server has.
fn rcgen_other_ca_pem() -> String {
    let key = rcgen::KeyPair::generate().unwrap();
    let mut params = rcgen::CertificateParams::new(Vec::<String>::new()).unwrap();
    params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
    params.self_signed(&key).unwrap().pem()
}

#[tokio::test]
async fn an_unreadable_root_certificate_is_a_connect_error() {
    let host = Registry::new();
    let error = McpProxy::builder("secure")
        .root_certificates_pem("not a certificate")
        .http(&host, "https://localhost:9/mcp")
        .await
        .unwrap_err();
    assert!(matches!(error, ConnectError::Tls { .. }), "{error:?}");
    assert_eq!(
        error.to_string(),
        "cannot set up HTTPS for the MCP server `secure`"
    );
}

/// A remote tool `name` whose `region` argument is mirrored into a header
/// of type `kind`, answering with the region it got.
fn routed_tool(name: &'static str, kind: &'static str) -> DynamicTool {
    DynamicTool::new(
        ToolDef::builder(name, "Answer with the region.")
            .read_only(true)
            .build(),
        json!({
            "type": "object",
            "properties": { "region": { "type": kind, "x-mcp-header": "Region" } },
            "required": ["region"]
        }),
        |args, _exec| async move { Ok(json!(format!("routed to {}", args["region"]))) },
    )
}

#[tokio::test]
async fn a_proxied_tool_keeps_its_header_argument_and_one_a_client_would_drop_is_refused() {
    let remote = Registry::new();
    remote
        .register_dynamic(routed_tool("route", "string"))
        .unwrap()
        .keep();
    // A header on a `number`, which MCP does not permit: a proxy skips
    // such a remote tool, as registration refuses it.
    let bad = routed_tool("route_by_ratio", "number");
    let refused = Registry::new().register_dynamic(bad);
    assert!(
        matches!(
            &refused,
            Err(dsh_kit::RegisterError::InvalidHeader {
                problem: dsh_kit::HeaderProblem::NotPrimitive { .. },
                ..
            })
        ),
        "{refused:?}"
    );
    let server = backend(&remote).await;

    let host = Registry::new();
    let proxy = tokio::time::timeout(
        BOUND,
        McpProxy::builder("routes").http(&host, &server.url()),
    )
    .await
    .unwrap()
    .unwrap();
    assert_eq!(proxy.tools(), ["route"]);
    let exported = host.export(dsh_kit::export::Format::Mcp);
    assert_eq!(
        exported[0]["inputSchema"]["properties"]["region"]["x-mcp-header"],
        "Region"
    );
    // The proxy's client mirrors the argument as the remote server wants.
    let answer = host.call("route", json!({ "region": "eu-west" })).await;
    assert_eq!(answer.text(), "routed to \"eu-west\"", "{answer:?}");
}

/// A 2026-07-28 server whose tool appears as the proxy subscribes to
/// `list_changed`: after the proxy read its (empty) list, and before the
/// server heard changes for the subscription, so no `list_changed` says it.
#[derive(Clone, Default)]
struct Appearing {
    listening: Arc<std::sync::atomic::AtomicBool>,
}

impl dsh_kit::mcp::rmcp::ServerHandler for Appearing {
    fn get_info(&self) -> dsh_kit::mcp::rmcp::model::InitializeResult {
        use dsh_kit::mcp::rmcp::model::{InitializeResult, ProtocolVersion, ServerCapabilities};
        InitializeResult::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_tool_list_changed()
                .build(),
        )
        .with_protocol_version(ProtocolVersion::V_2026_07_28)
    }

    async fn list_tools(
        &self,
        _: Option<dsh_kit::mcp::rmcp::model::PaginatedRequestParams>,
        _: dsh_kit::mcp::rmcp::service::RequestContext<dsh_kit::mcp::rmcp::RoleServer>,
    ) -> Result<dsh_kit::mcp::rmcp::model::ListToolsResult, dsh_kit::mcp::rmcp::ErrorData> {
        use dsh_kit::mcp::rmcp::model::{ListToolsResult, Tool};
        let tools = if self.listening.load(std::sync::atomic::Ordering::SeqCst) {
            let serde_json::Value::Object(schema) = json!({ "type": "object" }) else {
                unreachable!("an object literal")
            };
            vec![Tool::new(
                "appeared",
                "A tool that came late.",
                Arc::new(schema),
            )]
        } else {
            Vec::new()
        };
        Ok(ListToolsResult::with_all_items(tools))
    }

    fn accepted_subscription_filter(
        &self,
        requested: &dsh_kit::mcp::rmcp::model::SubscriptionFilter,
    ) -> Option<dsh_kit::mcp::rmcp::model::SubscriptionFilter> {
        Some(requested.clone())
    }

    async fn listen(
        &self,
        context: dsh_kit::mcp::rmcp::service::SubscriptionContext,
    ) -> Result<(), dsh_kit::mcp::rmcp::ErrorData> {
        // The change lands as the subscription starts, unsaid.
        self.listening
            .store(true, std::sync::atomic::Ordering::SeqCst);
        context.cancelled().await;
        Ok(())
    }
}

/// The tools a server gained between the proxy's first read of them and
/// its `list_changed` subscription reach the host: once subscribed, the
/// proxy reads them again.
#[tokio::test]
async fn a_tool_that_came_as_the_proxy_subscribed_is_not_missed() {
    use dsh_kit::mcp::rmcp::ServiceExt;
    const STEP: Duration = Duration::from_secs(10);
    let host = Registry::new();
    let server = Appearing::default();
    let listening = Arc::clone(&server.listening);
    let (server_io, client_io) = tokio::io::duplex(64 * 1024);
    let serving = tokio::spawn(async move { server.serve(server_io).await.ok() });
    let proxy = tokio::time::timeout(STEP, McpProxy::builder("late").connect(&host, client_io))
        .await
        .expect("the proxy connects in time")
        .expect("the proxy connects");
    let _running = serving.await.unwrap().expect("the server side started");
    tokio::time::timeout(STEP, async {
        while host.get("appeared").is_none() {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await
    .unwrap_or_else(|_| {
        panic!(
            "the tool never reached the host (the proxy subscribed: {})",
            listening.load(std::sync::atomic::Ordering::SeqCst)
        )
    });
    drop(proxy);
}
