//! Anthropic Messages: recorded responses in, the next request's messages
//! out, checked byte for byte against reviewed snapshots.

use crate::support::{SCENARIOS, fixture, registry, snapshot};
use dsh_kit::export::{Deferred, Format};
use dsh_kit::prelude::*;
use dsh_kit::provider::anthropic::{ResultContent, Turn};
use dsh_kit::provider::{CallError, ModelTurn};

const FORMAT: &str = "anthropic";

#[tokio::test]
async fn messages_match_the_reviewed_snapshots() {
    let registry = registry();
    let mut stale = Vec::new();
    for scenario in SCENARIOS {
        let turn = Turn::parse_str(&fixture(FORMAT, scenario)).unwrap();
        let step = turn.run(&registry).await;
        let ids: Vec<&str> = step
            .reply
            .content
            .iter()
            .map(|block| block.tool_use_id.as_str())
            .collect();
        let called: Vec<&str> = turn.calls.iter().map(|call| call.id.as_str()).collect();
        assert_eq!(ids, called, "{scenario}");
        stale.extend(snapshot(FORMAT, scenario, &(&turn.message, &step.reply)));
    }
    assert!(stale.is_empty(), "{}", stale.join("\n"));
}

#[tokio::test]
async fn errors_are_flagged_and_images_carried() {
    let registry = registry();
    let turn = Turn::parse_str(&fixture(FORMAT, "failing")).unwrap();
    let step = turn.run(&registry).await;
    assert!(step.reply.content[0].is_error);

    let turn = Turn::parse_str(&fixture(FORMAT, "image")).unwrap();
    let step = turn.run(&registry).await;
    assert!(!step.reply.content[0].is_error);
    assert!(matches!(&step.reply.content[0].content[1],
        ResultContent::Image { source } if source.media_type == "image/png"));
    // BMP is not among the types Anthropic takes: said in text instead.
    assert!(matches!(&step.reply.content[1].content[1],
        ResultContent::Text { text } if text.starts_with("[image/bmp image, 70 bytes, not shown")));
}

#[tokio::test]
async fn malformed_calls_are_answered_with_errors() {
    let turn = Turn::parse_str(&fixture(FORMAT, "malformed")).unwrap();
    assert_eq!(
        turn.calls[0].args,
        Err(CallError::NotAnObject {
            name: "read_note".into(),
            found: "an array"
        })
    );
    assert_eq!(
        turn.calls[1].args,
        Err(CallError::MissingId { name: "add".into() })
    );
    assert_eq!(turn.message.content[2]["id"], turn.calls[1].id.as_str());
    let step = turn.run(&registry()).await;
    assert!(step.reply.content.iter().all(|block| block.is_error));

    let turn = Turn::parse_str(&fixture(FORMAT, "string_encoded")).unwrap();
    assert_eq!(
        turn.calls[0].args,
        Err(CallError::StringEncoded {
            name: "read_note".into()
        })
    );
}

#[test]
fn an_end_turn_has_no_calls() {
    let turn = Turn::parse(
        &json!({"id": "msg_1", "type": "message", "role": "assistant",
        "content": [{"type": "text", "text": "Done."}], "stop_reason": "end_turn"}),
    )
    .unwrap();
    assert!(turn.is_final());
    assert_eq!(turn.text.as_deref(), Some("Done."));
    assert_eq!(turn.stop_reason.as_deref(), Some("end_turn"));
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
fn deferred_tools_go_to_anthropic_tool_search_after_a_stable_prefix() {
    let registry = registry();
    registry.register::<convert>().unwrap().keep();
    registry
        .register::<dsh_kit::catalog::tool_search>()
        .unwrap()
        .keep();
    let native = registry
        .host()
        .export_with(Format::Anthropic, Deferred::Native);
    let names: Vec<&str> = native
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "add",
            "divide",
            "read_note",
            "screenshot",
            "tool_search_tool_bm25",
            "convert"
        ]
    );
    assert_eq!(
        native[4],
        json!({"type": "tool_search_tool_bm25_20251119", "name": "tool_search_tool_bm25"})
    );
    assert_eq!(native[5]["defer_loading"], true);
    assert!(native[5]["input_schema"].is_object());

    // The fallback keeps the built-in search tool; the prefix is the same bytes.
    let built_in = registry
        .host()
        .export_with(Format::Anthropic, Deferred::BuiltIn);
    assert_eq!(built_in, registry.export(Format::Anthropic));
    assert_eq!(
        native.as_array().unwrap()[..4],
        built_in.as_array().unwrap()[..4]
    );
    // Formats without a tool search of their own fall back.
    assert_eq!(
        registry
            .host()
            .export_with(Format::Gemini, Deferred::Native),
        registry.export(Format::Gemini)
    );
    // Deterministic: the same bytes every time.
    assert_eq!(
        native.to_string(),
        registry
            .host()
            .export_with(Format::Anthropic, Deferred::Native)
            .to_string()
    );
}

/// The README's loop, with `send` answering from recorded responses.
#[tokio::test]
async fn the_readme_loop_runs_to_the_end() -> Result<(), Box<dyn std::error::Error>> {
    let registry = registry();
    let mut answers = vec![
        serde_json::from_str::<serde_json::Value>(&fixture(FORMAT, "parallel"))?,
        json!({"id": "msg_2", "type": "message", "role": "assistant", "stop_reason": "end_turn",
               "content": [{"type": "text", "text": "You have three notes."}]}),
    ]
    .into_iter();
    let mut send = async |messages: &[serde_json::Value], tools: &serde_json::Value| {
        assert_eq!(tools.as_array().unwrap().len(), 4);
        // Every request ends with the user's words or the results of the last turn.
        assert_eq!(messages.last().unwrap()["role"], "user");
        Ok::<_, Box<dyn std::error::Error>>(answers.next().unwrap())
    };

    let tools = registry.export(Format::Anthropic);
    let mut messages = vec![json!({ "role": "user", "content": "Tidy my notes" })];
    let answer = loop {
        let response = send(&messages, &tools).await?;
        let turn = Turn::parse(&response)?;
        messages.push(serde_json::to_value(&turn.message)?);
        if turn.is_final() {
            break turn.text.unwrap_or_default();
        }
        let step = turn.run(&registry).await;
        messages.push(serde_json::to_value(&step.reply)?);
    };
    assert_eq!(answer, "You have three notes.");
    assert_eq!(messages.len(), 4);
    assert_eq!(messages[2]["content"][2]["content"][0]["text"], "5");
    Ok(())
}

#[test]
fn server_side_tool_search_blocks_are_kept_but_not_run() {
    let turn = Turn::parse(
        &json!({"id": "msg_3", "type": "message", "role": "assistant",
        "stop_reason": "tool_use", "content": [
            {"type": "server_tool_use", "id": "srvtoolu_1", "name": "tool_search_tool_bm25",
             "input": {"query": "currency"}},
            {"type": "tool_search_tool_result", "tool_use_id": "srvtoolu_1",
             "content": {"type": "tool_search_tool_search_result",
                         "tool_references": [{"type": "tool_reference", "tool_name": "convert"}]}},
            {"type": "tool_use", "id": "toolu_9", "name": "convert", "input": {"amount": 3.5}}
        ]}),
    )
    .unwrap();
    assert_eq!(turn.calls.len(), 1);
    assert_eq!(turn.calls[0].id, "toolu_9");
    assert_eq!(turn.message.content.len(), 3);
}

#[test]
fn a_call_made_by_the_models_code_says_which_code_made_it() {
    let turn = Turn::parse(
        &json!({"id": "msg_4", "type": "message", "role": "assistant",
        "stop_reason": "tool_use", "content": [
            {"type": "server_tool_use", "id": "srvtoolu_7", "name": "code_execution",
             "input": {"code": "await convert({amount: 1})"}},
            {"type": "tool_use", "id": "toolu_1", "name": "convert", "input": {"amount": 1.0},
             "caller": {"type": "code_execution_20250825", "tool_id": "srvtoolu_7"}},
            {"type": "tool_use", "id": "toolu_2", "name": "convert", "input": {"amount": 2.0},
             "caller": {"type": "direct"}}
        ]}),
    )
    .unwrap();
    assert_eq!(turn.calls.len(), 2);
    let caller = turn.calls[0]
        .caller
        .as_ref()
        .expect("the code made the first call");
    assert_eq!(
        (caller.kind.as_str(), caller.tool_id.as_str()),
        ("code_execution_20250825", "srvtoolu_7")
    );
    assert_eq!(
        turn.calls[1].caller, None,
        "the model made the second call itself"
    );
}
