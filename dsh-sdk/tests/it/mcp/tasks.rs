//! MCP tasks through a real MCP client (rmcp's) over streamable HTTP on
//! 127.0.0.1: a long-running tool answered with a task, then polled,
//! fetched and cancelled, on both protocol eras, and across two servers
//! sharing a file task store.
#![cfg(feature = "mcp")]

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use dsh_kit::Registry;
use dsh_kit::export::Format;
use dsh_kit::mcp::rmcp::model::{
    CallToolRequestParams, CallToolResponse, CancelTaskParams, ClientCapabilities, ClientConfig,
    ClientRequest, CustomRequest, GetTaskParams, Implementation, ProtocolVersion, ServerResult,
    TaskPayload, TaskStatus,
};
use dsh_kit::mcp::rmcp::service::RunningService;
use dsh_kit::mcp::rmcp::transport::StreamableHttpClientTransport;
use dsh_kit::mcp::rmcp::{ClientHandler, ClientLifecycleMode, ClientServiceExt, RoleClient};
use dsh_kit::mcp::{FileTaskStore, McpHttpServer, McpServer, TASK_SUPPORT_META_KEY};
use dsh_kit::prelude::*;
use serde_json::{Value, json};

/// The longest any one step may take.
const STEP: Duration = Duration::from_secs(20);

/// Calls of [`endless`] stopped before they finished.
static STOPPED: AtomicUsize = AtomicUsize::new(0);

/// Counts a call of [`endless`] stopped when it is dropped unfinished.
struct Running;

impl Drop for Running {
    fn drop(&mut self) {
        STOPPED.fetch_add(1, Ordering::SeqCst);
    }
}

/// Works for `ms` milliseconds, reporting progress.
#[tool(read_only, task)]
async fn slow(
    /// How long to work
    ms: u64,
    exec: &Exec,
) -> Result<Value, ToolError> {
    let mut worked = 0;
    while worked < ms {
        if exec.is_cancelled() {
            return Err(ToolError::new("cancelled"));
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
        worked += 20;
        exec.progress(format!("{worked} ms"));
    }
    Ok(json!({ "worked_ms": worked }))
}

/// Works until stopped.
#[tool(read_only, task)]
async fn endless() -> String {
    let _running = Running;
    std::future::pending::<String>().await
}

/// Runs only as a task.
#[tool(read_only, task_required)]
async fn batch() -> String {
    "done".to_owned()
}

/// A client that takes tasks, or not.
#[derive(Clone)]
struct Client {
    tasks: bool,
}

impl ClientHandler for Client {
    fn get_info(&self) -> ClientConfig {
        let mut capabilities = ClientCapabilities::default();
        if self.tasks {
            capabilities = ClientCapabilities::builder().enable_tasks().build();
        }
        ClientConfig::new(capabilities, Implementation::new("dsh-tests", "0"))
    }
}

pub(super) fn registry() -> Registry {
    let registry = Registry::new();
    registry.register::<slow>().unwrap().keep();
    registry.register::<batch>().unwrap().keep();
    registry.register::<endless>().unwrap().keep();
    registry
}

async fn serve(server: McpServer) -> McpHttpServer {
    server
        .task_poll_interval(Duration::from_millis(20))
        .serve_http("127.0.0.1:0".parse().unwrap())
        .await
        .expect("the server listens")
}

async fn connect(
    server: &McpHttpServer,
    tasks: bool,
    lifecycle: ClientLifecycleMode,
) -> RunningService<RoleClient, Client> {
    let transport = StreamableHttpClientTransport::from_uri(server.url().as_str());
    tokio::time::timeout(
        STEP,
        Client { tasks }.serve_with_lifecycle(transport, lifecycle),
    )
    .await
    .expect("the handshake ends in time")
    .expect("the handshake succeeds")
}

fn eras() -> [ClientLifecycleMode; 2] {
    [
        ClientLifecycleMode::Initialize,
        ClientLifecycleMode::Discover {
            preferred_versions: vec![ProtocolVersion::V_2026_07_28],
        },
    ]
}

fn request(name: &str, args: Value) -> CallToolRequestParams {
    let Value::Object(args) = args else {
        panic!("arguments are an object")
    };
    CallToolRequestParams::new(name.to_owned()).with_arguments(args)
}

/// Starts `slow` as a task, giving its id.
async fn start(client: &RunningService<RoleClient, Client>, ms: u64) -> String {
    start_tool(client, "slow", json!({ "ms": ms })).await
}

/// Starts `tool` as a task, giving its id.
pub(super) async fn start_tool<C: ClientHandler>(
    client: &RunningService<RoleClient, C>,
    tool: &str,
    args: Value,
) -> String {
    let response = tokio::time::timeout(STEP, client.call_tool_once(request(tool, args)))
        .await
        .expect("the call answers in time")
        .expect("the call answers");
    let CallToolResponse::Task(created) = response else {
        panic!("a task tool answers a task-taking client with a task: {response:?}")
    };
    assert_eq!(created.task.status, TaskStatus::Working);
    assert!(created.task.poll_interval_ms.is_some());
    created.task.task_id
}

/// Polls `tasks/get` until the task ends.
pub(super) async fn until_done<C: ClientHandler>(
    client: &RunningService<RoleClient, C>,
    id: &str,
) -> dsh_kit::mcp::rmcp::model::DetailedTask {
    tokio::time::timeout(STEP, async {
        loop {
            let got = client
                .get_task(GetTaskParams::new(id))
                .await
                .expect("tasks/get answers");
            if got.task.status().is_terminal() {
                return got.task;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await
    .expect("the task ends in time")
}

pub(super) async fn custom<C: ClientHandler>(
    client: &RunningService<RoleClient, C>,
    method: &str,
    params: Value,
) -> Result<Value, String> {
    let request = ClientRequest::CustomRequest(CustomRequest::new(method.to_owned(), Some(params)));
    match tokio::time::timeout(STEP, client.send_request(request)).await {
        Ok(Ok(ServerResult::CustomResult(result))) => Ok(result.0),
        Ok(Ok(other)) => Ok(serde_json::to_value(other).unwrap()),
        Ok(Err(error)) => Err(error.to_string()),
        Err(_) => panic!("`{method}` answers in time"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_is_started_polled_and_its_result_fetched_on_both_protocol_eras() {
    let server = serve(McpServer::new(registry())).await;
    for (modern, era) in [false, true].into_iter().zip(eras()) {
        let client = connect(&server, true, era).await;
        let id = start(&client, 200).await;
        let first = client
            .get_task(GetTaskParams::new(&id))
            .await
            .expect("tasks/get answers");
        assert_eq!(first.task.task.task_id, id);
        // While it works, the status message is the tool's last progress.
        let message = tokio::time::timeout(STEP, async {
            loop {
                let got = client.get_task(GetTaskParams::new(&id)).await.unwrap();
                if let Some(message) = got.task.task.status_message {
                    return message;
                }
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
        })
        .await
        .expect("a progress message shows in time");
        assert!(message.ends_with(" ms"), "{message}");
        let done = until_done(&client, &id).await;
        let TaskPayload::Completed { result } = &done.payload else {
            panic!("the task completed: {done:?}")
        };
        assert_eq!(result["structuredContent"], json!({ "worked_ms": 200 }));
        assert_ne!(result["isError"], json!(true));

        // The tasks extension of 2026-07-28 dropped `tasks/result` and
        // `tasks/list`: unknown methods there.
        if modern {
            for method in ["tasks/result", "tasks/list"] {
                let refused = custom(&client, method, json!({ "taskId": id })).await;
                assert!(
                    refused
                        .as_ref()
                        .is_err_and(|error| error.contains("-32601")),
                    "{method}: {refused:?}"
                );
            }
            continue;
        }
        // MCP 2025-11-25's `tasks/result` gives the call's result, tied to its task.
        let fetched = custom(&client, "tasks/result", json!({ "taskId": id }))
            .await
            .expect("tasks/result answers");
        assert_eq!(fetched["structuredContent"], json!({ "worked_ms": 200 }));
        assert_eq!(
            fetched["_meta"]["io.modelcontextprotocol/related-task"]["taskId"],
            json!(id)
        );
        let listed = custom(&client, "tasks/list", json!({}))
            .await
            .expect("tasks/list answers");
        assert!(
            listed["tasks"]
                .as_array()
                .unwrap()
                .iter()
                .any(|task| task["taskId"] == json!(id) && task["status"] == "completed"),
            "{listed}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_no_authenticator_a_task_is_its_sessions_alone() {
    let server = serve(McpServer::new(registry())).await;
    let mine = connect(&server, true, ClientLifecycleMode::Initialize).await;
    let theirs = connect(&server, true, ClientLifecycleMode::Initialize).await;
    let id = start(&mine, 300).await;

    let listed = custom(&theirs, "tasks/list", json!({})).await.unwrap();
    assert_eq!(listed["tasks"], json!([]), "{listed}");
    assert!(theirs.get_task(GetTaskParams::new(&id)).await.is_err());
    assert!(
        custom(&theirs, "tasks/result", json!({ "taskId": id }))
            .await
            .is_err()
    );
    assert!(
        theirs
            .cancel_task(CancelTaskParams::new(&id))
            .await
            .is_err()
    );

    let done = until_done(&mine, &id).await;
    assert_eq!(
        done.status(),
        TaskStatus::Completed,
        "the other session's cancel did nothing"
    );
    let listed = custom(&mine, "tasks/list", json!({})).await.unwrap();
    assert_eq!(
        listed["tasks"].as_array().map(Vec::len),
        Some(1),
        "{listed}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tasks_result_waits_for_the_end() {
    let server = serve(McpServer::new(registry())).await;
    let client = connect(&server, true, ClientLifecycleMode::Initialize).await;
    let id = start(&client, 300).await;
    let fetched = custom(&client, "tasks/result", json!({ "taskId": id }))
        .await
        .expect("tasks/result answers");
    assert_eq!(fetched["structuredContent"], json!({ "worked_ms": 300 }));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_start_and_end_go_out_on_the_event_bus() {
    let bus = dsh_kit::mcp::LocalEventBus::default();
    let mut heard = dsh_kit::mcp::EventBus::subscribe(&bus);
    let server = serve(McpServer::new(registry()).event_bus(bus)).await;
    let client = connect(&server, true, ClientLifecycleMode::Initialize).await;
    let id = start(&client, 50).await;
    until_done(&client, &id).await;
    let mut statuses = Vec::new();
    while statuses.len() < 2 {
        let event = tokio::time::timeout(STEP, heard.recv())
            .await
            .expect("the bus carries the task's changes")
            .unwrap();
        if let dsh_kit::mcp::BusEvent::TaskStatus { task, .. } = event {
            assert_eq!(task["taskId"], json!(id));
            statuses.push(task["status"].clone());
        }
    }
    assert_eq!(statuses, [json!("working"), json!("completed")]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancelled_task_stops_its_call() {
    let server = serve(McpServer::new(registry())).await;
    let client = connect(&server, true, ClientLifecycleMode::Initialize).await;
    let before = STOPPED.load(Ordering::SeqCst);
    let id = start_tool(&client, "endless", json!({})).await;
    tokio::time::sleep(Duration::from_millis(100)).await;
    client
        .cancel_task(CancelTaskParams::new(&id))
        .await
        .expect("tasks/cancel answers");
    let done = until_done(&client, &id).await;
    assert_eq!(done.status(), TaskStatus::Cancelled);
    assert!(
        STOPPED.load(Ordering::SeqCst) > before,
        "the call was stopped"
    );
    let fetched = custom(&client, "tasks/result", json!({ "taskId": id })).await;
    assert!(fetched.unwrap_err().contains("was cancelled"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_takes_no_tasks_gets_results_or_a_clear_refusal() {
    let server = serve(McpServer::new(registry())).await;
    let client = connect(&server, false, ClientLifecycleMode::Initialize).await;
    let result = client
        .call_tool(request("slow", json!({ "ms": 20 })))
        .await
        .expect("an optional task tool answers with its result");
    assert_eq!(result.structured_content, Some(json!({ "worked_ms": 20 })));
    let refused = client
        .call_tool(request("batch", json!({})))
        .await
        .expect_err("a required task tool refuses a client that takes no tasks");
    assert!(
        refused.to_string().contains("runs only as a task"),
        "{refused}"
    );
    let unknown = client
        .get_task(GetTaskParams::new("00000000-0000-4000-8000-000000000000"))
        .await;
    assert!(unknown.is_err());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tools_list_says_which_tools_run_as_tasks() {
    let server = serve(McpServer::new(registry())).await;
    let client = connect(&server, true, ClientLifecycleMode::Initialize).await;
    let tools = client.list_all_tools().await.expect("tools/list answers");
    let support = |name: &str| {
        let tool = tools.iter().find(|tool| tool.name == name).unwrap();
        serde_json::to_value(tool).unwrap()["_meta"][TASK_SUPPORT_META_KEY].clone()
    };
    assert_eq!(support("slow"), json!("optional"));
    assert_eq!(support("batch"), json!("required"));
    // The registry's own MCP export says it as MCP 2025-11-25 does.
    let exported = registry().export(Format::Mcp);
    assert_eq!(
        exported[0]["execution"]["taskSupport"],
        json!("required"),
        "{exported}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_started_on_one_replica_is_fetched_and_cancelled_through_another() {
    let dir = tempfile::tempdir().unwrap();
    let replica = |dir: &std::path::Path| {
        McpServer::new(registry())
            .stateless(true)
            .task_store(FileTaskStore::new(dir).unwrap())
    };
    let one = serve(replica(dir.path())).await;
    let other = serve(replica(dir.path())).await;
    // With no session, only the 2026-07-28 protocol says, in each request,
    // that the client takes tasks.
    let era = ClientLifecycleMode::Discover {
        preferred_versions: vec![ProtocolVersion::V_2026_07_28],
    };
    let on_one = connect(&one, true, era.clone()).await;
    let on_other = connect(&other, true, era).await;

    let id = start(&on_one, 200).await;
    let done = until_done(&on_other, &id).await;
    let TaskPayload::Completed { result } = &done.payload else {
        panic!("the task completed: {done:?}")
    };
    assert_eq!(result["structuredContent"], json!({ "worked_ms": 200 }));

    let before = STOPPED.load(Ordering::SeqCst);
    let id = start_tool(&on_one, "endless", json!({})).await;
    on_other
        .cancel_task(CancelTaskParams::new(&id))
        .await
        .expect("tasks/cancel answers on the other replica");
    let done = until_done(&on_other, &id).await;
    assert_eq!(done.status(), TaskStatus::Cancelled);
    assert!(
        STOPPED.load(Ordering::SeqCst) > before,
        "the call was stopped on its replica"
    );

    // A 2025 client of a server with no session gets the result itself.
    let legacy = connect(&one, true, ClientLifecycleMode::Initialize).await;
    let result = legacy
        .call_tool(request("slow", json!({ "ms": 20 })))
        .await
        .expect("the call answers");
    assert_eq!(result.structured_content, Some(json!({ "worked_ms": 20 })));
}
