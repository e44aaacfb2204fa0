//! MCP 2026-07-28 over plain HTTP, each request standing alone: the methods
//! that revision removed, multi-round-trip input (keyed requests, several
//! at once, answers carried between rounds in a sealed `requestState`), a
//! missing client capability, prompts that ask, log messages only at a
//! requested level, and tasks that wait for `tasks/update`, in every task
//! store (memory, a directory, Redis), answered through another replica.

use std::time::Duration;

use dsh_kit::Registry;
use dsh_kit::client::{Elicited, LogLevel, SampleRequest};
use dsh_kit::mcp::redis::Redis;
use dsh_kit::mcp::rmcp::model::{PromptMessage, Role};
use dsh_kit::mcp::{FileTaskStore, McpServer, Prompt};
use dsh_kit::prelude::*;
use serde_json::{Value, json};

/// The longest any one step may take.
const STEP: Duration = Duration::from_secs(20);

/// A name the user gives.
#[derive(Deserialize, JsonSchema, Elicit)]
struct Name {
    /// The name
    name: String,
}

/// A colour the user likes.
#[derive(Deserialize, JsonSchema, Elicit)]
struct Colour {
    /// The colour
    color: String,
}

fn shown<T>(answer: Elicited<T>, show: impl FnOnce(T) -> String) -> String {
    match answer {
        Elicited::Accepted(value) => show(value),
        Elicited::Declined | Elicited::Cancelled => "nothing".to_owned(),
    }
}

/// Asks two questions, one after the other.
#[tool(read_only)]
async fn two_steps(exec: &Exec) -> Result<String, ToolError> {
    let name = exec.elicit_keyed::<Name>("step1", "Name?").await?;
    let colour = exec.elicit_keyed::<Colour>("step2", "Colour?").await?;
    Ok(format!(
        "{} likes {}",
        shown(name, |name| name.name),
        shown(colour, |colour| colour.color)
    ))
}

/// Asks for a name, the model and the roots at once.
#[tool(read_only)]
async fn all_at_once(exec: &Exec) -> Result<String, ToolError> {
    let (name, sample, roots) = tokio::join!(
        exec.elicit_keyed::<Name>("who", "Name?"),
        exec.sample(SampleRequest::user("Hi").key("model")),
        exec.roots(Some("roots")),
    );
    let roots: Vec<String> = roots?.into_iter().map(|root| root.uri).collect();
    Ok(format!(
        "{} / {} / {}",
        shown(name?, |name| name.name),
        sample?.text,
        roots.join(",")
    ))
}

/// Asks the model, which the client may not offer.
#[tool(read_only)]
async fn needs_the_model(exec: &Exec) -> Result<String, ToolError> {
    Ok(exec.sample(SampleRequest::user("Hi")).await?.text)
}

/// Logs once.
#[tool(read_only)]
async fn logs(exec: &Exec) -> String {
    exec.log(LogLevel::Info, "a line").await;
    "logged".to_owned()
}

/// Asks the user their name, as a task.
#[tool(read_only, task)]
async fn asks_in_a_task(exec: &Exec) -> Result<String, ToolError> {
    let name = exec.elicit_keyed::<Name>("who", "Name?").await?;
    Ok(format!("hello {}", shown(name, |name| name.name)))
}

/// Breaks on the server side, as a task.
#[tool(read_only, task)]
async fn breaks_in_a_task() -> String {
    panic!("a bug in the tool")
}

/// Asks two things in the request, then runs as a task.
#[tool(read_only, task_required, ask_first)]
async fn asks_then_a_task(exec: &Exec) -> Result<String, ToolError> {
    let name = exec.elicit_keyed::<Name>("who", "Name?").await?;
    let colour = exec.elicit_keyed::<Colour>("colour", "Colour?").await?;
    tokio::time::sleep(Duration::from_millis(50)).await;
    Ok(format!(
        "{} likes {}",
        shown(name, |name| name.name),
        shown(colour, |colour| colour.color)
    ))
}

/// Runs only as a task.
#[tool(read_only, task_required)]
async fn only_a_task() -> String {
    "done".to_owned()
}

fn registry() -> Registry {
    let registry = Registry::new();
    registry.register::<two_steps>().unwrap().keep();
    registry.register::<all_at_once>().unwrap().keep();
    registry.register::<needs_the_model>().unwrap().keep();
    registry.register::<logs>().unwrap().keep();
    registry.register::<asks_in_a_task>().unwrap().keep();
    registry.register::<breaks_in_a_task>().unwrap().keep();
    registry.register::<only_a_task>().unwrap().keep();
    registry.register::<asks_then_a_task>().unwrap().keep();
    registry
}

/// The arguments of the `plan` prompt.
#[derive(Deserialize, JsonSchema)]
struct Plan {
    /// What to plan
    goal: String,
}

fn server(registry: Registry) -> McpServer {
    McpServer::new(registry)
        .task_poll_interval(Duration::from_millis(20))
        .prompt(Prompt::asking(
            "plan",
            "Plans with the user's name",
            |args: Plan, exec: Exec| async move {
                let name = exec.elicit_keyed::<Name>("who", "Name?").await?;
                Ok(vec![PromptMessage::new_text(
                    Role::User,
                    format!("Plan {} for {}", args.goal, shown(name, |name| name.name)),
                )])
            },
        ))
}

struct Http {
    url: String,
    _server: dsh_kit::mcp::McpHttpServer,
}

async fn serve(server: McpServer) -> Http {
    let http = server
        .serve_http("127.0.0.1:0".parse().unwrap())
        .await
        .expect("the server listens");
    Http {
        url: http.url().to_string(),
        _server: http,
    }
}

/// What one request got: its HTTP status, the JSON-RPC response, and the
/// notifications that came before it on its stream.
struct Answer {
    status: u16,
    response: Value,
    notifications: Vec<Value>,
}

/// Sends `method` with `params` as a 2026-07-28 client that declared
/// `capabilities` (and, with `log_level`, asked for log messages).
async fn rpc_with(
    http: &Http,
    method: &str,
    mut params: Value,
    capabilities: Value,
    log_level: Option<&str>,
) -> Answer {
    let mut meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": { "name": "tests", "version": "0" },
        "io.modelcontextprotocol/clientCapabilities": capabilities,
    });
    if let Some(level) = log_level {
        meta["io.modelcontextprotocol/logLevel"] = json!(level);
    }
    params["_meta"] = meta;
    let mut request = reqwest::Client::new()
        .post(&http.url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", method);
    // A tool's or prompt's name, or a task's id (SEP-2243).
    if let Some(name) = params["name"].as_str().or(params["taskId"].as_str()) {
        request = request.header("mcp-name", name);
    }
    let body = json!({ "jsonrpc": "2.0", "id": 1, "method": method, "params": params });
    let response = tokio::time::timeout(STEP, request.body(body.to_string()).send())
        .await
        .expect("in time")
        .expect("the server answers");
    let status = response.status().as_u16();
    let text = response.text().await.unwrap_or_default();
    let mut messages: Vec<Value> = text
        .lines()
        .filter_map(|line| line.strip_prefix("data:"))
        .filter_map(|data| serde_json::from_str(data.trim()).ok())
        .collect();
    if messages.is_empty() {
        messages.push(serde_json::from_str(&text).unwrap_or(Value::Null));
    }
    let response = messages.pop().unwrap_or_default();
    Answer {
        status,
        response,
        notifications: messages,
    }
}

fn all_capabilities() -> Value {
    json!({ "elicitation": {}, "sampling": {}, "roots": {} })
}

async fn rpc(http: &Http, method: &str, params: Value) -> Answer {
    rpc_with(http, method, params, all_capabilities(), None).await
}

fn accept(content: Value) -> Value {
    json!({ "action": "accept", "content": content })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_methods_2026_removed_are_unknown_there() {
    let http = serve(server(registry())).await;
    for method in [
        "initialize",
        "ping",
        "logging/setLevel",
        "resources/subscribe",
        "resources/unsubscribe",
        "tasks/result",
        "tasks/list",
    ] {
        let answer = rpc(&http, method, json!({})).await;
        assert_eq!(answer.status, 404, "{method}: {}", answer.response);
        assert_eq!(
            answer.response["error"]["code"], -32601,
            "{method}: {}",
            answer.response
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn answers_carry_over_rounds_in_the_sealed_state() {
    let http = serve(server(registry())).await;
    let call = |extra: Value| {
        let mut params = json!({ "name": "two_steps", "arguments": {} });
        if let Value::Object(extra) = extra {
            params.as_object_mut().unwrap().extend(extra);
        }
        params
    };
    let first = rpc(&http, "tools/call", call(json!({}))).await.response;
    assert_eq!(first["result"]["resultType"], "input_required", "{first}");
    assert!(first["result"]["inputRequests"]["step1"].is_object());
    let state = first["result"]["requestState"].as_str().unwrap().to_owned();

    let second = rpc(
        &http,
        "tools/call",
        call(json!({
            "inputResponses": { "step1": accept(json!({ "name": "Ada" })) },
            "requestState": state,
        })),
    )
    .await
    .response;
    assert_eq!(second["result"]["resultType"], "input_required");
    assert!(second["result"]["inputRequests"]["step2"].is_object());
    assert!(second["result"]["inputRequests"].get("step1").is_none());
    let state = second["result"]["requestState"]
        .as_str()
        .unwrap()
        .to_owned();

    // The last round sends only its own answer: the first comes in the state.
    let third = rpc(
        &http,
        "tools/call",
        call(json!({
            "inputResponses": { "step2": accept(json!({ "color": "teal" })) },
            "requestState": state.clone(),
        })),
    )
    .await
    .response;
    assert_eq!(
        third["result"]["content"][0]["text"], "Ada likes teal",
        "{third}"
    );

    // Altered, the state is refused.
    let altered = format!("{state}x");
    let refused = rpc(
        &http,
        "tools/call",
        call(json!({
            "inputResponses": { "step2": accept(json!({ "color": "teal" })) },
            "requestState": altered,
        })),
    )
    .await
    .response;
    assert_eq!(refused["error"]["code"], -32602, "{refused}");
    assert!(
        refused["error"]["message"]
            .as_str()
            .unwrap()
            .contains("requestState"),
        "{refused}"
    );

    // Another server (another key) does not open it.
    let other = serve(server(registry())).await;
    let elsewhere = rpc(
        &other,
        "tools/call",
        call(json!({
            "inputResponses": { "step2": accept(json!({ "color": "teal" })) },
            "requestState": state,
        })),
    )
    .await
    .response;
    assert_eq!(elsewhere["error"]["code"], -32602, "{elsewhere}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn replicas_sharing_a_key_open_each_others_states() {
    let one = serve(server(registry()).state_key(b"a secret the replicas share")).await;
    let two = serve(server(registry()).state_key(b"a secret the replicas share")).await;
    let first = rpc(
        &one,
        "tools/call",
        json!({ "name": "two_steps", "arguments": {}, "inputResponses": { "step1": accept(json!({ "name": "Ada" })) } }),
    )
    .await
    .response;
    let state = first["result"]["requestState"].clone();
    let done = rpc(
        &two,
        "tools/call",
        json!({ "name": "two_steps", "arguments": {}, "requestState": state,
                "inputResponses": { "step2": accept(json!({ "color": "red" })) } }),
    )
    .await
    .response;
    assert_eq!(
        done["result"]["content"][0]["text"], "Ada likes red",
        "{done}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn requests_made_at_once_come_in_one_round() {
    let http = serve(server(registry())).await;
    let first = rpc(
        &http,
        "tools/call",
        json!({ "name": "all_at_once", "arguments": {} }),
    )
    .await
    .response;
    let requests = &first["result"]["inputRequests"];
    assert_eq!(requests["who"]["method"], "elicitation/create", "{first}");
    assert_eq!(requests["model"]["method"], "sampling/createMessage");
    assert_eq!(requests["roots"]["method"], "roots/list");

    let answers = json!({
        "who": accept(json!({ "name": "Ada" })),
        "model": { "role": "assistant", "content": { "type": "text", "text": "hello" }, "model": "m" },
        "roots": { "roots": [{ "uri": "file:///work", "name": "work" }] },
    });
    let done = rpc(
        &http,
        "tools/call",
        json!({ "name": "all_at_once", "arguments": {}, "inputResponses": answers,
                "requestState": first["result"]["requestState"] }),
    )
    .await
    .response;
    assert_eq!(
        done["result"]["content"][0]["text"], "Ada / hello / file:///work",
        "{done}"
    );

    // An answer that is not an object is named.
    let bad = rpc(
        &http,
        "tools/call",
        json!({ "name": "all_at_once", "arguments": {}, "inputResponses": { "who": 12345 } }),
    )
    .await
    .response;
    assert_eq!(bad["error"]["code"], -32602, "{bad}");
    assert!(
        bad["error"]["message"]
            .as_str()
            .unwrap()
            .contains("inputResponses.who"),
        "{bad}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_capability_the_client_did_not_declare_is_named() {
    let http = serve(server(registry())).await;
    let answer = rpc_with(
        &http,
        "tools/call",
        json!({ "name": "needs_the_model", "arguments": {} }),
        json!({}),
        None,
    )
    .await;
    assert_eq!(answer.status, 400, "{}", answer.response);
    assert_eq!(answer.response["error"]["code"], -32021);
    assert_eq!(
        answer.response["error"]["data"]["requiredCapabilities"],
        json!({ "sampling": {} })
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn log_messages_go_out_only_at_a_level_the_request_asked_for() {
    let http = serve(server(registry())).await;
    let call = json!({ "name": "logs", "arguments": {} });
    let silent = rpc(&http, "tools/call", call.clone()).await;
    assert_eq!(silent.response["result"]["content"][0]["text"], "logged");
    assert!(
        silent
            .notifications
            .iter()
            .all(|message| message["method"] != "notifications/message"),
        "{:?}",
        silent.notifications
    );
    let heard = rpc_with(&http, "tools/call", call, all_capabilities(), Some("info")).await;
    assert!(
        heard
            .notifications
            .iter()
            .any(|message| message["method"] == "notifications/message"
                && message["params"]["data"] == "a line"),
        "{:?}",
        heard.notifications
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_prompt_asks_the_client_as_a_tool_does() {
    let http = serve(server(registry())).await;
    let first = rpc(
        &http,
        "prompts/get",
        json!({ "name": "plan", "arguments": { "goal": "a trip" } }),
    )
    .await
    .response;
    assert_eq!(first["result"]["resultType"], "input_required", "{first}");
    let done = rpc(
        &http,
        "prompts/get",
        json!({ "name": "plan", "arguments": { "goal": "a trip" },
                "inputResponses": { "who": accept(json!({ "name": "Ada" })) },
                "requestState": first["result"]["requestState"] }),
    )
    .await
    .response;
    assert_eq!(
        done["result"]["messages"][0]["content"]["text"], "Plan a trip for Ada",
        "{done}"
    );
    // The state is bound to the prompt's arguments.
    let moved = rpc(
        &http,
        "prompts/get",
        json!({ "name": "plan", "arguments": { "goal": "a party" },
                "requestState": first["result"]["requestState"] }),
    )
    .await
    .response;
    assert_eq!(moved["error"]["code"], -32602, "{moved}");
}

/// What a client that takes tasks and elicits declares.
fn with_tasks() -> Value {
    json!({
        "elicitation": {},
        "extensions": { "io.modelcontextprotocol/tasks": {} },
    })
}

/// A request of a client that takes tasks.
async fn task_rpc(http: &Http, method: &str, params: Value) -> Value {
    rpc_with(http, method, params, with_tasks(), None)
        .await
        .response
}

/// Polls `tasks/get` until `done` holds of the task.
async fn task_until(http: &Http, id: &str, done: impl Fn(&Value) -> bool) -> Value {
    let deadline = tokio::time::Instant::now() + STEP;
    loop {
        let task = task_rpc(http, "tasks/get", json!({ "taskId": id })).await;
        if done(&task["result"]) {
            return task["result"].clone();
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the task never got there: {task}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// A task started through `http` waits for its answer, which comes through
/// `other` (the same server, or a replica sharing its store).
async fn a_task_waits_for_its_answer(http: &Http, other: &Http) {
    let created = task_rpc(
        http,
        "tools/call",
        json!({ "name": "asks_in_a_task", "arguments": {} }),
    )
    .await;
    assert_eq!(created["result"]["resultType"], "task", "{created}");
    let id = created["result"]["taskId"].as_str().unwrap().to_owned();
    let waiting = task_until(http, &id, |task| task["status"] == "input_required").await;
    assert_eq!(
        waiting["inputRequests"]["who"]["method"],
        "elicitation/create"
    );

    // An answer to nothing it waits for is ignored; a malformed one is named.
    let ack = task_rpc(
        other,
        "tasks/update",
        json!({ "taskId": id, "inputResponses": { "nobody": accept(json!({})) } }),
    )
    .await;
    assert_eq!(ack["result"]["resultType"], "complete", "{ack}");
    let bad = task_rpc(
        other,
        "tasks/update",
        json!({ "taskId": id, "inputResponses": { "who": "Ada" } }),
    )
    .await;
    assert_eq!(bad["error"]["code"], -32602, "{bad}");
    let unknown = task_rpc(
        other,
        "tasks/update",
        json!({ "taskId": "no-such-task", "inputResponses": {} }),
    )
    .await;
    assert_eq!(unknown["error"]["code"], -32602, "{unknown}");

    task_rpc(
        other,
        "tasks/update",
        json!({ "taskId": id, "inputResponses": { "who": accept(json!({ "name": "Ada" })) } }),
    )
    .await;
    let done = task_until(http, &id, |task| task["status"] == "completed").await;
    assert_eq!(done["result"]["content"][0]["text"], "hello Ada", "{done}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_waits_for_its_answer_in_memory() {
    let http = serve(server(registry())).await;
    a_task_waits_for_its_answer(&http, &http).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_waits_for_its_answer_given_to_a_replica_sharing_its_directory() {
    let dir = tempfile::tempdir().unwrap();
    let replica = || server(registry()).task_store(FileTaskStore::new(dir.path()).unwrap());
    let one = serve(replica()).await;
    let two = serve(replica()).await;
    a_task_waits_for_its_answer(&one, &two).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_waits_for_its_answer_given_to_a_replica_sharing_its_redis() {
    let Some(redis) = super::redis::Server::start() else {
        return;
    };
    let one = Redis::connect(&redis.url(), "rounds").await.unwrap();
    let two = Redis::connect(&redis.url(), "rounds").await.unwrap();
    let one = serve(server(registry()).task_store(one.task_store())).await;
    let two = serve(server(registry()).task_store(two.task_store())).await;
    a_task_waits_for_its_answer(&one, &two).await;
}

/// A tool that asks first answers its rounds in the request, with no task,
/// and the round that brings answers becomes a task that starts with them:
/// the task's state carries no `requestState`, and a question the task
/// asks later waits in the task (`tasks/update`), answered through `other`.
async fn a_tool_that_asks_first_becomes_a_task_with_its_answers(http: &Http, other: &Http) {
    let call = |extra: Value| {
        let mut params = json!({ "name": "asks_then_a_task", "arguments": {} });
        if let Value::Object(extra) = extra {
            params.as_object_mut().unwrap().extend(extra);
        }
        params
    };
    let first = task_rpc(http, "tools/call", call(json!({}))).await;
    assert_eq!(first["result"]["resultType"], "input_required", "{first}");
    assert!(first["result"].get("taskId").is_none(), "{first}");
    assert!(
        first["result"]["inputRequests"]["who"].is_object(),
        "{first}"
    );
    let state = first["result"]["requestState"].as_str().unwrap().to_owned();

    // A tampered state is refused before any task is made.
    let tampered = task_rpc(
        http,
        "tools/call",
        call(json!({
            "inputResponses": { "who": accept(json!({ "name": "Ada" })) },
            "requestState": format!("{state}x"),
        })),
    )
    .await;
    assert_eq!(tampered["error"]["code"], -32602, "{tampered}");

    let second = task_rpc(
        http,
        "tools/call",
        call(json!({
            "inputResponses": { "who": accept(json!({ "name": "Ada" })) },
            "requestState": state,
        })),
    )
    .await;
    assert_eq!(second["result"]["resultType"], "task", "{second}");
    assert!(second["result"].get("requestState").is_none(), "{second}");
    assert!(second["result"].get("inputRequests").is_none(), "{second}");
    let id = second["result"]["taskId"].as_str().unwrap().to_owned();

    // The task starts with the name; the colour it asks for waits in it.
    let waiting = task_until(http, &id, |task| task["status"] == "input_required").await;
    assert!(waiting["inputRequests"]["colour"].is_object(), "{waiting}");
    assert!(waiting["inputRequests"].get("who").is_none(), "{waiting}");
    task_rpc(
        other,
        "tasks/update",
        json!({ "taskId": id, "inputResponses": { "colour": accept(json!({ "color": "teal" })) } }),
    )
    .await;
    let done = task_until(http, &id, |task| task["status"] == "completed").await;
    assert_eq!(
        done["result"]["content"][0]["text"], "Ada likes teal",
        "{done}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tool_that_asks_first_becomes_a_task_in_memory() {
    let http = serve(server(registry())).await;
    a_tool_that_asks_first_becomes_a_task_with_its_answers(&http, &http).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tool_that_asks_first_becomes_a_task_in_a_shared_directory() {
    let dir = tempfile::tempdir().unwrap();
    let replica = || {
        server(registry())
            .state_key(b"a secret the replicas share")
            .task_store(FileTaskStore::new(dir.path()).unwrap())
    };
    let one = serve(replica()).await;
    let two = serve(replica()).await;
    a_tool_that_asks_first_becomes_a_task_with_its_answers(&one, &two).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tool_that_asks_first_becomes_a_task_in_a_shared_redis() {
    let Some(redis) = super::redis::Server::start() else {
        return;
    };
    let one = Redis::connect(&redis.url(), "asks-first").await.unwrap();
    let two = Redis::connect(&redis.url(), "asks-first").await.unwrap();
    let replica = |redis: &Redis| {
        server(registry())
            .state_key(b"a secret the replicas share")
            .task_store(redis.task_store())
    };
    let one = serve(replica(&one)).await;
    let two = serve(replica(&two)).await;
    a_tool_that_asks_first_becomes_a_task_with_its_answers(&one, &two).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_whose_call_panicked_fails_with_a_protocol_error() {
    let http = serve(server(registry())).await;
    let created = task_rpc(
        &http,
        "tools/call",
        json!({ "name": "breaks_in_a_task", "arguments": {} }),
    )
    .await;
    let id = created["result"]["taskId"].as_str().unwrap().to_owned();
    let failed = task_until(&http, &id, |task| task["status"] != "working").await;
    assert_eq!(failed["status"], "failed", "{failed}");
    assert_eq!(failed["error"]["code"], -32603, "{failed}");
    assert!(failed.get("result").is_none(), "{failed}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tool_that_runs_only_as_a_task_names_the_extension_a_client_lacks() {
    let http = serve(server(registry())).await;
    let answer = rpc(
        &http,
        "tools/call",
        json!({ "name": "only_a_task", "arguments": {} }),
    )
    .await;
    assert_eq!(answer.status, 400, "{}", answer.response);
    assert_eq!(answer.response["error"]["code"], -32021);
    assert_eq!(
        answer.response["error"]["data"]["requiredCapabilities"]["extensions"],
        json!({ "io.modelcontextprotocol/tasks": {} })
    );
}

/// A host's task store that is down: every call refuses, to be retried
/// in 7 seconds.
struct Down;

fn down<T>() -> futures_util::future::BoxFuture<'static, Result<T, dsh_kit::mcp::TaskStoreError>>
where
    T: Send + 'static,
{
    Box::pin(async {
        Err(dsh_kit::mcp::TaskStoreError::Unavailable {
            retry_after: Duration::from_secs(7),
            source: "the store's host is down".into(),
        })
    })
}

impl dsh_kit::mcp::TaskStore for Down {
    fn put(
        &self,
        _: dsh_kit::mcp::TaskRecord,
    ) -> futures_util::future::BoxFuture<'_, Result<(), dsh_kit::mcp::TaskStoreError>> {
        down()
    }

    fn get<'a>(
        &'a self,
        _: &'a str,
    ) -> futures_util::future::BoxFuture<
        'a,
        Result<Option<dsh_kit::mcp::TaskRecord>, dsh_kit::mcp::TaskStoreError>,
    > {
        down()
    }

    fn list(
        &self,
        _: usize,
    ) -> futures_util::future::BoxFuture<
        '_,
        Result<Vec<dsh_kit::mcp::TaskRecord>, dsh_kit::mcp::TaskStoreError>,
    > {
        down()
    }

    fn request_cancel<'a>(
        &'a self,
        _: &'a str,
    ) -> futures_util::future::BoxFuture<'a, Result<(), dsh_kit::mcp::TaskStoreError>> {
        down()
    }

    fn cancel_requested<'a>(
        &'a self,
        _: &'a str,
    ) -> futures_util::future::BoxFuture<'a, Result<bool, dsh_kit::mcp::TaskStoreError>> {
        down()
    }
}

/// A server with no sessions whose host's task store is down refuses a
/// task's request with `503` and the store's `Retry-After`, as a server
/// that shares its sessions does.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_store_that_is_down_is_answered_503_with_no_session_too() {
    let http = serve(McpServer::new(registry()).stateless(true).task_store(Down)).await;
    let answer = rpc_with(
        &http,
        "tasks/get",
        json!({ "taskId": "t-1" }),
        with_tasks(),
        None,
    )
    .await;
    assert_eq!(answer.status, 503, "{}", answer.response);
    assert_eq!(
        answer.response["error"]["code"],
        json!(dsh_kit::mcp::STORE_UNAVAILABLE.0),
        "{}",
        answer.response
    );
}
