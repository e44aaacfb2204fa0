//! The shape of a call's result over MCP: what each host hands its model.
//! The render reaches the model once, whichever field a host reads; a typed
//! failure's kind and data are in `content`; the card travels only to a
//! client that draws cards.

use dsh_kit::Registry;
use dsh_kit::ResultShape;
use dsh_kit::card;
use dsh_kit::card::web::CARD_META_KEY;
use dsh_kit::mcp::MCP_APPS_EXTENSION;
use dsh_kit::mcp::McpServer;
use dsh_kit::mcp::rmcp::model::{
    CallToolRequestParams, CallToolResult, ClientCapabilities, ClientConfig, Implementation,
};
use dsh_kit::mcp::rmcp::service::RunningService;
use dsh_kit::mcp::rmcp::{ClientHandler, RoleClient, ServiceExt};
use dsh_kit::prelude::*;
use serde_json::{Value, json};

/// A client that may declare MCP Apps.
#[derive(Clone, Default)]
struct Client {
    draws_cards: bool,
}

impl ClientHandler for Client {
    fn get_info(&self) -> ClientConfig {
        let mut capabilities = ClientCapabilities::default();
        if self.draws_cards {
            capabilities.extensions = Some(
                [(MCP_APPS_EXTENSION.to_owned(), serde_json::Map::new())]
                    .into_iter()
                    .collect(),
            );
        }
        ClientConfig::new(capabilities, Implementation::new("shape-test", "1.0.0"))
    }
}

async fn connect(server: McpServer, client: Client) -> RunningService<RoleClient, Client> {
    let (server_io, client_io) = tokio::io::duplex(64 * 1024);
    tokio::spawn(async move {
        if let Ok(running) = server.serve(server_io).await {
            let _ = running.waiting().await;
        }
    });
    client
        .serve(client_io)
        .await
        .expect("the handshake succeeds")
}

#[derive(Serialize, Deserialize, JsonSchema)]
struct Lines {
    lines: Vec<String>,
}

/// Number the lines of a text.
#[tool(read_only, render = numbered, present = numbered_card)]
async fn number(text: String) -> Lines {
    Lines {
        lines: text.lines().map(str::to_owned).collect(),
    }
}

/// Number the lines of a text; its value goes to clients too.
#[tool(read_only, render_only, render = numbered_too)]
async fn number_typed(text: String) -> Lines {
    Lines {
        lines: text.lines().map(str::to_owned).collect(),
    }
}

#[render]
fn numbered(_args: &NumberArgs, value: &Lines) -> Vec<ContentBlock> {
    vec![ContentBlock::text(number_lines(value))]
}

#[render]
fn numbered_too(_args: &NumberTypedArgs, value: &Lines) -> Vec<ContentBlock> {
    vec![ContentBlock::text(number_lines(value))]
}

fn number_lines(value: &Lines) -> String {
    value
        .lines
        .iter()
        .enumerate()
        .map(|(index, line)| format!("{:>4}\t{line}", index + 1))
        .collect::<Vec<_>>()
        .join("\n")
}

#[present]
fn numbered_card(args: &NumberArgs, _value: &Lines) -> Card {
    Card::from(card::ReadCard::new("text", args.text.as_str()))
}

#[derive(Serialize, Deserialize, JsonSchema)]
struct Count {
    words: usize,
}

/// Count the words of a text.
#[tool(read_only)]
async fn count(text: String) -> Count {
    Count {
        words: text.split_whitespace().count(),
    }
}

/// How a lookup fails.
#[derive(Debug, ToolFailure)]
enum LookupError {
    /// Nothing has the key.
    #[error("nothing has the key {key}: list the keys first")]
    Missing { key: String, tried: u32 },
}

/// Look a key up.
#[tool(read_only)]
async fn lookup(key: String) -> Result<String, LookupError> {
    Err(LookupError::Missing { key, tried: 3 })
}

fn registry() -> Registry {
    let registry = Registry::new();
    for handle in [
        registry.register::<number>(),
        registry.register::<number_typed>(),
        registry.register::<count>(),
        registry.register::<lookup>(),
    ] {
        std::mem::forget(handle.expect("the tool registers"));
    }
    registry
}

fn call(name: &str, args: Value) -> CallToolRequestParams {
    let Value::Object(args) = args else {
        panic!("arguments must be an object")
    };
    CallToolRequestParams::new(name.to_owned()).with_arguments(args)
}

/// Every text of `content`, as a host that reads `content` hands it on.
fn texts(result: &CallToolResult) -> Vec<String> {
    result
        .content
        .iter()
        .filter_map(|block| block.as_text().map(|text| text.text.clone()))
        .collect()
}

const POEM: &str = "one\ntwo\nthree";
const RENDERED: &str = "   1\tone\n   2\ttwo\n   3\tthree";

#[tokio::test]
async fn by_default_a_render_is_all_a_result_carries_and_no_output_schema_is_listed() {
    let client = connect(McpServer::new(registry()), Client::default()).await;
    let tools = client.list_all_tools().await.unwrap();
    let schema = |name: &str| {
        tools
            .iter()
            .find(|tool| tool.name == name)
            .unwrap_or_else(|| panic!("`{name}` is listed"))
            .output_schema
            .is_some()
    };
    // Results would not conform to a declared schema: none is declared.
    assert!(!schema("number"));
    assert!(schema("number_typed"));
    assert!(schema("count"));

    let result = client
        .call_tool(call("number", json!({ "text": POEM })))
        .await
        .unwrap();
    // A host that reads `content` and one that prefers `structuredContent`
    // when every block is text both hand their model the render, once.
    assert_eq!(texts(&result), [RENDERED]);
    assert_eq!(result.structured_content, None);
    // A client that draws no cards gets none: `_meta` carries no third copy.
    assert!(result.meta.is_none(), "{:?}", result.meta);

    // A tool whose content is its value keeps the value in both fields.
    let counted = client
        .call_tool(call("count", json!({ "text": "a b c" })))
        .await
        .unwrap();
    assert_eq!(texts(&counted), [r#"{"words":3}"#]);
    assert_eq!(counted.structured_content, Some(json!({ "words": 3 })));
}

#[tokio::test]
async fn a_tool_that_asks_for_structure_gets_it_without_a_json_copy() {
    let client = connect(McpServer::new(registry()), Client::default()).await;
    let result = client
        .call_tool(call("number_typed", json!({ "text": POEM })))
        .await
        .unwrap();
    assert_eq!(texts(&result), [RENDERED]);
    assert_eq!(
        result.structured_content,
        Some(json!({ "lines": ["one", "two", "three"] }))
    );
}

#[tokio::test]
async fn a_server_may_choose_the_backwards_compatible_shape() {
    let server = McpServer::new(registry()).result_shape(ResultShape::RenderAndJson);
    let client = connect(server, Client::default()).await;
    let tools = client.list_all_tools().await.unwrap();
    assert!(
        tools
            .iter()
            .find(|tool| tool.name == "number")
            .unwrap()
            .output_schema
            .is_some()
    );
    let result = client
        .call_tool(call("number", json!({ "text": POEM })))
        .await
        .unwrap();
    let value = json!({ "lines": ["one", "two", "three"] });
    assert_eq!(texts(&result), [RENDERED.to_owned(), value.to_string()]);
    assert_eq!(result.structured_content, Some(value));
}

#[tokio::test]
async fn a_client_that_draws_cards_gets_the_card_in_meta() {
    let client = connect(McpServer::new(registry()), Client { draws_cards: true }).await;
    let result = client
        .call_tool(call("number", json!({ "text": POEM })))
        .await
        .unwrap();
    let meta = result.meta.as_ref().expect("the card travels for the view");
    assert_eq!(meta.0[CARD_META_KEY]["card"], "read");
    assert_eq!(texts(&result), [RENDERED]);
}

#[tokio::test]
async fn a_typed_failure_s_kind_and_data_are_in_content() {
    let client = connect(McpServer::new(registry()), Client::default()).await;
    let result = client
        .call_tool(call("lookup", json!({ "key": "k1" })))
        .await
        .unwrap();
    assert_eq!(result.is_error, Some(true));
    assert_eq!(
        texts(&result),
        [
            "`lookup` failed: nothing has the key k1: list the keys first",
            r#"failure: Missing {"key":"k1","tried":3}"#,
        ]
    );
}
