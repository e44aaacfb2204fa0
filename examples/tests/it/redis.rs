//! Three replicas of a server sharing tasks, notifications and sessions
//! through a real Redis (Debian's `redis-server`), behind a round-robin
//! nginx that is not sticky: the official MCP Python SDK's probe in both
//! protocol eras; a task started on one replica, polled and fetched on the
//! others, and cancelled through another within a second; a `list_changed`
//! caused on one replica heard by a client of another; a replica killed
//! mid-task, its task turning `failed` within the lease; Redis restarted
//! mid-run with no completed result lost; a soak of 10,000 tasks that
//! loses none and leaves only live keys; and ([`outage`]) Redis killed and
//! frozen under load on three replicas, with no request waiting past the
//! bound, no finished result lost, deleted sessions ended everywhere and
//! no key outliving its session.
//!
//! Each test starts its own redis-server on a free loopback port, with its
//! data (an append-only file, synced on every write) in a scratch
//! directory. Without redis-server (or nginx) the tests say so loudly and
//! pass, unless `CI=true`, where they fail.
#![cfg(unix)]

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use dsh_kit::mcp::rmcp::model::{
    CancelTaskParams, ClientCapabilities, ClientConfig, Implementation, TaskPayload, TaskStatus,
};
use dsh_kit::mcp::rmcp::service::{NotificationContext, RunningService};
use dsh_kit::mcp::rmcp::transport::StreamableHttpClientTransport;
use dsh_kit::mcp::rmcp::{ClientHandler, ClientLifecycleMode, ClientServiceExt, RoleClient};
use serde_json::json;
use tokio::sync::Notify;

use crate::common::nginx::nginx;
use crate::common::{Scratch, free_port, run_python};
use crate::replicas::{
    CONFORMANCE_SERVER, MCP_SERVER, Nginx, Replica, STEP, TaskClient, connect, start, until_done,
};

/// redis-server, or `None` after saying loudly why the test does not run;
/// under `CI=true` a missing redis-server fails the test.
fn redis_server() -> Option<PathBuf> {
    let found = ["/usr/bin/redis-server", "/usr/local/bin/redis-server"]
        .iter()
        .map(PathBuf::from)
        .find(|path| path.exists());
    if found.is_none() {
        let message = "redis-server is not installed (Debian: apt-get install redis-server): the tests of replicas sharing Redis DID NOT RUN";
        assert!(std::env::var("CI").as_deref() != Ok("true"), "{message}");
        eprintln!("\n!!! {message} !!!\n");
    }
    found
}

/// A redis-server on a loopback port, its data in a scratch directory;
/// killed when dropped.
struct RedisServer {
    binary: PathBuf,
    child: Option<Child>,
    port: u16,
    scratch: Scratch,
}

impl RedisServer {
    fn start(binary: &Path) -> Self {
        let mut server = RedisServer {
            binary: binary.to_owned(),
            child: None,
            port: free_port(),
            scratch: Scratch::new("redis"),
        };
        // A free port may be taken by another test's server before this one
        // binds it: then try another.
        for _ in 0..5 {
            if server.launch() {
                return server;
            }
            server.kill();
            server.port = free_port();
        }
        panic!("redis-server found no free port in five tries");
    }

    fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/", self.port)
    }

    /// Starts the server on its port and directory, and waits until it
    /// answers (having loaded its append-only file): whether it is this
    /// server that answers on the port, not another test's.
    fn launch(&mut self) -> bool {
        let dir = self.scratch.file("");
        std::fs::create_dir_all(&dir).unwrap();
        let child = Command::new(&self.binary)
            .args(["--bind", "127.0.0.1", "--port", &self.port.to_string()])
            .args([
                "--save",
                "",
                "--appendonly",
                "yes",
                "--appendfsync",
                "always",
            ])
            .arg("--dir")
            .arg(&dir)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("redis-server starts");
        let pid = child.id();
        self.child = Some(child);
        let deadline = Instant::now() + STEP;
        while self.cli(&["PING"]).trim() != "PONG" {
            assert!(
                Instant::now() < deadline,
                "redis-server did not answer in {STEP:?}"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        let info = Command::new("redis-cli")
            .args(["-h", "127.0.0.1", "-p", &self.port.to_string(), "--raw"])
            .args(["INFO", "server"])
            .stdin(Stdio::null())
            .output()
            .expect("redis-cli runs");
        String::from_utf8_lossy(&info.stdout)
            .lines()
            .any(|line| line.trim() == format!("process_id:{pid}"))
    }

    /// Starts the server again on its port, after [`kill`](Self::kill).
    fn relaunch(&mut self) {
        assert!(
            self.launch(),
            "another redis-server took port {} meanwhile",
            self.port
        );
    }

    /// Kills the server at once (SIGKILL: nothing but what the append-only
    /// file holds survives).
    fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Sends `signal` (`STOP`, `CONT`) to the server: frozen, or thawed.
    fn signal(&self, signal: &str) {
        let pid = self.child.as_ref().expect("redis-server runs").id();
        let status = Command::new("kill")
            .args([&format!("-{signal}"), &pid.to_string()])
            .status()
            .expect("kill runs");
        assert!(status.success(), "kill -{signal} {pid} failed");
    }

    /// Runs one command with redis-cli, giving its raw output.
    fn cli(&self, args: &[&str]) -> String {
        let output = Command::new("redis-cli")
            .args(["-h", "127.0.0.1", "-p", &self.port.to_string(), "--no-raw"])
            .args(args)
            .stdin(Stdio::null())
            .output()
            .expect("redis-cli runs");
        String::from_utf8_lossy(&output.stdout).into_owned()
    }

    /// How many keys there are under `prefix`, and which of them never expire.
    fn keys(&self, prefix: &str) -> (usize, Vec<String>) {
        let script = "local cursor = '0' local n = 0 local forever = {} \
            repeat local r = redis.call('SCAN', cursor, 'MATCH', ARGV[1], 'COUNT', 1000) cursor = r[1] \
            for _, k in ipairs(r[2]) do n = n + 1 if redis.call('PTTL', k) < 0 then table.insert(forever, k) end end \
            until cursor == '0' return {n, forever}";
        let output = Command::new("redis-cli")
            .args(["-h", "127.0.0.1", "-p", &self.port.to_string(), "--raw"])
            .args(["EVAL", script, "0", &format!("{prefix}:*")])
            .output()
            .expect("redis-cli runs");
        let text = String::from_utf8_lossy(&output.stdout).into_owned();
        let mut lines = text.lines();
        let n = lines
            .next()
            .and_then(|n| n.trim().parse().ok())
            .unwrap_or_else(|| panic!("not a key count: {text:?}"));
        let forever = lines
            .map(str::trim)
            .filter(|key| !key.is_empty())
            .map(str::to_owned)
            .collect();
        (n, forever)
    }
}

/// The longest time to live of a key under `prefix`, in ms (0 when none).
fn longest_ttl(redis: &RedisServer, prefix: &str) -> i64 {
    let script = "local cursor = '0' local most = 0 \
        repeat local r = redis.call('SCAN', cursor, 'MATCH', ARGV[1], 'COUNT', 1000) cursor = r[1] \
        for _, k in ipairs(r[2]) do local t = redis.call('PTTL', k) if t > most then most = t end end \
        until cursor == '0' return most";
    let output = Command::new("redis-cli")
        .args(["-h", "127.0.0.1", "-p", &redis.port.to_string(), "--raw"])
        .args(["EVAL", script, "0", &format!("{prefix}:*")])
        .output()
        .expect("redis-cli runs");
    let text = String::from_utf8_lossy(&output.stdout).into_owned();
    text.trim()
        .parse()
        .unwrap_or_else(|_| panic!("not a TTL: {text:?}"))
}

impl Drop for RedisServer {
    fn drop(&mut self) {
        self.kill();
    }
}

/// Three replicas of `binary` sharing `redis` under `prefix`, behind nginx.
struct Cluster {
    replicas: Vec<Replica>,
    balancer: Nginx,
}

impl Cluster {
    fn start(nginx: &Path, binary: &str, redis: &RedisServer, prefix: &str, args: &[&str]) -> Self {
        let url = redis.url();
        let mut all = vec!["--redis", &url, "--redis-prefix", prefix];
        all.extend_from_slice(args);
        let replicas: Vec<Replica> = (0..3).map(|_| Replica::start(binary, &all)).collect();
        let addrs: Vec<_> = replicas.iter().map(|replica| replica.addr).collect();
        let balancer = Nginx::start(nginx, &addrs);
        Cluster { replicas, balancer }
    }

    /// The replica with process id `pid`, and the others.
    fn split(&self, pid: u64) -> (&Replica, Vec<&Replica>) {
        let runner = self
            .replicas
            .iter()
            .find(|replica| u64::from(replica.child.id()) == pid)
            .unwrap_or_else(|| panic!("no replica has pid {pid}"));
        let others = self
            .replicas
            .iter()
            .filter(|replica| u64::from(replica.child.id()) != pid)
            .collect();
        (runner, others)
    }
}

#[test]
fn the_python_sdk_probe_runs_in_both_eras_through_three_replicas_sharing_redis() {
    let (Some(nginx), Some(binary)) = (nginx(), redis_server()) else {
        return;
    };
    let redis = RedisServer::start(&binary);
    let scratch = Scratch::new("redis-python");
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
    let cluster = Cluster::start(&nginx, MCP_SERVER, &redis, "python", &args);
    // 2026-07-28, no sessions; then 2025-11-25, whose session, opened on
    // one replica, is restored from Redis on the others.
    run_python(
        &["--url", &cluster.balancer.url, "--events"].map(String::from),
        &events,
    );
    run_python(
        &["--url", &cluster.balancer.url, "--legacy", "--events"].map(String::from),
        &events,
    );
    let refs: Vec<&Replica> = cluster.replicas.iter().collect();
    cluster.balancer.served_by_all(&refs);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_is_fetched_on_every_replica_and_cancelled_through_another_within_a_second() {
    let (Some(nginx), Some(binary)) = (nginx(), redis_server()) else {
        return;
    };
    let redis = RedisServer::start(&binary);
    let cluster = Cluster::start(
        &nginx,
        CONFORMANCE_SERVER,
        &redis,
        "tasks",
        &["--stateless"],
    );
    let through_nginx = connect(&cluster.balancer.url).await;

    let id = start(&through_nginx, 600).await;
    let done = until_done(&through_nginx, &id).await;
    let TaskPayload::Completed { result } = &done.payload else {
        panic!("the task completed: {done:?}")
    };
    assert_eq!(result["structuredContent"]["worked_ms"], json!(600));
    let ran_on = result["structuredContent"]["replica"].as_u64().unwrap();
    let (runner, others) = cluster.split(ran_on);
    for replica in &others {
        let client = connect(&replica.url).await;
        let elsewhere = until_done(&client, &id).await;
        assert_eq!(
            elsewhere.payload, done.payload,
            "fetched on {}",
            replica.url
        );
    }

    // Started on one replica, cancelled through another: the runner hears
    // the cancel over Redis pub/sub and stops at once.
    let on_runner = connect(&runner.url).await;
    let bystander = connect(&others[0].url).await;
    let id = start(&on_runner, 60_000).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    let asked = Instant::now();
    bystander
        .cancel_task(CancelTaskParams::new(&id))
        .await
        .expect("tasks/cancel answers");
    let cancelled = until_done(&bystander, &id).await;
    let took = asked.elapsed();
    assert_eq!(cancelled.status(), TaskStatus::Cancelled);
    assert!(
        took < Duration::from_secs(1),
        "the cancel took {took:?} to stop the task on another replica"
    );
    let refs: Vec<&Replica> = cluster.replicas.iter().collect();
    cluster.balancer.served_by_all(&refs);
}

/// A 2025-11-25 client that counts `list_changed` notifications.
#[derive(Clone, Default)]
struct Listener {
    changed: Arc<Notify>,
}

impl ClientHandler for Listener {
    fn get_info(&self) -> ClientConfig {
        ClientConfig::new(
            ClientCapabilities::default(),
            Implementation::new("dsh-tests", "0"),
        )
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.changed.notify_one();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tool_list_change_on_one_replica_reaches_a_client_of_another() {
    let (Some(nginx), Some(binary)) = (nginx(), redis_server()) else {
        return;
    };
    let redis = RedisServer::start(&binary);
    let cluster = Cluster::start(&nginx, CONFORMANCE_SERVER, &redis, "events", &[]);
    let listener = Listener::default();
    let changed = Arc::clone(&listener.changed);
    let transport = StreamableHttpClientTransport::from_uri(cluster.replicas[1].url.as_str());
    let listening: RunningService<RoleClient, Listener> = tokio::time::timeout(
        STEP,
        listener.serve_with_lifecycle(transport, ClientLifecycleMode::Initialize),
    )
    .await
    .expect("the handshake ends in time")
    .expect("the handshake succeeds");
    // Its notification stream is open before the change.
    tokio::time::sleep(Duration::from_millis(500)).await;

    let other = connect(&cluster.replicas[0].url).await;
    let request = dsh_kit::mcp::rmcp::model::CallToolRequestParams::new("change_tools");
    other
        .call_tool(request)
        .await
        .expect("change_tools answers");
    tokio::time::timeout(Duration::from_secs(5), changed.notified())
        .await
        .expect("the client of another replica heard list_changed");
    drop(listening);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_task_of_a_replica_killed_mid_run_turns_failed_within_its_lease() {
    let (Some(nginx), Some(binary)) = (nginx(), redis_server()) else {
        return;
    };
    let redis = RedisServer::start(&binary);
    let lease = Duration::from_millis(3000);
    let mut cluster = Cluster::start(
        &nginx,
        CONFORMANCE_SERVER,
        &redis,
        "lease",
        &["--stateless", "--task-lease-ms", "3000"],
    );
    let on_first = connect(&cluster.replicas[0].url).await;
    let on_second = connect(&cluster.replicas[1].url).await;
    let id = start(&on_first, 60_000).await;
    // Past its first lease, the task of a live replica still runs: the
    // replica renews the lease.
    tokio::time::sleep(lease + Duration::from_millis(500)).await;
    let alive = on_second
        .get_task(dsh_kit::mcp::rmcp::model::GetTaskParams::new(&id))
        .await
        .expect("tasks/get answers");
    assert_eq!(alive.task.status(), TaskStatus::Working, "{alive:?}");
    // SIGKILL: the replica renews nothing and writes nothing more.
    cluster.replicas[0].child.kill().unwrap();
    cluster.replicas[0].child.wait().unwrap();
    let killed = Instant::now();
    drop(on_first);
    let ended = until_done(&on_second, &id).await;
    let took = killed.elapsed();
    assert_eq!(ended.status(), TaskStatus::Failed, "{ended:?}");
    let message = ended.task.status_message.clone().unwrap_or_default();
    assert!(message.contains("lease"), "{message}");
    // The lease, less the time since its last renewal, plus a poll (and
    // slack for a loaded machine).
    assert!(
        took < lease + Duration::from_millis(1500),
        "the task stayed working {took:?} after its replica died"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn replicas_reconnect_after_redis_restarts_and_lose_no_completed_result() {
    let (Some(nginx), Some(binary)) = (nginx(), redis_server()) else {
        return;
    };
    let mut redis = RedisServer::start(&binary);
    let cluster = Cluster::start(
        &nginx,
        CONFORMANCE_SERVER,
        &redis,
        "restart",
        &["--stateless"],
    );
    let client = connect(&cluster.balancer.url).await;
    let before = start(&client, 50).await;
    let before_done = until_done(&client, &before).await;
    assert_eq!(before_done.status(), TaskStatus::Completed);
    // Ends while Redis is down: its result is written once Redis is back.
    let during = start(&client, 800).await;
    redis.kill();
    tokio::time::sleep(Duration::from_millis(1500)).await;
    redis.relaunch();
    let during_done = until_done(&client, &during).await;
    assert_eq!(
        during_done.status(),
        TaskStatus::Completed,
        "{during_done:?}"
    );
    let TaskPayload::Completed { result } = &during_done.payload else {
        unreachable!("completed")
    };
    assert_eq!(result["structuredContent"]["worked_ms"], json!(800));
    for replica in &cluster.replicas {
        let direct = connect(&replica.url).await;
        assert_eq!(
            until_done(&direct, &before).await.payload,
            before_done.payload
        );
        assert_eq!(
            until_done(&direct, &during).await.payload,
            during_done.payload
        );
    }
    // New tasks run as before, and the replicas hear each other again: a
    // cancel through one stops a task on another at once.
    let after = start(&client, 50).await;
    assert_eq!(
        until_done(&client, &after).await.status(),
        TaskStatus::Completed
    );
    let runner = connect(&cluster.replicas[0].url).await;
    let bystander = connect(&cluster.replicas[1].url).await;
    let long = start(&runner, 60_000).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    let asked = Instant::now();
    bystander
        .cancel_task(CancelTaskParams::new(&long))
        .await
        .expect("tasks/cancel answers");
    assert_eq!(
        until_done(&bystander, &long).await.status(),
        TaskStatus::Cancelled
    );
    assert!(
        asked.elapsed() < Duration::from_secs(1),
        "the cancel took {:?} after Redis restarted",
        asked.elapsed()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_soak_of_ten_thousand_tasks_loses_none_and_leaves_only_live_keys() {
    const TASKS: usize = 10_000;
    const WORKERS: usize = 48;
    let (Some(nginx), Some(binary)) = (nginx(), redis_server()) else {
        return;
    };
    let redis = RedisServer::start(&binary);
    let cluster = Cluster::start(&nginx, CONFORMANCE_SERVER, &redis, "soak", &["--stateless"]);
    let clients: Vec<Arc<RunningService<RoleClient, TaskClient>>> = {
        let mut clients = Vec::new();
        for _ in 0..4 {
            clients.push(Arc::new(connect(&cluster.balancer.url).await));
        }
        clients
    };
    let next = Arc::new(AtomicUsize::new(0));
    let began = Instant::now();
    let mut workers = tokio::task::JoinSet::new();
    for worker in 0..WORKERS {
        let client = Arc::clone(&clients[worker % clients.len()]);
        let next = Arc::clone(&next);
        workers.spawn(async move {
            let mut done = Vec::new();
            while next.fetch_add(1, Ordering::Relaxed) < TASKS {
                let id = start(&client, 0).await;
                let ended = until_done(&client, &id).await;
                assert_eq!(ended.status(), TaskStatus::Completed, "{ended:?}");
                done.push(id);
            }
            done
        });
    }
    let mut ids = std::collections::HashSet::new();
    while let Some(done) = workers.join_next().await {
        ids.extend(done.expect("a worker finished"));
    }
    let took = began.elapsed();
    println!("{TASKS} tasks through three replicas in {took:?}");
    assert_eq!(ids.len(), TASKS, "every task has its own id");

    // Only live keys: the tasks (each expiring with its task) and their
    // index; no lease, no cancel mark, nothing that never expires.
    let (keys, forever) = redis.keys("soak");
    assert!(forever.is_empty(), "keys that never expire: {forever:?}");
    assert_eq!(keys, TASKS + 1, "{TASKS} tasks and their index");
    assert_eq!(
        redis.cli(&["ZCARD", "soak:tasks"]).trim(),
        format!("(integer) {TASKS}")
    );
    assert_eq!(redis.cli(&["EXISTS", "soak:leases"]).trim(), "(integer) 0");
}

mod outage {
    //! Redis killed and frozen under three replicas and load: no request
    //! waits past the bound, every refusal is a JSON-RPC error with
    //! `Retry-After`, no finished task's result is lost, a deleted session
    //! ends on every replica, and no key outlives its session.

    use super::*;
    use serde_json::Value;
    use std::sync::Mutex;
    use std::sync::atomic::AtomicBool;

    /// How long a request waits on Redis (`--redis-wait-ms`).
    const WAIT: Duration = Duration::from_millis(2000);
    /// What a request may take beyond the wait on a loaded machine.
    const MARGIN: Duration = Duration::from_millis(1500);
    /// How long Redis keeps a session, and the tasks live.
    const TTL: Duration = Duration::from_secs(20);
    /// How long past its session a key may live: Redis's expiry, which
    /// `SCAN` honours at once, plus scheduling.
    const KEY_MARGIN: Duration = Duration::from_secs(1);
    const PROTOCOL: &str = "2025-11-25";

    /// One answer, and how long it took.
    #[derive(Debug, Clone)]
    struct Reply {
        status: u16,
        retry_after: Option<String>,
        session: Option<String>,
        body: String,
        took: Duration,
    }

    impl Reply {
        fn json(&self) -> Value {
            // A reply that went out as a stream: its last message.
            let text = if self.body.starts_with('{') {
                self.body.clone()
            } else {
                self.body
                    .lines()
                    .filter_map(|line| line.strip_prefix("data:"))
                    .map(str::trim)
                    .rfind(|data| !data.is_empty())
                    .unwrap_or_default()
                    .to_owned()
            };
            serde_json::from_str(&text)
                .unwrap_or_else(|error| panic!("not JSON ({error}): {self:?}"))
        }

        /// A refusal for want of Redis: `503`, `Retry-After`, and the
        /// JSON-RPC error answering request `id`.
        fn assert_refused(&self, id: &Value) {
            assert_eq!(self.status, 503, "{self:?}");
            let seconds: u64 = self
                .retry_after
                .as_deref()
                .and_then(|value| value.parse().ok())
                .unwrap_or_else(|| panic!("no Retry-After in seconds: {self:?}"));
            assert!(seconds >= 1, "{self:?}");
            let body = self.json();
            assert_eq!(body["jsonrpc"], "2.0", "{self:?}");
            assert_eq!(&body["id"], id, "{self:?}");
            assert_eq!(body["error"]["code"], -32003, "{self:?}");
            assert!(body["error"]["message"].is_string(), "{self:?}");
        }
    }

    /// A bare HTTP client speaking 2025-11-25 to the replica it is told.
    #[derive(Clone)]
    struct Client {
        http: reqwest::Client,
    }

    impl Client {
        fn new() -> Self {
            let http = reqwest::Client::builder()
                .timeout(Duration::from_secs(60))
                .build()
                .unwrap();
            Client { http }
        }

        async fn send(
            &self,
            method: reqwest::Method,
            url: &str,
            session: Option<&str>,
            last_event_id: Option<&str>,
            body: Option<&Value>,
        ) -> Reply {
            let mut request = self
                .http
                .request(method, url)
                .header("accept", "application/json, text/event-stream")
                .header("mcp-protocol-version", PROTOCOL);
            if let Some(session) = session {
                request = request.header("mcp-session-id", session);
            }
            if let Some(last) = last_event_id {
                request = request.header("last-event-id", last);
            }
            if let Some(body) = body {
                request = request
                    .header("content-type", "application/json")
                    .body(body.to_string());
            }
            let began = Instant::now();
            let response = request.send().await.expect("the replica answers");
            let status = response.status().as_u16();
            let header = |name: &str| {
                response
                    .headers()
                    .get(name)
                    .and_then(|value| value.to_str().ok())
                    .map(str::to_owned)
            };
            let retry_after = header("retry-after");
            let session = header("mcp-session-id");
            let body = response.text().await.unwrap_or_default();
            Reply {
                status,
                retry_after,
                session,
                body,
                took: began.elapsed(),
            }
        }

        async fn post(&self, url: &str, session: Option<&str>, body: &Value) -> Reply {
            self.send(reqwest::Method::POST, url, session, None, Some(body))
                .await
        }

        /// `initialize` on `url`: the reply (with the session, once
        /// `notifications/initialized` went too).
        async fn initialize(&self, url: &str, id: u64) -> Reply {
            let body = json!({
                "jsonrpc": "2.0", "id": id, "method": "initialize",
                "params": {
                    "protocolVersion": PROTOCOL,
                    "capabilities": { "extensions": { "io.modelcontextprotocol/tasks": {} } },
                    "clientInfo": { "name": "outage", "version": "0" }
                }
            });
            let reply = self.post(url, None, &body).await;
            if let (200, Some(session)) = (reply.status, &reply.session) {
                let initialized =
                    json!({ "jsonrpc": "2.0", "method": "notifications/initialized" });
                let ack = self.post(url, Some(session), &initialized).await;
                assert_eq!(ack.status, 202, "{ack:?}");
            }
            reply
        }

        async fn request(
            &self,
            url: &str,
            session: &str,
            id: u64,
            method: &str,
            params: Value,
        ) -> Reply {
            let body = json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params });
            self.post(url, Some(session), &body).await
        }
    }

    /// Every reply of a phase of load: each answered, or refused with a
    /// JSON-RPC error and `Retry-After`, within the bound.
    fn check(phase: &str, replies: &[(Value, Reply)]) -> (usize, usize, Duration) {
        let mut answered = 0;
        let mut refused = 0;
        let mut longest = Duration::ZERO;
        for (id, reply) in replies {
            longest = longest.max(reply.took);
            assert!(
                reply.took <= WAIT + MARGIN,
                "{phase}: a request waited {:?}: {reply:?}",
                reply.took
            );
            if reply.status == 200 {
                assert!(reply.json()["result"].is_object(), "{phase}: {reply:?}");
                answered += 1;
            } else {
                reply.assert_refused(id);
                refused += 1;
            }
        }
        (answered, refused, longest)
    }

    /// `tools/list` and `tools/call` on the sessions, each on every replica
    /// in turn, until `stop`.
    async fn load(
        client: &Client,
        urls: &[String],
        sessions: &[String],
        stop: &AtomicBool,
        next_id: &AtomicUsize,
        replies: &Mutex<Vec<(Value, Reply)>>,
    ) {
        while !stop.load(Ordering::Relaxed) {
            let n = next_id.fetch_add(1, Ordering::Relaxed);
            let url = &urls[n % urls.len()];
            let session = &sessions[(n / urls.len()) % sessions.len()];
            let id = 1_000_000 + n as u64;
            // A listing, or a call of a tool that runs in the request.
            let (method, params) = if n.is_multiple_of(2) {
                ("tools/list", json!({}))
            } else {
                (
                    "tools/call",
                    json!({ "name": "test_simple_text", "arguments": {} }),
                )
            };
            let reply = client.request(url, session, id, method, params).await;
            replies.lock().unwrap().push((json!(id), reply));
        }
    }

    /// Runs the load for `length` while `during` runs beside it.
    async fn under_load<F: Future>(
        client: &Client,
        urls: &[String],
        sessions: &[String],
        length: Duration,
        during: F,
    ) -> (Vec<(Value, Reply)>, F::Output) {
        let stop = AtomicBool::new(false);
        let next = AtomicUsize::new(0);
        let replies = Mutex::new(Vec::new());
        let worker = || load(client, urls, sessions, &stop, &next, &replies);
        let workers = async {
            tokio::join!(worker(), worker(), worker(), worker(), worker(), worker());
        };
        let timed = async {
            let (output, ()) = tokio::join!(during, tokio::time::sleep(length));
            stop.store(true, Ordering::Relaxed);
            output
        };
        let ((), output) = tokio::join!(workers, timed);
        (replies.into_inner().unwrap(), output)
    }

    /// Starts `slow_task` for `ms` on `url`: its id.
    async fn start_task(client: &Client, url: &str, session: &str, id: u64, ms: u64) -> String {
        let reply = client
            .request(
                url,
                session,
                id,
                "tools/call",
                json!({ "name": "slow_task", "arguments": { "ms": ms } }),
            )
            .await;
        assert_eq!(reply.status, 200, "{reply:?}");
        let body = reply.json();
        body["result"]["taskId"]
            .as_str()
            .unwrap_or_else(|| panic!("no task: {body}"))
            .to_owned()
    }

    /// `tasks/get` of `task` on `url` until it ends: its reply.
    async fn until_ended(client: &Client, url: &str, session: &str, task: &str) -> Value {
        let deadline = Instant::now() + STEP;
        loop {
            let reply = client
                .request(url, session, 7, "tasks/get", json!({ "taskId": task }))
                .await;
            if reply.status == 200 {
                let body = reply.json();
                let status = body["result"]["status"]
                    .as_str()
                    .unwrap_or_default()
                    .to_owned();
                if status == "completed" {
                    return body;
                }
            }
            assert!(
                Instant::now() < deadline,
                "task {task} did not complete on {url}: {reply:?}"
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// Three replicas on `redis`, each logging to a file of `scratch`.
    fn replicas(redis: &RedisServer, prefix: &str, scratch: &Scratch) -> Vec<Replica> {
        let url = redis.url();
        let wait = WAIT.as_millis().to_string();
        let ttl = TTL.as_millis().to_string();
        (0..3)
            .map(|n| {
                let log = std::fs::File::create(scratch.file(&format!("replica-{n}.log"))).unwrap();
                let mut command = Command::new(CONFORMANCE_SERVER);
                command
                    .args([
                        "--http",
                        "127.0.0.1:0",
                        "--redis",
                        &url,
                        "--redis-prefix",
                        prefix,
                    ])
                    .args(["--redis-wait-ms", &wait, "--session-ttl-ms", &ttl])
                    .args(["--task-ttl-ms", &ttl, "--task-lease-ms", "3000"])
                    .env_remove("RUST_LOG")
                    .stderr(log);
                let (child, url) = crate::common::spawn_server(command, STEP);
                let addr = url
                    .trim_start_matches("http://")
                    .trim_end_matches("/mcp")
                    .parse()
                    .unwrap();
                Replica { child, addr, url }
            })
            .collect()
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn redis_killed_and_frozen_under_load_neither_hangs_nor_loses_results_and_leaves_no_key_behind()
     {
        let Some(binary) = redis_server() else {
            return;
        };
        let mut redis = RedisServer::start(&binary);
        let scratch = Scratch::new("redis-outage");
        let prefix = "outage";
        let replicas = replicas(&redis, prefix, &scratch);
        let urls: Vec<String> = replicas.iter().map(|replica| replica.url.clone()).collect();
        let client = Client::new();
        let mut last_write = Instant::now();

        // Six sessions, opened on each replica in turn, and used on every
        // one: each replica holds all six.
        let opened = Instant::now();
        let mut sessions = Vec::new();
        for n in 0..6 {
            let reply = client.initialize(&urls[n % 3], n as u64).await;
            assert_eq!(reply.status, 200, "{reply:?}");
            sessions.push(reply.session.clone().expect("a session id"));
        }
        let (replies, ()) =
            under_load(&client, &urls, &sessions, Duration::from_secs(2), async {}).await;
        let (answered, refused, _) = check("before", &replies);
        assert_eq!(refused, 0, "nothing is refused while Redis runs");
        assert!(answered > 50, "only {answered} requests were answered");
        let mut total = replies.len();

        // Replies sent whole as JSON keep no events; a stream keeps its
        // events, replayed on its own session only.
        assert_eq!(
            redis.keys(&format!("{prefix}:events")).0,
            0,
            "events kept of JSON replies"
        );
        let streamed = client
            .request(
                &urls[0],
                &sessions[0],
                9,
                "tools/call",
                json!({ "name": "test_tool_with_progress", "arguments": {}, "_meta": { "progressToken": "p" } }),
            )
            .await;
        assert_eq!(streamed.status, 200, "{streamed:?}");
        let first_id = streamed
            .body
            .lines()
            .find_map(|line| line.strip_prefix("id:"))
            .map(|id| id.trim().to_owned())
            .unwrap_or_else(|| panic!("a stream with event ids: {streamed:?}"));
        let kept = Instant::now() + Duration::from_secs(5);
        while redis.keys(&format!("{prefix}:events")).0 != 1 {
            assert!(Instant::now() < kept, "the stream's events were not kept");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let get = |session: &str, url: &str| {
            let (client, session, url, first_id) = (
                client.clone(),
                session.to_owned(),
                url.to_owned(),
                first_id.clone(),
            );
            async move {
                client
                    .send(
                        reqwest::Method::GET,
                        &url,
                        Some(&session),
                        Some(&first_id),
                        None,
                    )
                    .await
            }
        };
        let own = get(&sessions[0], &urls[1]).await;
        assert_eq!(own.status, 200, "{own:?}");
        assert!(
            own.body.contains("Reported progress"),
            "replayed on another replica: {own:?}"
        );
        let foreign = get(&sessions[1], &urls[1]).await;
        assert!(
            !foreign.body.contains("data:"),
            "another session's Last-Event-ID replayed events: {foreign:?}"
        );

        // Tasks that finish while Redis is down, and sessions only their
        // opener holds.
        let mut tasks = Vec::new();
        for (n, url) in urls.iter().enumerate() {
            tasks.push((
                n,
                start_task(&client, url, &sessions[n], 20 + n as u64, 1000).await,
            ));
        }
        let mut lonely = Vec::new();
        for (n, url) in urls.iter().enumerate() {
            let reply = client.initialize(url, 30 + n as u64).await;
            lonely.push((n, reply.session.expect("a session id")));
        }
        last_write = last_write.max(Instant::now());

        // Killed: what a replica holds goes on; what needs Redis is refused
        // within the bound.
        redis.kill();
        let during = async {
            let mut pending = tokio::task::JoinSet::new();
            for n in 0..3 {
                let (client, urls) = (client.clone(), urls.clone());
                let (opener, session) = lonely[n].clone();
                let own = sessions[n].clone();
                let (_, task) = tasks[(n + 1) % 3].clone();
                let n = n as u64;
                pending.spawn(async move {
                    let at = |k: u64| &urls[usize::try_from(k).unwrap() % 3];
                    let mut checks = vec![(json!(40 + n), client.initialize(at(n), 40 + n).await)];
                    // A session another replica opened, which this one never saw.
                    let elsewhere = at(opener as u64 + 1);
                    checks.push((
                        json!(50 + n),
                        client
                            .request(elsewhere, &session, 50 + n, "tools/list", json!({}))
                            .await,
                    ));
                    // A new task.
                    checks.push((
                        json!(60 + n),
                        client
                            .request(
                                at(n),
                                &own,
                                60 + n,
                                "tools/call",
                                json!({ "name": "slow_task", "arguments": { "ms": 10 } }),
                            )
                            .await,
                    ));
                    // A task run elsewhere, asked for here.
                    checks.push((
                        json!(70 + n),
                        client
                            .request(at(n), &own, 70 + n, "tasks/get", json!({ "taskId": task }))
                            .await,
                    ));
                    checks
                });
            }
            let deleted = client
                .send(
                    reqwest::Method::DELETE,
                    &urls[0],
                    Some(&sessions[5]),
                    None,
                    None,
                )
                .await;
            let mut checks = vec![(Value::Null, deleted)];
            while let Some(more) = pending.join_next().await {
                checks.extend(more.expect("a check ran"));
            }
            // Past the tasks' end: their runner answers from memory.
            tokio::time::sleep(Duration::from_millis(1500)).await;
            let mut held = Vec::new();
            for (n, task) in &tasks {
                held.push(
                    client
                        .request(
                            &urls[*n],
                            &sessions[*n],
                            80,
                            "tasks/get",
                            json!({ "taskId": task }),
                        )
                        .await,
                );
            }
            (checks, held)
        };
        let (replies, (checks, held)) =
            under_load(&client, &urls, &sessions, Duration::from_secs(5), during).await;
        let (answered, refused, longest_killed) = check("killed", &replies);
        assert!(
            answered > 0,
            "no request on a session held in memory was answered while Redis was down"
        );
        println!(
            "Redis killed: {answered} answered, {refused} refused, longest {longest_killed:?}"
        );
        total += replies.len();
        let mut longest_check = Duration::ZERO;
        for (id, reply) in &checks {
            assert!(
                reply.took <= WAIT + MARGIN,
                "waited {:?}: {reply:?}",
                reply.took
            );
            longest_check = longest_check.max(reply.took);
            reply.assert_refused(id);
        }
        for reply in &held {
            assert_eq!(reply.status, 200, "{reply:?}");
            assert_eq!(reply.json()["result"]["status"], "completed", "{reply:?}");
        }
        total += checks.len() + held.len();

        // Back: every result written, readable on every replica.
        redis.relaunch();
        for (n, task) in &tasks {
            for url in &urls {
                let done = until_ended(&client, url, &sessions[*n], task).await;
                let text = done.to_string();
                assert!(text.contains("\"worked_ms\":1000"), "{text}");
            }
        }

        // Frozen: the same.
        let mut frozen_tasks = Vec::new();
        for (n, url) in urls.iter().enumerate() {
            frozen_tasks.push((
                n,
                start_task(&client, url, &sessions[n], 90 + n as u64, 800).await,
            ));
        }
        last_write = last_write.max(Instant::now());
        redis.signal("STOP");
        let during = async {
            let mut checks = Vec::new();
            for (n, url) in (100..).zip(&urls) {
                checks.push((json!(n), client.initialize(url, n).await));
            }
            checks
        };
        let (replies, checks) =
            under_load(&client, &urls, &sessions, Duration::from_secs(5), during).await;
        redis.signal("CONT");
        let (answered, refused, longest_frozen) = check("frozen", &replies);
        assert!(
            answered > 0,
            "no request on a session held in memory was answered while Redis was frozen"
        );
        println!(
            "Redis frozen: {answered} answered, {refused} refused, longest {longest_frozen:?}"
        );
        total += replies.len() + checks.len();
        for (id, reply) in &checks {
            assert!(
                reply.took <= WAIT + MARGIN,
                "waited {:?}: {reply:?}",
                reply.took
            );
            longest_check = longest_check.max(reply.took);
            reply.assert_refused(id);
        }
        for (n, task) in &frozen_tasks {
            for url in &urls {
                let done = until_ended(&client, url, &sessions[*n], task).await;
                assert!(done.to_string().contains("\"worked_ms\":800"), "{done}");
            }
        }
        last_write = last_write.max(Instant::now());

        // In use, the sessions live on in Redis past their time to live
        // from `initialize`: each use renews it.
        for session in &sessions {
            assert_eq!(
                redis
                    .cli(&["EXISTS", &format!("{prefix}:session:{session}")])
                    .trim(),
                "(integer) 1",
                "session {session}, in use, is gone from Redis {:?} after it opened",
                opened.elapsed()
            );
        }

        let (keys_before_delete, _) = redis.keys(prefix);

        // A DELETE on one replica ends the session on all.
        let mut slowest_404 = Duration::ZERO;
        for session in &sessions {
            let deleted = client
                .send(reqwest::Method::DELETE, &urls[0], Some(session), None, None)
                .await;
            assert!(deleted.status == 204, "{deleted:?}");
            let ended = Instant::now();
            for url in &urls[1..] {
                loop {
                    let reply = client
                        .request(url, session, 5, "tools/list", json!({}))
                        .await;
                    if reply.status == 404 {
                        break;
                    }
                    assert!(
                        ended.elapsed() < Duration::from_secs(1),
                        "a session deleted on another replica was still served: {reply:?}"
                    );
                    tokio::time::sleep(Duration::from_millis(10)).await;
                }
                slowest_404 = slowest_404.max(ended.elapsed());
            }
        }
        for (_, session) in &lonely {
            let deleted = client
                .send(reqwest::Method::DELETE, &urls[2], Some(session), None, None)
                .await;
            assert_eq!(deleted.status, 204, "{deleted:?}");
        }
        let (keys_after_delete, forever) = redis.keys(prefix);
        assert!(forever.is_empty(), "keys that never expire: {forever:?}");
        let (sessions_left, _) = redis.keys(&format!("{prefix}:session"));
        let (streams_left, _) = redis.keys(&format!("{prefix}:events"));
        assert_eq!(
            streams_left, 0,
            "stream events outlived their deleted session"
        );
        assert!(
            longest_ttl(&redis, prefix) <= i64::try_from(TTL.as_millis()).unwrap(),
            "a key lives longer than a session"
        );

        // Within a session's time to live (and the margin) of the last
        // write, nothing is left.
        let until = last_write + TTL + KEY_MARGIN;
        tokio::time::sleep(until.saturating_duration_since(Instant::now())).await;
        let (keys_at_end, _) = redis.keys(prefix);
        assert_eq!(
            keys_at_end, 0,
            "keys outlived their session's TTL by {KEY_MARGIN:?}"
        );

        // The replicas said, on stderr and by default, that Redis went
        // away and came back.
        let log = std::fs::read_to_string(scratch.file("replica-0.log")).unwrap();
        assert!(log.contains("is unreachable"), "{log}");
        assert!(log.contains("answers again"), "{log}");

        println!(
            "{total} requests; longest wait on a request that needed Redis {longest_check:?}, under load {:?}; a deleted session got 404 elsewhere within {slowest_404:?}; keys {keys_before_delete} before the DELETEs, {keys_after_delete} after ({sessions_left} of them sessions whose initialize was refused while Redis was frozen, stored when it thawed), {keys_at_end} at {TTL:?} + {KEY_MARGIN:?} after the last write",
            longest_killed.max(longest_frozen)
        );
    }
}
