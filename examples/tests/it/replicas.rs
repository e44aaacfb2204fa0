//! Two replicas of a server behind a real nginx (Debian's package),
//! round-robin, no sessions: the official MCP Python SDK's probe runs
//! through it, a task started through one replica is polled, fetched and
//! cancelled through the other, and, when `.ci/conformance/run` points
//! `DSH_CONFORMANCE_SUITE` at the MCP conformance suite, a subset of its
//! server scenarios runs through it too.
//!
//! nginx runs in the foreground as one process (`master_process off`), with
//! its configuration, pid file, logs and temp files in a scratch directory;
//! it and the replicas are killed when the test ends. Without nginx the
//! tests say so loudly and pass, unless `CI=true`, where they fail.
#![cfg(unix)]

use std::net::SocketAddr;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use crate::common::nginx::{self, nginx};
use crate::common::{Scratch, free_port, run, run_python, spawn_server};
use dsh_kit::mcp::rmcp::model::{
    CallToolRequestParams, CallToolResponse, CancelTaskParams, ClientCapabilities, ClientConfig,
    DetailedTask, GetTaskParams, Implementation, ProtocolVersion, TaskPayload, TaskStatus,
};
use dsh_kit::mcp::rmcp::service::RunningService;
use dsh_kit::mcp::rmcp::transport::StreamableHttpClientTransport;
use dsh_kit::mcp::rmcp::{ClientHandler, ClientLifecycleMode, ClientServiceExt, RoleClient};
use serde_json::{Value, json};

pub(crate) const MCP_SERVER: &str = env!("CARGO_BIN_EXE_dsh-mcp-server");
pub(crate) const CONFORMANCE_SERVER: &str = env!("CARGO_BIN_EXE_dsh-conformance-server");
/// The longest any one step here may take.
pub(crate) const STEP: Duration = Duration::from_secs(20);

/// The conformance scenarios run through nginx: each stands alone on a
/// server with no sessions (no server-to-client requests, no subscriptions).
const SCENARIOS: &[&str] = &[
    "server-initialize",
    "ping",
    "tools-list",
    "tools-call-simple-text",
    "tools-call-image",
    "tools-call-error",
    "tools-call-with-progress",
    "json-schema-2020-12",
    "resources-list",
    "resources-read-text",
    "resources-templates-read",
    "prompts-list",
    "prompts-get-with-args",
    "completion-complete",
];

/// A server process on a free loopback port; killed when dropped.
pub(crate) struct Replica {
    pub(crate) child: Child,
    pub(crate) addr: SocketAddr,
    pub(crate) url: String,
}

impl Replica {
    pub(crate) fn start(binary: &str, args: &[&str]) -> Self {
        let mut command = Command::new(binary);
        command
            .args(["--http", "127.0.0.1:0"])
            .args(args)
            .stderr(Stdio::null());
        let (child, url) = spawn_server(command, STEP);
        let addr = url
            .trim_start_matches("http://")
            .trim_end_matches("/mcp")
            .parse()
            .unwrap_or_else(|_| panic!("not a URL: {url:?}"));
        Replica { child, addr, url }
    }
}

impl Drop for Replica {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// nginx in front of `upstreams`, round-robin; killed when dropped.
pub(crate) struct Nginx {
    process: nginx::Nginx,
    pub(crate) url: String,
}

impl Nginx {
    pub(crate) fn start(nginx: &Path, upstreams: &[SocketAddr]) -> Self {
        let port = free_port();
        let servers: String = upstreams
            .iter()
            .map(|addr| format!("        server {addr};\n"))
            .collect();
        let process = nginx::Nginx::start(nginx, port, &[], |dir| {
            format!(
                r#"    log_format upstream '$request_method $request_uri $status $upstream_addr';
    access_log {dir}/access.log upstream;
    upstream replicas {{
{servers}    }}
    server {{
        listen 127.0.0.1:{port};
        location / {{
            proxy_pass http://replicas;
            proxy_http_version 1.1;
            # The replicas accept loopback Host headers only.
            proxy_set_header Host $http_host;
            proxy_set_header Connection "";
            # Server-sent events go out as they come.
            proxy_buffering off;
            proxy_cache off;
            proxy_read_timeout 120s;
        }}
    }}
"#
            )
        });
        Nginx {
            process,
            url: format!("http://127.0.0.1:{port}/mcp"),
        }
    }

    /// Asserts that nginx passed requests to every one of `replicas`.
    pub(crate) fn served_by_all(&self, replicas: &[&Replica]) {
        // The access log's fourth field is the upstream of each request.
        let upstreams: Vec<String> = std::fs::read_to_string(self.process.file("access.log"))
            .unwrap_or_default()
            .lines()
            .filter_map(|line| line.split(' ').nth(3).map(str::to_owned))
            .collect();
        for replica in replicas {
            assert!(
                upstreams.contains(&replica.addr.to_string()),
                "nginx never passed a request to {}: {upstreams:?}",
                replica.addr
            );
        }
    }
}

#[test]
fn the_python_sdk_probe_runs_through_nginx_over_two_replicas() {
    let Some(nginx) = nginx() else { return };
    let scratch = Scratch::new("replicas-python");
    let events = scratch.file("events.jsonl");
    let events_arg = events.to_str().unwrap();
    let args = [
        "--allow",
        "edit_file",
        "--allow",
        "bash",
        "--events",
        events_arg,
    ];
    let one = Replica::start(MCP_SERVER, &args);
    let other = Replica::start(MCP_SERVER, &args);
    let balancer = Nginx::start(&nginx, &[one.addr, other.addr]);
    // Protocol 2026-07-28 (the probe's `auto` mode) has no sessions: any
    // replica answers any request.
    run_python(
        &["--url", &balancer.url, "--events"].map(String::from),
        &events,
    );
    balancer.served_by_all(&[&one, &other]);
}

/// An rmcp client that takes tasks.
#[derive(Clone)]
pub(crate) struct TaskClient;

impl ClientHandler for TaskClient {
    fn get_info(&self) -> ClientConfig {
        ClientConfig::new(
            ClientCapabilities::builder().enable_tasks().build(),
            Implementation::new("dsh-tests", "0"),
        )
    }
}

pub(crate) async fn connect(url: &str) -> RunningService<RoleClient, TaskClient> {
    let transport = StreamableHttpClientTransport::from_uri(url);
    let lifecycle = ClientLifecycleMode::Discover {
        preferred_versions: vec![ProtocolVersion::V_2026_07_28],
    };
    tokio::time::timeout(STEP, TaskClient.serve_with_lifecycle(transport, lifecycle))
        .await
        .expect("the handshake ends in time")
        .expect("the handshake succeeds")
}

/// Starts `slow_task` for `ms`, giving the task id.
pub(crate) async fn start(client: &RunningService<RoleClient, TaskClient>, ms: u64) -> String {
    let Value::Object(args) = json!({ "ms": ms }) else {
        unreachable!("an object literal")
    };
    let request = CallToolRequestParams::new("slow_task").with_arguments(args);
    let response = tokio::time::timeout(STEP, client.call_tool_once(request))
        .await
        .expect("the call answers in time")
        .expect("the call answers");
    match response {
        CallToolResponse::Task(created) => created.task.task_id,
        other => panic!("`slow_task` answered a task-taking client with {other:?}"),
    }
}

pub(crate) async fn until_done(
    client: &RunningService<RoleClient, TaskClient>,
    id: &str,
) -> DetailedTask {
    tokio::time::timeout(STEP, async {
        loop {
            let got = client
                .get_task(GetTaskParams::new(id))
                .await
                .expect("tasks/get answers");
            if got.task.status().is_terminal() {
                return got.task;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    })
    .await
    .expect("the task ends in time")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_started_through_one_replica_is_fetched_and_cancelled_through_the_other() {
    let Some(nginx) = nginx() else { return };
    let store = Scratch::new("replicas-tasks");
    let store_arg = store.file("tasks");
    let args = ["--stateless", "--task-store", store_arg.to_str().unwrap()];
    let one = Replica::start(CONFORMANCE_SERVER, &args);
    let other = Replica::start(CONFORMANCE_SERVER, &args);
    let balancer = Nginx::start(&nginx, &[one.addr, other.addr]);
    let through_nginx = connect(&balancer.url).await;
    let on_one = connect(&one.url).await;
    let on_other = connect(&other.url).await;

    // Started through nginx, polled through nginx: round-robin sends the
    // polls to both replicas, and the result says which one ran the call.
    let id = start(&through_nginx, 600).await;
    let done = until_done(&through_nginx, &id).await;
    let TaskPayload::Completed { result } = &done.payload else {
        panic!("the task completed: {done:?}")
    };
    let ran_on = result["structuredContent"]["replica"].as_u64().unwrap();
    assert_eq!(result["structuredContent"]["worked_ms"], json!(600));
    // Fetched from the replica that did not run it, addressed directly.
    let (runner, bystander) = if u64::from(one.child.id()) == ran_on {
        (&on_one, &on_other)
    } else {
        assert_eq!(
            u64::from(other.child.id()),
            ran_on,
            "a replica ran the call"
        );
        (&on_other, &on_one)
    };
    let elsewhere = until_done(bystander, &id).await;
    assert_eq!(elsewhere.payload, done.payload);

    // Started on one replica, cancelled through the other: the runner
    // sees the mark in the shared store and stops the call.
    let id = start(runner, 60_000).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    bystander
        .cancel_task(CancelTaskParams::new(&id))
        .await
        .expect("tasks/cancel answers");
    let cancelled = until_done(runner, &id).await;
    assert_eq!(cancelled.status(), TaskStatus::Cancelled);

    balancer.served_by_all(&[&one, &other]);
}

#[test]
fn conformance_scenarios_pass_through_nginx_over_two_replicas() {
    let Some(nginx) = nginx() else { return };
    let Ok(suite) = std::env::var("DSH_CONFORMANCE_SUITE") else {
        eprintln!(
            "\n!!! DSH_CONFORMANCE_SUITE is not set: the conformance scenarios through nginx DID NOT RUN (.ci/conformance/run sets it) !!!\n"
        );
        return;
    };
    let loader = std::env::var("DSH_CONFORMANCE_LOADER").ok();
    let store = Scratch::new("replicas-conformance");
    let store_arg = store.file("tasks");
    let args = ["--stateless", "--task-store", store_arg.to_str().unwrap()];
    let one = Replica::start(CONFORMANCE_SERVER, &args);
    let other = Replica::start(CONFORMANCE_SERVER, &args);
    let balancer = Nginx::start(&nginx, &[one.addr, other.addr]);
    let mut failed = Vec::new();
    for scenario in SCENARIOS {
        let mut node = Command::new("node");
        if let Some(loader) = &loader {
            node.arg("--import").arg(loader);
        }
        node.arg(&suite)
            .args(["server", "--url", &balancer.url, "--scenario", scenario]);
        let ran = run(node, Duration::from_secs(120));
        let passed = ran.success && ran.text.contains(" 0 failed");
        println!("{scenario}: {}", if passed { "passed" } else { "FAILED" });
        if !passed {
            failed.push(format!("{scenario}:\n{}", ran.text));
        }
    }
    assert!(failed.is_empty(), "through nginx:\n{}", failed.join("\n"));
    balancer.served_by_all(&[&one, &other]);
}
