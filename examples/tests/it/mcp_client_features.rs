//! What a tool asks of the MCP client that called it — progress, log
//! messages, elicitation (accepted, declined, cancelled), sampling, and
//! approval by elicitation — through a real MCP client (rmcp's) over
//! streamable HTTP on 127.0.0.1.
//!
//! rmcp marks logging and sampling deprecated (the 2026-07-28 protocol drops
//! server-to-client requests); the 2025 protocols, which these tests speak,
//! have them.
#![allow(deprecated)]

use std::sync::{Arc, Mutex};
use std::time::Duration;

use dsh_kit::Registry;
use dsh_kit::client::{Elicited, LogLevel, SampleRequest};
use dsh_kit::event::{Event, StreamType};
use dsh_kit::mcp::McpServer;
use dsh_kit::mcp::rmcp::model::ProtocolVersion;
use dsh_kit::mcp::rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ClientCapabilities, ClientConfig,
    CreateMessageRequestParams, CreateMessageResult, ElicitRequestParams, ElicitResult,
    Implementation, LoggingMessageNotificationParam, ProgressNotificationParam, ResultType,
    SetLevelRequestParams,
};
use dsh_kit::mcp::rmcp::service::{NotificationContext, RequestContext, RunningService};
use dsh_kit::mcp::rmcp::transport::StreamableHttpClientTransport;
use dsh_kit::mcp::rmcp::{
    ClientHandler, ClientLifecycleMode, ClientServiceExt, ErrorData, RoleClient,
};
use dsh_kit::permission::ElicitApprover;
use dsh_kit::prelude::*;
use serde_json::{Value, json};

/// The longest any one step may take.
const STEP: Duration = Duration::from_secs(20);

/// Reports three steps.
#[tool(read_only)]
async fn three_steps(
    /// Unused
    label: Option<String>,
    exec: &Exec,
) -> String {
    for step in ["one", "two", "three"] {
        exec.progress(format!("step {step}"));
    }
    label.unwrap_or_default()
}

/// Logs at three levels.
#[tool(read_only)]
async fn chatty(
    /// Unused
    label: Option<String>,
    exec: &Exec,
) -> String {
    exec.log(LogLevel::Debug, "debug detail").await;
    exec.log(LogLevel::Info, "working").await;
    exec.log(LogLevel::Warning, "almost out of coffee").await;
    label.unwrap_or_default()
}

/// A person's details.
#[derive(Debug, Deserialize, JsonSchema, Elicit)]
struct Person {
    /// Your name
    name: String,
    /// Your age
    age: Option<u32>,
}

/// Asks the user who they are.
#[tool(read_only)]
async fn who_are_you(
    /// Why the tool asks
    reason: String,
    exec: &Exec,
) -> Result<String, ToolError> {
    Ok(match exec.elicit::<Person>(reason).await? {
        Elicited::Accepted(person) => format!("hello {} ({:?})", person.name, person.age),
        Elicited::Declined => "declined".to_owned(),
        Elicited::Cancelled => "cancelled".to_owned(),
    })
}

/// Asks the client's model.
#[tool(read_only)]
async fn ask_model(
    /// The question
    question: String,
    exec: &Exec,
) -> Result<String, ToolError> {
    let sample = exec
        .sample(
            SampleRequest::user(question)
                .max_tokens(50)
                .system_prompt("be brief"),
        )
        .await?;
    Ok(format!("{} said: {}", sample.model, sample.text))
}

/// Deletes everything, once someone approves.
#[tool(destructive)]
async fn wipe(
    /// What to wipe
    target: String,
) -> String {
    format!("wiped {target}")
}

/// A count of words.
#[derive(Serialize, Deserialize, JsonSchema)]
struct Count {
    words: usize,
}

/// Counts the words of a text.
#[tool(read_only, render = count_text)]
async fn count_words(
    /// The text
    text: String,
) -> Count {
    Count {
        words: text.split_whitespace().count(),
    }
}

#[render]
fn count_text(_args: &CountWordsArgs, count: &Count) -> Vec<ContentBlock> {
    vec![ContentBlock::text(format!("{} words", count.words))]
}

/// How the client answers elicitation.
#[derive(Clone, Debug)]
enum Answer {
    Accept(Value),
    Decline,
    Cancel,
}

/// An MCP client that answers elicitation and sampling, and keeps what the
/// server sends it.
#[derive(Clone)]
struct Client {
    answer: Arc<Mutex<Answer>>,
    asked: Arc<Mutex<Vec<Value>>>,
    sampled: Arc<Mutex<Vec<Value>>>,
    logs: Arc<Mutex<Vec<LoggingMessageNotificationParam>>>,
    progress: Arc<Mutex<Vec<ProgressNotificationParam>>>,
}

impl Client {
    fn new() -> Self {
        Client {
            answer: Arc::new(Mutex::new(Answer::Decline)),
            asked: Arc::default(),
            sampled: Arc::default(),
            logs: Arc::default(),
            progress: Arc::default(),
        }
    }

    fn answer(&self, answer: Answer) {
        *self.answer.lock().unwrap() = answer;
    }
}

impl ClientHandler for Client {
    fn get_info(&self) -> ClientConfig {
        let capabilities: ClientCapabilities =
            serde_json::from_value(json!({ "elicitation": {}, "sampling": {} })).unwrap();
        ClientConfig::new(capabilities, Implementation::new("dsh-tests", "0"))
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        self.asked
            .lock()
            .unwrap()
            .push(serde_json::to_value(&request).unwrap());
        let answer = match self.answer.lock().unwrap().clone() {
            Answer::Accept(content) => json!({ "action": "accept", "content": content }),
            Answer::Decline => json!({ "action": "decline" }),
            Answer::Cancel => json!({ "action": "cancel" }),
        };
        Ok(serde_json::from_value(answer).unwrap())
    }

    async fn create_message(
        &self,
        params: CreateMessageRequestParams,
        _: RequestContext<RoleClient>,
    ) -> Result<CreateMessageResult, ErrorData> {
        self.sampled
            .lock()
            .unwrap()
            .push(serde_json::to_value(&params).unwrap());
        Ok(serde_json::from_value(json!({
            "role": "assistant",
            "content": { "type": "text", "text": "forty-two" },
            "model": "test-model",
            "stopReason": "endTurn",
        }))
        .unwrap())
    }

    async fn on_logging_message(
        &self,
        params: LoggingMessageNotificationParam,
        _: NotificationContext<RoleClient>,
    ) {
        self.logs.lock().unwrap().push(params);
    }

    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _: NotificationContext<RoleClient>,
    ) {
        self.progress.lock().unwrap().push(params);
    }
}

/// A server with the tools above, approvals asked of the client, and the
/// stream chunks of every call kept.
struct Setup {
    client: RunningService<RoleClient, Client>,
    handler: Client,
    chunks: Arc<Mutex<Vec<String>>>,
    _subscription: dsh_kit::Subscription,
    _server: dsh_kit::mcp::McpHttpServer,
}

async fn setup() -> Setup {
    setup_with(ClientLifecycleMode::Initialize).await
}

async fn setup_with(lifecycle: ClientLifecycleMode) -> Setup {
    let registry = Registry::builder().approver(ElicitApprover).build();
    registry.register::<three_steps>().unwrap().keep();
    registry.register::<chatty>().unwrap().keep();
    registry.register::<who_are_you>().unwrap().keep();
    registry.register::<ask_model>().unwrap().keep();
    registry.register::<wipe>().unwrap().keep();
    registry.register::<count_words>().unwrap().keep();
    let chunks = Arc::new(Mutex::new(Vec::new()));
    let kept = Arc::clone(&chunks);
    let subscription = registry.subscribe(move |event| {
        if let Event::Stream(chunk) = event
            && chunk.stream_type == StreamType::Progress
        {
            kept.lock().unwrap().push(chunk.chunk.clone());
        }
    });
    let server = McpServer::new(registry)
        .serve_http("127.0.0.1:0".parse().unwrap())
        .await
        .expect("the server listens");
    let handler = Client::new();
    let transport = StreamableHttpClientTransport::from_uri(server.url().as_str());
    let client = tokio::time::timeout(
        STEP,
        handler.clone().serve_with_lifecycle(transport, lifecycle),
    )
    .await
    .expect("the handshake ends in time")
    .expect("the handshake succeeds");
    Setup {
        client,
        handler,
        chunks,
        _subscription: subscription,
        _server: server,
    }
}

async fn call(setup: &Setup, name: &str, args: Value) -> CallToolResult {
    let Value::Object(args) = args else {
        panic!("arguments must be an object")
    };
    let request = CallToolRequestParams::new(name.to_owned()).with_arguments(args);
    let response = tokio::time::timeout(STEP, setup.client.call_tool(request))
        .await
        .unwrap_or_else(|_| panic!("`{name}` answers in time"))
        .unwrap_or_else(|error| panic!("`{name}` answers: {error}"));
    serde_json::from_value(serde_json::to_value(response).unwrap()).unwrap()
}

fn text(result: &CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|block| block.as_text().map(|text| text.text.clone()))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Waits for `what` to hold `count` items: rmcp's client handles each
/// notification in a task of its own, so the last may land after the result.
async fn wait_for<T: Clone>(what: &Mutex<Vec<T>>, count: usize) -> Vec<T> {
    tokio::time::timeout(STEP, async {
        loop {
            let items = what.lock().unwrap().clone();
            if items.len() >= count {
                return items;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await
    .unwrap_or_else(|_| panic!("{count} notifications did not arrive in time"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn progress_reaches_the_client_in_order() {
    let setup = setup().await;
    let result = call(&setup, "three_steps", json!({})).await;
    assert_ne!(result.is_error, Some(true), "{}", text(&result));
    let mut progress = wait_for(&setup.handler.progress, 3).await;
    // The client may handle them out of order; `progress` grows with each.
    progress.sort_by(|a, b| a.progress.total_cmp(&b.progress));
    let messages: Vec<_> = progress
        .iter()
        .map(|p| p.message.clone().unwrap_or_default())
        .collect();
    assert_eq!(messages, ["step one", "step two", "step three"]);
    assert!(
        progress
            .windows(2)
            .all(|pair| pair[0].progress < pair[1].progress)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn log_messages_reach_the_client_from_the_level_it_set() {
    let setup = setup().await;
    // Before `logging/setLevel`, `info` and up.
    call(&setup, "chatty", json!({})).await;
    let logs = wait_for(&setup.handler.logs, 2).await;
    // The client may handle them out of order.
    let mut seen: Vec<_> = logs
        .iter()
        .map(|log| (serde_json::to_value(log.level).unwrap(), log.data.clone()))
        .collect();
    seen.sort_by_key(|(_, data)| data.to_string());
    assert_eq!(
        seen,
        [
            (json!("warning"), json!("almost out of coffee")),
            (json!("info"), json!("working")),
        ]
    );
    assert!(
        logs.iter()
            .all(|log| log.logger.as_deref() == Some("chatty"))
    );

    let level = SetLevelRequestParams::new(serde_json::from_value(json!("debug")).unwrap());
    #[allow(deprecated, reason = "the 2025 protocols set the level this way")]
    setup
        .client
        .set_level(level)
        .await
        .expect("the level is set");
    setup.handler.logs.lock().unwrap().clear();
    call(&setup, "chatty", json!({})).await;
    let logs = wait_for(&setup.handler.logs, 3).await;
    assert!(logs.iter().any(|log| log.data == json!("debug detail")));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn elicitation_is_typed_and_answered_three_ways() {
    let setup = setup().await;
    setup
        .handler
        .answer(Answer::Accept(json!({ "name": "Ada", "age": 36 })));
    let accepted = call(&setup, "who_are_you", json!({ "reason": "to greet you" })).await;
    assert_eq!(text(&accepted), "hello Ada (Some(36))");
    let asked = setup.handler.asked.lock().unwrap()[0].clone();
    assert_eq!(asked["message"], "to greet you");
    assert_eq!(
        asked["requestedSchema"]["properties"]["name"],
        json!({ "type": "string", "description": "Your name" })
    );
    assert_eq!(asked["requestedSchema"]["required"], json!(["name"]));

    setup.handler.answer(Answer::Decline);
    let declined = call(&setup, "who_are_you", json!({ "reason": "again" })).await;
    assert_eq!(text(&declined), "declined");

    setup.handler.answer(Answer::Cancel);
    let cancelled = call(&setup, "who_are_you", json!({ "reason": "again" })).await;
    assert_eq!(text(&cancelled), "cancelled");

    // An answer that does not fit the type is the tool's error, naming it.
    setup.handler.answer(Answer::Accept(json!({ "name": 7 })));
    let wrong = call(&setup, "who_are_you", json!({ "reason": "again" })).await;
    assert_eq!(wrong.is_error, Some(true));
    assert!(text(&wrong).contains("does not fit"), "{}", text(&wrong));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sampling_asks_the_client_model() {
    let setup = setup().await;
    let result = call(&setup, "ask_model", json!({ "question": "the answer?" })).await;
    assert_eq!(text(&result), "test-model said: forty-two");
    let sampled = setup.handler.sampled.lock().unwrap()[0].clone();
    assert_eq!(sampled["maxTokens"], 50);
    assert_eq!(sampled["systemPrompt"], "be brief");
    assert_eq!(sampled["messages"][0]["content"]["text"], "the answer?");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn approval_is_asked_by_elicitation_and_recorded() {
    let setup = setup().await;
    setup
        .handler
        .answer(Answer::Accept(json!({ "approve": true })));
    let approved = call(&setup, "wipe", json!({ "target": "cache" })).await;
    assert_eq!(text(&approved), "wiped cache");
    let asked = setup.handler.asked.lock().unwrap()[0].clone();
    assert!(
        asked["message"]
            .as_str()
            .unwrap()
            .contains("`wipe` would run with"),
        "{asked}"
    );

    setup.handler.answer(Answer::Decline);
    let declined = call(&setup, "wipe", json!({ "target": "disk" })).await;
    assert_eq!(declined.is_error, Some(true));
    assert!(
        text(&declined).contains("the user declined it"),
        "{}",
        text(&declined)
    );

    setup
        .handler
        .answer(Answer::Accept(json!({ "approve": false })));
    let refused = call(&setup, "wipe", json!({ "target": "disk" })).await;
    assert_eq!(refused.is_error, Some(true));

    assert_eq!(
        *setup.chunks.lock().unwrap(),
        [
            "approval: approved by the user through elicitation",
            "approval: rejected: the user declined it",
            "approval: rejected: the user did not approve it",
        ]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_custom_render_is_all_the_result_carries() {
    let setup = setup().await;
    let result = call(&setup, "count_words", json!({ "text": "one two three" })).await;
    assert_eq!(text(&result), "3 words");
    assert_eq!(result.structured_content, None);
    // A default render is the JSON already: nothing is added.
    let plain = call(&setup, "three_steps", json!({ "label": "x" })).await;
    assert_eq!(plain.content.len(), 1);
}

/// On 2026-07-28 there are no requests from server to client: a tool's
/// elicitation, sampling and approval come back to the client as
/// multi-round-trip input (`InputRequiredResult`), which rmcp's client
/// answers through the same handler and retries.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_2026_session_elicits_samples_and_approves_by_multi_round_trip_input() {
    let setup = setup_with(ClientLifecycleMode::Discover {
        preferred_versions: vec![ProtocolVersion::V_2026_07_28],
    })
    .await;
    setup
        .handler
        .answer(Answer::Accept(json!({ "name": "Ada" })));
    let result = call(&setup, "who_are_you", json!({ "reason": "to greet you" })).await;
    assert_eq!(text(&result), "hello Ada (None)");
    assert_eq!(result.result_type, Some(ResultType::COMPLETE));
    let asked = setup.handler.asked.lock().unwrap().clone();
    assert_eq!(asked.len(), 1, "{asked:?}");
    assert_eq!(asked[0]["message"], "to greet you");

    setup.handler.answer(Answer::Decline);
    let declined = call(&setup, "who_are_you", json!({ "reason": "again" })).await;
    assert_eq!(text(&declined), "declined");

    let sampled = call(&setup, "ask_model", json!({ "question": "the answer?" })).await;
    assert_eq!(text(&sampled), "test-model said: forty-two");

    setup
        .handler
        .answer(Answer::Accept(json!({ "approve": true })));
    let approved = call(&setup, "wipe", json!({ "target": "cache" })).await;
    assert_eq!(text(&approved), "wiped cache");
    assert!(
        setup
            .chunks
            .lock()
            .unwrap()
            .contains(&"approval: approved by the user through elicitation".to_owned())
    );
}

/// A retry whose `requestState` is not the server's is refused.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_forged_request_state_is_refused() {
    let setup = setup_with(ClientLifecycleMode::Discover {
        preferred_versions: vec![ProtocolVersion::V_2026_07_28],
    })
    .await;
    let Value::Object(args) = json!({ "reason": "to greet you" }) else {
        unreachable!("an object literal")
    };
    let mut request = CallToolRequestParams::new("who_are_you").with_arguments(args);
    let first = setup.client.call_tool_once(request.clone()).await.unwrap();
    let CallToolResponse::InputRequired(needed) = first else {
        panic!("an elicitation needs input first: {first:?}")
    };
    assert!(needed.request_state.is_some());
    let keys: Vec<_> = needed.input_requests.unwrap().into_keys().collect();
    assert_eq!(keys, ["elicitation-0"]);
    request.request_state = Some("forged".to_owned());
    let refused = setup.client.call_tool_once(request).await;
    assert!(
        refused
            .as_ref()
            .is_err_and(|error| error.to_string().contains("requestState")),
        "{refused:?}"
    );
}
