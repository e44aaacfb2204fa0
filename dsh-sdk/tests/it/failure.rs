//! Typed failures, end to end: the cause, the tool's failure kind and its
//! error value in the result, the RAWP-DPS result event, the session log (and
//! its replay), and the failure shapes in the exported definitions.

use std::sync::{Arc, Mutex};

use dsh_kit::event::rawp::RawpEvent;
use dsh_kit::export::Format;
use dsh_kit::log::replay::{Outcome, Skip, replay};
use dsh_kit::log::{Log, SessionLog};
use dsh_kit::prelude::*;
use dsh_kit::{Cause, Failure, Status};
use dsh_kit::{Registry, ToolResult};
use serde_json::Value;

/// How an edit fails.
#[derive(Debug, Serialize, JsonSchema, thiserror::Error)]
enum EditError {
    /// `old` was empty.
    #[error("`old` is empty: give the text to replace")]
    InvalidInput,
    /// `old` is not in the file.
    #[error("no match for `{old}` in the file")]
    NoMatchesFound { old: String },
}

impl EditError {
    fn kind(&self) -> &'static str {
        match self {
            EditError::InvalidInput => "InvalidInput",
            EditError::NoMatchesFound { .. } => "NoMatchesFound",
        }
    }
}

/// What `#[tool]` makes of a `Serialize + JsonSchema` error enum.
fn typed(error: EditError) -> ToolError {
    let typed = ToolError::typed(error.to_string(), &error);
    assert_eq!(typed.kind(), Some(error.kind()));
    typed
}

#[derive(Deserialize, JsonSchema)]
struct EditArgs {
    /// The text to replace
    old: String,
}

/// Written by hand, the way `#[tool]` writes it for a `Serialize + JsonSchema`
/// error enum: a kind and a value on every error, and the failure schema.
struct Edit;

impl Tool for Edit {
    type Args = EditArgs;
    type Output = String;
    const DEFINITION: ToolDef = ToolDef::builder("edit", "Replace text in a file.")
        .version("1.2.0")
        .build();

    async fn execute(args: EditArgs, _exec: &Exec) -> Result<String, ToolError> {
        if args.old.is_empty() {
            return Err(typed(EditError::InvalidInput));
        }
        if args.old == "found" {
            return Ok("replaced".to_owned());
        }
        Err(typed(EditError::NoMatchesFound { old: args.old }))
    }

    fn failure_schema() -> Option<Value> {
        Some(ToolError::failure_schema::<EditError>())
    }
}

fn no_match() -> Failure {
    Failure::tool(
        Some("NoMatchesFound".into()),
        Some(json!({ "old": "fn main" })),
    )
}

#[tokio::test]
async fn a_typed_error_reaches_the_result_with_its_kind_and_value() {
    let registry = Registry::new();
    let _edit = registry.register::<Edit>().unwrap();

    let result = registry.call("edit", json!({ "old": "fn main" })).await;
    assert!(result.is_error());
    assert_eq!(result.status(), Status::Error);
    assert_eq!(
        result.text(),
        "`edit` failed: no match for `fn main` in the file"
    );
    assert_eq!(result.failure, Some(no_match()));

    let result = registry.call("edit", json!({ "old": "" })).await;
    assert_eq!(
        result.failure,
        // A unit variant holds nothing: its kind is all there is.
        Some(Failure::tool(Some("InvalidInput".into()), None))
    );

    let result = registry.call("edit", json!({ "old": "found" })).await;
    assert!(!result.is_error());
    assert_eq!(result.failure, None);
}

/// Fails with a plain error: no kind is guessed from its text.
#[tool]
async fn plain() -> Result<String, std::io::Error> {
    Err(std::io::Error::other("Disk full"))
}

/// Never finishes in time.
#[tool(timeout_ms = 10)]
async fn slow() -> String {
    tokio::time::sleep(std::time::Duration::from_secs(60)).await;
    String::new()
}

/// Panics.
#[tool]
async fn boom() -> String {
    panic!("out of cheese")
}

/// Destroys things.
#[tool(destructive)]
async fn wipe() -> String {
    "wiped".into()
}

#[tokio::test]
async fn every_failure_of_the_pipeline_says_its_cause() {
    let registry = Registry::new();
    let _edit = registry.register::<Edit>().unwrap();
    let _plain = registry.register::<plain>().unwrap();
    let _slow = registry.register::<slow>().unwrap();
    let _boom = registry.register::<boom>().unwrap();
    let _wipe = registry.register::<wipe>().unwrap();

    let cause = |result: &ToolResult| result.failure.as_ref().map(|failure| failure.cause);
    let result = registry.call("edti", json!({})).await;
    assert_eq!(cause(&result), Some(Cause::UnknownTool));
    let result = registry.call("edit", json!({ "old": 1 })).await;
    assert_eq!(cause(&result), Some(Cause::InvalidArguments));
    let result = registry.call("slow", json!({})).await;
    assert_eq!(cause(&result), Some(Cause::Timeout));
    let result = registry.call("boom", json!({})).await;
    assert_eq!(cause(&result), Some(Cause::Panicked));
    let result = registry.call("wipe", json!({})).await;
    assert_eq!(cause(&result), Some(Cause::Denied));
    // A statement of what happened, not the question an approver is asked.
    assert_eq!(
        result.text(),
        "`wipe` was denied: `wipe` may destroy data, and no approver is set up to allow it; to let it run, give the registry an approver (`Registry::builder().approver(…)`), or allow it with a rule (`Rule::allow(\"wipe\")`) where no rule asks for it"
    );

    let result = registry.call("plain", json!({})).await;
    assert_eq!(result.text(), "`plain` failed: Disk full");
    assert_eq!(result.failure, Some(Failure::tool(None, None)));
}

#[tokio::test]
async fn the_result_event_carries_the_failure_and_the_request_the_version() {
    let registry = Registry::new();
    let _edit = registry.register::<Edit>().unwrap();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&seen);
    let _subscription = registry.subscribe_rawp(move |event| {
        sink.lock().unwrap().push(event.clone());
    });

    registry.call("edit", json!({ "old": "fn main" })).await;
    registry.call("edit", json!({ "old": "found" })).await;
    let seen = seen.lock().unwrap();
    let RawpEvent::InvokeRequest(request) = &seen[0] else {
        panic!("{:?}", seen[0])
    };
    assert_eq!(request.tool_version.as_deref(), Some("1.2.0"));
    let RawpEvent::InvokeResult(result) = &seen[1] else {
        panic!("{:?}", seen[1])
    };
    assert_eq!(result.failure, Some(no_match()));
    let wire = serde_json::to_value(&seen[1]).unwrap();
    assert_eq!(wire["payload"]["status"], "error");
    assert_eq!(
        wire["payload"]["failure"],
        json!({ "cause": "tool", "kind": "NoMatchesFound", "data": { "old": "fn main" } })
    );
    assert_eq!(
        wire["payload"]["output"],
        "`edit` failed: no match for `fn main` in the file"
    );
    // Read back from the wire, the same event.
    assert_eq!(
        serde_json::from_value::<RawpEvent>(wire).unwrap(),
        seen[1].clone()
    );
    // A success carries none.
    let wire = serde_json::to_value(&seen[3]).unwrap();
    assert_eq!(wire["payload"]["status"], "success");
    assert!(wire["payload"].get("failure").is_none(), "{wire}");
}

#[tokio::test]
async fn the_log_keeps_the_failure_and_replay_reads_it_back() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("session.jsonl");
    let registry = Registry::new();
    let _edit = registry.register::<Edit>().unwrap();
    let log = SessionLog::open(&path).unwrap();
    let logging = registry.subscribe(log.subscriber());
    let live = registry.call("edit", json!({ "old": "fn main" })).await;
    registry.call("edit", json!({ "old": "found" })).await;
    drop(logging);

    let text = std::fs::read_to_string(&path).unwrap();
    let result_line: Value = text
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).unwrap())
        .find(|record| record["record"] == "result")
        .unwrap();
    assert_eq!(
        result_line["failure"],
        json!({ "cause": "tool", "kind": "NoMatchesFound", "data": { "old": "fn main" } })
    );

    let read = Log::read(&path).unwrap();
    let calls = read.calls();
    assert_eq!(calls[0].result.as_ref().unwrap().failure, Some(no_match()));
    assert_eq!(calls[0].result.as_ref().unwrap().failure, live.failure);
    let request = calls[0].request.as_ref().unwrap();
    assert_eq!(request.tool_version.as_deref(), Some("1.2.0"));

    // Replay: the failed call never executed, the other comes out identical.
    let report = replay(&registry, &read);
    assert_eq!(
        report.calls[0].outcome,
        Outcome::Skipped(Skip::NotExecuted {
            status: Status::Error
        })
    );
    assert_eq!(report.calls[1].outcome, Outcome::Identical);
}

#[test]
fn the_failure_shapes_are_exported_with_the_definition() {
    let registry = Registry::new();
    let _edit = registry.register::<Edit>().unwrap();
    let sentence = "When it fails, the failure is one of: `InvalidInput`, `NoMatchesFound`.";
    let expected = format!("Replace text in a file.\n\n{sentence}");

    let anthropic = registry.export(Format::Anthropic);
    assert_eq!(anthropic[0]["description"], json!(expected));
    for format in [Format::OpenAi, Format::OpenAiStrict] {
        let openai = registry.export(format);
        assert_eq!(openai[0]["function"]["description"], json!(expected));
    }
    for format in [
        Format::AnthropicStrict,
        Format::Gemini,
        Format::GeminiOpenApi,
    ] {
        assert_eq!(registry.export(format)[0]["description"], json!(expected));
    }

    let mcp = registry.export(Format::Mcp);
    assert_eq!(mcp[0]["description"], json!(expected));
    assert_eq!(mcp[0]["_meta"]["dsh/version"], "1.2.0");
    // One branch per variant, each the `kind` and `data` a failure carries.
    let schema = json!({
        "description": "How an edit fails.",
        "oneOf": [
            {
                "type": "object",
                "description": "`old` was empty.",
                "properties": { "kind": { "const": "InvalidInput" } },
                "required": ["kind"],
                "additionalProperties": false
            },
            {
                "type": "object",
                "description": "`old` is not in the file.",
                "properties": {
                    "kind": { "const": "NoMatchesFound" },
                    "data": {
                        "type": "object",
                        "properties": { "old": { "type": "string" } },
                        "required": ["old"]
                    }
                },
                "required": ["kind", "data"],
                "additionalProperties": false
            }
        ]
    });
    assert_eq!(mcp[0]["_meta"]["dsh/failureSchema"], schema);
    assert_eq!(
        registry.get("edit").unwrap().failure_schema(),
        Some(&schema)
    );
    // What a failure carries is valid against it.
    let failure = serde_json::to_value(no_match()).unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let carried = json!({ "kind": failure["kind"], "data": failure["data"] });
    assert!(validator.is_valid(&carried), "{carried}");

    let catalog = registry.catalog();
    assert_eq!(catalog.tools[0].version.as_deref(), Some("1.2.0"));
}

#[test]
fn a_tool_without_failure_shapes_exports_its_description_alone() {
    let registry = Registry::new();
    let _plain = registry.register::<plain>().unwrap();
    let anthropic = registry.export(Format::Anthropic);
    assert_eq!(
        anthropic[0]["description"],
        "Fails with a plain error: no kind is guessed from its text."
    );
    assert!(registry.export(Format::Mcp)[0].get("_meta").is_none());
}
