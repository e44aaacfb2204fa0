//! The `mcp_server` example, driven by clients nobody on this project wrote:
//! the official MCP Python SDK (`mcp_client.py`, from a virtualenv made under
//! `target/` on first use) and rmcp's client, over stdio and streamable HTTP;
//! then proxied into a registry and killed.
//!
//! The server runs as the `dsh-mcp-server` binary, the example's code built
//! as a binary so that cargo builds it before these tests.
#![cfg(unix)]

use std::path::Path;
use std::process::{Child, Command};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::common::{Scratch, run_python, spawn_server};

use dsh_kit::Registry;
use dsh_kit::event::rawp::ToolStatus;
use dsh_kit::event::{Event, StreamType};
use dsh_kit::mcp::McpProxy;
use dsh_kit::mcp::rmcp::model::{
    CallToolRequestParams, ClientCapabilities, ClientConfig, ErrorCode, Implementation,
    ProgressNotificationParam, ProtocolVersion,
};
use dsh_kit::mcp::rmcp::service::{NotificationContext, RunningService};
use dsh_kit::mcp::rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use dsh_kit::mcp::rmcp::{
    ClientHandler, ClientLifecycleMode, ClientServiceExt, RoleClient, ServiceError,
};
use dsh_kit_examples::greet;
use serde_json::{Value, json};

const SERVER: &str = env!("CARGO_BIN_EXE_dsh-mcp-server");
const ALLOW: [&str; 4] = ["--allow", "edit_file", "--allow", "bash"];
/// The longest any one step here may take.
const STEP: Duration = Duration::from_secs(20);

// ---------------------------------------------------------------------------
// The official MCP Python SDK

#[test]
fn the_python_sdk_drives_the_server_over_stdio() {
    let scratch = Scratch::new("python-stdio");
    let events = scratch.file("events.jsonl");
    let args = ["--stdio", SERVER, "--events"].map(String::from);
    run_python(&args, &events);
}

#[test]
fn the_python_sdk_drives_the_server_over_stdio_with_the_initialize_handshake() {
    let scratch = Scratch::new("python-legacy");
    let events = scratch.file("events.jsonl");
    let args = ["--stdio", SERVER, "--legacy", "--events"].map(String::from);
    run_python(&args, &events);
}

#[test]
fn the_python_sdk_drives_the_server_over_http() {
    let scratch = Scratch::new("python-http");
    let events = scratch.file("events.jsonl");
    let server = HttpServer::start(&events);
    let args = ["--url", &server.url, "--events"].map(String::from);
    run_python(&args, &events);
}

/// A 2025-11-25 session over HTTP, closed with `DELETE` at the end.
#[test]
fn the_python_sdk_drives_the_server_over_http_with_the_initialize_handshake() {
    let scratch = Scratch::new("python-http-legacy");
    let events = scratch.file("events.jsonl");
    let server = HttpServer::start(&events);
    let args = ["--legacy", "--url", &server.url, "--events"].map(String::from);
    run_python(&args, &events);
}

// ---------------------------------------------------------------------------
// rmcp's client

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rmcp_drives_the_server_over_stdio() {
    for modern in [false, true] {
        let scratch = Scratch::new("rmcp-stdio");
        let events = scratch.file("events.jsonl");
        let mut command = tokio::process::Command::new(SERVER);
        command.args(ALLOW).arg("--events").arg(&events);
        let transport = TokioChildProcess::new(command).expect("the server starts");
        let client = connect(transport, modern).await;
        drive(client, &events, modern).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rmcp_drives_the_server_over_http() {
    for modern in [false, true] {
        let scratch = Scratch::new("rmcp-http");
        let events = scratch.file("events.jsonl");
        let server = HttpServer::start(&events);
        let transport = StreamableHttpClientTransport::from_uri(server.url.as_str());
        let client = connect(transport, modern).await;
        drive(client, &events, modern).await;
    }
}

/// `--root`: the server's file tools resolve paths inside the directory
/// given, and refuse one that leads out of it, whatever its spelling.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_server_confines_paths_to_its_root() {
    let scratch = Scratch::new("root");
    let root = scratch.file("project");
    std::fs::create_dir_all(root.join("src")).unwrap();
    std::fs::write(root.join("notes.txt"), "inside\n").unwrap();
    std::fs::write(scratch.file("secret.txt"), "secret\n").unwrap();
    let mut command = tokio::process::Command::new(SERVER);
    command.arg("--root").arg(&root);
    let transport = TokioChildProcess::new(command).expect("the server starts");
    let client = connect(transport, false).await;

    let read = |path: &str| call("read_file", json!({ "path": path }));
    let inside = client.call_tool(read("src/../notes.txt")).await.unwrap();
    assert_eq!(inside.is_error, Some(false));
    // `read_file` renders: its numbered lines are all the result carries.
    assert_eq!(inside.structured_content, None);
    assert_eq!(
        inside.content[0].as_text().unwrap().text,
        "     1\tinside\n"
    );
    for escape in ["../secret.txt", "src/../../secret.txt", "/etc/hostname"] {
        let refused = client.call_tool(read(escape)).await.unwrap();
        assert_eq!(refused.is_error, Some(true));
        let text = &refused.content[0].as_text().unwrap().text;
        assert!(
            text.contains("outside the allowed roots"),
            "{escape}: {text}"
        );
    }
    client.cancel().await.unwrap();
}

/// An rmcp client that keeps the progress notifications it gets.
#[derive(Clone, Default)]
struct Recorder {
    progress: Arc<Mutex<Vec<ProgressNotificationParam>>>,
}

impl ClientHandler for Recorder {
    fn get_info(&self) -> ClientConfig {
        ClientConfig::new(
            ClientCapabilities::default(),
            Implementation::new("dsh-tests", "0"),
        )
    }

    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _: NotificationContext<RoleClient>,
    ) {
        self.progress.lock().unwrap().push(params);
    }
}

/// Connects with `initialize` (protocol 2025-11-25), or with `server/discover` (2026-07-28).
async fn connect<T, E, A>(transport: T, modern: bool) -> RunningService<RoleClient, Recorder>
where
    T: dsh_kit::mcp::rmcp::transport::IntoTransport<RoleClient, E, A>,
    E: std::error::Error + Send + Sync + 'static,
{
    let lifecycle = if modern {
        ClientLifecycleMode::Discover {
            preferred_versions: vec![ProtocolVersion::V_2026_07_28],
        }
    } else {
        ClientLifecycleMode::Initialize
    };
    tokio::time::timeout(
        STEP,
        Recorder::default().serve_with_lifecycle(transport, lifecycle),
    )
    .await
    .expect("the handshake ends in time")
    .expect("the handshake succeeds")
}

fn call(name: &str, args: Value) -> CallToolRequestParams {
    let Value::Object(args) = args else {
        panic!("arguments must be an object")
    };
    CallToolRequestParams::new(name.to_owned()).with_arguments(args)
}

/// Lists, calls, sends bad arguments, follows progress and cancels.
async fn drive(client: RunningService<RoleClient, Recorder>, events: &Path, modern: bool) {
    let era = if modern { "2026-07-28" } else { "2025-11-25" };

    let tools = tokio::time::timeout(STEP, client.list_all_tools())
        .await
        .unwrap_or_else(|_| too_slow("tools/list", era))
        .expect("tools/list succeeds");
    let names: Vec<&str> = tools.iter().map(|tool| tool.name.as_ref()).collect();
    for name in ["add_days", "edit_file", "greet", "read_file", "wait"] {
        assert!(
            names.contains(&name),
            "`{name}` is not listed ({era}): {names:?}"
        );
    }
    let edit = tools.iter().find(|tool| tool.name == "edit_file").unwrap();
    let hints = edit.annotations.clone().unwrap();
    assert_eq!(
        (
            hints.read_only_hint,
            hints.destructive_hint,
            hints.idempotent_hint
        ),
        (Some(false), Some(true), Some(false))
    );
    let greet = tools.iter().find(|tool| tool.name == "greet").unwrap();
    // An output schema whose root is not an object reaches 2026-07-28 clients only.
    assert_eq!(greet.output_schema.is_some(), modern, "{era}");

    let greeted = client
        .call_tool(call("greet", json!({ "name": "Ada" })))
        .await
        .unwrap();
    assert_eq!(greeted.is_error, Some(false));
    assert_eq!(greeted.content[0].as_text().unwrap().text, "Hello, Ada!");
    let expected = modern.then(|| json!("Hello, Ada!"));
    assert_eq!(greeted.structured_content, expected, "{era}");

    let shifted = client
        .call_tool(call("add_days", json!({ "date": "2024-02-28", "days": 1 })))
        .await
        .unwrap();
    assert_eq!(
        shifted.structured_content,
        Some(json!({ "date": "2024-02-29", "weekday": "Thu" }))
    );

    let bad = client
        .call_tool(call("greet", json!({ "name": 4 })))
        .await
        .unwrap();
    assert_eq!(bad.is_error, Some(true));
    assert_eq!(
        bad.content[0].as_text().unwrap().text,
        r#"invalid arguments for `greet`: /name: 4 is not of type "string""#
    );

    match client.call_tool(call("gret", json!({}))).await {
        Err(ServiceError::McpError(error)) => {
            assert_eq!(error.code, ErrorCode::INVALID_PARAMS);
            assert!(error.message.contains("`greet`"), "{}", error.message);
        }
        other => panic!("an unknown tool gave {other:?} ({era})"),
    }

    // Progress: rmcp's client asks for it on every request, with a token of its own.
    let waited = client
        .call_tool(call("wait", json!({ "millis": 250 })))
        .await
        .unwrap();
    assert_eq!(waited.content[0].as_text().unwrap().text, "waited 250 ms");
    // rmcp's client handles each notification in a task of its own, so the
    // last may be handled just after the result arrives.
    let progress = tokio::time::timeout(STEP, async {
        loop {
            let progress = client.service().progress.lock().unwrap().clone();
            if progress.len() >= 3 {
                return progress;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await
    .unwrap_or_else(|_| too_slow("progress", era));
    let messages: Vec<&str> = progress
        .iter()
        .map(|p| p.message.as_deref().unwrap_or_default())
        .collect();
    assert_eq!(
        messages,
        ["100 of 250 ms", "200 of 250 ms", "250 of 250 ms"],
        "{era}"
    );
    assert!(
        progress
            .iter()
            .all(|p| p.progress_token == progress[0].progress_token)
    );
    let numbers: Vec<(f64, Option<f64>)> = progress.iter().map(|p| (p.progress, p.total)).collect();
    assert_eq!(
        numbers,
        [
            (100.0, Some(250.0)),
            (200.0, Some(250.0)),
            (250.0, Some(250.0))
        ],
        "{era}"
    );

    // Cancelling: dropping the call sends `notifications/cancelled`.
    let started = Instant::now();
    let slow = client.call_tool(call("wait", json!({ "millis": 1800 })));
    assert!(
        tokio::time::timeout(Duration::from_millis(300), slow)
            .await
            .is_err()
    );
    let status = wait_for_result(events, "wait", |status| status != "success").await;
    assert_eq!(status, "cancelled", "{era}");
    assert!(
        started.elapsed() < Duration::from_millis(1800),
        "the call ran to the end ({era})"
    );

    let again = client
        .call_tool(call("greet", json!({ "name": "again" })))
        .await
        .unwrap();
    assert_eq!(again.content[0].as_text().unwrap().text, "Hello, again!");
    let _ = tokio::time::timeout(STEP, client.cancel()).await;
}

fn too_slow(what: &str, era: &str) -> ! {
    panic!("{what} took longer than {STEP:?} ({era})")
}

/// The status of the last `tool.invoke.result` of `tool` in the server's
/// events file that `done` accepts, polling for up to [`STEP`].
async fn wait_for_result(events: &Path, tool: &str, done: impl Fn(&str) -> bool) -> String {
    let deadline = Instant::now() + STEP;
    loop {
        let text = std::fs::read_to_string(events).unwrap_or_default();
        let status = text
            .lines()
            .filter_map(|line| serde_json::from_str::<Value>(line).ok())
            .filter(|event| {
                event["type"] == "tool.invoke.result" && event["payload"]["tool_name"] == tool
            })
            .filter_map(|event| event["payload"]["status"].as_str().map(str::to_owned))
            .next_back();
        if let Some(status) = status
            && done(&status)
        {
            return status;
        }
        assert!(
            Instant::now() < deadline,
            "no result for `{tool}` in {}:\n{text}",
            events.display()
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

// ---------------------------------------------------------------------------
// Proxying

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_proxied_server_s_tools_run_here_and_turn_unavailable_when_it_dies() {
    let scratch = Scratch::new("proxy");
    let pid_file = scratch.file("server.pid");
    let registry = Registry::new();
    let _greet = registry.register::<greet>().unwrap();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&seen);
    let _progress = registry.subscribe(move |event| {
        if let Event::Stream(chunk) = event
            && chunk.stream_type == StreamType::Progress
        {
            sink.lock().unwrap().push(chunk.chunk.clone());
        }
    });

    // `sh` writes the server's pid, then becomes the server.
    let mut command = tokio::process::Command::new("sh");
    command
        .arg("-c")
        .arg(r#"echo $$ > "$0" && exec "$1""#)
        .arg(&pid_file)
        .arg(SERVER);
    let proxy = tokio::time::timeout(
        STEP,
        McpProxy::builder("examples").stdio(&registry, command),
    )
    .await
    .expect("the proxy connects in time")
    .expect("the proxy connects");

    // Every tool of the server but `greet`, which the built-in tool here holds.
    let proxied = proxy.tools();
    for name in ["add_days", "edit_file", "lorem", "read_file", "wait"] {
        assert!(
            proxied.contains(&name.to_owned()),
            "{name} is not proxied: {proxied:?}"
        );
    }
    assert!(!proxied.contains(&"greet".to_owned()));
    assert!(!registry.get("greet").unwrap().is_dynamic());
    let skipped = proxy.diagnostics();
    assert_eq!(skipped.len(), 1, "{skipped:?}");
    assert_eq!(skipped[0].code, dsh_kit::catalog::TOOL_SHADOWED);
    assert!(
        registry
            .catalog()
            .diagnostics
            .iter()
            .any(|d| d.code == dsh_kit::catalog::TOOL_SHADOWED)
    );
    // The pool: built-in tools first, then the proxied ones, each sorted.
    let pool: Vec<String> = registry
        .tools()
        .iter()
        .map(|tool| tool.name().to_owned())
        .collect();
    assert_eq!(pool[0], "greet");
    let mut sorted = pool[1..].to_vec();
    sorted.sort();
    assert_eq!(pool[1..], sorted);

    // A call goes through the pipeline here, then to the server.
    let shifted = registry
        .call("add_days", json!({ "date": "2024-02-28", "days": 1 }))
        .await;
    assert!(!shifted.is_error(), "{}", shifted.text());
    assert_eq!(
        shifted.value,
        Some(json!({ "date": "2024-02-29", "weekday": "Thu" }))
    );
    let bad = registry
        .call("add_days", json!({ "date": "2024-02-28" }))
        .await;
    assert_eq!(
        bad.text(),
        "invalid arguments for `add_days`: /days: required property missing"
    );
    let waited = registry.call("wait", json!({ "millis": 250 })).await;
    assert_eq!(waited.text(), "waited 250 ms");
    // Forwarded in order. rmcp's client hands each notification to a task of
    // its own, so the last one can lose the race with the result.
    let seen = seen.lock().unwrap().clone();
    let sent = ["100 of 250 ms", "200 of 250 ms", "250 of 250 ms"];
    let seen: Vec<&str> = seen.iter().map(String::as_str).collect();
    assert!(seen.len() >= 2 && sent.starts_with(&seen), "{seen:?}");
    // The server's own refusal comes back as the tool's error.
    let refused = registry
        .call(
            "edit_file",
            json!({ "path": "/nonexistent", "old": "a", "new": "b" }),
        )
        .await;
    assert!(refused.is_error());
    assert!(
        refused.text().contains("no approver is set up"),
        "{}",
        refused.text()
    );

    // Kill the server.
    let pid = tokio::time::timeout(STEP, async {
        loop {
            if let Ok(pid) = std::fs::read_to_string(&pid_file)
                && !pid.trim().is_empty()
            {
                return pid.trim().to_owned();
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await
    .expect("the server wrote its pid");
    let killed = Command::new("kill").args(["-9", &pid]).status().unwrap();
    assert!(killed.success());
    let reason = tokio::time::timeout(STEP, proxy.closed())
        .await
        .expect("the proxy sees the server go");
    assert_eq!(reason, "its connection closed");
    assert!(!proxy.is_connected());

    let status = registry
        .catalog()
        .tools
        .into_iter()
        .find(|tool| tool.name == "add_days")
        .unwrap();
    assert_eq!(status.status, ToolStatus::Unavailable);
    assert_eq!(
        status.status_description.as_deref(),
        Some("the MCP server `examples` is gone: its connection closed")
    );
    let refused = registry
        .call("add_days", json!({ "date": "2024-02-28", "days": 1 }))
        .await;
    assert!(refused.is_error());
    assert_eq!(
        refused.text(),
        "`add_days` is unavailable and cannot be called: the MCP server `examples` is gone: its connection closed"
    );
    // The built-in tool is untouched.
    assert!(
        !registry
            .call("greet", json!({ "name": "Ada" }))
            .await
            .is_error()
    );

    // Dropping the proxy takes its tools out of the pool.
    drop(proxy);
    let pool: Vec<String> = registry
        .tools()
        .iter()
        .map(|tool| tool.name().to_owned())
        .collect();
    assert_eq!(pool, ["greet"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_proxied_over_http_reports_its_death_by_name() {
    let scratch = Scratch::new("proxy-http");
    let mut server = HttpServer::start(&scratch.file("events.jsonl"));
    let registry = Registry::new();
    let proxy = tokio::time::timeout(
        STEP,
        McpProxy::builder("examples")
            .prefix("ex_")
            .http(&registry, &server.url),
    )
    .await
    .expect("the proxy connects in time")
    .expect("the proxy connects");
    assert!(proxy.tools().contains(&"ex_greet".to_owned()));
    let greeted = registry.call("ex_greet", json!({ "name": "Ada" })).await;
    assert_eq!(greeted.text(), "Hello, Ada!");

    server.kill();
    let failed = tokio::time::timeout(STEP, registry.call("ex_greet", json!({ "name": "Ada" })))
        .await
        .expect("the call ends in time");
    assert!(failed.is_error());
    assert!(failed.is_error());
    assert!(
        failed.text().starts_with(
            "`ex_greet` failed: the MCP server `examples` is gone: nothing answers at its address ("
        ),
        "{}",
        failed.text()
    );
    // From then on the proxy knows: its tools are unavailable.
    assert!(!proxy.is_connected());
    let refused = registry.call("ex_greet", json!({ "name": "Ada" })).await;
    assert!(
        refused.text().starts_with("`ex_greet` is unavailable and cannot be called: the MCP server `examples` is gone: nothing answers at its address"),
        "{}",
        refused.text()
    );
}

// ---------------------------------------------------------------------------
// Helpers

/// The example server on a free loopback port; killed when dropped.
struct HttpServer {
    child: Child,
    url: String,
}

impl HttpServer {
    fn start(events: &Path) -> Self {
        let mut command = Command::new(SERVER);
        command
            .args(["--http", "127.0.0.1:0"])
            .args(ALLOW)
            .arg("--events")
            .arg(events);
        let (child, url) = spawn_server(command, STEP);
        HttpServer { child, url }
    }

    fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        self.kill();
    }
}
