//! Three replicas of a server sharing tasks, notifications and sessions
//! through a real Redis (Debian's `redis-server`), behind a round-robin
//! nginx that is not sticky: the official MCP Python SDK's probe in both
//! protocol eras; a task started on one replica, polled and fetched on the
//! others, and cancelled through another within a second; a `list_changed`
//! caused on one replica heard by a client of another; a replica killed
//! mid-task, its task turning `failed` within the lease; Redis restarted
//! mid-run with no completed result lost; and a soak of 10,000 tasks that
//! loses none and leaves only live keys.
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
        server.launch();
        server
    }

    fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/", self.port)
    }

    /// Starts the server on its port and directory, and waits until it
    /// answers (having loaded its append-only file).
    fn launch(&mut self) {
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
        self.child = Some(child);
        let deadline = Instant::now() + STEP;
        while self.cli(&["PING"]).trim() != "PONG" {
            assert!(
                Instant::now() < deadline,
                "redis-server did not answer in {STEP:?}"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Kills the server at once (SIGKILL: nothing but what the append-only
    /// file holds survives).
    fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
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
    redis.launch();
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
