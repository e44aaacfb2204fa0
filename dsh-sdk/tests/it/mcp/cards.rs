//! A dsh server's own card through a proxy: the proxied tool shows the card
//! the server presented, the session log records it with the value, and a
//! replay shows it again once the server is gone; a value a post-execute
//! hook replaced gets the generic card; a server that serves
//! proxied tools passes the card on; a card that is too large, too deep or
//! not a card falls back to the generic card, with a warning. A structured
//! tool's text, as its server rendered it, travels and replays the same way.
#![cfg(feature = "mcp")]
// The contract fixes the projections' parameter types: `&Output` is `&String` here.
#![allow(clippy::ptr_arg)]

use std::sync::{Arc, Mutex};
use std::time::Duration;

use dsh_kit::Registry;
use dsh_kit::ResultShape;
use dsh_kit::card::ReadCard;
use dsh_kit::card::web::CARD_META_KEY;
use dsh_kit::log::replay::{Field, Outcome, replay};
use dsh_kit::log::{Log, SessionLog};
use dsh_kit::mcp::rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock as McpBlock,
    InitializeResult, ListToolsResult, MetaObject, PaginatedRequestParams, ServerCapabilities,
    Tool,
};
use dsh_kit::mcp::rmcp::service::{RequestContext, RunningService};
use dsh_kit::mcp::rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use dsh_kit::mcp::{McpProxy, McpServer};
use dsh_kit::prelude::*;
use serde_json::Value;

const STEP: Duration = Duration::from_secs(10);

/// Show an excerpt of a file.
#[tool(read_only, present = excerpt_card)]
async fn excerpt(
    /// The file's path
    path: String,
    /// The excerpt
    text: String,
) -> String {
    // The path is the card's alone.
    let _ = path;
    text
}

#[present]
fn excerpt_card(args: &ExcerptArgs, text: &String) -> Card {
    Card::Read(ReadCard::new(args.path.clone(), text.clone()).lines(1, 1))
}

/// Greet someone by name.
#[tool(read_only)]
async fn greet(
    /// The name to greet
    name: String,
) -> String {
    format!("Hello, {name}!")
}

/// `registry` served over MCP in process and proxied into `host` as `name`;
/// with the server's side, to end it.
async fn proxied<S: ServerHandler>(
    host: &Registry,
    name: &str,
    server: S,
) -> (McpProxy, RunningService<RoleServer, S>) {
    let (server_io, client_io) = tokio::io::duplex(256 * 1024);
    let serving = tokio::spawn(async move { server.serve(server_io).await.ok() });
    let proxy = tokio::time::timeout(STEP, McpProxy::builder(name).connect(host, client_io))
        .await
        .expect("the proxy connects in time")
        .expect("the proxy connects");
    let running = serving.await.unwrap().expect("the server side started");
    (proxy, running)
}

fn card_json(result: &dsh_kit::ToolResult) -> Value {
    serde_json::to_value(result.card().expect("a top-level call has a card")).unwrap()
}

#[tokio::test]
async fn a_dsh_servers_card_travels_through_the_proxy_and_replays_without_the_server() {
    let remote = Registry::new();
    let _excerpt = remote.register::<excerpt>().unwrap();
    let _greet = remote.register::<greet>().unwrap();
    let host = Registry::new();
    let (proxy, running) = proxied(&host, "files", McpServer::new(remote.clone())).await;
    // The tool that presents its own card there presents one here.
    assert!(host.get("excerpt").unwrap().presents());
    assert!(!host.get("greet").unwrap().presents());

    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("session.jsonl");
    let log = SessionLog::open(&path).unwrap();
    let logging = host.subscribe(log.subscriber());
    let args = json!({ "path": "notes.txt", "text": "one\n" });
    let shown = host.call("excerpt", args.clone()).await;
    let greeted = host.call("greet", json!({ "name": "Ada" })).await;
    drop(logging);

    // The card the server presented, not the generic one.
    let there = remote.call("excerpt", args).await;
    assert_eq!(shown.card(), there.card());
    assert_eq!(
        card_json(&shown),
        json!({ "card": "read", "path": "notes.txt", "start_line": 1, "end_line": 1, "content": "one\n" })
    );
    // A tool that presents nothing keeps the generic card.
    assert_eq!(card_json(&greeted)["card"], "generic");
    assert_eq!(card_json(&greeted)["title"], "greet");

    // Recorded with the value; the generic card's tool has none.
    let recorded = Log::read(&path).unwrap();
    let remote_cards: Vec<Option<String>> = recorded
        .calls()
        .iter()
        .map(|call| {
            let executed = call.executed.as_ref().expect("both calls executed");
            executed
                .remote_card
                .as_ref()
                .map(|card| card.kind().to_owned())
        })
        .collect();
    assert_eq!(remote_cards, [Some("read".to_owned()), None]);

    // The server goes; its tools stay known, and the log replays card and all.
    let _ = running.cancel().await;
    tokio::time::timeout(STEP, proxy.closed()).await.unwrap();
    let report = replay(&host, &recorded);
    assert!(!report.has_differences(), "{report:?}");
    assert_eq!(report.summary().identical, 2);

    // The replayed card is the recorded one: a log whose recorded card was
    // changed after the fact differs in the card, and only there.
    let tampered = dir.path().join("tampered.jsonl");
    let text: String = std::fs::read_to_string(&path)
        .unwrap()
        .lines()
        .map(|line| {
            let line = if line.starts_with("{\"record\":\"executed\"") {
                line.replace("\"content\":\"one\\n\"}", "\"content\":\"two\\n\"}")
            } else {
                line.to_owned()
            };
            line + "\n"
        })
        .collect();
    std::fs::write(&tampered, text).unwrap();
    let report = replay(&host, &Log::read(&tampered).unwrap());
    let Outcome::Differs(differences) = &report.calls[0].outcome else {
        panic!("the tampered card replays identically: {report:?}");
    };
    let fields: Vec<Field> = differences
        .iter()
        .map(|difference| difference.field)
        .collect();
    assert_eq!(fields, [Field::Card]);
    assert!(differences[0].actual.contains("two\\n"), "{differences:?}");
}

/// A count of words.
#[derive(Serialize, Deserialize, JsonSchema)]
struct Counted {
    words: usize,
}

impl Counted {
    /// The words of `text`, counted.
    fn of(text: &str) -> Self {
        Counted {
            words: text.split_whitespace().count(),
        }
    }
}

/// Count the words of a text.
#[tool(read_only, render = counted_text)]
async fn count_words(
    /// The text
    text: String,
) -> Counted {
    Counted::of(&text)
}

#[render]
fn counted_text(_args: &CountWordsArgs, counted: &Counted) -> Vec<ContentBlock> {
    vec![ContentBlock::text(format!("{} words", counted.words))]
}

/// Counted the same way, rendered by default: its text is the JSON.
#[tool(read_only)]
async fn count_plainly(
    /// The text
    text: String,
) -> Counted {
    Counted::of(&text)
}

/// A structured tool's text as its server rendered it reaches the model
/// through the proxy, not the value's JSON alone; the value stays the
/// structured one; the log records the text with the value, and a replay
/// gives it again once the server is gone. A server whose text is only the
/// value's JSON gives what the default rendering gives here.
#[tokio::test]
async fn a_servers_rendering_of_a_structured_value_travels_through_the_proxy() {
    let remote = Registry::new();
    let _count = remote.register::<count_words>().unwrap();
    let _plain = remote.register::<count_plainly>().unwrap();
    let host = Registry::new();
    let (proxy, running) = proxied(
        &host,
        "words",
        // A dsh server proxied for its typed values sends them.
        McpServer::new(remote.clone()).result_shape(ResultShape::Structured),
    )
    .await;

    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("session.jsonl");
    let log = SessionLog::open(&path).unwrap();
    let logging = host.subscribe(log.subscriber());
    let args = json!({ "text": "one two three" });
    let counted = host.call("count_words", args.clone()).await;
    let plain = host.call("count_plainly", args.clone()).await;
    drop(logging);

    assert!(!counted.is_error(), "{}", counted.text());
    assert_eq!(counted.value, Some(json!({ "words": 3 })));
    // What the server's render said, as there, and only that: the value
    // came as `structuredContent`, not again as text.
    assert_eq!(counted.content(), [ContentBlock::text("3 words")]);
    assert_eq!(plain.value, Some(json!({ "words": 3 })));
    assert_eq!(plain.content(), [ContentBlock::text("{\"words\":3}")]);

    let recorded = Log::read(&path).unwrap();
    let kept: Vec<bool> = recorded
        .calls()
        .iter()
        .map(|call| {
            let executed = call.executed.as_ref().expect("both calls executed");
            executed.remote_content.is_some()
        })
        .collect();
    assert_eq!(kept, [true, false]);

    let _ = running.cancel().await;
    tokio::time::timeout(STEP, proxy.closed()).await.unwrap();
    let report = replay(&host, &recorded);
    assert!(!report.has_differences(), "{report:?}");
    assert_eq!(report.summary().identical, 2);
}

/// Count the words of a text, repeating each in the text it renders.
#[tool(read_only, render = counted_loudly)]
async fn count_loudly(
    /// The text
    text: String,
) -> Counted {
    Counted::of(&text)
}

#[render]
fn counted_loudly(args: &CountLoudlyArgs, _counted: &Counted) -> Vec<ContentBlock> {
    vec![ContentBlock::text(args.text.repeat(1_000))]
}

/// A server's text over the proxying registry's output limits is not kept:
/// the model sees the value's default rendering, and the call succeeds.
#[tokio::test]
async fn a_servers_rendering_over_the_output_limits_leaves_the_values_json() {
    let remote = Registry::builder().max_result_chars(1_000_000).build();
    let _loud = remote.register::<count_loudly>().unwrap();
    let host = Registry::builder().max_output_bytes(4 * 1024).build();
    let (_proxy, _running) = proxied(
        &host,
        "words",
        // A dsh server proxied for its typed values sends them.
        McpServer::new(remote.clone()).result_shape(ResultShape::Structured),
    )
    .await;
    let counted = host
        .call("count_loudly", json!({ "text": "one two " }))
        .await;
    assert!(!counted.is_error(), "{}", counted.text());
    assert_eq!(counted.value, Some(json!({ "words": 2 })));
    assert_eq!(counted.content(), [ContentBlock::text("{\"words\":2}")]);
}

/// A server that is not dsh, whose `show` tool puts in its result's `_meta`
/// whatever card its `kind` argument names.
#[derive(Clone)]
struct Hostile;

impl Hostile {
    fn card(kind: &str) -> Value {
        match kind {
            "good" => json!({ "card": "read", "path": "a.txt", "content": "fine\n" }),
            "malformed" => json!({ "card": "hologram", "path": "a.txt" }),
            "wrong_type" => json!({ "card": "read", "path": 42, "content": [] }),
            "oversized" => {
                json!({ "card": "read", "path": "big.txt", "content": "x".repeat(64 * 1024) })
            }
            "deep" => {
                let mut input = json!("bottom");
                for _ in 0..90 {
                    input = json!([input]);
                }
                json!({ "card": "generic", "title": "deep", "input": input })
            }
            _ => Value::Null,
        }
    }
}

impl ServerHandler for Hostile {
    fn get_info(&self) -> InitializeResult {
        InitializeResult::new(ServerCapabilities::builder().enable_tools().build())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let schema = json!({
            "type": "object",
            "properties": { "kind": { "type": "string" } },
            "required": ["kind"]
        });
        let Value::Object(schema) = schema else {
            unreachable!("an object literal");
        };
        Ok(ListToolsResult::with_all_items(vec![Tool::new(
            "show",
            "Show something, with a card.",
            Arc::new(schema),
        )]))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let kind = request
            .arguments
            .as_ref()
            .and_then(|args| args.get("kind"))
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        let mut result = CallToolResult::success(vec![McpBlock::text(format!("shown {kind}"))]);
        let mut meta = MetaObject::new();
        meta.0
            .insert(CARD_META_KEY.to_owned(), Hostile::card(&kind));
        result.meta = Some(meta);
        Ok(result.into())
    }
}

/// The messages of the warnings logged while it is the default subscriber.
#[derive(Clone, Default)]
struct Warnings(Arc<Mutex<Vec<String>>>);

impl<S: tracing::Subscriber> tracing_subscriber::Layer<S> for Warnings {
    fn on_event(
        &self,
        event: &tracing::Event<'_>,
        _context: tracing_subscriber::layer::Context<'_, S>,
    ) {
        struct Message(String);
        impl tracing::field::Visit for Message {
            fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn std::fmt::Debug) {
                if field.name() == "message" {
                    self.0 = format!("{value:?}");
                }
            }
        }
        if *event.metadata().level() == tracing::Level::WARN {
            let mut message = Message(String::new());
            event.record(&mut message);
            self.0.lock().unwrap().push(message.0);
        }
    }
}

#[tokio::test]
async fn a_card_too_large_too_deep_or_not_a_card_falls_back_to_the_generic_card() {
    use tracing_subscriber::layer::SubscriberExt as _;

    let warnings = Warnings::default();
    // The test's runtime has one thread: the calls run where this is the default.
    let _default =
        tracing::subscriber::set_default(tracing_subscriber::registry().with(warnings.clone()));
    let host = Registry::builder().max_output_bytes(16 * 1024).build();
    let (_proxy, _running) = proxied(&host, "hostile", Hostile).await;

    let good = host.call("show", json!({ "kind": "good" })).await;
    assert_eq!(card_json(&good)["card"], "read");
    assert!(warnings.0.lock().unwrap().is_empty());

    for (kind, why) in [
        ("malformed", "it is not a card: unknown variant `hologram`"),
        ("wrong_type", "it is not a card: invalid type"),
        ("oversized", "it is larger than 16384 bytes as JSON"),
        ("deep", "it is nested deeper than 64 levels"),
    ] {
        let result = host.call("show", json!({ "kind": kind })).await;
        assert!(!result.is_error(), "{kind}: {result:?}");
        assert_eq!(result.text(), format!("shown {kind}"));
        let card = card_json(&result);
        assert_eq!(card["card"], "generic", "{kind}");
        assert_eq!(card["title"], "show", "{kind}");
        let logged = warnings.0.lock().unwrap().pop().expect("a warning");
        assert!(
            logged.contains("the card the MCP server `hostile` sent with a result of `show` is not shown, the generic card is")
                && logged.contains(why),
            "{kind}: {logged}"
        );
    }
}

#[tokio::test]
async fn a_card_travels_on_through_a_server_that_serves_proxied_tools() {
    let remote = Registry::new();
    let _excerpt = remote.register::<excerpt>().unwrap();
    // A gateway serves the remote's tools, and a client proxies the gateway.
    let gateway = Registry::new();
    let (_first, _remote_side) = proxied(&gateway, "files", McpServer::new(remote.clone())).await;
    let client = Registry::new();
    let (_second, _gateway_side) =
        proxied(&client, "gateway", McpServer::new(gateway.clone())).await;
    assert!(client.get("excerpt").unwrap().presents());

    let args = json!({ "path": "notes.txt", "text": "one\n" });
    let shown = client.call("excerpt", args.clone()).await;
    assert_eq!(shown.card(), remote.call("excerpt", args).await.card());
    assert_eq!(card_json(&shown)["card"], "read");
}

#[tokio::test]
async fn a_value_a_hook_replaced_gets_the_generic_card_not_the_servers() {
    use dsh_kit::post_execute::{PostCall, PostDecision, PostOutcome};

    let remote = Registry::new();
    let _excerpt = remote.register::<excerpt>().unwrap();
    let hook = |call: &PostCall<'_>| -> PostOutcome {
        match call.value.as_str() {
            Some("secret\n") => PostDecision::AcceptValue(json!("(redacted)\n")).into(),
            _ => PostOutcome::pass(),
        }
    };
    let host = Registry::builder().post_execute(hook).build();
    let (_proxy, _running) = proxied(&host, "files", McpServer::new(remote)).await;

    let kept = host
        .call("excerpt", json!({ "path": "a.txt", "text": "plain\n" }))
        .await;
    assert_eq!(card_json(&kept)["card"], "read");
    // The server's card shows the value the hook replaced: the generic card
    // of the value that stands shows instead.
    let replaced = host
        .call("excerpt", json!({ "path": "a.txt", "text": "secret\n" }))
        .await;
    assert_eq!(replaced.value, Some(json!("(redacted)\n")));
    let card = card_json(&replaced);
    assert_eq!(card["card"], "generic");
    assert_eq!(card["output"], "(redacted)\n");
}

/// A server of the older protocols: its tool declares an output schema but
/// its results carry no `structuredContent`, only the value's JSON as the
/// first text block, and, for `with_note`, a second block after it.
struct Older;

impl ServerHandler for Older {
    fn get_info(&self) -> InitializeResult {
        InitializeResult::new(ServerCapabilities::builder().enable_tools().build())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let object = |schema: Value| match schema {
            Value::Object(schema) => Arc::new(schema),
            _ => unreachable!("an object literal"),
        };
        let input = object(json!({
            "type": "object",
            "properties": { "with_note": { "type": "boolean" } },
            "required": ["with_note"]
        }));
        let output = object(json!({
            "type": "object",
            "properties": { "words": { "type": "integer" } },
            "required": ["words"]
        }));
        Ok(ListToolsResult::with_all_items(vec![
            Tool::new("count", "Count words.", input).with_raw_output_schema(output),
        ]))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let with_note = request
            .arguments
            .as_ref()
            .and_then(|args| args.get("with_note"))
            .and_then(Value::as_bool)
            .unwrap_or_default();
        let mut blocks = vec![McpBlock::text(r#"{"words":3}"#)];
        if with_note {
            blocks.push(McpBlock::text("counted by whitespace"));
        }
        Ok(CallToolResult::success(blocks).into())
    }
}

/// A value an older server sent only as JSON text is read from that text:
/// one block, which is the value's JSON, leaves the default rendering, and
/// nothing is recorded beside the value; more blocks are the server's
/// rendering, which the model sees and the log records.
#[tokio::test]
async fn a_value_an_older_server_sent_as_text_keeps_only_the_rendering_it_adds() {
    let host = Registry::new();
    let (_proxy, _running) = proxied(&host, "older", Older).await;

    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("session.jsonl");
    let log = SessionLog::open(&path).unwrap();
    let logging = host.subscribe(log.subscriber());
    let plain = host.call("count", json!({ "with_note": false })).await;
    let noted = host.call("count", json!({ "with_note": true })).await;
    drop(logging);

    assert!(!plain.is_error(), "{}", plain.text());
    assert_eq!(plain.value, Some(json!({ "words": 3 })));
    assert_eq!(plain.content(), [ContentBlock::text(r#"{"words":3}"#)]);
    assert!(!noted.is_error(), "{}", noted.text());
    assert_eq!(noted.value, Some(json!({ "words": 3 })));
    assert_eq!(
        noted.content(),
        [
            ContentBlock::text(r#"{"words":3}"#),
            ContentBlock::text("counted by whitespace")
        ]
    );

    let recorded = Log::read(&path).unwrap();
    let kept: Vec<bool> = recorded
        .calls()
        .iter()
        .map(|call| {
            let executed = call.executed.as_ref().expect("both calls executed");
            executed.remote_content.is_some()
        })
        .collect();
    assert_eq!(kept, [false, true]);
}
