//! The RAWP-DPS tool events field for field, and the events
//! the pipeline emits as calls happen.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use dsh_kit::card::TerminalCard;
use dsh_kit::event::Event;
use dsh_kit::event::rawp::{
    CatalogPublish, CatalogTool, Diagnostic, InvokeRequest, InvokeResult, InvokeStream, RawpEvent,
    Severity, ToolStatus,
};
use dsh_kit::event::{Progress, StreamType};
use dsh_kit::prelude::*;
use dsh_kit::{Caller, ToolCall};
use dsh_kit::{Registry, Status};
use serde_json::Value;
use tokio_util::sync::CancellationToken;
use uuid::Uuid;

const ID: &str = "6f1c2a8e-55b4-4b1e-9a43-8f0d2b7c1e90";
const GROUP: &str = "0b6f1e1c-2f7a-4d5e-8c1b-3a9d4e5f6a7b";

fn id() -> Uuid {
    ID.parse().unwrap()
}

/// Serializes `event`, checks it is exactly `expected` (no field more or
/// less), and reads `expected` back into `event`.
fn round_trip(event: &RawpEvent, expected: Value) {
    assert_eq!(serde_json::to_value(event).unwrap(), expected);
    let read: RawpEvent = serde_json::from_value(expected).unwrap();
    assert_eq!(&read, event);
}

/// The error reading `json` as an event gives.
fn refused(json: Value) -> String {
    serde_json::from_value::<RawpEvent>(json)
        .unwrap_err()
        .to_string()
}

#[test]
fn invoke_request_every_field() {
    let event = RawpEvent::InvokeRequest(InvokeRequest {
        invocation_id: id(),
        tool_name: "Bash".into(),
        tool_version: Some("1.2.0".into()),
        input: json!({ "command": "ls" }),
        parallel_group_id: Some(GROUP.into()),
        principal: Some(Caller {
            subject: "ada".into(),
            client_id: Some("notes-app".into()),
            issuer: Some("https://auth.example.com".into()),
            scopes: vec!["files:read".into()],
        }),
    });
    round_trip(
        &event,
        json!({
            "type": "tool.invoke.request",
            "payload": {
                "invocation_id": ID,
                "tool_name": "Bash",
                "tool_version": "1.2.0",
                "input": { "command": "ls" },
                "parallel_group_id": GROUP,
                "principal": {
                    "subject": "ada",
                    "client_id": "notes-app",
                    "issuer": "https://auth.example.com",
                    "scopes": ["files:read"],
                },
            }
        }),
    );
    assert_eq!(event.event_type(), "tool.invoke.request");
}

#[test]
fn invoke_request_leaves_out_what_is_optional() {
    round_trip(
        &RawpEvent::InvokeRequest(InvokeRequest {
            invocation_id: id(),
            tool_name: "Read".into(),
            tool_version: None,
            input: json!({ "path": "/a" }),
            parallel_group_id: None,
            principal: None,
        }),
        json!({
            "type": "tool.invoke.request",
            "payload": { "invocation_id": ID, "tool_name": "Read", "input": { "path": "/a" } }
        }),
    );
    for required in ["invocation_id", "tool_name", "input"] {
        let mut payload = json!({ "invocation_id": ID, "tool_name": "Read", "input": {} });
        payload.as_object_mut().unwrap().remove(required);
        let error = refused(json!({ "type": "tool.invoke.request", "payload": payload }));
        assert_eq!(error, format!("missing field `{required}`"));
    }
}

#[test]
fn invoke_stream_every_field_and_stream_type() {
    for (stream_type, spelling) in [
        (StreamType::Stdout, "stdout"),
        (StreamType::Stderr, "stderr"),
        (StreamType::Progress, "progress"),
    ] {
        round_trip(
            &RawpEvent::InvokeStream(InvokeStream {
                invocation_id: id(),
                tool_name: "Bash".into(),
                stream_type,
                chunk: "line\n".into(),
                sequence: 0,
                progress: None,
            }),
            json!({
                "type": "tool.invoke.stream",
                "payload": {
                    "invocation_id": ID,
                    "tool_name": "Bash",
                    "stream_type": spelling,
                    "chunk": "line\n",
                    "sequence": 0,
                }
            }),
        );
    }
    round_trip(
        &RawpEvent::InvokeStream(InvokeStream {
            invocation_id: id(),
            tool_name: "Copy".into(),
            stream_type: StreamType::Progress,
            chunk: "copied a.txt".into(),
            sequence: 3,
            progress: Progress::new(1.0, Some(2.0)),
        }),
        json!({
            "type": "tool.invoke.stream",
            "payload": {
                "invocation_id": ID,
                "tool_name": "Copy",
                "stream_type": "progress",
                "chunk": "copied a.txt",
                "sequence": 3,
                "progress": { "progress": 1.0, "total": 2.0 },
            }
        }),
    );
    for required in [
        "invocation_id",
        "tool_name",
        "stream_type",
        "chunk",
        "sequence",
    ] {
        let mut payload = json!({
            "invocation_id": ID, "tool_name": "Bash", "stream_type": "stdout", "chunk": "", "sequence": 3
        });
        payload.as_object_mut().unwrap().remove(required);
        let error = refused(json!({ "type": "tool.invoke.stream", "payload": payload }));
        assert_eq!(error, format!("missing field `{required}`"));
    }
    let error = refused(json!({
        "type": "tool.invoke.stream",
        "payload": { "invocation_id": ID, "tool_name": "Bash", "stream_type": "log", "chunk": "", "sequence": 0 }
    }));
    assert!(
        error.starts_with("unknown variant `log`, expected one of `stdout`, `stderr`, `progress`"),
        "{error}"
    );
}

#[test]
fn invoke_result_every_field_status_and_output_type() {
    let statuses = [
        (Status::Success, "success"),
        (Status::Error, "error"),
        (Status::Timeout, "timeout"),
        (Status::Cancelled, "cancelled"),
    ];
    let output_types = [
        (OutputType::Text, "text"),
        (OutputType::Structured, "structured"),
        (OutputType::FileContent, "file_content"),
        (OutputType::FileList, "file_list"),
        (OutputType::Diff, "diff"),
        (OutputType::WebContent, "web_content"),
        (OutputType::Empty, "empty"),
        (OutputType::BinaryRef, "binary_ref"),
        (OutputType::AgentResult, "agent_result"),
    ];
    for ((status, status_spelling), (output_type, type_spelling)) in
        statuses.iter().cycle().zip(output_types)
    {
        round_trip(
            &RawpEvent::InvokeResult(InvokeResult {
                invocation_id: id(),
                tool_name: "Edit".into(),
                status: *status,
                output: json!({ "any": ["json"] }),
                output_type,
                duration_ms: Some(12),
                truncated: Some(false),
                failure: None,
            }),
            json!({
                "type": "tool.invoke.result",
                "payload": {
                    "invocation_id": ID,
                    "tool_name": "Edit",
                    "status": status_spelling,
                    "output": { "any": ["json"] },
                    "output_type": type_spelling,
                    "duration_ms": 12,
                    "truncated": false,
                }
            }),
        );
    }
}

#[test]
fn invoke_result_leaves_out_what_is_optional() {
    round_trip(
        &RawpEvent::InvokeResult(InvokeResult {
            invocation_id: id(),
            tool_name: "Write".into(),
            status: Status::Success,
            output: Value::Null,
            output_type: OutputType::Empty,
            duration_ms: None,
            truncated: None,
            failure: None,
        }),
        json!({
            "type": "tool.invoke.result",
            "payload": {
                "invocation_id": ID, "tool_name": "Write", "status": "success",
                "output": null, "output_type": "empty"
            }
        }),
    );
    // `output` is required even when null: present as `null`, not absent.
    for required in [
        "invocation_id",
        "tool_name",
        "status",
        "output",
        "output_type",
    ] {
        let mut payload = json!({
            "invocation_id": ID, "tool_name": "Write", "status": "success", "output": "x", "output_type": "text"
        });
        payload.as_object_mut().unwrap().remove(required);
        let error = refused(json!({ "type": "tool.invoke.result", "payload": payload }));
        assert_eq!(error, format!("missing field `{required}`"));
    }
}

#[test]
fn catalog_publish_every_field_category_status_and_severity() {
    let categories = [
        (Category::Filesystem, "filesystem"),
        (Category::Shell, "shell"),
        (Category::Search, "search"),
        (Category::Web, "web"),
        (Category::Notebook, "notebook"),
        (Category::TaskManagement, "task_management"),
        (Category::Agent, "agent"),
        (Category::Planning, "planning"),
        (Category::Mcp, "mcp"),
        (Category::Custom, "custom"),
    ];
    let statuses = [
        (ToolStatus::Available, "available"),
        (ToolStatus::Unavailable, "unavailable"),
        (ToolStatus::Degraded, "degraded"),
    ];
    let severities = [
        (Severity::Info, "info"),
        (Severity::Warning, "warning"),
        (Severity::Error, "error"),
        (Severity::Fatal, "fatal"),
    ];
    let tools: Vec<(CatalogTool, Value)> = categories
        .iter()
        .zip(statuses.iter().cycle())
        .map(
            |((category, category_spelling), (status, status_spelling))| {
                let name = format!("tool_{category_spelling}");
                (
                    CatalogTool {
                        name: name.clone(),
                        version: Some("2.0".into()),
                        description: "Does things.".into(),
                        input_schema: Some(json!({ "type": "object" })),
                        output_type: Some(OutputType::Structured),
                        requires_approval: Some(true),
                        category: Some(*category),
                        status: *status,
                        status_description: Some("why".into()),
                        contract_hash: Some("sha256:00".into()),
                    },
                    json!({
                        "name": name,
                        "version": "2.0",
                        "description": "Does things.",
                        "input_schema": { "type": "object" },
                        "output_type": "structured",
                        "requires_approval": true,
                        "category": category_spelling,
                        "status": status_spelling,
                        "status_description": "why",
                        "contract_hash": "sha256:00",
                    }),
                )
            },
        )
        .collect();
    let diagnostics: Vec<(Diagnostic, Value)> = severities
        .iter()
        .map(|(severity, spelling)| {
            (
                Diagnostic::new(*severity, "VERSION_MISMATCH", "expected 2.x").tool("tool_shell"),
                json!({
                    "severity": spelling,
                    "tool_name": "tool_shell",
                    "code": "VERSION_MISMATCH",
                    "message": "expected 2.x",
                }),
            )
        })
        .collect();
    round_trip(
        &RawpEvent::CatalogPublish(CatalogPublish {
            tools: tools.iter().map(|(tool, _)| tool.clone()).collect(),
            diagnostics: diagnostics.iter().map(|(d, _)| d.clone()).collect(),
        }),
        json!({
            "type": "tool.catalog.publish",
            "payload": {
                "tools": tools.iter().map(|(_, json)| json.clone()).collect::<Vec<_>>(),
                "diagnostics": diagnostics.iter().map(|(_, json)| json.clone()).collect::<Vec<_>>(),
            }
        }),
    );
}

#[test]
fn catalog_publish_leaves_out_what_is_optional() {
    let minimal = CatalogTool {
        name: "Read".into(),
        version: None,
        description: "Read a file.".into(),
        input_schema: None,
        output_type: None,
        requires_approval: None,
        category: None,
        status: ToolStatus::Available,
        status_description: None,
        contract_hash: None,
    };
    let catalog = RawpEvent::CatalogPublish(CatalogPublish {
        tools: vec![minimal.clone()],
        diagnostics: vec![Diagnostic::new(
            Severity::Warning,
            "AGENT_INIT",
            "slow start",
        )],
    });
    // `status` is always written; a diagnostic without a tool is about the catalog.
    round_trip(
        &catalog,
        json!({
            "type": "tool.catalog.publish",
            "payload": {
                "tools": [{ "name": "Read", "description": "Read a file.", "status": "available" }],
                "diagnostics": [{ "severity": "warning", "code": "AGENT_INIT", "message": "slow start" }],
            }
        }),
    );
    // Absent `status` means `available`; absent or empty `diagnostics` means none.
    for payload in [
        json!({ "tools": [{ "name": "Read", "description": "Read a file." }] }),
        json!({ "tools": [{ "name": "Read", "description": "Read a file." }], "diagnostics": [] }),
    ] {
        let read: RawpEvent =
            serde_json::from_value(json!({ "type": "tool.catalog.publish", "payload": payload }))
                .unwrap();
        assert_eq!(
            read,
            RawpEvent::CatalogPublish(CatalogPublish {
                tools: vec![minimal.clone()],
                diagnostics: vec![],
            })
        );
    }
    assert_eq!(
        serde_json::to_string(&RawpEvent::CatalogPublish(CatalogPublish::default())).unwrap(),
        r#"{"type":"tool.catalog.publish","payload":{"tools":[]}}"#
    );
    for (payload, required) in [
        (json!({ "tools": [{ "description": "x" }] }), "name"),
        (json!({ "tools": [{ "name": "x" }] }), "description"),
        (json!({ "diagnostics": [] }), "tools"),
        (
            json!({ "tools": [], "diagnostics": [{ "code": "C", "message": "m" }] }),
            "severity",
        ),
        (
            json!({ "tools": [], "diagnostics": [{ "severity": "info", "message": "m" }] }),
            "code",
        ),
        (
            json!({ "tools": [], "diagnostics": [{ "severity": "info", "code": "C" }] }),
            "message",
        ),
    ] {
        let error = refused(json!({ "type": "tool.catalog.publish", "payload": payload }));
        assert_eq!(error, format!("missing field `{required}`"));
    }
}

#[test]
fn an_unknown_type_is_refused_naming_the_four() {
    let error = refused(json!({ "type": "tool.invoke.cancel", "payload": {} }));
    assert_eq!(
        error,
        "unknown variant `tool.invoke.cancel`, expected one of `tool.invoke.request`, `tool.invoke.stream`, `tool.invoke.result`, `tool.catalog.publish`"
    );
}

// --- what the pipeline emits -------------------------------------------------

/// Run a command (pretend): prints the command, then a warning.
#[tool(read_only, concurrency_safe, category = "shell", present_call = running)]
async fn echo(
    /// The text to print
    text: String,
    exec: &Exec,
) -> String {
    exec.stdout(format!("{text}\n"));
    exec.stderr("done\n");
    text
}

#[present]
fn running(args: &EchoArgs) -> Card {
    Card::from(TerminalCard::new(format!("echo {}", args.text)))
}

/// Fail on purpose.
#[tool(read_only, concurrency_safe)]
async fn broken() -> Result<String, ToolError> {
    Err(ToolError::new("it broke"))
}

/// Sleep for a long time.
#[tool(read_only, concurrency_safe, timeout_ms = 50)]
async fn sleepy() -> String {
    tokio::time::sleep(Duration::from_secs(10)).await;
    "awake".into()
}

fn registry() -> Registry {
    let registry = Registry::new();
    registry.register::<echo>().unwrap();
    registry.register::<broken>().unwrap();
    registry.register::<sleepy>().unwrap();
    registry
}

/// Every RAWP event the registry emits while `run` runs, as JSON.
async fn rawp_of<F: Future>(registry: &Registry, run: impl FnOnce() -> F) -> Vec<Value> {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&seen);
    let subscription = registry.subscribe_rawp(move |event| {
        sink.lock()
            .unwrap()
            .push(serde_json::to_value(event).unwrap());
    });
    run().await;
    drop(subscription);
    Arc::try_unwrap(seen).unwrap().into_inner().unwrap()
}

#[tokio::test]
async fn a_call_emits_request_stream_and_result() {
    let registry = registry();
    let call = ToolCall::new("echo", json!({ "text": "hi" }));
    let invocation = call.id();
    let events = rawp_of(&registry, || registry.call_with(call)).await;
    assert_eq!(invocation.get_version_num(), 4);
    let id = invocation.to_string();
    let duration = events[3]["payload"]["duration_ms"].clone();
    assert!(duration.is_u64(), "{duration}");
    assert_eq!(
        events,
        [
            json!({ "type": "tool.invoke.request", "payload": {
                "invocation_id": id, "tool_name": "echo", "input": { "text": "hi" }
            }}),
            json!({ "type": "tool.invoke.stream", "payload": {
                "invocation_id": id, "tool_name": "echo", "stream_type": "stdout", "chunk": "hi\n", "sequence": 0
            }}),
            json!({ "type": "tool.invoke.stream", "payload": {
                "invocation_id": id, "tool_name": "echo", "stream_type": "stderr", "chunk": "done\n", "sequence": 1
            }}),
            json!({ "type": "tool.invoke.result", "payload": {
                "invocation_id": id, "tool_name": "echo", "status": "success", "output": "hi",
                "output_type": "text", "duration_ms": duration, "truncated": false
            }}),
        ]
    );
}

/// A caller gets its whole result back whether the subscribers that saw
/// it kept it or only looked, and a subscriber keeps what the caller got.
#[tokio::test]
async fn a_result_reaches_its_caller_whole_whether_a_subscriber_keeps_it_or_not() {
    for keeps in [true, false] {
        let registry = registry();
        let kept = Arc::new(Mutex::new(None));
        let looked = Arc::new(Mutex::new(Vec::new()));
        let (sink, seen) = (Arc::clone(&kept), Arc::clone(&looked));
        let subscription = registry.subscribe(move |event| {
            if let Event::Result(result) = event {
                seen.lock().unwrap().push(result.text());
                if keeps {
                    *sink.lock().unwrap() = Some(Arc::clone(result));
                }
            }
        });
        let call = ToolCall::new("echo", json!({ "text": "hi" }));
        let invocation = call.id();
        let result = registry.call_with(call).await;
        drop(subscription);
        assert_eq!(result.invocation_id, invocation, "keeps: {keeps}");
        assert_eq!(result.tool_name, "echo");
        assert_eq!(result.status(), Status::Success);
        assert_eq!(result.text(), "hi");
        assert_eq!(result.value, Some(json!("hi")));
        assert_eq!(*looked.lock().unwrap(), ["hi"]);
        let kept = kept.lock().unwrap().take();
        match kept {
            Some(kept) => {
                assert_eq!(kept.invocation_id, result.invocation_id);
                assert_eq!(kept.text(), result.text());
                assert_eq!(kept.value, result.value);
            }
            None => assert!(!keeps, "the subscriber kept nothing"),
        }
    }
}

#[tokio::test]
async fn a_failed_call_reports_the_error_text_as_output() {
    let registry = registry();
    let events = rawp_of(&registry, || registry.call("broken", json!({}))).await;
    let result = &events[1]["payload"];
    assert_eq!(result["status"], "error");
    assert_eq!(result["output"], "`broken` failed: it broke");
    assert_eq!(result["output_type"], "text");

    let events = rawp_of(&registry, || registry.call("sleepy", json!({}))).await;
    let result = &events[1]["payload"];
    assert_eq!(result["status"], "timeout");
    assert_eq!(result["output"], "`sleepy` timed out after 50 ms");

    let events = rawp_of(&registry, || registry.call("nope", json!({}))).await;
    assert_eq!(events[0]["payload"]["tool_name"], "nope");
    assert_eq!(events[1]["payload"]["status"], "error");
    assert_eq!(events[1]["payload"]["output"], "no tool named `nope`");
}

#[tokio::test]
async fn a_cancelled_call_reports_cancelled() {
    let registry = registry();
    let cancel = CancellationToken::new();
    let call = ToolCall::new("sleepy", json!({})).cancel_on(cancel.clone());
    let events = rawp_of(&registry, || async {
        let running = registry.call_with(call);
        let canceller = async {
            tokio::time::sleep(Duration::from_millis(10)).await;
            cancel.cancel();
        };
        tokio::join!(running, canceller)
    })
    .await;
    assert_eq!(events[1]["payload"]["status"], "cancelled");
    assert_eq!(
        events[1]["payload"]["output"],
        "`sleepy` was cancelled before it finished"
    );
}

#[tokio::test]
async fn a_batch_shares_one_parallel_group_id_and_ids_are_v4() {
    let registry = registry();
    let calls = vec![
        ToolCall::new("echo", json!({ "text": "a" })),
        ToolCall::new("echo", json!({ "text": "b" })),
        ToolCall::new("broken", json!({})),
    ];
    let events = rawp_of(&registry, || registry.call_batch(calls)).await;
    let requests: Vec<&Value> = events
        .iter()
        .filter(|event| event["type"] == "tool.invoke.request")
        .map(|event| &event["payload"])
        .collect();
    assert_eq!(requests.len(), 3);
    let group = requests[0]["parallel_group_id"].as_str().unwrap();
    assert_eq!(group.parse::<Uuid>().unwrap().get_version_num(), 4);
    let mut ids = Vec::new();
    for request in &requests {
        assert_eq!(request["parallel_group_id"], group);
        let id: Uuid = request["invocation_id"].as_str().unwrap().parse().unwrap();
        assert_eq!(id.get_version_num(), 4);
        ids.push(id);
    }
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), 3, "invocation ids are unique");

    // A call on its own belongs to no group: the field is left out.
    let events = rawp_of(&registry, || registry.call("echo", json!({ "text": "c" }))).await;
    assert!(events[0]["payload"].get("parallel_group_id").is_none());
}

#[tokio::test]
async fn a_request_sent_as_a_json_string_is_reported_as_an_object() {
    let registry = registry();
    let events = rawp_of(&registry, || {
        registry.call("echo", json!(r#"{"text": "s"}"#))
    })
    .await;
    assert_eq!(events[0]["payload"]["input"], json!({ "text": "s" }));
}

#[tokio::test]
async fn a_top_level_call_shows_its_running_card_before_it_runs() {
    let registry = registry();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&seen);
    let _subscription = registry.subscribe(move |event| {
        let kind = match event {
            Event::Request { .. } => "request".to_owned(),
            Event::Decided { .. } => "decided".to_owned(),
            Event::Running { card, .. } => serde_json::to_string(card).unwrap(),
            Event::Stream(_) => "stream".to_owned(),
            Event::Executed { .. } => "executed".to_owned(),
            Event::SpillFailed { .. } => "spill_failed".to_owned(),
            Event::Result(_) => "result".to_owned(),
            Event::Catalog(_) => "catalog".to_owned(),
        };
        sink.lock().unwrap().push(kind);
    });
    registry.call("echo", json!({ "text": "hi" })).await;
    // A tool without `present_call` shows the generic card without an output.
    registry.call("broken", json!({})).await;
    // A nested call shows none; neither does a call refused before it runs.
    registry
        .call_with(ToolCall::new("echo", json!({ "text": "x" })).nested())
        .await;
    registry.call("echo", json!({})).await;
    assert_eq!(
        *seen.lock().unwrap(),
        [
            "request",
            r#"{"card":"terminal","command":"echo hi","stdout":"","stderr":""}"#,
            "stream",
            "stream",
            "executed",
            "result",
            "request",
            r#"{"card":"generic","title":"broken","input":{}}"#,
            "result",
            "request",
            "stream",
            "stream",
            "executed",
            "result",
            "request",
            "result",
        ]
    );
    // The same card, asked for by a host.
    let echo = registry.get("echo").unwrap();
    assert_eq!(
        echo.present_call(&json!({ "text": "hi" })),
        Card::from(TerminalCard::new("echo hi"))
    );
    // Arguments the tool cannot read give the generic card.
    assert_eq!(
        echo.present_call(&json!({ "text": 1 })),
        Card::generic("echo", json!({ "text": 1 }), None)
    );
}

#[test]
fn events_the_spec_does_not_name_have_no_wire_form() {
    let executed = Event::Running {
        invocation_id: id(),
        tool_name: "echo".into(),
        card: Card::generic("echo", json!({}), None),
    };
    assert_eq!(executed.to_rawp(), None);
    let catalog = Event::Catalog(CatalogPublish::default());
    assert_eq!(
        catalog.to_rawp(),
        Some(RawpEvent::CatalogPublish(CatalogPublish::default()))
    );
}

/// Upper-case a word.
#[tool(read_only, concurrency_safe)]
async fn upper(
    /// The word
    word: String,
) -> String {
    word.to_uppercase()
}

#[tokio::test]
async fn subscribers_share_the_calls_arguments_rather_than_copies() {
    let registry = Registry::new();
    registry.register::<upper>().unwrap();
    let seen: Arc<Mutex<Vec<Event>>> = Arc::default();
    let _subscription = registry.subscribe({
        let seen = Arc::clone(&seen);
        move |event| seen.lock().unwrap().push(event.clone())
    });
    let result = registry.call("upper", json!({ "word": "hi" })).await;
    assert_eq!(result.value, Some(json!("HI")));

    let events = seen.lock().unwrap();
    let Event::Request { input, .. } = &events[0] else {
        panic!("the request comes first: {:?}", events[0]);
    };
    let Event::Running {
        card: Card::Generic(running),
        ..
    } = &events[1]
    else {
        panic!("a generic running card comes next: {:?}", events[1]);
    };
    let Event::Executed { args, value, .. } = &events[2] else {
        panic!("then the executed value: {:?}", events[2]);
    };
    assert_eq!(**input, json!({ "word": "hi" }));
    assert_eq!(**value, json!("HI"));
    // One value for the request, the running card, the executed record and
    // the result's card, however large the arguments.
    assert!(Arc::ptr_eq(input, args));
    assert!(Arc::ptr_eq(input, &running.input));
    let Some(Card::Generic(card)) = result.card() else {
        panic!("the result has the generic card");
    };
    assert!(Arc::ptr_eq(input, &card.input));
    assert_eq!(card.output, Some(json!("HI")));
}
