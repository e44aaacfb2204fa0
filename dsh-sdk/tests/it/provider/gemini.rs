//! Gemini generateContent: recorded responses in, the next request's
//! contents out, checked byte for byte against reviewed snapshots.

use crate::support::{SCENARIOS, fixture, registry, snapshot};
use dsh_kit::prelude::*;
use dsh_kit::provider::gemini::{FunctionResult, Turn};
use dsh_kit::provider::{CallError, ModelTurn};

const FORMAT: &str = "gemini";

#[tokio::test]
async fn contents_match_the_reviewed_snapshots() {
    let registry = registry();
    let mut stale = Vec::new();
    for scenario in SCENARIOS {
        let turn = Turn::parse_str(&fixture(FORMAT, scenario)).unwrap();
        let step = turn.run(&registry).await;
        assert_eq!(step.reply.parts.len(), turn.calls.len(), "{scenario}");
        stale.extend(snapshot(FORMAT, scenario, &(&turn.content, &step.reply)));
    }
    assert!(stale.is_empty(), "{}", stale.join("\n"));
}

#[tokio::test]
async fn calls_without_ids_get_stable_ones_that_are_never_sent() {
    let turn = Turn::parse_str(&fixture(FORMAT, "single")).unwrap();
    assert_eq!(turn.calls[0].id, "gemini-call-0");
    let again = Turn::parse_str(&fixture(FORMAT, "single")).unwrap();
    assert_eq!(again.calls[0].id, turn.calls[0].id);
    let step = turn.run(&registry()).await;
    assert_eq!(step.reply.parts[0].function_response.id, None);

    // Newer models give ids: they go back with the responses.
    let turn = Turn::parse_str(&fixture(FORMAT, "parallel")).unwrap();
    let step = turn.run(&registry()).await;
    let ids: Vec<_> = step
        .reply
        .parts
        .iter()
        .map(|part| part.function_response.id.clone().unwrap())
        .collect();
    assert_eq!(ids, ["fc-10k2q", "fc-11k2q", "fc-12k2q"]);
}

#[tokio::test]
async fn errors_go_under_the_error_key() {
    let turn = Turn::parse_str(&fixture(FORMAT, "failing")).unwrap();
    let step = turn.run(&registry()).await;
    assert_eq!(
        step.reply.parts[0].function_response.response,
        FunctionResult::Error {
            error: "`divide` failed: division by zero: give a divisor other than 0".into()
        }
    );
    let turn = Turn::parse_str(&fixture(FORMAT, "malformed")).unwrap();
    assert_eq!(
        turn.calls[0].args,
        Err(CallError::NotAnObject {
            name: "read_note".into(),
            found: "a string"
        })
    );
    assert_eq!(turn.calls[1].args, Err(CallError::MissingName));
}

#[test]
fn a_text_answer_has_no_calls_and_thoughts_are_not_text() {
    let turn = Turn::parse(
        &json!({"candidates": [{"content": {"role": "model", "parts": [
        {"text": "thinking it over", "thought": true},
        {"text": "Done."}
    ]}, "finishReason": "STOP"}]}),
    )
    .unwrap();
    assert!(turn.is_final());
    assert_eq!(turn.text.as_deref(), Some("Done."));
    // A candidate blocked for safety has no content: no calls, no panic.
    let turn = Turn::parse(&json!({"candidates": [{"finishReason": "SAFETY"}]})).unwrap();
    assert!(turn.is_final());
}
