//! A typed failure's kind and data reach the model in each provider's tool
//! result, after the message.

use dsh_kit::Registry;
use dsh_kit::prelude::*;
use dsh_kit::provider::ModelTurn;
use dsh_kit::provider::{anthropic, gemini, openai_chat, openai_responses};
use serde_json::{Value, json};

/// How a lookup fails.
#[derive(Debug, ToolFailure)]
enum LookupError {
    /// Nothing has the key.
    #[error("nothing has the key {key}")]
    Missing { key: String },
}

/// Look a key up.
#[tool(read_only)]
async fn lookup(key: String) -> Result<String, LookupError> {
    Err(LookupError::Missing { key })
}

const SUMMARY: &str = r#"failure: Missing {"key":"k1"}"#;

/// Every string in `value`, depth first.
fn strings(value: &Value, found: &mut Vec<String>) {
    match value {
        Value::String(text) => found.push(text.clone()),
        Value::Array(items) => items.iter().for_each(|item| strings(item, found)),
        Value::Object(map) => map.values().for_each(|item| strings(item, found)),
        _ => {}
    }
}

/// Whether the message the model gets says the message and then the summary.
fn says_both(reply: &impl serde::Serialize) -> bool {
    let mut found = Vec::new();
    strings(&serde_json::to_value(reply).unwrap(), &mut found);
    let joined = found.join("\n");
    match (joined.find("nothing has the key k1"), joined.find(SUMMARY)) {
        (Some(message), Some(summary)) => message < summary,
        _ => false,
    }
}

fn registry() -> Registry {
    let registry = Registry::new();
    registry.register::<lookup>().unwrap().keep();
    registry
}

#[tokio::test]
async fn each_provider_s_tool_result_carries_the_failure_kind_and_data() {
    let registry = registry();

    let turn = anthropic::Turn::parse(&json!({
        "role": "assistant",
        "stop_reason": "tool_use",
        "content": [{ "type": "tool_use", "id": "t1", "name": "lookup", "input": { "key": "k1" } }],
    }))
    .unwrap();
    let step = turn.run(&registry).await;
    assert!(step.reply.content[0].is_error);
    assert!(says_both(&step.reply), "{:?}", step.reply);

    let turn = openai_chat::Turn::parse(&json!({
        "choices": [{
            "finish_reason": "tool_calls",
            "message": {
                "role": "assistant",
                "tool_calls": [{
                    "id": "c1",
                    "type": "function",
                    "function": { "name": "lookup", "arguments": "{\"key\":\"k1\"}" },
                }],
            },
        }],
    }))
    .unwrap();
    let step = turn.run(&registry).await;
    assert!(says_both(&step.reply), "{:?}", step.reply);

    let turn = openai_responses::Turn::parse(&json!({
        "output": [{
            "type": "function_call",
            "call_id": "c1",
            "name": "lookup",
            "arguments": "{\"key\":\"k1\"}",
        }],
    }))
    .unwrap();
    let step = turn.run(&registry).await;
    assert!(says_both(&step.reply), "{:?}", step.reply);

    let turn = gemini::Turn::parse(&json!({
        "candidates": [{
            "content": {
                "role": "model",
                "parts": [{ "functionCall": { "name": "lookup", "args": { "key": "k1" } } }],
            },
        }],
    }))
    .unwrap();
    let step = turn.run(&registry).await;
    assert!(says_both(&step.reply), "{:?}", step.reply);
}
