//! The Redis task store, event bus, session store and event store against a
//! real redis-server (Debian's) on 127.0.0.1, two connections standing for
//! two replicas: state shared, an ended task never rewritten, a cancel
//! heard at once, a lapsed lease failing its task, a resource update and a
//! tool change on one replica heard by a client of the other, and
//! malformed records or ids turned into clear errors; stream events kept in
//! their session's key space, expiring and deleted with it. Without redis-server the tests say so
//! loudly and pass, unless `CI=true`, where they fail.
#![cfg(all(feature = "redis", unix))]

use std::net::TcpListener;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use dsh_kit::Registry;
use dsh_kit::mcp::redis::{Redis, RedisTaskStore};
use dsh_kit::mcp::rmcp::model::{
    ClientCapabilities, ClientConfig, Implementation, ResourceUpdatedNotificationParam,
    ServerJsonRpcMessage, SubscribeRequestParams, TaskStatus,
};
use dsh_kit::mcp::rmcp::service::{NotificationContext, RunningService};
use dsh_kit::mcp::rmcp::transport::streamable_http_server::session::{
    EventStore, ServerSseMessage, SessionState, SessionStore,
};
use dsh_kit::mcp::rmcp::{ClientHandler, RoleClient, ServiceExt};
use dsh_kit::mcp::{
    BusEvent, EventBus, McpServer, ResourceUpdates, StaticResource, TaskOutcome, TaskRecord,
    TaskStore,
};
use futures_util::StreamExt;
use serde_json::json;

/// A redis-server with no persistence on a free port; killed when dropped.
pub(super) struct Server {
    child: Child,
    port: u16,
}

impl Server {
    pub(super) fn start() -> Option<Self> {
        let binary = ["/usr/bin/redis-server", "/usr/local/bin/redis-server"]
            .iter()
            .map(PathBuf::from)
            .find(|path| path.exists());
        let Some(binary) = binary else {
            let message = "redis-server is not installed (Debian: apt-get install redis-server): the Redis store tests DID NOT RUN";
            assert!(std::env::var("CI").as_deref() != Ok("true"), "{message}");
            eprintln!("\n!!! {message} !!!\n");
            return None;
        };
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|listener| listener.local_addr())
            .unwrap()
            .port();
        let child = Command::new(binary)
            .args(["--bind", "127.0.0.1", "--port", &port.to_string()])
            .args(["--save", "", "--appendonly", "no"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("redis-server starts");
        let server = Server { child, port };
        let deadline = Instant::now() + Duration::from_secs(20);
        while server.cli(&["PING"]).trim() != "PONG" {
            assert!(Instant::now() < deadline, "redis-server did not answer");
            std::thread::sleep(Duration::from_millis(20));
        }
        Some(server)
    }

    pub(super) fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/", self.port)
    }

    fn cli(&self, args: &[&str]) -> String {
        self.cli_with_input(args, "")
    }

    /// `redis-cli` with `input` on its standard input, which `-x` reads as
    /// the last argument (an argument of the command line holds 128 KiB).
    fn cli_with_input(&self, args: &[&str], input: &str) -> String {
        use std::io::Write;
        let mut child = Command::new("redis-cli")
            .args(["-h", "127.0.0.1", "-p", &self.port.to_string(), "--raw"])
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("redis-cli runs");
        let mut stdin = child.stdin.take().expect("its stdin");
        stdin.write_all(input.as_bytes()).expect("redis-cli reads");
        drop(stdin);
        let output = child.wait_with_output().expect("redis-cli ends");
        String::from_utf8_lossy(&output.stdout).into_owned()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn working(tool: &str) -> TaskRecord {
    TaskRecord::new(
        tool,
        Duration::from_secs(60),
        Duration::from_millis(100),
        "replica-a",
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_replicas_share_tasks_and_an_ended_task_is_never_rewritten() {
    let Some(server) = Server::start() else {
        return;
    };
    let one = Redis::connect(&server.url(), "share").await.unwrap();
    let other = Redis::connect(&server.url(), "share").await.unwrap();
    let (a, b) = (one.task_store(), other.task_store());

    let mut task = working("slow");
    a.put(task.clone()).await.unwrap();
    assert_eq!(b.get(&task.id).await.unwrap(), Some(task.clone()));
    assert_eq!(b.list(10).await.unwrap(), vec![task.clone()]);

    task.status = TaskStatus::Completed;
    task.outcome = Some(TaskOutcome::Result(json!({ "content": [] })));
    a.put(task.clone()).await.unwrap();
    // A late write (a runner that thought the task still ran) is ignored:
    // the result is stored once.
    let mut late = task.clone();
    late.status = TaskStatus::Failed;
    late.outcome = Some(TaskOutcome::Error(json!({ "code": -1, "message": "late" })));
    b.put(late).await.unwrap();
    assert_eq!(b.get(&task.id).await.unwrap(), Some(task.clone()));

    // Every key expires with its task; no lease is left once it ended.
    let ttl: i64 = server
        .cli(&["PTTL", &format!("share:task:{}", task.id)])
        .trim()
        .parse()
        .unwrap();
    assert!(ttl > 0 && ttl <= 60_000, "{ttl}");
    assert_eq!(server.cli(&["EXISTS", "share:leases"]).trim(), "0");

    // Another prefix is another deployment.
    let elsewhere = Redis::connect(&server.url(), "elsewhere").await.unwrap();
    assert_eq!(elsewhere.task_store().get(&task.id).await.unwrap(), None);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancel_asked_on_one_replica_reaches_the_runner_at_once() {
    let Some(server) = Server::start() else {
        return;
    };
    let runner = Redis::connect(&server.url(), "cancel").await.unwrap();
    let asker = Redis::connect(&server.url(), "cancel").await.unwrap();
    let store = runner.task_store();
    let mut cancels = store.cancellations().expect("a stream of cancels");
    let task = working("slow");
    store.put(task.clone()).await.unwrap();
    // The subscription is made when the connection is; give it a moment.
    tokio::time::sleep(Duration::from_millis(200)).await;

    let asked = Instant::now();
    asker.task_store().request_cancel(&task.id).await.unwrap();
    let heard = tokio::time::timeout(Duration::from_secs(1), cancels.recv())
        .await
        .expect("the cancel arrives within a second")
        .unwrap();
    assert_eq!(heard, task.id);
    assert!(asked.elapsed() < Duration::from_secs(1));
    assert!(store.cancel_requested(&task.id).await.unwrap());
    // A cancel of a task that does not exist marks nothing.
    asker
        .task_store()
        .request_cancel("no-such-task")
        .await
        .unwrap();
    assert!(!store.cancel_requested("no-such-task").await.unwrap());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_task_of_a_replica_that_stopped_renewing_turns_failed_after_its_lease() {
    let Some(server) = Server::start() else {
        return;
    };
    let survivor = Redis::connect(&server.url(), "lease").await.unwrap();
    let task = working("slow");
    let deadline = || -> u64 {
        server
            .cli(&["ZSCORE", "lease:leases", &task.id])
            .trim()
            .parse()
            .unwrap_or(0)
    };
    {
        let dying = Redis::connect(&server.url(), "lease").await.unwrap();
        let store: RedisTaskStore = dying.task_store().with_lease(Duration::from_secs(2));
        store.put(task.clone()).await.unwrap();
        // Renewed while it lives: its deadline moves on.
        let first = deadline();
        assert!(first > 0, "a running task holds a lease");
        let waited = Instant::now();
        while deadline() <= first {
            assert!(
                waited.elapsed() < Duration::from_secs(20),
                "the lease was never renewed"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let alive = survivor.task_store().get(&task.id).await.unwrap().unwrap();
        assert_eq!(alive.status, TaskStatus::Working);
    }
    // Its connection and lease keeper are gone: the lease lapses, and the
    // next look at the task ends it.
    let ended = tokio::time::timeout(Duration::from_secs(20), async {
        loop {
            let seen = survivor.task_store().get(&task.id).await.unwrap().unwrap();
            if seen.status.is_terminal() {
                return seen;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    })
    .await
    .expect("the task ends once its lease lapsed");
    assert_eq!(ended.status, TaskStatus::Failed);
    let message = ended.status_message.clone().unwrap();
    assert!(message.contains("lease"), "{message}");
    assert_eq!(ended.error().unwrap()["code"], json!(-32603));
    assert_eq!(server.cli(&["ZSCORE", "lease:leases", &task.id]).trim(), "");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn malformed_records_and_ids_are_clear_errors_not_panics() {
    let Some(server) = Server::start() else {
        return;
    };
    let redis = Redis::connect(&server.url(), "bad").await.unwrap();
    let store = redis.task_store();
    server.cli(&[
        "HSET",
        "bad:task:broken",
        "record",
        "{not json",
        "status",
        "working",
    ]);
    let error = store.get("broken").await.unwrap_err();
    let said = format!("{error}: {}", std::error::Error::source(&error).unwrap());
    assert!(said.contains("bad:task:broken"), "{said}");

    let stranger = working("slow");
    server.cli(&[
        "HSET",
        "bad:task:other",
        "record",
        &serde_json::to_string(&stranger).unwrap(),
        "status",
        "working",
    ]);
    let error = store.get("other").await.unwrap_err();
    let said = std::error::Error::source(&error).unwrap().to_string();
    assert!(said.contains("holds task"), "{said}");

    // An id far too long is no task, not a key to make.
    assert_eq!(store.get(&"x".repeat(10_000)).await.unwrap(), None);

    // Answers are bounded before they are stored; one over the bound in
    // the store is an error naming it, not an answer silently dropped.
    let huge = serde_json::to_string(&"y".repeat(300 * 1024)).unwrap();
    server.cli_with_input(&["-x", "HSET", "bad:answers:asked", "name"], &huge);
    let error = store.answers("asked").await.unwrap_err();
    let said = format!("{error}: {}", std::error::Error::source(&error).unwrap());
    assert!(
        said.contains("bad:answers:asked") && said.contains("`name` is larger than"),
        "{said}"
    );

    let sessions = redis.session_store();
    let hostile = "a b\r\nc";
    assert!(sessions.load(hostile).await.is_err());
    server.cli(&["SET", "bad:session:s1", "[1,2"]);
    let error = sessions.load("s1").await.unwrap_err().to_string();
    assert!(error.contains("bad:session:s1"), "{error}");

    let events = redis.event_store();
    for id in ["", "nonumber", "12", "x:stream", "1:a b"] {
        assert!(
            events.replay_events_after(id).await.is_err(),
            "`{id}` is not an event id"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sessions_are_shared_between_replicas_and_stream_events_kept_with_their_session() {
    let Some(server) = Server::start() else {
        return;
    };
    let one = Redis::connect(&server.url(), "sessions").await.unwrap();
    let other = Redis::connect(&server.url(), "sessions").await.unwrap();
    let init = serde_json::from_value(json!({
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": { "name": "probe", "version": "1" },
    }))
    .unwrap();
    let state = SessionState::new(init);
    one.session_store().store("s-1", &state).await.unwrap();
    let loaded = other.session_store().load("s-1").await.unwrap().unwrap();
    assert_eq!(
        serde_json::to_value(&loaded).unwrap(),
        serde_json::to_value(&state).unwrap()
    );
    other.session_store().delete("s-1").await.unwrap();
    assert!(one.session_store().load("s-1").await.unwrap().is_none());

    // The events of a session's `GET` stream go to Redis, in the
    // session's key space, expiring with it; a request's stream whose
    // fate is not known keeps nothing there; outside a request on the
    // session, nothing replays; a DELETE takes the events with it.
    let one = one.with_session_ttl(Duration::from_secs(60));
    one.session_store().store("s-2", &state).await.unwrap();
    let message: ServerJsonRpcMessage = serde_json::from_value(json!({
        "jsonrpc": "2.0",
        "method": "notifications/tools/list_changed",
    }))
    .unwrap();
    let events = one.event_store();
    let first = events
        .store_event("s-2:common", &ServerSseMessage::new("", message.clone()))
        .await
        .unwrap();
    events
        .store_event("s-2:common", &ServerSseMessage::new("", message.clone()))
        .await
        .unwrap();
    events
        .store_event("undecided", &ServerSseMessage::new("", message))
        .await
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(5);
    let kept = loop {
        let kept = server.cli(&["KEYS", "sessions:events:*"]);
        if !kept.trim().is_empty() {
            break kept;
        }
        assert!(
            Instant::now() < deadline,
            "the stream's events reached Redis"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    let key = kept.trim();
    assert!(key.starts_with("sessions:events:s-2:"), "{key}");
    assert_eq!(server.cli(&["ZCARD", key]).trim(), "2");
    let ttl: i64 = server.cli(&["PTTL", key]).trim().parse().unwrap();
    let session_ttl: i64 = server
        .cli(&["PTTL", "sessions:session:s-2"])
        .trim()
        .parse()
        .unwrap();
    assert!(ttl > 0 && ttl <= session_ttl + 50, "{ttl} vs {session_ttl}");
    let replayed: Vec<ServerSseMessage> = other
        .event_store()
        .replay_events_after(&first)
        .await
        .unwrap()
        .collect()
        .await;
    assert!(replayed.is_empty(), "replayed outside its session");
    other.session_store().delete("s-2").await.unwrap();
    assert_eq!(server.cli(&["KEYS", "sessions:*"]).trim(), "");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bus_event_reaches_the_other_replica_once() {
    let Some(server) = Server::start() else {
        return;
    };
    let one = Redis::connect(&server.url(), "bus").await.unwrap();
    let other = Redis::connect(&server.url(), "bus").await.unwrap();
    let (here, there) = (one.event_bus(), other.event_bus());
    let mut heard_here = here.subscribe();
    let mut heard_there = there.subscribe();
    tokio::time::sleep(Duration::from_millis(200)).await;
    let event = BusEvent::ResourceUpdated {
        uri: "test://watched".into(),
    };
    // From a thread with no runtime, as a file watcher announcing an
    // update would.
    let publisher = here.clone();
    let published = event.clone();
    std::thread::spawn(move || publisher.publish(published))
        .join()
        .unwrap();
    let wait = Duration::from_secs(2);
    assert_eq!(
        tokio::time::timeout(wait, heard_there.recv())
            .await
            .unwrap()
            .unwrap(),
        event
    );
    assert_eq!(
        tokio::time::timeout(wait, heard_here.recv())
            .await
            .unwrap()
            .unwrap(),
        event
    );
    // Its own event, coming back over Redis, is not heard twice.
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(heard_here.try_recv().is_err());
    // Garbage on the channel is dropped with a warning.
    server.cli(&["PUBLISH", "bus:bus", "{garbage"]);
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert!(heard_there.try_recv().is_err());
}

/// A client that keeps the resource updates and tool list changes it hears.
#[derive(Clone, Default)]
struct Hears {
    updated: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
    tools_changed: std::sync::Arc<tokio::sync::Notify>,
}

impl ClientHandler for Hears {
    fn get_info(&self) -> ClientConfig {
        ClientConfig::new(
            ClientCapabilities::default(),
            Implementation::new("dsh-tests", "0"),
        )
    }

    async fn on_resource_updated(
        &self,
        params: ResourceUpdatedNotificationParam,
        _: NotificationContext<RoleClient>,
    ) {
        self.updated.lock().unwrap().push(params.uri);
    }

    async fn on_tool_list_changed(&self, _: NotificationContext<RoleClient>) {
        self.tools_changed.notify_one();
    }
}

/// A replica: a server on its own registry and Redis connection, with a
/// client of its own over an in-memory pipe.
async fn replica(
    url: &str,
    registry: &Registry,
) -> (RunningService<RoleClient, Hears>, ResourceUpdates) {
    let redis = Redis::connect(url, "replicas").await.unwrap();
    let mut server = McpServer::new(registry.clone())
        .resource(StaticResource::text("docs://readme", "readme", "# Hello"))
        .redis(&redis);
    let updates = server.resource_updates();
    let (server_io, client_io) = tokio::io::duplex(64 * 1024);
    tokio::spawn(async move {
        let _redis = redis;
        if let Ok(running) = server.serve(server_io).await {
            let _ = running.waiting().await;
        }
    });
    let client = tokio::time::timeout(Duration::from_secs(20), Hears::default().serve(client_io))
        .await
        .expect("the handshake ends in time")
        .expect("the handshake succeeds");
    (client, updates)
}

/// The arguments of `passing`: none.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Nothing {}

/// A tool that comes and goes.
#[dsh_kit::prelude::tool(read_only)]
async fn passing(_args: Nothing) -> String {
    "here".to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_resource_update_and_a_tool_change_on_one_replica_reach_a_client_of_another() {
    let Some(server) = Server::start() else {
        return;
    };
    let (here, there) = (Registry::new(), Registry::new());
    let (_client_here, updates_here) = replica(&server.url(), &here).await;
    let (client_there, _updates_there) = replica(&server.url(), &there).await;
    #[allow(deprecated, reason = "the 2025 protocols subscribe this way")]
    client_there
        .subscribe(SubscribeRequestParams::new("docs://readme"))
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(200)).await;

    updates_here.updated("docs://readme");
    let heard = tokio::time::timeout(Duration::from_secs(5), async {
        loop {
            let heard = client_there.service().updated.lock().unwrap().clone();
            if !heard.is_empty() {
                return heard;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await
    .expect("the update reaches the other replica's client");
    assert_eq!(heard, ["docs://readme"]);

    let changed = std::sync::Arc::clone(&client_there.service().tools_changed);
    here.register::<passing>().unwrap().keep();
    tokio::time::timeout(Duration::from_secs(5), changed.notified())
        .await
        .expect("list_changed reaches the other replica's client");
}
