//! The MCP HTTP server as an OAuth 2.1 resource server, over real sockets on
//! 127.0.0.1, with a small authorization server of the test's own (its
//! metadata, its key set, a token endpoint) so every hostile token can be
//! forged: each is refused with a clear `401`/`403` and a log line, and no
//! tool runs. The test with a real authorization server (`oidc-provider`)
//! and the official MCP Python SDK is in the examples' tests.
#![cfg(feature = "mcp")]

use std::fmt::Write as _;
use std::net::SocketAddr;
use std::num::NonZeroU32;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use axum::http::{HeaderMap, StatusCode};
use base64::Engine;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use dsh_kit::mcp::auth::{
    ClientCredentials, IntrospectionAuthenticator, JwtAuthenticator, PrincipalLimits,
    ResourceServer,
};
use dsh_kit::mcp::rmcp::ServiceExt;
use dsh_kit::mcp::rmcp::model::CallToolRequestParams;
use dsh_kit::mcp::rmcp::transport::StreamableHttpClientTransport;
use dsh_kit::mcp::rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use dsh_kit::mcp::{ConnectError, HttpOptions, McpHttpServer, McpProxy, McpServer, ServeError};
use dsh_kit::prelude::*;
use dsh_kit::{DynamicTool, Registry};
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use serde_json::Value;

/// How long a step may take, far past what it needs.
const STEP: Duration = Duration::from_secs(20);

// ---------------------------------------------------------------------------
// The log lines of the resource server, caught by a process-wide subscriber
// that keeps only its target.

static LINES: Mutex<Vec<String>> = Mutex::new(Vec::new());

struct Catch;

struct Text(String);

impl tracing::field::Visit for Text {
    fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn std::fmt::Debug) {
        let _ = write!(self.0, "{}={value:?} ", field.name());
    }
}

impl tracing::Subscriber for Catch {
    fn enabled(&self, metadata: &tracing::Metadata<'_>) -> bool {
        metadata.target().starts_with("dsh_kit::mcp::auth")
            || metadata.target().starts_with("dsh_kit::mcp::http")
    }
    fn new_span(&self, _: &tracing::span::Attributes<'_>) -> tracing::span::Id {
        tracing::span::Id::from_u64(1)
    }
    fn record(&self, _: &tracing::span::Id, _: &tracing::span::Record<'_>) {}
    fn record_follows_from(&self, _: &tracing::span::Id, _: &tracing::span::Id) {}
    fn event(&self, event: &tracing::Event<'_>) {
        let mut text = Text(String::new());
        event.record(&mut text);
        LINES.lock().unwrap().push(text.0);
    }
    fn enter(&self, _: &tracing::span::Id) {}
    fn exit(&self, _: &tracing::span::Id) {}
}

fn catch_logs() {
    static ONCE: OnceLock<()> = OnceLock::new();
    ONCE.get_or_init(|| {
        let _ = tracing::subscriber::set_global_default(Catch);
    });
}

fn logged(needle: &str) -> bool {
    LINES
        .lock()
        .unwrap()
        .iter()
        .any(|line| line.contains(needle))
}

// ---------------------------------------------------------------------------
// The test's authorization server.

const CLIENT_ID: &str = "notes-bot";
/// The resource the test authorization server's opaque tokens are for.
static OPAQUE_RESOURCE: OnceLock<String> = OnceLock::new();
const CLIENT_SECRET: &str = "notes-bot-secret";

struct Issuer {
    url: String,
    kid: String,
    key: EncodingKey,
    public_pem: String,
    jwks_fetches: Arc<AtomicUsize>,
}

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

/// A free port on 127.0.0.1, for a server whose resource URI must be known
/// before it listens.
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// `application/x-www-form-urlencoded` fields.
fn form(body: &str) -> Vec<(String, String)> {
    let decode = |text: &str| {
        let bytes = text.replace('+', " ").into_bytes();
        let mut out = Vec::new();
        let mut i = 0;
        while i < bytes.len() {
            if bytes[i] == b'%' && i + 2 < bytes.len() + 1 {
                let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).unwrap();
                out.push(u8::from_str_radix(hex, 16).unwrap());
                i += 3;
            } else {
                out.push(bytes[i]);
                i += 1;
            }
        }
        String::from_utf8(out).unwrap()
    };
    body.split('&')
        .filter_map(|pair| pair.split_once('='))
        .map(|(name, value)| (decode(name), decode(value)))
        .collect()
}

impl Issuer {
    async fn start() -> Arc<Issuer> {
        let pair = rcgen::KeyPair::generate().unwrap();
        let raw = pair.public_key_raw();
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let issuer = Arc::new(Issuer {
            url: url.clone(),
            kid: "key-1".into(),
            key: EncodingKey::from_ec_der(&pair.serialize_der()),
            public_pem: pair.public_key_pem(),
            jwks_fetches: Arc::default(),
        });
        let jwks = json!({ "keys": [{
            "kty": "EC", "crv": "P-256", "use": "sig", "alg": "ES256", "kid": issuer.kid,
            "x": URL_SAFE_NO_PAD.encode(&raw[1..33]),
            "y": URL_SAFE_NO_PAD.encode(&raw[33..65]),
        }]});
        let metadata = json!({
            "issuer": url,
            "jwks_uri": format!("{url}/jwks"),
            "token_endpoint": format!("{url}/token"),
        });
        let fetches = Arc::clone(&issuer.jwks_fetches);
        let signer = Arc::clone(&issuer);
        let app = axum::Router::new()
            .route(
                "/introspect",
                axum::routing::post(|headers: HeaderMap, body: String| async move {
                    let basic = format!("Basic {}", STANDARD.encode("mcp-server:mcp-secret"));
                    if headers.get("authorization").and_then(|v| v.to_str().ok()) != Some(basic.as_str()) {
                        return (StatusCode::UNAUTHORIZED, axum::Json(json!({ "error": "invalid_client" })));
                    }
                    let fields = form(&body);
                    let token = fields.iter().find(|(n, _)| n == "token").map(|(_, v)| v.as_str());
                    let answer = match token {
                        Some("opaque-ada") => json!({
                            "active": true, "sub": "ada", "client_id": "notes-app", "scope": "notes:write",
                            "aud": OPAQUE_RESOURCE.get().unwrap(), "exp": now() + 300, "token_type": "Bearer",
                        }),
                        Some("opaque-elsewhere") => json!({ "active": true, "sub": "ada", "aud": "urn:other", "exp": now() + 300 }),
                        _ => json!({ "active": false }),
                    };
                    (StatusCode::OK, axum::Json(answer))
                }),
            )
            .route(
                "/.well-known/oauth-authorization-server",
                axum::routing::get(move || async move { axum::Json(metadata) }),
            )
            .route(
                "/jwks",
                axum::routing::get(move || async move {
                    fetches.fetch_add(1, Ordering::SeqCst);
                    axum::Json(jwks)
                }),
            )
            .route(
                "/token",
                axum::routing::post(move |headers: HeaderMap, body: String| async move {
                    let basic = format!("Basic {}", STANDARD.encode(format!("{CLIENT_ID}:{CLIENT_SECRET}")));
                    if headers.get("authorization").and_then(|v| v.to_str().ok()) != Some(basic.as_str()) {
                        return (StatusCode::UNAUTHORIZED, axum::Json(json!({ "error": "invalid_client" })));
                    }
                    let fields = form(&body);
                    let field = |name: &str| fields.iter().find(|(n, _)| n == name).map(|(_, v)| v.clone());
                    if field("grant_type").as_deref() != Some("client_credentials") {
                        return (StatusCode::BAD_REQUEST, axum::Json(json!({ "error": "unsupported_grant_type" })));
                    }
                    let Some(resource) = field("resource") else {
                        return (StatusCode::BAD_REQUEST, axum::Json(json!({ "error": "invalid_target" })));
                    };
                    let mut claims = signer.claims(&resource, &field("scope").unwrap_or_default());
                    claims["sub"] = json!(CLIENT_ID);
                    let token = signer.sign(&claims);
                    (StatusCode::OK, axum::Json(json!({ "access_token": token, "token_type": "Bearer", "expires_in": 300 })))
                }),
            );
        tokio::spawn(async move { axum::serve(listener, app).await });
        issuer
    }

    /// The claims of a valid token for `resource` with `scope`.
    fn claims(&self, resource: &str, scope: &str) -> Value {
        json!({
            "iss": self.url, "aud": resource, "sub": "ada", "client_id": CLIENT_ID,
            "scope": scope, "iat": now(), "exp": now() + 300,
        })
    }

    fn sign(&self, claims: &Value) -> String {
        self.sign_with_kid(claims, &self.kid)
    }

    fn sign_with_kid(&self, claims: &Value, kid: &str) -> String {
        self.sign_full(claims, kid, Some("at+jwt"))
    }

    /// `claims` signed with the header's `typ` set to `typ`, or absent.
    fn sign_typed(&self, claims: &Value, typ: Option<&str>) -> String {
        self.sign_full(claims, &self.kid, typ)
    }

    fn sign_full(&self, claims: &Value, kid: &str, typ: Option<&str>) -> String {
        let mut header = Header::new(Algorithm::ES256);
        header.kid = Some(kid.to_owned());
        header.typ = typ.map(str::to_owned);
        jsonwebtoken::encode(&header, claims, &self.key).unwrap()
    }
}

// ---------------------------------------------------------------------------
// The protected server.

/// A registry of `whoami` and `write_note`, which counts its runs in `writes`.
fn registry(writes: Arc<AtomicUsize>) -> Registry {
    let registry = Registry::new();
    let whoami = DynamicTool::new(
        ToolDef::builder_owned("whoami", "Say who is calling.")
            .read_only(true)
            .build(),
        json!({ "type": "object", "properties": {} }),
        |_args, exec| async move {
            let principal = exec.principal();
            Ok(json!({
                "subject": principal.subject(),
                "client": principal.client_id(),
                "scopes": principal.scopes().collect::<Vec<_>>(),
            }))
        },
    );
    let write_note = DynamicTool::new(
        ToolDef::builder_owned("write_note", "Write a note.")
            .with_scopes(["notes:write"])
            .build(),
        json!({ "type": "object", "properties": { "text": { "type": "string" } }, "required": ["text"] }),
        move |_args, _exec| {
            writes.fetch_add(1, Ordering::SeqCst);
            async move { Ok(json!("written")) }
        },
    );
    registry.register_dynamic(whoami).unwrap().keep();
    registry.register_dynamic(write_note).unwrap().keep();
    registry
}

struct Protected {
    server: McpHttpServer,
    resource: String,
    /// How many times `write_note` ran.
    writes: Arc<AtomicUsize>,
}

async fn protected(
    issuer: &Issuer,
    configure: impl FnOnce(ResourceServer) -> ResourceServer,
) -> Protected {
    catch_logs();
    let port = free_port();
    let resource = format!("http://127.0.0.1:{port}/mcp");
    let resource_server = configure(ResourceServer::jwt(&resource, &issuer.url));
    let writes = Arc::new(AtomicUsize::new(0));
    let server = McpServer::new(registry(Arc::clone(&writes)))
        .resource_server(resource_server)
        .serve_http(SocketAddr::from(([127, 0, 0, 1], port)))
        .await
        .unwrap();
    Protected {
        server,
        resource,
        writes,
    }
}

struct Answer {
    status: u16,
    challenge: String,
    headers: reqwest::header::HeaderMap,
    body: String,
}

async fn post(url: &str, authorization: Option<&str>, body: &Value) -> Answer {
    let mut request = reqwest::Client::new()
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(body.to_string());
    if let Some(authorization) = authorization {
        request = request.header("authorization", authorization);
    }
    let response = tokio::time::timeout(STEP, request.send())
        .await
        .unwrap()
        .unwrap();
    let status = response.status().as_u16();
    let headers = response.headers().clone();
    let challenge = headers
        .get("www-authenticate")
        .map(|value| value.to_str().unwrap().to_owned())
        .unwrap_or_default();
    let body = response.text().await.unwrap_or_default();
    Answer {
        status,
        challenge,
        headers,
        body,
    }
}

fn call_write_note() -> Value {
    json!({ "jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": { "name": "write_note", "arguments": { "text": "hi" } } })
}

fn initialize() -> Value {
    json!({ "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": { "name": "tests", "version": "0" } } })
}

/// An rmcp client presenting `token`.
async fn client(
    url: &str,
    token: &str,
) -> dsh_kit::mcp::rmcp::service::RunningService<dsh_kit::mcp::rmcp::RoleClient, ()> {
    let config = StreamableHttpClientTransportConfig::with_uri(url).auth_header(token);
    let transport = StreamableHttpClientTransport::with_client(reqwest::Client::new(), config);
    tokio::time::timeout(STEP, ().serve(transport))
        .await
        .unwrap()
        .unwrap()
}

fn call(name: &str, args: Value) -> CallToolRequestParams {
    let Value::Object(args) = args else {
        panic!("an object")
    };
    CallToolRequestParams::new(name.to_owned()).with_arguments(args)
}

// ---------------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_hostile_token_is_refused_with_a_clear_answer_and_a_log_line_and_nothing_runs() {
    let issuer = Issuer::start().await;
    let server = protected(&issuer, |server| server).await;
    let url = server.server.url();
    let resource = &server.resource;
    let valid = issuer.claims(resource, "notes:read");
    let with = |patch: Value| {
        let mut claims = valid.clone();
        for (name, value) in patch.as_object().unwrap() {
            claims[name] = value.clone();
        }
        claims
    };
    let none = format!(
        "{}.{}.",
        URL_SAFE_NO_PAD.encode(r#"{"alg":"none","typ":"JWT"}"#),
        URL_SAFE_NO_PAD.encode(valid.to_string())
    );
    let hs256_with_public_key = jsonwebtoken::encode(
        &Header::new(Algorithm::HS256),
        &valid,
        &EncodingKey::from_secret(issuer.public_pem.as_bytes()).unwrap(),
    )
    .unwrap();
    let mut without_exp = valid.clone();
    without_exp.as_object_mut().unwrap().remove("exp");
    let oversized = format!(
        "{}.{}.{}",
        "a".repeat(6000),
        "b".repeat(6000),
        "c".repeat(100)
    );
    // (what, the token, the status, the description's words, the log's words)
    let cases: Vec<(&str, Option<String>, u16, &str)> = vec![
        ("no token", None, 401, "no bearer token"),
        ("malformed", Some("not-a-jwt".into()), 401, "malformed"),
        ("alg none", Some(none), 401, "`none`"),
        (
            "HS256 signed with the public key",
            Some(hs256_with_public_key),
            401,
            "`HS256`",
        ),
        (
            "wrong iss",
            Some(issuer.sign(&with(json!({ "iss": "https://evil.example" })))),
            401,
            "expected issuer",
        ),
        (
            "wrong aud",
            Some(issuer.sign(&with(json!({ "aud": "urn:someone-else" })))),
            401,
            "not meant for this resource",
        ),
        (
            "another resource",
            Some(issuer.sign(&with(json!({ "aud": "http://127.0.0.1:1/mcp" })))),
            401,
            "not meant for this resource",
        ),
        (
            "expired",
            Some(issuer.sign(&with(json!({ "exp": now() - 3600 })))),
            401,
            "expired",
        ),
        (
            "not yet valid",
            Some(issuer.sign(&with(json!({ "nbf": now() + 3600 })))),
            401,
            "not valid yet",
        ),
        (
            "unknown kid",
            Some(issuer.sign_with_kid(&valid, "who-knows")),
            401,
            "no signing key",
        ),
        (
            "too long",
            Some(oversized),
            401,
            "more than the 8192 allowed",
        ),
        ("no exp", Some(issuer.sign(&without_exp)), 401, "`exp`"),
        (
            "typed JWT",
            Some(issuer.sign_typed(&valid, Some("JWT"))),
            401,
            "not `at+jwt` (RFC 9068)",
        ),
        (
            "not typed",
            Some(issuer.sign_typed(&valid, None)),
            401,
            "it has no `typ`",
        ),
        (
            "an ID token typed as an access token",
            Some(issuer.sign(&with(json!({ "nonce": "n-0S6_WzA2Mj" })))),
            401,
            "a claim of OpenID Connect ID tokens",
        ),
        (
            "an audience that is its own client",
            Some(issuer.sign(&with(json!({ "aud": [resource, CLIENT_ID] })))),
            401,
            "its audience is its own client",
        ),
    ];
    for (what, token, status, words) in &cases {
        let authorization = token.as_ref().map(|token| format!("Bearer {token}"));
        let answer = post(&url, authorization.as_deref(), &call_write_note()).await;
        assert_eq!(answer.status, *status, "{what}: {}", answer.body);
        assert!(
            answer.challenge.starts_with("Bearer ")
                && answer.challenge.contains(&format!(
                    "resource_metadata=\"http://127.0.0.1:{}/.well-known/oauth-protected-resource/mcp\"",
                    server.server.local_addr().port()
                )),
            "{what}: {}",
            answer.challenge
        );
        if token.is_some() {
            assert!(
                answer.challenge.contains("error=\"invalid_token\""),
                "{what}: {}",
                answer.challenge
            );
            assert!(
                answer.challenge.contains(words),
                "{what}: {}",
                answer.challenge
            );
        } else {
            assert!(
                !answer.challenge.contains("error="),
                "{what}: {}",
                answer.challenge
            );
        }
        assert!(logged(words), "{what}: no log line says {words:?}");
        assert!(!answer.body.contains("written"), "{what}: {}", answer.body);
    }
    // A token of 1 MB never reaches the authenticator: the connection's
    // header limit (hyper's, about 400 KiB) refuses it, unread.
    let huge = format!("Bearer {}", "a".repeat(1 << 20));
    let refused = reqwest::Client::new()
        .post(&url)
        .header("authorization", huge)
        .body(call_write_note().to_string())
        .send()
        .await;
    // `431 Request Header Fields Too Large`, or the connection closed
    // while the client was still sending.
    if let Ok(response) = refused {
        assert_eq!(response.status(), 431, "a 1 MB token");
    }
    // Refused before any layer saw it, it is still logged.
    let said = "headers are larger than the server reads";
    let deadline = std::time::Instant::now() + STEP;
    while !logged(said) && std::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(logged(said), "no log line says the 1 MB token was refused");
    // A valid token without the scope the tool needs: 403, the scope named.
    let reader = issuer.sign(&valid);
    let answer = post(&url, Some(&format!("Bearer {reader}")), &call_write_note()).await;
    assert_eq!(answer.status, 403, "{}", answer.body);
    assert!(
        answer.challenge.contains("error=\"insufficient_scope\"")
            && answer.challenge.contains("scope=\"notes:write\""),
        "{}",
        answer.challenge
    );
    assert!(logged("a scope the tool needs is missing"));
    assert_eq!(
        server.writes.load(Ordering::SeqCst),
        0,
        "a refused call ran"
    );
    // No token appears in any log line.
    let lines = LINES.lock().unwrap().clone();
    for (what, token, ..) in &cases {
        if let Some(token) = token {
            let tail = &token[token.len().saturating_sub(20)..];
            assert!(
                lines.iter().all(|line| !line.contains(tail)),
                "{what}: the token was logged"
            );
        }
    }
    assert!(lines.iter().all(|line| !line.contains(&reader)));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flood_of_unknown_key_ids_costs_the_authorization_server_one_fetch() {
    let issuer = Issuer::start().await;
    let server = protected(&issuer, |server| server).await;
    let url = server.server.url();
    let claims = issuer.claims(&server.resource, "");
    for n in 0..100 {
        let token = issuer.sign_with_kid(&claims, &format!("forged-{n}"));
        let answer = post(&url, Some(&format!("Bearer {token}")), &initialize()).await;
        assert_eq!(answer.status, 401);
    }
    // The first fetch, and at most one more: the refresh interval is 30 s.
    let fetches = issuer.jwks_fetches.load(Ordering::SeqCst);
    assert!(
        (1..=2).contains(&fetches),
        "{fetches} fetches of the key set"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_valid_token_lists_and_calls_and_the_tool_sees_its_principal() {
    let issuer = Issuer::start().await;
    let server = protected(&issuer, |server| server).await;
    let token = issuer.sign(&issuer.claims(&server.resource, "notes:read notes:write"));
    let client = client(&server.server.url(), &token).await;
    let tools = client.list_all_tools().await.unwrap();
    let names: Vec<_> = tools.iter().map(|tool| tool.name.to_string()).collect();
    assert!(
        names.contains(&"whoami".into()) && names.contains(&"write_note".into()),
        "{names:?}"
    );
    let me = client.call_tool(call("whoami", json!({}))).await.unwrap();
    let me = me.structured_content.unwrap();
    assert_eq!(me["subject"], "ada");
    assert_eq!(me["client"], CLIENT_ID);
    assert_eq!(me["scopes"], json!(["notes:read", "notes:write"]));
    let before = server.writes.load(Ordering::SeqCst);
    let written = client
        .call_tool(call("write_note", json!({ "text": "hi" })))
        .await
        .unwrap();
    assert_ne!(written.is_error, Some(true));
    assert!(server.writes.load(Ordering::SeqCst) > before);
    client.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_protected_resource_metadata_names_the_server_its_issuer_and_its_scopes() {
    let issuer = Issuer::start().await;
    let server = protected(&issuer, |server| {
        server
            .scopes_supported(["notes:read"])
            .resource_name("Notes")
    })
    .await;
    let port = server.server.local_addr().port();
    for path in [
        "/.well-known/oauth-protected-resource/mcp",
        "/.well-known/oauth-protected-resource",
    ] {
        let metadata: Value = reqwest::get(format!("http://127.0.0.1:{port}{path}"))
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        assert_eq!(metadata["resource"], server.resource.as_str());
        assert_eq!(metadata["authorization_servers"], json!([issuer.url]));
        assert_eq!(
            metadata["scopes_supported"],
            json!(["notes:read", "notes:write"])
        );
        assert_eq!(metadata["bearer_methods_supported"], json!(["header"]));
        assert_eq!(metadata["resource_name"], "Notes");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_principal_past_its_rate_gets_429_with_retry_after() {
    let issuer = Issuer::start().await;
    let limits = PrincipalLimits {
        per_second: NonZeroU32::new(1).unwrap(),
        burst: NonZeroU32::new(2).unwrap(),
        max_concurrent: 8,
    };
    let server = protected(&issuer, |server| server.limits(limits)).await;
    let url = server.server.url();
    let ada = format!(
        "Bearer {}",
        issuer.sign(&issuer.claims(&server.resource, ""))
    );
    let mut bob_claims = issuer.claims(&server.resource, "");
    bob_claims["sub"] = json!("bob");
    let bob = format!("Bearer {}", issuer.sign(&bob_claims));
    let mut statuses = Vec::new();
    for _ in 0..3 {
        statuses.push(post(&url, Some(&ada), &initialize()).await);
    }
    assert_eq!(statuses[0].status, 200, "{}", statuses[0].body);
    assert_eq!(statuses[1].status, 200);
    assert_eq!(statuses[2].status, 429);
    let retry_after: u64 = statuses[2].headers["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=2).contains(&retry_after), "Retry-After: {retry_after}");
    // Another principal has a rate of its own.
    assert_eq!(post(&url, Some(&bob), &initialize()).await.status, 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn beyond_loopback_only_with_an_authenticator_or_the_named_opt_out() {
    let registry = registry(Arc::default());
    let any: SocketAddr = "0.0.0.0:0".parse().unwrap();
    let refused = McpServer::new(registry.clone()).serve_http(any).await;
    assert!(
        matches!(refused, Err(ServeError::NotLoopback { .. })),
        "{refused:?}"
    );
    let trusted = McpServer::new(registry.clone())
        .http(HttpOptions::default().trusted_network_without_auth())
        .serve_http(any)
        .await
        .unwrap();
    drop(trusted);
    let protected = McpServer::new(registry)
        .resource_server(ResourceServer::jwt(
            "https://mcp.example.com/mcp",
            "https://auth.example.com",
        ))
        .http(HttpOptions::default().allowed_hosts(["mcp.example.com"]))
        .serve_http(any)
        .await
        .unwrap();
    // The public name is a `Host` it serves (here: asks for a token).
    let port = protected.local_addr().port();
    let answer = reqwest::Client::new()
        .post(format!("http://127.0.0.1:{port}/mcp"))
        .header("host", "mcp.example.com")
        .body(initialize().to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), 401);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_router_mounts_in_an_app_of_ones_own_with_its_protection() {
    let issuer = Issuer::start().await;
    catch_logs();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let resource = format!("{base}/api/mcp");
    let app = axum::Router::new()
        .route("/health", axum::routing::get(|| async { "ok" }))
        .merge(
            McpServer::new(registry(Arc::default()))
                .resource_server(ResourceServer::jwt(&resource, &issuer.url))
                .router("/api/mcp"),
        );
    tokio::spawn(async move { axum::serve(listener, app).await });
    assert_eq!(
        reqwest::get(format!("{base}/health"))
            .await
            .unwrap()
            .text()
            .await
            .unwrap(),
        "ok"
    );
    let refused = post(&resource, None, &initialize()).await;
    assert_eq!(refused.status, 401);
    let metadata_url = format!("{base}/.well-known/oauth-protected-resource/api/mcp");
    assert!(
        refused.challenge.contains(&metadata_url),
        "{}",
        refused.challenge
    );
    let metadata: Value = reqwest::get(&metadata_url)
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(metadata["resource"], resource.as_str());
    let token = issuer.sign(&issuer.claims(&resource, "notes:write"));
    let client = client(&resource, &token).await;
    assert_eq!(client.list_all_tools().await.unwrap().len(), 2);
    client.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_proxy_discovers_the_authorization_server_and_gets_a_token_itself() {
    let issuer = Issuer::start().await;
    let server = protected(&issuer, |server| server).await;
    let url = server.server.url();
    let local = Registry::new();
    let proxy = McpProxy::builder("notes")
        .client_credentials(
            ClientCredentials::new(CLIENT_ID, CLIENT_SECRET)
                .scopes(["notes:write"])
                .issuer(&issuer.url),
        )
        .http(&local, &url)
        .await
        .unwrap();
    let mut tools = proxy.tools();
    tools.sort();
    assert_eq!(tools, ["whoami", "write_note"]);
    let me = local.call("whoami", json!({})).await;
    assert!(me.failure.is_none(), "{}", me.text());
    assert!(
        me.text().contains(&format!("\"subject\":\"{CLIENT_ID}\"")),
        "{}",
        me.text()
    );
    drop(proxy);
    // Wrong credentials, or a token the server refuses: no connection.
    let wrong = McpProxy::builder("notes")
        .client_credentials(ClientCredentials::new(CLIENT_ID, "not-the-secret"))
        .http(&Registry::new(), &url)
        .await;
    assert!(
        matches!(wrong, Err(ConnectError::Authorization { .. })),
        "{wrong:?}"
    );
    let forged = McpProxy::builder("notes")
        .bearer_token("not-a-jwt")
        .http(&Registry::new(), &url)
        .await;
    assert!(forged.is_err());
    // A bearer token got elsewhere works as well; without the scope
    // `write_note` needs, the proxy is not even shown that tool.
    let token = issuer.sign(&issuer.claims(&server.resource, ""));
    let local = Registry::new();
    let proxy = McpProxy::builder("notes")
        .bearer_token(token)
        .http(&local, &url)
        .await
        .unwrap();
    assert_eq!(proxy.tools(), ["whoami"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_principal_past_its_running_requests_gets_429_until_one_ends() {
    let issuer = Issuer::start().await;
    catch_logs();
    let port = free_port();
    let resource = format!("http://127.0.0.1:{port}/mcp");
    let registry = registry(Arc::default());
    let slow = DynamicTool::new(
        ToolDef::builder_owned("slow", "Take a while.").build(),
        json!({ "type": "object", "properties": {} }),
        |_args, _exec| async move {
            tokio::time::sleep(Duration::from_millis(1500)).await;
            Ok(json!("done"))
        },
    );
    registry.register_dynamic(slow).unwrap().keep();
    let limits = PrincipalLimits {
        max_concurrent: 1,
        ..PrincipalLimits::default()
    };
    let server = McpServer::new(registry)
        .resource_server(ResourceServer::jwt(&resource, &issuer.url).limits(limits))
        .serve_http(SocketAddr::from(([127, 0, 0, 1], port)))
        .await
        .unwrap();
    let token = issuer.sign(&issuer.claims(&resource, ""));
    let client = client(&server.url(), &token).await;
    let running = tokio::spawn({
        let peer = client.peer().clone();
        async move { peer.call_tool(call("slow", json!({}))).await }
    });
    tokio::time::sleep(Duration::from_millis(400)).await;
    let refused = post(
        &server.url(),
        Some(&format!("Bearer {token}")),
        &initialize(),
    )
    .await;
    assert_eq!(refused.status, 429, "{}", refused.body);
    assert!(refused.headers.contains_key("retry-after"));
    assert!(logged("too many requests running"));
    let done = tokio::time::timeout(STEP, running)
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    assert_ne!(done.is_error, Some(true));
    let admitted = post(
        &server.url(),
        Some(&format!("Bearer {token}")),
        &initialize(),
    )
    .await;
    assert_eq!(admitted.status, 200, "{}", admitted.body);
    client.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn opaque_tokens_are_checked_by_introspection() {
    let issuer = Issuer::start().await;
    catch_logs();
    let port = free_port();
    let resource = format!("http://127.0.0.1:{port}/mcp");
    OPAQUE_RESOURCE
        .set(resource.clone())
        .expect("only this test sets the opaque tokens' resource");
    let tokens = IntrospectionAuthenticator::new(format!("{}/introspect", issuer.url), &resource)
        .client("mcp-server", "mcp-secret");
    let server = McpServer::new(registry(Arc::default()))
        .resource_server(ResourceServer::new(&resource, tokens).authorization_server(&issuer.url))
        .serve_http(SocketAddr::from(([127, 0, 0, 1], port)))
        .await
        .unwrap();
    let client = client(&server.url(), "opaque-ada").await;
    let me = client.call_tool(call("whoami", json!({}))).await.unwrap();
    let me = me.structured_content.unwrap();
    assert_eq!(me["subject"], "ada");
    assert_eq!(me["scopes"], json!(["notes:write"]));
    client.cancel().await.unwrap();
    for (token, words) in [
        ("opaque-gone", "not active"),
        ("opaque-elsewhere", "not meant for this resource"),
    ] {
        let answer = post(
            &server.url(),
            Some(&format!("Bearer {token}")),
            &initialize(),
        )
        .await;
        assert_eq!(answer.status, 401, "{token}");
        assert!(
            answer.challenge.contains(words),
            "{token}: {}",
            answer.challenge
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_is_served_only_to_the_principal_that_started_it() {
    let issuer = Issuer::start().await;
    let server = protected(&issuer, |server| server).await;
    let url = server.server.url();
    let ada = format!(
        "Bearer {}",
        issuer.sign(&issuer.claims(&server.resource, "notes:write"))
    );
    let mut bob = issuer.claims(&server.resource, "notes:write");
    bob["sub"] = json!("bob");
    let bob = format!("Bearer {}", issuer.sign(&bob));
    let started = post(&url, Some(&ada), &initialize()).await;
    assert_eq!(started.status, 200, "{}", started.body);
    let session = started.headers["mcp-session-id"]
        .to_str()
        .unwrap()
        .to_owned();
    let with_session = |authorization: String| {
        let url = url.clone();
        let session = session.clone();
        async move {
            reqwest::Client::new()
                .post(&url)
                .header("authorization", authorization)
                .header("mcp-session-id", session)
                .header("mcp-protocol-version", "2025-06-18")
                .header("content-type", "application/json")
                .header("accept", "application/json, text/event-stream")
                .body(
                    json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }).to_string(),
                )
                .send()
                .await
                .unwrap()
                .status()
                .as_u16()
        }
    };
    assert_eq!(with_session(bob).await, 404, "another principal's session");
    assert!(logged("the session belongs to another principal"));
    assert_eq!(with_session(ada).await, 202, "its own session");
}

/// A client that takes tasks and keeps the task status notifications it
/// is sent.
#[derive(Clone, Default)]
struct Listening(Arc<Mutex<Vec<Value>>>);

impl dsh_kit::mcp::rmcp::ClientHandler for Listening {
    fn get_info(&self) -> dsh_kit::mcp::rmcp::model::ClientConfig {
        use dsh_kit::mcp::rmcp::model::{ClientCapabilities, ClientConfig, Implementation};
        let capabilities = ClientCapabilities::builder().enable_tasks().build();
        ClientConfig::new(capabilities, Implementation::new("dsh-tests", "0"))
    }

    async fn on_custom_notification(
        &self,
        notification: dsh_kit::mcp::rmcp::model::CustomNotification,
        _context: dsh_kit::mcp::rmcp::service::NotificationContext<dsh_kit::mcp::rmcp::RoleClient>,
    ) {
        if notification.method == "notifications/tasks/status" {
            let task = notification.params.unwrap_or_default();
            self.0.lock().unwrap().push(task);
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_is_seen_only_by_the_principal_that_started_it() {
    use super::tasks::{custom, start_tool, until_done};
    use dsh_kit::mcp::rmcp::model::{CancelTaskParams, GetTaskParams};
    use dsh_kit::mcp::rmcp::{ClientLifecycleMode, ClientServiceExt};

    catch_logs();
    let issuer = Issuer::start().await;
    let port = free_port();
    let resource = format!("http://127.0.0.1:{port}/mcp");
    let server = McpServer::new(super::tasks::registry())
        .resource_server(ResourceServer::jwt(&resource, &issuer.url))
        .task_poll_interval(Duration::from_millis(20))
        .serve_http(SocketAddr::from(([127, 0, 0, 1], port)))
        .await
        .unwrap();
    let token = |subject: &str| {
        let mut claims = issuer.claims(&resource, "notes:write");
        claims["sub"] = json!(subject);
        issuer.sign(&claims)
    };
    let connect = |subject: &str, heard: Listening| {
        let config =
            StreamableHttpClientTransportConfig::with_uri(server.url()).auth_header(token(subject));
        let transport = StreamableHttpClientTransport::with_client(reqwest::Client::new(), config);
        async move {
            tokio::time::timeout(
                STEP,
                heard.serve_with_lifecycle(transport, ClientLifecycleMode::Initialize),
            )
            .await
            .unwrap()
            .unwrap()
        }
    };
    let (ada_heard, bob_heard) = (Listening::default(), Listening::default());
    let ada = connect("ada", ada_heard.clone()).await;
    let bob = connect("bob", bob_heard.clone()).await;
    let id = start_tool(&ada, "slow", json!({ "ms": 300 })).await;

    // To bob, ada's task is one that never was: get, cancel, result, list.
    let unknown = format!("no task `{id}`: it never existed, or it expired");
    let got = bob.get_task(GetTaskParams::new(&id)).await.unwrap_err();
    assert!(got.to_string().contains(&unknown), "{got}");
    let cancelled = bob
        .cancel_task(CancelTaskParams::new(&id))
        .await
        .unwrap_err();
    assert!(cancelled.to_string().contains(&unknown), "{cancelled}");
    let fetched = custom(&bob, "tasks/result", json!({ "taskId": id }))
        .await
        .unwrap_err();
    assert!(fetched.contains(&unknown), "{fetched}");
    let listed = custom(&bob, "tasks/list", json!({})).await.unwrap();
    assert_eq!(listed["tasks"], json!([]), "{listed}");

    // Ada's own: listed, and it ran to its end, bob's cancel notwithstanding.
    let listed = custom(&ada, "tasks/list", json!({})).await.unwrap();
    assert_eq!(listed["tasks"][0]["taskId"], json!(id), "{listed}");
    let done = until_done(&ada, &id).await;
    assert_eq!(
        done.task.status,
        dsh_kit::mcp::rmcp::model::TaskStatus::Completed
    );

    // Ada's client is told where her task is, when it starts and ends;
    // bob's is told nothing of it.
    let statuses = || {
        (ada_heard.0.lock().unwrap().iter())
            .map(|task| (task["taskId"].clone(), task["status"].clone()))
            .collect::<Vec<_>>()
    };
    let told = tokio::time::timeout(STEP, async {
        while statuses().len() < 2 {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await;
    assert!(told.is_ok(), "ada heard {:?}", statuses());
    assert_eq!(
        statuses(),
        [
            (json!(id), json!("working")),
            (json!(id), json!("completed"))
        ]
    );
    assert!(bob_heard.0.lock().unwrap().is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unreachable_authorization_server_is_a_503_not_a_bad_token() {
    catch_logs();
    let nowhere = format!("http://127.0.0.1:{}", free_port());
    let port = free_port();
    let resource = format!("http://127.0.0.1:{port}/mcp");
    let server = McpServer::new(registry(Arc::default()))
        .resource_server(ResourceServer::jwt(&resource, &nowhere))
        .serve_http(SocketAddr::from(([127, 0, 0, 1], port)))
        .await
        .unwrap();
    let token = format!(
        "{}.{}.c2ln",
        URL_SAFE_NO_PAD.encode(r#"{"alg":"ES256","kid":"k"}"#),
        URL_SAFE_NO_PAD.encode(r#"{"sub":"ada"}"#)
    );
    let answer = post(
        &server.url(),
        Some(&format!("Bearer {token}")),
        &initialize(),
    )
    .await;
    assert_eq!(answer.status, 503, "{}", answer.body);
    assert!(answer.headers.contains_key("retry-after"));
    assert!(answer.body.contains("cannot be reached"), "{}", answer.body);
}

/// An issuer that does not type its access tokens is served when the host
/// says so, for that issuer alone; an ID token is still refused.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn untyped_access_tokens_are_taken_only_from_an_issuer_said_to_send_them() {
    let issuer = Issuer::start().await;
    let server = protected(&issuer, |server| {
        let resource = server.resource().to_owned();
        ResourceServer::new(
            resource.clone(),
            JwtAuthenticator::new(&issuer.url, resource).untyped_access_tokens(),
        )
    })
    .await;
    let url = server.server.url();
    let valid = issuer.claims(&server.resource, "notes:write");
    for typ in [Some("JWT"), None, Some("Application/AT+JWT")] {
        let token = issuer.sign_typed(&valid, typ);
        let answer = post(&url, Some(&format!("Bearer {token}")), &initialize()).await;
        assert_eq!(answer.status, 200, "typ {typ:?}: {}", answer.body);
    }
    let mut id_token = valid.clone();
    id_token["at_hash"] = json!("77QmUPtjPfzWtF2AnpK9RQ");
    let token = issuer.sign_typed(&id_token, Some("JWT"));
    let answer = post(&url, Some(&format!("Bearer {token}")), &initialize()).await;
    assert_eq!(answer.status, 401, "{}", answer.body);
    assert!(
        answer
            .challenge
            .contains("`at_hash`, a claim of OpenID Connect ID tokens"),
        "{}",
        answer.challenge
    );
    // Another type than a JWT's is never taken.
    let token = issuer.sign_typed(&valid, Some("secevent+jwt"));
    let answer = post(&url, Some(&format!("Bearer {token}")), &initialize()).await;
    assert_eq!(answer.status, 401, "{}", answer.body);
}

/// Reads one response's head and its
/// `Content-Length` body, giving them as text.
async fn one_response(stream: &mut tokio::net::TcpStream) -> String {
    use tokio::io::AsyncReadExt;
    let mut read = Vec::new();
    let mut buf = [0; 4096];
    tokio::time::timeout(STEP, async {
        loop {
            let n = stream.read(&mut buf).await.unwrap_or(0);
            assert!(
                n > 0,
                "the server closed the connection mid-response: {read:?}"
            );
            read.extend_from_slice(&buf[..n]);
            let text = String::from_utf8_lossy(&read).to_lowercase();
            if let Some(end) = text.find("\r\n\r\n") {
                let length = text[..end]
                    .lines()
                    .find_map(|line| line.strip_prefix("content-length:"))
                    .map_or(0, |n| n.trim().parse::<usize>().unwrap());
                if read.len() >= end + 4 + length {
                    break;
                }
            }
        }
    })
    .await
    .expect("the server answered");
    String::from_utf8_lossy(&read).into_owned()
}

/// A `401` sent before the request's body arrived: the server reads the
/// rest of the body, so the kept-alive connection serves the next request
/// (httpx, under the official Python SDK, sends its next request on it).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_early_refusal_leaves_the_connection_ready_for_the_next_request() {
    use tokio::io::AsyncWriteExt;
    let issuer = Issuer::start().await;
    let protected = protected(&issuer, |server| server).await;
    let addr = protected.server.local_addr();
    let body = call_write_note().to_string();
    let head = |length: usize, token: &str| {
        format!(
            "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nAuthorization: Bearer {token}\r\nContent-Length: {length}\r\n\r\n"
        )
    };
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    // The headers first; the body only once the server had time to answer.
    stream
        .write_all(head(body.len(), "not-a-jwt").as_bytes())
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(200)).await;
    stream.write_all(body.as_bytes()).await.unwrap();
    let first = one_response(&mut stream).await;
    assert!(first.starts_with("HTTP/1.1 401"), "{first}");
    assert!(
        !first.to_lowercase().contains("connection: close"),
        "the body arrived promptly, so the connection stays open: {first}"
    );
    let metadata =
        format!("GET /.well-known/oauth-protected-resource/mcp HTTP/1.1\r\nHost: {addr}\r\n\r\n");
    stream.write_all(metadata.as_bytes()).await.unwrap();
    let second = one_response(&mut stream).await;
    assert!(second.starts_with("HTTP/1.1 200"), "{second}");
    assert!(second.contains(&protected.resource), "{second}");

    // A body that never comes is not waited for long: the refusal says the
    // connection closes, so no client sends another request on it.
    let mut stalled = tokio::net::TcpStream::connect(addr).await.unwrap();
    stalled
        .write_all(head(body.len(), "not-a-jwt").as_bytes())
        .await
        .unwrap();
    let refused = one_response(&mut stalled).await;
    assert!(refused.starts_with("HTTP/1.1 401"), "{refused}");
    assert!(
        refused.to_lowercase().contains("connection: close"),
        "{refused}"
    );
    assert_eq!(protected.writes.load(Ordering::SeqCst), 0);
}
