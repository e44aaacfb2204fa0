//! The HTTP server's sessions degrade fairly: when full, the least recently
//! used idle session makes room; a client that floods the server with
//! sessions it never uses evicts its own; only when every session in the
//! way is active is a newcomer refused, with `Retry-After`. Over real
//! sockets on 127.0.0.1, each client from its own loopback address
//! (127.0.0.0/8 is all loopback on Linux).
#![cfg(feature = "mcp")]

use std::net::IpAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use dsh_kit::Registry;
use dsh_kit::mcp::{HttpOptions, McpHttpServer, McpServer};
use dsh_kit::prelude::*;
use reqwest::StatusCode;

/// How long a test waits for what must happen, far past any configured timeout.
const BOUND: Duration = Duration::from_secs(30);

/// Greet someone by name.
#[tool(read_only)]
async fn greet(
    /// The name to greet
    name: String,
) -> String {
    format!("Hello, {name}!")
}

async fn server(configure: impl FnOnce(McpServer) -> McpServer) -> McpHttpServer {
    let registry = Registry::new();
    registry.register::<greet>().unwrap().keep();
    configure(McpServer::new(registry))
        .serve_http("127.0.0.1:0".parse().unwrap())
        .await
        .unwrap()
}

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"tests","version":"0"}}}"#;
const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;

fn call(id: u64) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"greet","arguments":{{"name":"Ada"}}}}}}"#
    )
}

/// An HTTP client whose connections come from `ip`.
fn client_from(ip: IpAddr) -> reqwest::Client {
    reqwest::Client::builder()
        .local_address(ip)
        .timeout(BOUND)
        .build()
        .unwrap()
}

/// A failed request, with the chain of its causes.
fn describe(error: reqwest::Error) -> String {
    let mut text = error.to_string();
    let mut source = std::error::Error::source(&error);
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

fn loopback(n: u32) -> IpAddr {
    IpAddr::V4(std::net::Ipv4Addr::from(
        u32::from(std::net::Ipv4Addr::new(127, 0, 0, 0)) + n,
    ))
}

async fn post(
    http: &reqwest::Client,
    server: &McpHttpServer,
    session: Option<&str>,
    body: String,
) -> reqwest::Result<reqwest::Response> {
    let mut request = http
        .post(server.url())
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(body);
    if let Some(session) = session {
        request = request
            .header("mcp-session-id", session)
            .header("mcp-protocol-version", "2025-06-18");
    }
    request.send().await
}

/// Opens a session: `initialize`, then `notifications/initialized`.
async fn open(http: &reqwest::Client, server: &McpHttpServer) -> Result<String, String> {
    let response = post(http, server, None, INITIALIZE.to_owned())
        .await
        .map_err(describe)?;
    let status = response.status();
    let session = response
        .headers()
        .get("mcp-session-id")
        .and_then(|id| id.to_str().ok())
        .map(str::to_owned);
    let text = response.text().await.map_err(describe)?;
    let Some(session) = session.filter(|_| status == StatusCode::OK) else {
        return Err(format!("initialize: {status} {text}"));
    };
    let notified = post(http, server, Some(&session), INITIALIZED.to_owned())
        .await
        .map_err(describe)?;
    if notified.status() != StatusCode::ACCEPTED {
        return Err(format!("initialized: {}", notified.status()));
    }
    Ok(session)
}

/// Calls `greet` on `session`; the reply must be its JSON result.
async fn greet_on(
    http: &reqwest::Client,
    server: &McpHttpServer,
    session: &str,
    id: u64,
) -> Result<(), String> {
    let response = post(http, server, Some(session), call(id))
        .await
        .map_err(describe)?;
    let status = response.status();
    let kind = response
        .headers()
        .get("content-type")
        .and_then(|kind| kind.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    let text = response.text().await.map_err(describe)?;
    if status != StatusCode::OK || !text.contains("Hello, Ada!") {
        return Err(format!("call: {status} {text}"));
    }
    if kind != "application/json" {
        return Err(format!("call answered as {kind}, not JSON: {text}"));
    }
    Ok(())
}

/// A standalone event stream on `session`: the session is active while it
/// is open.
async fn listen(
    http: &reqwest::Client,
    server: &McpHttpServer,
    session: &str,
) -> reqwest::Response {
    let stream = http
        .get(server.url())
        .header("accept", "text/event-stream")
        .header("mcp-session-id", session)
        .header("mcp-protocol-version", "2025-06-18")
        .send()
        .await
        .unwrap();
    assert_eq!(stream.status(), StatusCode::OK);
    stream
}

#[tokio::test]
async fn a_full_server_closes_the_least_recently_used_idle_session() {
    let server = server(|server| server.http(HttpOptions::default().max_sessions(2))).await;
    let http = client_from(loopback(1));
    let first = open(&http, &server).await.unwrap();
    let second = open(&http, &server).await.unwrap();
    greet_on(&http, &server, &first, 2).await.unwrap();
    // `second` is now the least recently used: the newcomer takes its place.
    let third = open(&http, &server).await.unwrap();
    greet_on(&http, &server, &first, 3).await.unwrap();
    greet_on(&http, &server, &third, 2).await.unwrap();
    let gone = post(&http, &server, Some(&second), call(2)).await.unwrap();
    assert_eq!(gone.status(), StatusCode::NOT_FOUND);
    assert_eq!(server.open_sessions(), 2);
}

#[tokio::test]
async fn only_when_every_session_is_active_is_a_newcomer_refused_with_retry_after() {
    let server = server(|server| server.http(HttpOptions::default().max_sessions(1))).await;
    let http = client_from(loopback(1));
    let session = open(&http, &server).await.unwrap();
    let stream = listen(&http, &server, &session).await;
    let refused = post(&http, &server, None, INITIALIZE.to_owned())
        .await
        .unwrap();
    assert_eq!(refused.status(), StatusCode::SERVICE_UNAVAILABLE);
    assert!(refused.headers().contains_key("retry-after"));
    let message = refused.text().await.unwrap();
    assert!(
        message.contains("all 1 open sessions are active"),
        "{message}"
    );
    // The stream closed, the session is idle again, and gives way.
    drop(stream);
    let admitted = tokio::time::timeout(BOUND, async {
        loop {
            if open(&http, &server).await.is_ok() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await;
    assert!(admitted.is_ok(), "the idle session never gave way");
}

#[tokio::test]
async fn a_client_at_its_cap_replaces_its_own_sessions_and_others_are_untouched() {
    let server =
        server(|server| server.http(HttpOptions::default().max_sessions_per_client(2))).await;
    let other = client_from(loopback(2));
    let theirs = open(&other, &server).await.unwrap();
    let http = client_from(loopback(1));
    let first = open(&http, &server).await.unwrap();
    let second = open(&http, &server).await.unwrap();
    let third = open(&http, &server).await.unwrap();
    // The client's own least recently used session made room.
    let gone = post(&http, &server, Some(&first), call(2)).await.unwrap();
    assert_eq!(gone.status(), StatusCode::NOT_FOUND);
    greet_on(&other, &server, &theirs, 2).await.unwrap();
    // With both of its sessions active, the client is refused, alone.
    let _streams = (
        listen(&http, &server, &second).await,
        listen(&http, &server, &third).await,
    );
    let refused = post(&http, &server, None, INITIALIZE.to_owned())
        .await
        .unwrap();
    assert_eq!(refused.status(), StatusCode::TOO_MANY_REQUESTS);
    assert!(refused.headers().contains_key("retry-after"));
    open(&other, &server).await.unwrap();
}

#[tokio::test]
async fn a_session_never_used_closes_after_its_short_lifetime() {
    let server = server(|server| {
        server.http(HttpOptions::default().unused_session_timeout(Duration::from_millis(200)))
    })
    .await;
    let http = client_from(loopback(1));
    let unused = open(&http, &server).await.unwrap();
    let used = open(&http, &server).await.unwrap();
    greet_on(&http, &server, &used, 2).await.unwrap();
    let expired = tokio::time::timeout(BOUND, async {
        while server.open_sessions() > 1 {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await;
    assert!(expired.is_ok(), "the unused session stayed open");
    let gone = post(&http, &server, Some(&unused), call(2)).await.unwrap();
    assert_eq!(gone.status(), StatusCode::NOT_FOUND);
    greet_on(&http, &server, &used, 3).await.unwrap();
}

#[tokio::test]
async fn a_session_closed_with_delete_is_answered_no_content_and_is_gone() {
    let server = server(|server| server).await;
    let http = client_from(loopback(1));
    let session = open(&http, &server).await.unwrap();
    greet_on(&http, &server, &session, 2).await.unwrap();
    let closed = http
        .delete(server.url())
        .header("mcp-session-id", &session)
        .header("mcp-protocol-version", "2025-06-18")
        .send()
        .await
        .unwrap();
    assert_eq!(closed.status(), StatusCode::NO_CONTENT);
    assert_eq!(server.open_sessions(), 0);
    let gone = post(&http, &server, Some(&session), call(3)).await.unwrap();
    assert_eq!(gone.status(), StatusCode::NOT_FOUND);
}

/// Look something up.
#[tool(read_only)]
async fn lookup(
    /// What to look up
    topic: String,
) -> String {
    topic
}

/// A change to the tools made while a session opens (after its
/// `initialize`, as its `notifications/initialized` is on its way) reaches
/// the session as `list_changed`: the session hears the tools from
/// `initialize` on, and goes on hearing them, unbroken, once initialized.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_change_made_while_a_session_opens_is_told_to_it() {
    let registry = Registry::new();
    registry.register::<greet>().unwrap().keep();
    let server = McpServer::new(registry.clone())
        .serve_http("127.0.0.1:0".parse().unwrap())
        .await
        .unwrap();
    let http = client_from(loopback(1));
    let mut lookup = None;
    for round in 0..50 {
        let response = post(&http, &server, None, INITIALIZE.to_owned())
            .await
            .unwrap();
        let session = response.headers()["mcp-session-id"]
            .to_str()
            .unwrap()
            .to_owned();
        response.text().await.unwrap();
        // The change and `notifications/initialized` cross.
        let (_, notified) = tokio::join!(
            async {
                match lookup.take() {
                    None => lookup = Some(registry.register::<lookup>().unwrap()),
                    Some(tool) => {
                        tool.unregister();
                    }
                }
            },
            post(&http, &server, Some(&session), INITIALIZED.to_owned())
        );
        assert_eq!(notified.unwrap().status(), StatusCode::ACCEPTED);
        let mut stream = listen(&http, &server, &session).await;
        let mut seen = String::new();
        tokio::time::timeout(Duration::from_secs(5), async {
            while !seen.contains("notifications/tools/list_changed") {
                let chunk = stream
                    .chunk()
                    .await
                    .unwrap()
                    .expect("the stream stays open");
                seen.push_str(&String::from_utf8_lossy(&chunk));
            }
        })
        .await
        .unwrap_or_else(|_| {
            panic!("round {round}: no list_changed on the session's stream: {seen:?}")
        });
    }
}

/// The resident set of this process, in KiB.
fn rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|status| {
            status.lines().find_map(|line| {
                line.strip_prefix("VmRSS:")?
                    .trim()
                    .trim_end_matches(" kB")
                    .parse()
                    .ok()
            })
        })
        .unwrap_or(0)
}

/// One client opens sessions at full speed and never uses them, from 16
/// connections, while 200 honest clients, each with its own session and
/// address, keep calling: every honest call succeeds, open sessions (and
/// so memory) stay bounded by the honest ones plus the flooder's share,
/// and the flood's sessions are evicted or expire. The flood lasts 30 s;
/// `DSH_FLOOD_SECONDS` sets another length.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_flood_of_unused_sessions_leaves_every_honest_call_served() {
    const HONEST: u32 = 200;
    const SHARE: usize = 20;
    let seconds = std::env::var("DSH_FLOOD_SECONDS")
        .ok()
        .and_then(|seconds| seconds.parse().ok())
        .unwrap_or(30);
    let server = Arc::new(
        server(|server| {
            server.http(
                HttpOptions::default()
                    .max_sessions_per_client(SHARE)
                    .unused_session_timeout(Duration::from_secs(2)),
            )
        })
        .await,
    );
    let stop = Arc::new(AtomicBool::new(false));
    let calls = Arc::new(AtomicUsize::new(0));
    // Every honest client connects and makes its first call before the
    // flood starts, then keeps calling until it ends.
    let ready = Arc::new(tokio::sync::Barrier::new(HONEST as usize + 1));
    let mut honest = tokio::task::JoinSet::new();
    for n in 0..HONEST {
        let (server, stop, calls) = (Arc::clone(&server), Arc::clone(&stop), Arc::clone(&calls));
        let ready = Arc::clone(&ready);
        let http = client_from(loopback(2 + n));
        honest.spawn(async move {
            let session = open(&http, &server).await;
            let first = match &session {
                Ok(session) => greet_on(&http, &server, session, 2).await,
                Err(error) => Err(error.clone()),
            };
            ready.wait().await;
            let session = session?;
            first?;
            let mut id = 3;
            while !stop.load(Ordering::Relaxed) {
                greet_on(&http, &server, &session, id).await?;
                calls.fetch_add(1, Ordering::Relaxed);
                id += 1;
            }
            Ok::<_, String>(id - 3)
        });
    }
    ready.wait().await;
    let rss_before = rss_kib();
    let admitted = Arc::new(AtomicUsize::new(0));
    let refused = Arc::new(AtomicUsize::new(0));
    let mut flood = tokio::task::JoinSet::new();
    let flooder = client_from(loopback(1));
    for _ in 0..16 {
        let (server, stop, flooder) = (Arc::clone(&server), Arc::clone(&stop), flooder.clone());
        let (admitted, refused) = (Arc::clone(&admitted), Arc::clone(&refused));
        flood.spawn(async move {
            while !stop.load(Ordering::Relaxed) {
                let response = post(&flooder, &server, None, INITIALIZE.to_owned())
                    .await
                    .map_err(describe)?;
                match response.status() {
                    StatusCode::OK => admitted.fetch_add(1, Ordering::Relaxed),
                    StatusCode::TOO_MANY_REQUESTS => refused.fetch_add(1, Ordering::Relaxed),
                    other => return Err(format!("the flood got {other}")),
                };
                response.bytes().await.map_err(describe)?;
            }
            Ok::<_, String>(())
        });
    }
    let started = Instant::now();
    let mut most_open = 0;
    while started.elapsed() < Duration::from_secs(seconds) {
        most_open = most_open.max(server.open_sessions());
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    stop.store(true, Ordering::Relaxed);
    let mut fewest_calls = usize::MAX;
    while let Some(outcome) = honest.join_next().await {
        let made = outcome.unwrap().unwrap_or_else(|error| panic!("{error}"));
        fewest_calls = fewest_calls.min(made as usize);
    }
    while let Some(outcome) = flood.join_next().await {
        outcome.unwrap().unwrap();
    }
    let rss_after = rss_kib();
    let admitted = admitted.load(Ordering::Relaxed);
    eprintln!(
        "flood for {seconds} s: {} honest calls (each client at least {fewest_calls}), flood sessions admitted {admitted}, refused {}, at most {most_open} sessions open, RSS {rss_before} KiB -> {rss_after} KiB",
        calls.load(Ordering::Relaxed),
        refused.load(Ordering::Relaxed),
    );
    assert!(fewest_calls > 0, "an honest client made no call");
    // Unbounded, the flood's sessions alone (about 50 KiB each, thousands a
    // second) would grow the process by gigabytes.
    assert!(
        rss_after.saturating_sub(rss_before) < 96 * 1024,
        "memory grew from {rss_before} KiB to {rss_after} KiB during the flood"
    );
    assert!(
        most_open <= HONEST as usize + SHARE,
        "{most_open} sessions were open at once"
    );
    // The flood's sessions were evicted or expire; the honest ones stay.
    let settled = tokio::time::timeout(BOUND, async {
        while server.open_sessions() > HONEST as usize {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    })
    .await;
    assert!(
        settled.is_ok(),
        "{} sessions still open",
        server.open_sessions()
    );
    assert_eq!(server.open_sessions(), HONEST as usize);
}

/// With the default limits, 1,000 sessions are open at once (all from one
/// address, as behind a reverse proxy) and each makes a call.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_thousand_concurrent_sessions_connect_and_call_with_the_defaults() {
    const SESSIONS: usize = 1000;
    let server = Arc::new(server(|server| server).await);
    let http = reqwest::Client::builder().timeout(BOUND).build().unwrap();
    // At most this many requests (and so connections) at a time.
    let connections = Arc::new(tokio::sync::Semaphore::new(64));
    // Each session connects and calls, waits until all are open, and calls
    // again.
    let all_open = Arc::new(tokio::sync::Barrier::new(SESSIONS + 1));
    let mut opening = tokio::task::JoinSet::new();
    for _ in 0..SESSIONS {
        let (server, http, connections) =
            (Arc::clone(&server), http.clone(), Arc::clone(&connections));
        let all_open = Arc::clone(&all_open);
        opening.spawn(async move {
            let opened = async {
                let _connection = connections.acquire().await.unwrap();
                let session = open(&http, &server).await?;
                greet_on(&http, &server, &session, 2).await?;
                Ok::<_, String>(session)
            }
            .await;
            all_open.wait().await;
            let session = opened?;
            let _connection = connections.acquire().await.unwrap();
            greet_on(&http, &server, &session, 3).await
        });
    }
    all_open.wait().await;
    assert_eq!(server.open_sessions(), SESSIONS);
    while let Some(opened) = opening.join_next().await {
        opened.unwrap().unwrap_or_else(|error| panic!("{error}"));
    }
    assert_eq!(server.open_sessions(), SESSIONS);
}
