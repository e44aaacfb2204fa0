//! OpenAI Chat Completions: recorded responses in, the next request's
//! messages out, checked byte for byte against reviewed snapshots.

use crate::support::{SCENARIOS, fixture, registry, snapshot};
use dsh_kit::provider::openai_chat::Turn;
use dsh_kit::provider::{CallError, ModelTurn, ResponseError};
use serde_json::json;

const FORMAT: &str = "openai_chat";

#[tokio::test]
async fn messages_match_the_reviewed_snapshots() {
    let registry = registry();
    let mut stale = Vec::new();
    for scenario in SCENARIOS {
        let turn = Turn::parse_str(&fixture(FORMAT, scenario)).unwrap();
        let step = turn.run(&registry).await;
        // Every call is answered, in order, under its own id.
        let ids: Vec<&str> = step.reply.iter().map(|m| m.tool_call_id.as_str()).collect();
        let called: Vec<&str> = turn
            .message
            .tool_calls
            .iter()
            .map(|c| c.id.as_str())
            .collect();
        assert_eq!(ids, called, "{scenario}");
        let messages = (&turn.message, &step.reply);
        stale.extend(snapshot(FORMAT, scenario, &messages));
    }
    assert!(stale.is_empty(), "{}", stale.join("\n"));
}

#[tokio::test]
async fn malformed_calls_are_answered_with_errors_and_the_rest_still_run() {
    let turn = Turn::parse_str(&fixture(FORMAT, "malformed")).unwrap();
    assert!(matches!(
        turn.calls[0].args,
        Err(CallError::ArgumentsNotJson { .. })
    ));
    assert_eq!(
        turn.calls[1].args,
        Err(CallError::MissingId { name: "add".into() })
    );
    let step = turn.run(&registry()).await;
    assert!(step.results.iter().all(|result| result.is_error()));
    assert!(
        step.reply[0].content.starts_with(
            "Error: the arguments for `read_note` are not valid JSON (EOF while parsing"
        )
    );

    let turn = Turn::parse_str(&fixture(FORMAT, "string_encoded")).unwrap();
    let step = turn.run(&registry()).await;
    assert!(step.reply[0].content.contains("encoded twice"));
    assert_eq!(step.reply[1].content, "2");
}

#[tokio::test]
async fn a_failing_tool_and_an_unknown_tool_read_as_errors() {
    let registry = registry();
    let turn = Turn::parse_str(&fixture(FORMAT, "failing")).unwrap();
    let step = turn.run(&registry).await;
    assert_eq!(
        step.reply[0].content,
        "Error: `divide` failed: division by zero: give a divisor other than 0"
    );
    let turn = Turn::parse_str(&fixture(FORMAT, "unknown_tool")).unwrap();
    let step = turn.run(&registry).await;
    assert!(
        step.reply[0]
            .content
            .starts_with("Error: no tool named `read_notes`; did you mean `read_note`?")
    );
    assert!(step.reply[0].content.contains("read_note"));
}

#[tokio::test]
async fn concurrency_safe_calls_of_one_turn_run_at_the_same_time() {
    let registry = registry();
    registry
        .register::<crate::support::rendezvous>()
        .unwrap()
        .keep();
    let turn = Turn::parse(&json!({"choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
        "role": "assistant", "content": null, "tool_calls": [
            {"id": "a", "type": "function", "function": {"name": "rendezvous", "arguments": "{\"who\":\"Ada\"}"}},
            {"id": "b", "type": "function", "function": {"name": "rendezvous", "arguments": "{\"who\":\"Bob\"}"}}
        ]}}]}))
    .unwrap();
    let step = turn.run(&registry).await;
    assert_eq!(step.reply[0].content, "Ada met the other");
    assert_eq!(step.reply[1].content, "Bob met the other");
    assert_eq!(
        step.results[0].parallel_group_id,
        step.results[1].parallel_group_id
    );
}

#[test]
fn a_final_answer_has_no_calls() {
    let turn = Turn::parse(&json!({"choices": [{"index": 0, "finish_reason": "stop",
        "message": {"role": "assistant", "content": "All done.", "refusal": null}}]}))
    .unwrap();
    assert!(turn.is_final());
    assert_eq!(turn.text.as_deref(), Some("All done."));
    assert_eq!(
        serde_json::to_string(&turn.message).unwrap(),
        r#"{"role":"assistant","content":"All done."}"#
    );
}

#[test]
fn a_body_of_the_wrong_shape_says_where() {
    let error = Turn::parse(&json!({"choices": [{"message": {"tool_calls": 3}}]})).unwrap_err();
    assert_eq!(
        error.to_string(),
        "not a Chat Completions response: at `choices[0].message.tool_calls`: invalid type: integer `3`, expected a sequence"
    );
    let error = Turn::parse(&json!({"choices": []})).unwrap_err();
    assert!(matches!(
        error,
        ResponseError::Empty {
            what: "choices",
            ..
        }
    ));
    assert!(Turn::parse_str("<html>").is_err());
}
