//! OpenAI Responses: recorded responses in, the next request's input items
//! out, checked byte for byte against reviewed snapshots.

use crate::support::{SCENARIOS, fixture, registry, snapshot};
use dsh_kit::export::Deferred;
use dsh_kit::prelude::*;
use dsh_kit::provider::openai_responses::{InputContent, Output, Turn, tools};
use dsh_kit::provider::{CallError, ModelTurn};

const FORMAT: &str = "openai_responses";

#[tokio::test]
async fn items_match_the_reviewed_snapshots() {
    let registry = registry();
    let mut stale = Vec::new();
    for scenario in SCENARIOS {
        let turn = Turn::parse_str(&fixture(FORMAT, scenario)).unwrap();
        let step = turn.run(&registry).await;
        let ids: Vec<&str> = step
            .reply
            .iter()
            .map(|item| item.call_id.as_str())
            .collect();
        let called: Vec<&str> = turn.calls.iter().map(|call| call.id.as_str()).collect();
        assert_eq!(ids, called, "{scenario}");
        stale.extend(snapshot(FORMAT, scenario, &(&turn.items, &step.reply)));
    }
    assert!(stale.is_empty(), "{}", stale.join("\n"));
}

#[tokio::test]
async fn an_image_goes_back_as_an_input_image() {
    let turn = Turn::parse_str(&fixture(FORMAT, "image")).unwrap();
    let step = turn.run(&registry()).await;
    let Output::Content(parts) = &step.reply[0].output else {
        panic!("expected content parts: {:?}", step.reply[0].output);
    };
    assert!(
        matches!(&parts[1], InputContent::InputImage { image_url, .. }
        if image_url.starts_with("data:image/png;base64,iVBORw0KGgo"))
    );
}

#[tokio::test]
async fn malformed_calls_are_answered_with_errors() {
    let turn = Turn::parse_str(&fixture(FORMAT, "malformed")).unwrap();
    assert!(matches!(
        turn.calls[0].args,
        Err(CallError::ArgumentsNotJson { .. })
    ));
    assert_eq!(
        turn.calls[1].args,
        Err(CallError::MissingId { name: "add".into() })
    );
    // The echoed item carries the id its output refers to.
    assert_eq!(turn.items[2]["call_id"], turn.calls[1].id.as_str());
    let step = turn.run(&registry()).await;
    assert!(step.results.iter().all(|result| result.is_error()));
    assert_eq!(step.reply.len(), 2);
}

#[test]
fn text_and_no_calls_is_the_end() {
    let turn = Turn::parse(&json!({"id": "resp_1", "object": "response", "output": [
        {"id": "msg_1", "type": "message", "role": "assistant", "status": "completed",
         "content": [{"type": "output_text", "text": "Done.", "annotations": []}]}
    ]}))
    .unwrap();
    assert!(turn.is_final());
    assert_eq!(turn.text.as_deref(), Some("Done."));
}

/// Convert an amount between currencies.
#[tool(defer)]
async fn convert(
    /// The amount
    amount: f64,
) -> f64 {
    amount
}

#[test]
fn deferred_tools_go_to_openai_tool_search_after_a_stable_prefix() {
    let registry = registry();
    registry.register::<convert>().unwrap().keep();
    registry
        .register::<dsh_kit::catalog::tool_search>()
        .unwrap()
        .keep();
    let native = serde_json::to_value(tools(&registry, Deferred::Native)).unwrap();
    let names: Vec<&str> = native
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| {
            tool["name"]
                .as_str()
                .unwrap_or(tool["type"].as_str().unwrap())
        })
        .collect();
    assert_eq!(
        names,
        [
            "add",
            "divide",
            "read_note",
            "screenshot",
            "convert",
            "tool_search"
        ]
    );
    assert_eq!(native[4]["defer_loading"], true);
    assert_eq!(native[5], json!({"type": "tool_search"}));
    assert!(native[0].get("defer_loading").is_none());
    assert_eq!(native[0]["strict"], false);

    // The fallback: the built-in search tool, deferred tools left out.
    let built_in = serde_json::to_value(tools(&registry, Deferred::BuiltIn)).unwrap();
    let names: Vec<&str> = built_in
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        ["add", "divide", "read_note", "screenshot", "tool_search"]
    );
    // The prefix both share is byte for byte the same.
    assert_eq!(
        native.as_array().unwrap()[..4],
        built_in.as_array().unwrap()[..4]
    );
}

#[test]
fn hosted_tool_search_items_are_kept_but_not_run() {
    let turn = Turn::parse(&json!({"id": "resp_2", "object": "response", "output": [
        {"id": "tsc_1", "type": "tool_search_call", "execution": "server", "call_id": null,
         "status": "completed", "arguments": {"paths": ["convert"]}},
        {"id": "tso_1", "type": "tool_search_output", "execution": "server", "call_id": null,
         "status": "completed", "tools": []},
        {"id": "fc_1", "type": "function_call", "call_id": "call_1", "name": "convert",
         "arguments": "{\"amount\":3.5}", "status": "completed"}
    ]}))
    .unwrap();
    assert_eq!(turn.calls.len(), 1);
    assert_eq!(turn.calls[0].args, Ok(json!({"amount": 3.5})));
    assert_eq!(turn.items.len(), 3);
}
