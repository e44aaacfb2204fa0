//! A protected dsh server against a real authorization server: oidc-provider
//! (a certified OpenID Provider, from npm, pinned in `tests/oidc/`) on
//! 127.0.0.1, issuing JWT access tokens for the server's resource URI. The
//! official MCP Python SDK finds it from the server's `401` and gets a token
//! with the client credentials grant; a signing key the authorization server
//! rotates in is taken without a restart; a token without a tool's scope
//! gets `403`. Behind nginx with TLS, as README.md shows it, another dsh
//! process proxies the server with a token it gets itself.
//!
//! oidc-provider is installed with `npm ci` from the lock file under
//! `target/` on first use. Without Node.js and npm the tests say so loudly
//! and pass, unless `CI=true`, where they fail.
#![cfg(unix)]

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::num::NonZeroU32;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use dsh_kit::mcp::auth::{
    IntrospectionAuthenticator, JwtAuthenticator, PrincipalLimits, ResourceServer,
};
use dsh_kit::mcp::{HttpOptions, McpServer};
use dsh_kit::prelude::*;
use dsh_kit::{DynamicTool, Registry};
use serde_json::Value;

use crate::common::nginx::{Nginx, nginx};
use crate::common::{free_port, npm_ci, python, run};

/// The longest any one step may take.
const STEP: Duration = Duration::from_secs(60);

/// The directory oidc-provider is installed in, or `None` after saying
/// loudly why the tests do not run.
fn installed() -> Option<&'static Path> {
    static DIR: OnceLock<Option<PathBuf>> = OnceLock::new();
    DIR.get_or_init(install).as_deref()
}

fn install() -> Option<PathBuf> {
    npm_ci(
        "tests/oidc",
        "oidc-provider",
        &["server.mjs"],
        "the tests against a real authorization server",
    )
}

/// oidc-provider on a free loopback port, issuing tokens for `resource`;
/// killed when dropped.
struct AuthorizationServer {
    child: Child,
    issuer: String,
}

impl AuthorizationServer {
    fn start(dir: &Path, resource: &str) -> Self {
        Self::start_with(dir, &[resource])
    }

    /// Issuing JWTs for `resources[0]`, and opaque tokens for `resources[1]`.
    fn start_with(dir: &Path, resources: &[&str]) -> Self {
        let mut child = Command::new("node")
            .arg("server.mjs")
            .args(resources)
            .current_dir(dir)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("node starts");
        let stdout = child.stdout.take().unwrap();
        let (sender, receiver) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut lines = BufReader::new(stdout).lines();
            let first = lines.next().and_then(Result::ok).unwrap_or_default();
            let _ = sender.send(first);
            // Read on: a closed pipe would end the server at its next line.
            for _ in lines {}
        });
        let Ok(line) = receiver.recv_timeout(STEP) else {
            let _ = child.kill();
            panic!("oidc-provider printed no issuer in {STEP:?}");
        };
        let issuer = line.trim().to_owned();
        assert!(
            issuer.starts_with("http://127.0.0.1:"),
            "not an issuer: {issuer:?}"
        );
        AuthorizationServer { child, issuer }
    }

    /// A token for `resource` under the client credentials grant.
    async fn token(&self, client: &str, secret: &str, resource: &str, scope: &str) -> String {
        let answer: Value = reqwest::Client::new()
            .post(format!("{}/token", self.issuer))
            .basic_auth(client, Some(secret))
            .form(&[
                ("grant_type", "client_credentials"),
                ("resource", resource),
                ("scope", scope),
            ])
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        answer["access_token"]
            .as_str()
            .unwrap_or_else(|| panic!("no token: {answer}"))
            .to_owned()
    }

    /// Rotates the signing key, giving the new key's id.
    async fn rotate(&self) -> String {
        let answer: Value = reqwest::Client::new()
            .post(format!("{}/test/rotate", self.issuer))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        answer["kid"].as_str().unwrap().to_owned()
    }
}

impl Drop for AuthorizationServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `whoami` (the caller the server authenticated) and `write_note` (needs
/// `notes:write`; counts its runs in `writes`).
fn registry(writes: Arc<AtomicUsize>) -> Registry {
    let registry = Registry::new();
    let whoami = DynamicTool::new(
        ToolDef::builder_owned("whoami", "Say who is calling.")
            .read_only(true)
            .build(),
        json!({ "type": "object", "properties": {} }),
        |_args, exec| async move {
            let caller = exec.principal();
            Ok(
                json!({ "subject": caller.subject(), "scopes": caller.scopes().collect::<Vec<_>>() }),
            )
        },
    );
    let write_note = DynamicTool::new(
        ToolDef::builder_owned("write_note", "Write a note.")
            .with_scopes(["notes:write"])
            .build(),
        json!({ "type": "object", "properties": { "text": { "type": "string" } }, "required": ["text"] }),
        move |_args, _exec| {
            writes.fetch_add(1, Ordering::SeqCst);
            async { Ok(json!("written")) }
        },
    );
    registry.register_dynamic(whoami).unwrap().keep();
    registry.register_dynamic(write_note).unwrap().keep();
    registry
}

async fn post(url: &str, token: &str, body: Value) -> (u16, String, String) {
    let response = reqwest::Client::new()
        .post(url)
        .bearer_auth(token)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(body.to_string())
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    let challenge = response
        .headers()
        .get("www-authenticate")
        .map(|value| value.to_str().unwrap().to_owned())
        .unwrap_or_default();
    (status, challenge, response.text().await.unwrap_or_default())
}

fn initialize() -> Value {
    json!({ "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": { "name": "tests", "version": "0" } } })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_python_sdk_discovers_the_authorization_server_gets_a_token_and_calls_tools() {
    let Some(dir) = installed() else { return };
    let port = free_port();
    let resource = format!("http://127.0.0.1:{port}/mcp");
    let authorization = AuthorizationServer::start(dir, &resource);
    let writes = Arc::new(AtomicUsize::new(0));
    let server = McpServer::new(registry(Arc::clone(&writes)))
        // The client asks for what the metadata lists (MCP's scope
        // selection): `notes:write` from the tool, `notes:read` from here.
        .resource_server(
            ResourceServer::jwt(&resource, &authorization.issuer).scopes_supported(["notes:read"]),
        )
        .serve_http(SocketAddr::from(([127, 0, 0, 1], port)))
        .await
        .unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/oauth_client.py");
    let mut command = Command::new(python());
    command.arg(&script).args([
        resource.as_str(),
        authorization.issuer.as_str(),
        "agent",
        "agent-secret",
        "notes:read notes:write",
    ]);
    let ran = tokio::task::spawn_blocking(move || run(command, STEP))
        .await
        .unwrap();
    assert!(ran.success, "oauth_client.py failed:\n{}", ran.text);
    let seen: Value = serde_json::from_str(ran.text.lines().last().unwrap()).unwrap();
    assert_eq!(seen["caller"]["subject"], "agent", "{seen}");
    assert_eq!(
        seen["caller"]["scopes"],
        json!(["notes:read", "notes:write"]),
        "{seen}"
    );
    assert_eq!(writes.load(Ordering::SeqCst), 1);
    server.shutdown().await.unwrap();
}

/// Fifty OAuth flows of the official Python SDK in a row, each a new
/// client starting with no token (so each starts with a `401` answered
/// before its body is read), while a CPU-bound loop keeps a core busy: not
/// one transport error (httpx reuses each kept-alive connection).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fifty_python_sdk_oauth_flows_beside_a_busy_loop_have_no_transport_error() {
    let Some(dir) = installed() else { return };
    let port = free_port();
    let resource = format!("http://127.0.0.1:{port}/mcp");
    let authorization = AuthorizationServer::start(dir, &resource);
    let writes = Arc::new(AtomicUsize::new(0));
    // One client's fifty flows in a row (six requests each) go past the
    // default request rate of a principal, which answers `429` as it
    // should: this test is about the transport, so the rate is raised.
    let limits = PrincipalLimits {
        per_second: NonZeroU32::new(1000).unwrap(),
        burst: NonZeroU32::new(1000).unwrap(),
        ..PrincipalLimits::default()
    };
    let server = McpServer::new(registry(Arc::clone(&writes)))
        .resource_server(
            ResourceServer::jwt(&resource, &authorization.issuer)
                .scopes_supported(["notes:read"])
                .limits(limits),
        )
        .serve_http(SocketAddr::from(([127, 0, 0, 1], port)))
        .await
        .unwrap();
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let busy = {
        let stop = Arc::clone(&stop);
        std::thread::spawn(move || {
            let mut spins = 0_u64;
            while !stop.load(Ordering::Relaxed) {
                spins = std::hint::black_box(spins.wrapping_add(1));
            }
        })
    };
    const ROUNDS: usize = 50;
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/oauth_client.py");
    let mut command = Command::new(python());
    command.arg(&script).args([
        resource.as_str(),
        authorization.issuer.as_str(),
        "agent",
        "agent-secret",
        "notes:read notes:write",
        &ROUNDS.to_string(),
    ]);
    let started = std::time::Instant::now();
    let ran = tokio::task::spawn_blocking(move || run(command, Duration::from_secs(300)))
        .await
        .unwrap();
    stop.store(true, Ordering::Relaxed);
    busy.join().unwrap();
    assert!(ran.success, "oauth_client.py failed:\n{}", ran.text);
    let seen: Value = serde_json::from_str(ran.text.lines().last().unwrap()).unwrap();
    assert_eq!(seen["rounds"], ROUNDS, "{seen}");
    assert_eq!(writes.load(Ordering::SeqCst), ROUNDS);
    eprintln!(
        "{ROUNDS} OAuth flows of the Python SDK in {:?}, no transport error",
        started.elapsed()
    );
    server.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_signing_key_the_authorization_server_rotates_in_is_taken_without_a_restart() {
    let Some(dir) = installed() else { return };
    let port = free_port();
    let resource = format!("http://127.0.0.1:{port}/mcp");
    let authorization = AuthorizationServer::start(dir, &resource);
    let tokens = JwtAuthenticator::new(&authorization.issuer, &resource)
        .jwks_refresh(Duration::from_millis(100));
    let server = McpServer::new(registry(Arc::default()))
        .resource_server(
            ResourceServer::new(&resource, tokens).authorization_server(&authorization.issuer),
        )
        .serve_http(SocketAddr::from(([127, 0, 0, 1], port)))
        .await
        .unwrap();
    let before = authorization
        .token("agent", "agent-secret", &resource, "notes:read")
        .await;
    let (status, _, body) = post(&server.url(), &before, initialize()).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(authorization.rotate().await, "key-2");
    tokio::time::sleep(Duration::from_millis(150)).await;
    let after = authorization
        .token("agent", "agent-secret", &resource, "notes:read")
        .await;
    assert_ne!(before, after);
    let (status, challenge, body) = post(&server.url(), &after, initialize()).await;
    assert_eq!(
        status, 200,
        "a token signed with the new key: {challenge} {body}"
    );
    // The old key is still in the set: its tokens stay good until they expire.
    let (status, ..) = post(&server.url(), &before, initialize()).await;
    assert_eq!(status, 200);
    server.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_real_token_without_the_tool_s_scope_is_refused_with_the_scope_to_step_up_to() {
    let Some(dir) = installed() else { return };
    let port = free_port();
    let resource = format!("http://127.0.0.1:{port}/mcp");
    let authorization = AuthorizationServer::start(dir, &resource);
    let writes = Arc::new(AtomicUsize::new(0));
    let server = McpServer::new(registry(Arc::clone(&writes)))
        .resource_server(ResourceServer::jwt(&resource, &authorization.issuer))
        .stateless(true)
        .serve_http(SocketAddr::from(([127, 0, 0, 1], port)))
        .await
        .unwrap();
    let reader = authorization
        .token("reader", "reader-secret", &resource, "notes:read")
        .await;
    let call = json!({ "jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": { "name": "write_note", "arguments": { "text": "x" } } });
    let (status, challenge, body) = post(&server.url(), &reader, call).await;
    assert_eq!(status, 403, "{body}");
    assert!(
        challenge.contains("error=\"insufficient_scope\"")
            && challenge.contains("scope=\"notes:write\""),
        "{challenge}"
    );
    assert_eq!(writes.load(Ordering::SeqCst), 0);
    // The authorization server itself issues no token for another resource.
    let refused: Value = reqwest::Client::new()
        .post(format!("{}/token", authorization.issuer))
        .basic_auth("agent", Some("agent-secret"))
        .form(&[
            ("grant_type", "client_credentials"),
            ("resource", "http://127.0.0.1:1/other"),
        ])
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(refused["error"], "invalid_target", "{refused}");
    server.shutdown().await.unwrap();
}

/// nginx with TLS on `port` in front of `upstream`, configured as README.md
/// shows; killed when dropped.
/// nginx terminating TLS on `port` for `upstream`'s MCP endpoint and
/// protected resource metadata, as README.md shows it.
fn tls_nginx(nginx: &Path, port: u16, upstream: SocketAddr, cert: &str, key: &str) -> Nginx {
    let files = [("cert.pem", cert), ("key.pem", key)];
    Nginx::start(nginx, port, &files, |dir| {
        format!(
            r#"    access_log off;
    server {{
        listen 127.0.0.1:{port} ssl;
        server_name localhost;
        ssl_certificate     {dir}/cert.pem;
        ssl_certificate_key {dir}/key.pem;

        location ~ ^/(mcp|\.well-known/oauth-protected-resource) {{
            proxy_pass http://{upstream};
            proxy_http_version 1.1;
            proxy_set_header Host $host;
            proxy_buffering off;
            proxy_read_timeout 1h;
        }}
    }}
"#
        )
    })
}

/// A CA's certificate (PEM), and a certificate for `localhost` it signed
/// with its key (PEM).
fn certificates() -> (String, String, String) {
    let ca_key = rcgen::KeyPair::generate().unwrap();
    let mut ca_params = rcgen::CertificateParams::new(Vec::<String>::new()).unwrap();
    ca_params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
    let ca = rcgen::CertifiedIssuer::self_signed(ca_params, ca_key).unwrap();
    let key = rcgen::KeyPair::generate().unwrap();
    let params = rcgen::CertificateParams::new(vec!["localhost".to_owned()]).unwrap();
    let cert = params.signed_by(&key, &ca).unwrap();
    (ca.pem(), cert.pem(), key.serialize_pem())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn behind_nginx_with_tls_a_proxy_gets_its_own_token_and_calls_as_itself() {
    let Some(dir) = installed() else { return };
    let Some(nginx) = nginx() else {
        return;
    };
    let port = free_port();
    // The public URL, the one clients and tokens name.
    let resource = format!("https://localhost:{port}/mcp");
    let authorization = AuthorizationServer::start(dir, &resource);
    let writes = Arc::new(AtomicUsize::new(0));
    let server = McpServer::new(registry(Arc::clone(&writes)))
        .resource_server(ResourceServer::jwt(&resource, &authorization.issuer))
        .http(HttpOptions::default().allowed_hosts(["localhost"]))
        .serve_http("127.0.0.1:0".parse().unwrap())
        .await
        .unwrap();
    let (ca, cert, key) = certificates();
    let _nginx = tls_nginx(&nginx, port, server.local_addr(), &cert, &key);
    let local = Registry::new();
    let proxy = dsh_kit::mcp::McpProxy::builder("notes")
        .root_certificates_pem(ca.clone())
        .client_credentials(
            dsh_kit::mcp::auth::ClientCredentials::new("agent", "agent-secret")
                .scopes(["notes:read", "notes:write"])
                .issuer(&authorization.issuer),
        )
        .http(&local, &resource)
        .await
        .unwrap();
    let mut tools = proxy.tools();
    tools.sort();
    assert_eq!(tools, ["whoami", "write_note"]);
    let me = local.call("whoami", json!({})).await;
    assert!(me.failure.is_none(), "{}", me.text());
    assert!(me.text().contains("\"subject\":\"agent\""), "{}", me.text());
    let written = local
        .call("write_note", json!({ "text": "through nginx" }))
        .await;
    assert!(written.failure.is_none(), "{}", written.text());
    assert_eq!(writes.load(Ordering::SeqCst), 1);
    // Without a token, nginx passes on the server's challenge.
    let bare = reqwest::Client::builder()
        .add_root_certificate(reqwest::Certificate::from_pem(ca.as_bytes()).unwrap())
        .build()
        .unwrap()
        .post(&resource)
        .body(initialize().to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(bare.status(), 401);
    let challenge = bare.headers()["www-authenticate"].to_str().unwrap();
    assert!(
        challenge.contains(&format!(
            "https://localhost:{port}/.well-known/oauth-protected-resource/mcp"
        )),
        "{challenge}"
    );
    drop(proxy);
    server.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn opaque_tokens_are_introspected_at_the_authorization_server() {
    let Some(dir) = installed() else { return };
    let port = free_port();
    let resource = format!("http://127.0.0.1:{port}/mcp");
    let authorization =
        AuthorizationServer::start_with(dir, &["http://127.0.0.1:1/jwt", &resource]);
    let tokens = IntrospectionAuthenticator::new(
        format!("{}/token/introspection", authorization.issuer),
        &resource,
    )
    .client("mcp-server", "mcp-server-secret");
    let server = McpServer::new(registry(Arc::default()))
        .resource_server(
            ResourceServer::new(&resource, tokens).authorization_server(&authorization.issuer),
        )
        .serve_http(SocketAddr::from(([127, 0, 0, 1], port)))
        .await
        .unwrap();
    let token = authorization
        .token("agent", "agent-secret", &resource, "notes:read")
        .await;
    assert!(!token.contains('.'), "an opaque token, not a JWT: {token}");
    let (status, _, body) = post(&server.url(), &token, initialize()).await;
    assert_eq!(status, 200, "{body}");
    let (status, challenge, body) = post(&server.url(), "made-up-token", initialize()).await;
    assert_eq!(status, 401, "{body}");
    assert!(challenge.contains("not active"), "{challenge}");
    server.shutdown().await.unwrap();
}
