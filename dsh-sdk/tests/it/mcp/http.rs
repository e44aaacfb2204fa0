//! The MCP server's HTTP transport against abusive clients, over real
//! sockets on 127.0.0.1: foreign origins, stalled connections, too many
//! sessions, malformed params.
#![cfg(feature = "mcp")]

use std::time::Duration;

use dsh_kit::Registry;
use dsh_kit::mcp::{HttpOptions, McpHttpServer, McpServer};
use dsh_kit::prelude::*;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// How long a test waits for what must happen, far past any configured timeout.
const BOUND: Duration = Duration::from_secs(20);

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

/// A POST to `/mcp` with `extra` headers, as raw HTTP/1.1.
fn post(server: &McpHttpServer, extra: &str, body: &str) -> String {
    format!(
        "POST /mcp HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: {}\r\n{extra}\r\n{body}",
        server.local_addr(),
        body.len()
    )
}

/// Sends `request` and reads until the server closes or a full status line
/// and headers arrived, giving what was read.
async fn exchange(server: &McpHttpServer, request: &str) -> String {
    let mut stream = TcpStream::connect(server.local_addr()).await.unwrap();
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut read = Vec::new();
    let mut buf = [0; 4096];
    tokio::time::timeout(BOUND, async {
        loop {
            let n = stream.read(&mut buf).await.unwrap_or(0);
            if n == 0 {
                break;
            }
            read.extend_from_slice(&buf[..n]);
            if read.windows(4).any(|w| w == b"\r\n\r\n") {
                break;
            }
        }
    })
    .await
    .expect("the server answered");
    String::from_utf8_lossy(&read).into_owned()
}

fn status(response: &str) -> &str {
    response.split(' ').nth(1).unwrap_or("")
}

/// Reads until the server closes the connection, within [`BOUND`].
async fn closed_by_server(stream: &mut TcpStream) -> Vec<u8> {
    let mut read = Vec::new();
    let mut buf = [0; 4096];
    tokio::time::timeout(BOUND, async {
        loop {
            match stream.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => read.extend_from_slice(&buf[..n]),
            }
        }
    })
    .await
    .expect("the server closed the stalled connection");
    read
}

#[tokio::test]
async fn a_foreign_origin_is_refused_and_loopback_or_no_origin_is_served() {
    let server = server(|server| {
        server.http(HttpOptions::default().allowed_origins(["https://app.example.com:443"]))
    })
    .await;
    let foreign = exchange(
        &server,
        &post(&server, "Origin: http://evil.example\r\n", INITIALIZE),
    )
    .await;
    assert_eq!(status(&foreign), "403", "{foreign}");
    let rebinding = exchange(
        &server,
        &post(&server, "Origin: http://attacker.test:8080\r\n", INITIALIZE),
    )
    .await;
    assert_eq!(status(&rebinding), "403", "{rebinding}");
    for origin in [
        "",
        "Origin: http://localhost:3000\r\n",
        "Origin: http://127.0.0.1:5173\r\n",
        "Origin: https://app.example.com\r\n",
    ] {
        let response = exchange(&server, &post(&server, origin, INITIALIZE)).await;
        assert_eq!(status(&response), "200", "{origin}: {response}");
    }
}

#[tokio::test]
async fn a_connection_stalled_mid_headers_is_closed() {
    let server = server(|server| {
        server.http(
            HttpOptions::default()
                .header_read_timeout(Duration::from_millis(300))
                .keep_alive_timeout(Duration::from_millis(600)),
        )
    })
    .await;
    let mut stream = TcpStream::connect(server.local_addr()).await.unwrap();
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: {}\r\nContent-",
        server.local_addr()
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    closed_by_server(&mut stream).await;

    // An idle connection, never sending a byte, is closed too, after the
    // keep-alive timeout.
    let mut idle = TcpStream::connect(server.local_addr()).await.unwrap();
    closed_by_server(&mut idle).await;
}

/// A kept-alive connection waiting for its next request is timed by the
/// keep-alive timeout, not the (shorter) header read timeout: a client that
/// keeps its connections a few seconds never sends on one the server closed.
#[tokio::test]
async fn an_idle_kept_alive_connection_outlives_the_header_read_timeout() {
    let server = server(|server| {
        server.http(
            HttpOptions::default()
                .header_read_timeout(Duration::from_millis(200))
                .keep_alive_timeout(Duration::from_secs(30)),
        )
    })
    .await;
    let mut stream = TcpStream::connect(server.local_addr()).await.unwrap();
    let get = format!(
        "GET /elsewhere HTTP/1.1\r\nHost: {}\r\n\r\n",
        server.local_addr()
    );
    for _ in 0..2 {
        stream.write_all(get.as_bytes()).await.unwrap();
        let mut buf = [0; 4096];
        let n = tokio::time::timeout(BOUND, stream.read(&mut buf))
            .await
            .expect("an answer")
            .unwrap();
        let response = String::from_utf8_lossy(&buf[..n]).into_owned();
        assert_eq!(status(&response), "404", "{response}");
        // Idle for three header read timeouts.
        tokio::time::sleep(Duration::from_millis(600)).await;
    }
}

#[tokio::test]
async fn a_connection_stalled_mid_body_gets_408_and_is_closed() {
    let server = server(|server| {
        server.http(HttpOptions::default().body_read_timeout(Duration::from_millis(300)))
    })
    .await;
    let mut stream = TcpStream::connect(server.local_addr()).await.unwrap();
    let request = post(&server, "", INITIALIZE);
    // Everything but the last 10 bytes of the body.
    stream
        .write_all(&request.as_bytes()[..request.len() - 10])
        .await
        .unwrap();
    let response = String::from_utf8_lossy(&closed_by_server(&mut stream).await).into_owned();
    assert_eq!(status(&response), "408", "{response}");
    assert!(
        response.ends_with("the request body did not arrive within 300 ms"),
        "{response}"
    );
}

#[tokio::test]
async fn an_oversized_body_gets_413() {
    let server = server(|server| server.http(HttpOptions::default().max_body_bytes(100))).await;
    let response = exchange(&server, &post(&server, "", INITIALIZE)).await;
    assert_eq!(status(&response), "413", "{response}");
    assert!(
        response.to_ascii_lowercase().contains("connection: close"),
        "{response}"
    );
}

/// The host's limit is the only one: a body past the default 4 MiB is
/// taken when the host raised the limit (rmcp checks none of its own).
#[tokio::test]
async fn the_body_limit_is_the_hosts_alone() {
    let padding = "x".repeat(5 * 1024 * 1024);
    let large = INITIALIZE.replace(
        r#""version":"0"}"#,
        &format!(r#""version":"0","padding":"{padding}"}}"#),
    );
    let raised =
        server(|server| server.http(HttpOptions::default().max_body_bytes(8 * 1024 * 1024))).await;
    let response = exchange(&raised, &post(&raised, "", &large)).await;
    assert_eq!(
        status(&response),
        "200",
        "{}",
        &response[..response.len().min(500)]
    );
}

/// A session with no traffic for the idle timeout closes, used or not.
#[tokio::test]
async fn idle_sessions_expire() {
    let server = server(|server| {
        server.http(HttpOptions::default().session_idle_timeout(Duration::from_millis(200)))
    })
    .await;
    let first = exchange(&server, &post(&server, "", INITIALIZE)).await;
    assert_eq!(status(&first), "200", "{first}");
    assert_eq!(server.open_sessions(), 1);
    let expired = tokio::time::timeout(BOUND, async {
        while server.open_sessions() > 0 {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    })
    .await;
    assert!(expired.is_ok(), "the idle session never expired");
}

/// Sends `request` and reads until `done` holds for what was read.
async fn read_until(server: &McpHttpServer, request: &str, done: impl Fn(&str) -> bool) -> String {
    let mut stream = TcpStream::connect(server.local_addr()).await.unwrap();
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut read = Vec::new();
    let mut buf = [0; 4096];
    tokio::time::timeout(BOUND, async {
        while !done(&String::from_utf8_lossy(&read)) {
            match stream.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => read.extend_from_slice(&buf[..n]),
            }
        }
    })
    .await
    .expect("the server answered");
    String::from_utf8_lossy(&read).into_owned()
}

#[tokio::test]
async fn malformed_params_of_a_known_method_are_invalid_params() {
    let server = server(|server| server).await;
    let initialized = exchange(&server, &post(&server, "", INITIALIZE)).await;
    let session = initialized
        .lines()
        .find_map(|line| {
            let (name, value) = line.split_once(':')?;
            name.eq_ignore_ascii_case("mcp-session-id")
                .then(|| value.trim().to_owned())
        })
        .expect("a session id");
    let header = format!("Mcp-Session-Id: {session}\r\n");
    let notified = exchange(
        &server,
        &post(
            &server,
            &header,
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        ),
    )
    .await;
    assert_eq!(status(&notified), "202", "{notified}");

    let has_code = |text: &str| text.contains("\"code\":");
    let bad =
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"arguments":"not an object"}}"#;
    let response = read_until(&server, &post(&server, &header, bad), has_code).await;
    assert!(response.contains("\"code\":-32602"), "{response}");
    assert!(
        response.contains("invalid params for `tools/call`"),
        "{response}"
    );

    let unknown = r#"{"jsonrpc":"2.0","id":3,"method":"tools/frobnicate","params":{}}"#;
    let response = read_until(&server, &post(&server, &header, unknown), has_code).await;
    assert!(response.contains("\"code\":-32601"), "{response}");
}

/// Reads one whole HTTP/1.1 response from `stream`: its head, then a
/// chunked body to its last chunk, or `Content-Length` bytes.
async fn one_response(stream: &mut TcpStream) -> String {
    let mut read = Vec::new();
    let mut buf = [0; 4096];
    tokio::time::timeout(BOUND, async {
        loop {
            let n = stream.read(&mut buf).await.unwrap_or(0);
            assert!(n > 0, "the server closed the connection");
            read.extend_from_slice(&buf[..n]);
            let text = String::from_utf8_lossy(&read).to_ascii_lowercase();
            let Some((head, body)) = text.split_once("\r\n\r\n") else {
                continue;
            };
            if head.contains("transfer-encoding: chunked") {
                if body.ends_with("0\r\n\r\n") {
                    break;
                }
            } else {
                let length = head
                    .lines()
                    .find_map(|line| line.strip_prefix("content-length:"))
                    .map_or(0, |length| length.trim().parse().unwrap_or(0));
                if body.len() >= length {
                    break;
                }
            }
        }
    })
    .await
    .expect("a whole response");
    String::from_utf8_lossy(&read).into_owned()
}

/// Calls on one kept-alive connection are answered at once. A reply goes
/// out as more than one small write; with Nagle's algorithm on, the last
/// one waits for the client's delayed acknowledgement, about 40 ms on
/// Linux, so the server turns it off on every connection it accepts. The
/// bound is far above what a call of `greet` takes and far below that stall.
#[tokio::test]
async fn calls_on_a_kept_alive_connection_do_not_wait_for_delayed_acks() {
    let server = server(|server| server).await;
    let mut stream = TcpStream::connect(server.local_addr()).await.unwrap();
    stream
        .write_all(post(&server, "", INITIALIZE).as_bytes())
        .await
        .unwrap();
    let initialized = one_response(&mut stream).await;
    let session = initialized
        .lines()
        .find_map(|line| {
            let (name, value) = line.split_once(':')?;
            name.eq_ignore_ascii_case("mcp-session-id")
                .then(|| value.trim().to_owned())
        })
        .expect("a session id");
    let header = format!("Mcp-Session-Id: {session}\r\n");
    let notified = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
    stream
        .write_all(post(&server, &header, notified).as_bytes())
        .await
        .unwrap();
    let notified = one_response(&mut stream).await;
    assert_eq!(status(&notified), "202", "{notified}");

    let mut took = Vec::new();
    for id in 2..22 {
        let call = format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"greet","arguments":{{"name":"Ada"}}}}}}"#
        );
        let started = std::time::Instant::now();
        stream
            .write_all(post(&server, &header, &call).as_bytes())
            .await
            .unwrap();
        let response = one_response(&mut stream).await;
        took.push(started.elapsed());
        assert!(response.contains("Hello, Ada!"), "{response}");
    }
    took.sort();
    let median = took[took.len() / 2];
    assert!(
        median < Duration::from_millis(20),
        "the median call took {median:?}: {took:?}"
    );
}

/// A request the server does not route (another path, or a method the MCP
/// path has not) is answered once its body is read, so the kept-alive
/// connection serves the next request, however slowly the body came.
#[tokio::test]
async fn an_unrouted_request_with_a_body_leaves_the_connection_ready() {
    let server = server(|server| server).await;
    let addr = server.local_addr();
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
    let mut stream = TcpStream::connect(addr).await.unwrap();
    for (method, path) in [("POST", "/elsewhere"), ("PUT", "/mcp")] {
        let head = format!(
            "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
            body.len()
        );
        // The headers first; the body only once the server had time to answer.
        stream.write_all(head.as_bytes()).await.unwrap();
        tokio::time::sleep(Duration::from_millis(200)).await;
        stream.write_all(body.as_bytes()).await.unwrap();
        let response = one_response(&mut stream).await;
        assert!(
            response.starts_with("HTTP/1.1 404") || response.starts_with("HTTP/1.1 405"),
            "{method} {path}: {response}"
        );
        assert!(
            !response.to_ascii_lowercase().contains("connection: close"),
            "{method} {path}: {response}"
        );
    }
    let get = format!("GET /elsewhere HTTP/1.1\r\nHost: {addr}\r\n\r\n");
    stream.write_all(get.as_bytes()).await.unwrap();
    let response = one_response(&mut stream).await;
    assert!(response.starts_with("HTTP/1.1 404"), "{response}");
}
