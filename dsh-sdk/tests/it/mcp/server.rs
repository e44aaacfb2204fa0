//! The MCP server and proxy in process, over an in-memory pipe: what the
//! example server cannot show from the outside (its tools never change).
#![cfg(feature = "mcp")]

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use dsh_kit::DynamicTool;
use dsh_kit::Registry;
use dsh_kit::catalog::tool_search;
use dsh_kit::event::rawp::ToolStatus;
use dsh_kit::mcp::rmcp::model::{
    CallToolRequestParams, ClientCapabilities, ClientConfig, ErrorCode, Implementation,
    ProtocolVersion, ServerNotification, SubscriptionFilter,
};
use dsh_kit::mcp::rmcp::service::{NotificationContext, RunningService};
use dsh_kit::mcp::rmcp::{
    ClientHandler, ClientLifecycleMode, ClientServiceExt, RoleClient, RoleServer, ServiceError,
    ServiceExt,
};
use dsh_kit::mcp::{McpProxy, McpServer, ServeError};
use dsh_kit::prelude::*;
use serde_json::Value;

const STEP: Duration = Duration::from_secs(10);

/// Greet someone by name.
#[tool(read_only)]
async fn greet(
    /// The name to greet
    name: String,
) -> String {
    format!("Hello, {name}!")
}

/// Say nothing at all.
#[tool]
async fn silent() -> String {
    String::new()
}

/// A client that counts `notifications/tools/list_changed`.
#[derive(Clone, Default)]
struct Counter {
    list_changed: Arc<AtomicUsize>,
}

impl ClientHandler for Counter {
    fn get_info(&self) -> ClientConfig {
        ClientConfig::new(
            ClientCapabilities::default(),
            Implementation::new("tests", "0"),
        )
    }

    async fn on_tool_list_changed(&self, _: NotificationContext<RoleClient>) {
        self.list_changed.fetch_add(1, Ordering::SeqCst);
    }
}

/// Serves `registry` on one end of a pipe and connects a client to the other.
async fn connect(
    registry: &Registry,
    lifecycle: ClientLifecycleMode,
) -> (
    RunningService<RoleClient, Counter>,
    tokio::task::JoinHandle<()>,
) {
    let (server_io, client_io) = tokio::io::duplex(64 * 1024);
    let server = McpServer::new(registry.clone());
    let serving = tokio::spawn(async move {
        if let Ok(running) = server.serve(server_io).await {
            let _ = running.waiting().await;
        }
    });
    let client = tokio::time::timeout(
        STEP,
        Counter::default().serve_with_lifecycle(client_io, lifecycle),
    )
    .await
    .expect("the handshake ends in time")
    .expect("the handshake succeeds");
    (client, serving)
}

fn legacy() -> ClientLifecycleMode {
    ClientLifecycleMode::Initialize
}

fn modern() -> ClientLifecycleMode {
    ClientLifecycleMode::Discover {
        preferred_versions: vec![ProtocolVersion::V_2026_07_28],
    }
}

async fn eventually(what: &str, condition: impl Fn() -> bool) {
    tokio::time::timeout(STEP, async {
        while !condition() {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await
    .unwrap_or_else(|_| panic!("{what} did not happen within {STEP:?}"));
}

fn call(name: &str, args: Value) -> CallToolRequestParams {
    let Value::Object(args) = args else {
        panic!("arguments must be an object")
    };
    CallToolRequestParams::new(name.to_owned()).with_arguments(args)
}

#[tokio::test]
async fn registering_or_dropping_a_tool_sends_list_changed_to_an_initialized_session() {
    let registry = Registry::new();
    let _greet = registry.register::<greet>().unwrap();
    let (client, _serving) = connect(&registry, legacy()).await;
    let changes = Arc::clone(&client.service().list_changed);

    let silent = registry.register::<silent>().unwrap();
    eventually("a list_changed for the new tool", || {
        changes.load(Ordering::SeqCst) >= 1
    })
    .await;
    let names: Vec<String> = client
        .list_all_tools()
        .await
        .unwrap()
        .into_iter()
        .map(|tool| tool.name.into_owned())
        .collect();
    assert_eq!(names, ["greet", "silent"]);

    let seen = changes.load(Ordering::SeqCst);
    silent.unregister();
    eventually("a list_changed for the dropped tool", || {
        changes.load(Ordering::SeqCst) > seen
    })
    .await;
    assert_eq!(client.list_all_tools().await.unwrap().len(), 1);
}

#[tokio::test]
async fn a_tool_turning_unavailable_sends_list_changed_with_its_status() {
    let registry = Registry::new();
    let _greet = registry.register::<greet>().unwrap();
    let (client, _serving) = connect(&registry, legacy()).await;
    let changes = Arc::clone(&client.service().list_changed);

    registry
        .set_status(
            "greet",
            dsh_kit::event::rawp::ToolStatus::Unavailable,
            Some("its server is down"),
        )
        .unwrap();
    eventually("a list_changed for the status", || {
        changes.load(Ordering::SeqCst) >= 1
    })
    .await;
    let tools = client.list_all_tools().await.unwrap();
    let meta = tools[0].meta.as_ref().expect("the tool has _meta");
    assert_eq!(
        meta.get("dsh/status"),
        Some(&serde_json::json!("unavailable"))
    );

    // Setting the same status again changes nothing and says nothing.
    let seen = changes.load(Ordering::SeqCst);
    registry
        .set_status(
            "greet",
            dsh_kit::event::rawp::ToolStatus::Unavailable,
            Some("its server is down"),
        )
        .unwrap();
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert_eq!(changes.load(Ordering::SeqCst), seen);
}

/// Look something up in a large reference.
#[tool(read_only, defer)]
async fn lookup(
    /// What to look up
    topic: String,
) -> String {
    topic
}

/// Look something up in a small reference, listed up front.
#[tool(name = "look_up", read_only)]
async fn listed_lookup(
    /// What to look up
    topic: String,
) -> String {
    topic
}

fn tool_names(tools: Vec<dsh_kit::mcp::rmcp::model::Tool>) -> Vec<String> {
    tools
        .into_iter()
        .map(|tool| tool.name.into_owned())
        .collect()
}

#[tokio::test]
async fn tools_list_is_what_the_model_sees_and_a_sessions_search_changes_its_list_alone() {
    let registry = Registry::new();
    let _greet = registry.register::<greet>().unwrap();
    let _lookup = registry.register::<lookup>().unwrap();
    let _search = registry.register::<tool_search>().unwrap();
    let (client, _serving) = connect(&registry, legacy()).await;
    let (other, _other_serving) = connect(&registry, legacy()).await;
    let changes = Arc::clone(&client.service().list_changed);
    let other_changes = Arc::clone(&other.service().list_changed);
    assert_eq!(
        tool_names(client.list_all_tools().await.unwrap()),
        ["greet", "tool_search"]
    );

    let search = json!({ "query": "look something up in a reference" });
    let found = client.call_tool(call("tool_search", search)).await.unwrap();
    assert!(serde_json::to_string(&found).unwrap().contains("lookup"));
    eventually("a list_changed for the loaded tool", || {
        changes.load(Ordering::SeqCst) >= 1
    })
    .await;
    assert_eq!(
        tool_names(client.list_all_tools().await.unwrap()),
        ["greet", "tool_search", "lookup"]
    );
    // The other session searched nothing: its list, and the host's, stay.
    assert_eq!(
        tool_names(other.list_all_tools().await.unwrap()),
        ["greet", "tool_search"]
    );
    assert!(
        registry
            .host()
            .visible_tools()
            .iter()
            .all(|tool| tool.name() != "lookup")
    );
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert_eq!(
        other_changes.load(Ordering::SeqCst),
        0,
        "no list_changed for a search of another session"
    );
    // A host's load is the host's: no session's list changes.
    registry.host().load_deferred(["lookup"]);
    assert_eq!(
        tool_names(other.list_all_tools().await.unwrap()),
        ["greet", "tool_search"]
    );
}

#[tokio::test]
async fn a_2026_listen_stream_gets_list_changed() {
    let registry = Registry::new();
    let _greet = registry.register::<greet>().unwrap();
    let (client, _serving) = connect(&registry, modern()).await;
    let mut subscription = client
        .listen(SubscriptionFilter::builder().tools_list_changed().build())
        .await
        .expect("the server accepts a list_changed subscription");
    assert_eq!(subscription.acknowledged().tools_list_changed, Some(true));

    let _silent = registry.register::<silent>().unwrap();
    let notification = tokio::time::timeout(STEP, subscription.next())
        .await
        .expect("a notification arrives in time")
        .expect("the stream is open")
        .expect("the stream has a notification");
    assert!(matches!(
        notification,
        ServerNotification::ToolListChangedNotification(_)
    ));
    subscription.cancel().await.unwrap();
}

#[tokio::test]
async fn a_call_that_renders_nothing_still_says_something() {
    let registry = Registry::new();
    let _silent = registry.register::<silent>().unwrap();
    let (client, _serving) = connect(&registry, modern()).await;
    let result = client.call_tool(call("silent", json!({}))).await.unwrap();
    assert_eq!(
        result.content[0].as_text().unwrap().text,
        "`silent` finished with no output"
    );
    assert_eq!(result.structured_content, Some(json!("")));
}

/// A forecast, as numbers.
#[derive(ToolOutput)]
struct Forecast {
    celsius: f64,
    wind: f64,
}

/// What the model reads of a forecast: a sentence, not the numbers' JSON.
#[render]
fn forecast_text(_args: &ForecastArgs, forecast: &Forecast) -> Vec<ContentBlock> {
    vec![ContentBlock::text(format!(
        "{} degrees, wind {} m/s",
        forecast.celsius, forecast.wind
    ))]
}

#[derive(ToolArgs)]
struct ForecastArgs {}

/// The forecast, with the value's JSON after the render (the default).
#[tool(read_only, render = forecast_text)]
async fn forecast(_args: ForecastArgs) -> Forecast {
    Forecast {
        celsius: 21.5,
        wind: 3.0,
    }
}

/// The forecast, its render all the model sees.
#[tool(read_only, render_only, render = forecast_text)]
async fn forecast_said(_args: ForecastArgs) -> Forecast {
    Forecast {
        celsius: 21.5,
        wind: 3.0,
    }
}

/// A render that does not carry the value is all the result carries, so
/// every host's model reads it once; a `render_only` tool sends the value
/// as `structuredContent` beside it, and never its JSON as text.
#[tokio::test]
async fn the_value_goes_beside_a_render_only_when_the_tool_is_render_only() {
    let registry = Registry::new();
    let _forecast = registry.register::<forecast>().unwrap();
    let _said = registry.register::<forecast_said>().unwrap();
    let (client, _serving) = connect(&registry, modern()).await;
    let texts = |result: &rmcp::model::CallToolResult| -> Vec<String> {
        result
            .content
            .iter()
            .map(|block| block.as_text().unwrap().text.clone())
            .collect()
    };
    let value = json!({ "celsius": 21.5, "wind": 3.0 });

    let rendered = client.call_tool(call("forecast", json!({}))).await.unwrap();
    assert_eq!(texts(&rendered), ["21.5 degrees, wind 3 m/s"]);
    assert_eq!(rendered.structured_content, None);

    let said = client
        .call_tool(call("forecast_said", json!({})))
        .await
        .unwrap();
    assert_eq!(texts(&said), ["21.5 degrees, wind 3 m/s"]);
    assert_eq!(said.structured_content, Some(value));
}

/// A name no tool has is the client's mistake, a protocol error naming the
/// closest tools; a known tool that cannot run is a result the model reads,
/// even when its failure is the catalog's rather than the tool's.
#[tokio::test]
async fn only_an_unknown_tool_is_a_protocol_error() {
    let registry = Registry::new();
    let _silent = registry.register::<silent>().unwrap();
    registry
        .set_status("silent", ToolStatus::Unavailable, Some("switched off"))
        .unwrap();
    let (client, _serving) = connect(&registry, modern()).await;
    let error = client
        .call_tool(call("silant", json!({})))
        .await
        .expect_err("an unknown tool is a protocol error");
    let ServiceError::McpError(error) = error else {
        panic!("not an MCP error: {error:?}");
    };
    assert_eq!(error.code, ErrorCode::INVALID_PARAMS);
    assert!(error.message.contains("`silent`"), "{}", error.message);
    let refused = client.call_tool(call("silent", json!({}))).await.unwrap();
    assert_eq!(refused.is_error, Some(true));
    assert_eq!(
        refused.content[0].as_text().unwrap().text,
        "`silent` is unavailable and cannot be called: switched off"
    );
}

#[tokio::test]
async fn a_client_that_stops_waiting_cancels_the_call() {
    let registry = Registry::new();
    let started = Arc::new(AtomicBool::new(false));
    let cancelled = Arc::new(AtomicBool::new(false));
    let (start, stop) = (Arc::clone(&started), Arc::clone(&cancelled));
    let tool = DynamicTool::new(
        ToolDef::builder_owned("hang", "Wait until cancelled.").build(),
        json!({ "type": "object" }),
        move |_args, exec: Exec| {
            let (start, stop) = (Arc::clone(&start), Arc::clone(&stop));
            async move {
                start.store(true, Ordering::SeqCst);
                // Dropped when the pipeline stops the call; the token is
                // cancelled first.
                let _flag = SetOnDrop(stop, exec.clone());
                exec.cancellation().cancelled().await;
                Ok(json!(null))
            }
        },
    );
    let _hang = registry.register_dynamic(tool).unwrap();
    let (client, _serving) = connect(&registry, legacy()).await;

    let call = client.call_tool(call("hang", json!({})));
    tokio::select! {
        _ = call => panic!("`hang` returned"),
        () = eventually("the call to start", || started.load(Ordering::SeqCst)) => {}
    }
    eventually("the call to be cancelled", || {
        cancelled.load(Ordering::SeqCst)
    })
    .await;
}

/// Sets the flag when dropped, if the call's token was cancelled.
struct SetOnDrop(Arc<AtomicBool>, Exec);

impl Drop for SetOnDrop {
    fn drop(&mut self) {
        if self.1.is_cancelled() {
            self.0.store(true, Ordering::SeqCst);
        }
    }
}

#[tokio::test]
async fn a_proxy_follows_the_tools_of_its_server() {
    let remote = Registry::new();
    let _greet = remote.register::<greet>().unwrap();
    let (server_io, client_io) = tokio::io::duplex(64 * 1024);
    let server = McpServer::new(remote.clone());
    let serving: tokio::task::JoinHandle<Option<RunningService<RoleServer, McpServer>>> =
        tokio::spawn(async move { server.serve(server_io).await.ok() });

    let host = Registry::new();
    let proxy = tokio::time::timeout(
        STEP,
        McpProxy::builder("remote")
            .prefix("remote_")
            .connect(&host, client_io),
    )
    .await
    .unwrap()
    .unwrap();
    let running = serving.await.unwrap().expect("the server side started");
    assert_eq!(proxy.tools(), ["remote_greet"]);
    let info = host.get("remote_greet").unwrap();
    assert!(info.is_dynamic());
    assert!(info.definition().read_only());
    assert_eq!(info.definition().category(), Some(Category::Mcp));
    assert_eq!(
        host.call("remote_greet", json!({ "name": "Ada" }))
            .await
            .value,
        Some(json!("Hello, Ada!"))
    );

    // A tool comes on the server: the proxy hears of it and registers it.
    let silent = remote.register::<silent>().unwrap();
    eventually("the new tool to be proxied", || {
        host.get("remote_silent").is_some()
    })
    .await;
    // And goes.
    silent.unregister();
    eventually("the dropped tool to go", || {
        host.get("remote_silent").is_none()
    })
    .await;

    // The server ends the session: the tools turn unavailable.
    let _ = running.cancel().await;
    let reason = tokio::time::timeout(STEP, proxy.closed()).await.unwrap();
    let refused = host.call("remote_greet", json!({ "name": "Ada" })).await;
    assert_eq!(
        refused.text(),
        format!(
            "`remote_greet` is unavailable and cannot be called: the MCP server `remote` is gone: {reason}"
        )
    );
}

/// Serves `registry` in process and proxies it into `host` under `name`.
async fn proxy(host: &Registry, name: &str, registry: &Registry) -> McpProxy {
    let (server_io, client_io) = tokio::io::duplex(64 * 1024);
    let server = McpServer::new(registry.clone());
    tokio::spawn(async move {
        if let Ok(running) = server.serve(server_io).await {
            let _ = running.waiting().await;
        }
    });
    tokio::time::timeout(STEP, McpProxy::builder(name).connect(host, client_io))
        .await
        .expect("the proxy connects in time")
        .expect("the proxy connects")
}

#[tokio::test]
async fn the_exported_list_is_the_same_whatever_the_order_servers_connect_in() {
    let first = Registry::new();
    let _greet = first.register::<greet>().unwrap();
    let second = Registry::new();
    let _silent = second.register::<silent>().unwrap();
    let _lookup = second.register::<listed_lookup>().unwrap();

    let forward = Registry::new();
    let _a = proxy(&forward, "first", &first).await;
    let _b = proxy(&forward, "second", &second).await;
    let backward = Registry::new();
    let _c = proxy(&backward, "second", &second).await;
    let _d = proxy(&backward, "first", &first).await;

    for format in [
        dsh_kit::export::Format::Anthropic,
        dsh_kit::export::Format::OpenAi,
        dsh_kit::export::Format::Mcp,
    ] {
        assert_eq!(forward.export_json(format), backward.export_json(format));
    }
    let names: Vec<String> = forward
        .tools()
        .iter()
        .map(|tool| tool.name().to_owned())
        .collect();
    assert_eq!(names, ["greet", "look_up", "silent"]);
}

#[tokio::test]
async fn a_proxy_skips_what_it_cannot_register_and_says_why() {
    let remote = Registry::new();
    let _greet = remote.register::<greet>().unwrap();
    let odd = DynamicTool::new(
        ToolDef::builder_owned(
            "odd",
            "A remote tool whose name a local dynamic tool holds.",
        )
        .build(),
        json!({ "type": "object" }),
        |_args, _exec| async { Ok(json!(null)) },
    );
    let _odd = remote.register_dynamic(odd).unwrap();
    let (server_io, client_io) = tokio::io::duplex(64 * 1024);
    let server = McpServer::new(remote.clone());
    tokio::spawn(async move {
        if let Ok(running) = server.serve(server_io).await {
            let _ = running.waiting().await;
        }
    });

    let host = Registry::new();
    let _local_greet = host.register::<greet>().unwrap();
    // Two dynamic tools cannot share a name: the first keeps it.
    let first = DynamicTool::new(
        ToolDef::builder_owned("odd", "Was here first.").build(),
        json!({ "type": "object" }),
        |_args, _exec| async { Ok(json!(null)) },
    );
    let _first = host.register_dynamic(first).unwrap();
    let proxy = McpProxy::builder("remote")
        .connect(&host, client_io)
        .await
        .unwrap();
    assert!(proxy.tools().is_empty());
    let codes: Vec<String> = proxy.diagnostics().into_iter().map(|d| d.code).collect();
    assert_eq!(
        codes,
        [dsh_kit::catalog::TOOL_SHADOWED, dsh_kit::mcp::TOOL_SKIPPED]
    );
    let skipped = host
        .catalog()
        .diagnostics
        .into_iter()
        .find(|d| d.code == dsh_kit::mcp::TOOL_SKIPPED)
        .unwrap();
    assert_eq!(
        skipped.message,
        "the tool `odd` of the MCP server `remote` is left out: cannot register `odd`: the name `odd` is already taken by `odd`"
    );
    // Dropping the proxy takes its diagnostics away.
    drop(proxy);
    assert!(
        !host
            .catalog()
            .diagnostics
            .iter()
            .any(|d| d.code == dsh_kit::mcp::TOOL_SKIPPED)
    );
}

#[tokio::test]
async fn http_is_served_on_loopback_only_unless_callers_are_authenticated() {
    let registry = Registry::new();
    let error = McpServer::new(registry.clone())
        .serve_http("0.0.0.0:0".parse().unwrap())
        .await
        .unwrap_err();
    assert!(matches!(error, ServeError::NotLoopback { .. }));
    assert_eq!(
        error.to_string(),
        "cannot serve MCP over HTTP on 0.0.0.0:0: it is not a loopback address (127.0.0.1, [::1]), and the server has no resource server to authenticate callers; give it one (`McpServer::resource_server`), or, on a network whose every host you trust, say so (`HttpOptions::trusted_network_without_auth`)"
    );

    let server = McpServer::new(registry)
        .serve_http("127.0.0.1:0".parse().unwrap())
        .await
        .unwrap();
    let url = server.url();
    assert!(
        url.starts_with("http://127.0.0.1:") && url.ends_with("/mcp"),
        "{url}"
    );
    tokio::time::timeout(STEP, server.shutdown())
        .await
        .unwrap()
        .unwrap();
}

/// Show a value, as a read card.
#[tool(read_only, present = shown_card)]
async fn show(
    /// The text to show
    text: String,
) -> String {
    text
}

#[present]
fn shown_card(_args: &ShowArgs, text: &String) -> Card {
    Card::from(card::ReadCard::new("shown.txt", text.as_str()))
}

#[tokio::test]
async fn a_tool_with_a_card_links_an_mcp_apps_view_that_serves_the_renderer() {
    use dsh_kit::mcp::rmcp::model::{ReadResourceRequestParams, ResourceContents};

    let registry = Registry::new();
    let _greet = registry.register::<greet>().unwrap();
    let _show = registry.register::<show>().unwrap();
    let (client, _serving) = connect(&registry, legacy()).await;

    let tools = client.list_all_tools().await.unwrap();
    // Every tool's `_meta` has its contract hash; the rest is the view.
    let meta = |name: &str| {
        let tool = tools.iter().find(|tool| tool.name == name).unwrap();
        let mut meta = serde_json::to_value(&tool.meta).unwrap();
        let hash = meta
            .as_object_mut()
            .and_then(|meta| meta.remove(dsh_kit::mcp::CONTRACT_META_KEY));
        assert!(hash.is_some(), "`{name}` lists its contract hash");
        meta
    };
    assert_eq!(
        meta("greet"),
        serde_json::json!({}),
        "a tool without a card links no view"
    );
    assert_eq!(
        meta("show"),
        serde_json::json!({
            "ui": { "resourceUri": "ui://dsh/cards/show" },
            "ui/resourceUri": "ui://dsh/cards/show",
        })
    );

    let resources = client.list_all_resources().await.unwrap();
    let uris: Vec<(&str, Option<&str>)> = resources
        .iter()
        .map(|resource| (resource.uri.as_str(), resource.mime_type.as_deref()))
        .collect();
    assert_eq!(
        uris,
        [("ui://dsh/cards/show", Some("text/html;profile=mcp-app"))]
    );

    let read = client
        .read_resource(ReadResourceRequestParams::new("ui://dsh/cards/show"))
        .await
        .unwrap();
    let [
        ResourceContents::TextResourceContents {
            text, mime_type, ..
        },
    ] = read.contents.as_slice()
    else {
        panic!("one text resource expected: {read:?}");
    };
    assert_eq!(mime_type.as_deref(), Some("text/html;profile=mcp-app"));
    assert_eq!(text, &dsh_kit::card::web::card_app_html());

    for missing in [
        "ui://dsh/cards/greet",
        "ui://dsh/cards/nope",
        "ui://other/show",
    ] {
        let error = client
            .read_resource(ReadResourceRequestParams::new(missing))
            .await
            .unwrap_err();
        assert!(error.to_string().contains(missing), "{error}");
    }

    // A client that did not declare MCP Apps gets the render, and no card
    // (one that did gets it: `mcp::shape`).
    let result = client
        .call_tool(call("show", serde_json::json!({ "text": "hi" })))
        .await
        .unwrap();
    let result = serde_json::to_value(&result).unwrap();
    assert_eq!(result.get("_meta"), None, "{result}");
    assert_eq!(result["content"][0]["text"], "hi");
    let plain = client
        .call_tool(call("greet", serde_json::json!({ "name": "Ada" })))
        .await
        .unwrap();
    assert!(plain.meta.is_none(), "{plain:?}");
}

/// How a lookup fails.
#[derive(Debug, Serialize, JsonSchema, thiserror::Error)]
enum LookupError {
    /// Nothing is filed under the key.
    #[error("nothing under `{0}`")]
    Missing(String),
}

#[derive(Deserialize, JsonSchema)]
struct FindArgs {
    /// The key to look up
    key: String,
}

/// Written by hand, with the kind and value `#[tool]` gives a typed error.
struct Find;

impl Tool for Find {
    type Args = FindArgs;
    type Output = String;
    const DEFINITION: ToolDef = ToolDef::builder("find", "Find a filed value.")
        .read_only(true)
        .version("0.3.0")
        .build();

    async fn execute(args: FindArgs, _exec: &Exec) -> Result<String, ToolError> {
        let error = LookupError::Missing(args.key);
        Err(ToolError::typed(error.to_string(), &error))
    }

    fn failure_schema() -> Option<Value> {
        Some(ToolError::failure_schema::<LookupError>())
    }
}

#[tokio::test]
async fn a_typed_failure_reaches_an_mcp_client_and_a_proxy() {
    let registry = Registry::new();
    let _find = registry.register::<Find>().unwrap();
    let (client, _serving) = connect(&registry, modern()).await;

    let result = client
        .call_tool(call("find", json!({ "key": "k" })))
        .await
        .unwrap();
    assert_eq!(result.is_error, Some(true));
    let meta = result.meta.expect("a failed result has `_meta`");
    assert_eq!(
        meta.0["dsh/failure"],
        json!({ "cause": "tool", "kind": "Missing", "data": "k" })
    );

    // The definition names the failure shapes and the version.
    let tools = client.list_all_tools().await.unwrap();
    let meta = tools[0].meta.as_ref().expect("the tool has `_meta`");
    assert_eq!(meta.0["dsh/version"], "0.3.0");
    assert_eq!(
        meta.0["dsh/failureSchema"],
        ToolError::failure_schema::<LookupError>()
    );
    assert!(
        tools[0]
            .description
            .as_deref()
            .unwrap()
            .ends_with("When it fails, the failure is one of: `Missing`."),
        "{:?}",
        tools[0].description
    );

    // Proxied, the tool keeps its version and failure shapes, said once,
    // and a failure keeps its kind and value.
    let host = Registry::new();
    let _proxy = proxy(&host, "files", &registry).await;
    let proxied = host.get("find").unwrap();
    assert_eq!(proxied.definition().version(), Some("0.3.0"));
    assert_eq!(
        proxied.failure_schema(),
        Some(&ToolError::failure_schema::<LookupError>())
    );
    assert_eq!(
        host.export(dsh_kit::export::Format::Anthropic)[0]["description"],
        "Find a filed value.\n\nWhen it fails, the failure is one of: `Missing`."
    );
    let proxied = host.call("find", json!({ "key": "k" })).await;
    assert!(proxied.is_error());
    assert_eq!(
        proxied.failure,
        Some(dsh_kit::Failure::tool(
            Some("Missing".into()),
            Some(json!("k"))
        ))
    );
}

#[tokio::test]
async fn tools_list_is_sorted_with_cache_hints_and_a_version_the_same_tools_share() {
    use dsh_kit::mcp::LIST_VERSION_META_KEY;
    use dsh_kit::mcp::rmcp::model::CacheScope;

    let one = Registry::new();
    let _silent = one.register::<silent>().unwrap();
    let _greet = one.register::<greet>().unwrap();
    let other = Registry::new();
    let _greet_too = other.register::<greet>().unwrap();
    let _silent_too = other.register::<silent>().unwrap();

    let mut versions = Vec::new();
    for (registry, lifecycle) in [(&one, modern()), (&other, modern()), (&one, legacy())] {
        let (client, _serving) = connect(registry, lifecycle).await;
        let listed = client.peer().list_tools(None).await.unwrap();
        let names: Vec<&str> = listed.tools.iter().map(|tool| &*tool.name).collect();
        assert_eq!(names, ["greet", "silent"]);
        assert_eq!(listed.ttl_ms, Some(0));
        assert_eq!(listed.cache_scope, Some(CacheScope::Private));
        let version = listed
            .meta
            .as_ref()
            .and_then(|meta| meta.0.get(LIST_VERSION_META_KEY))
            .and_then(Value::as_str)
            .expect("tools/list carries its version")
            .to_owned();
        assert!(
            version.starts_with("sha256:") && version.len() == 7 + 64,
            "{version}"
        );
        versions.push(version);
    }
    assert_eq!(
        versions[0], versions[1],
        "same tools, any order: one version"
    );
    assert_eq!(
        versions[0], versions[2],
        "same tools, any protocol: one version"
    );

    let _lookup = one.register::<listed_lookup>().unwrap();
    let (client, _serving) = connect(&one, modern()).await;
    let listed = client.peer().list_tools(None).await.unwrap();
    let version = listed
        .meta
        .as_ref()
        .and_then(|meta| meta.0.get(LIST_VERSION_META_KEY));
    assert_ne!(version.and_then(Value::as_str), Some(versions[0].as_str()));
}

#[tokio::test]
async fn tools_list_says_which_tools_are_unavailable_and_why() {
    use dsh_kit::event::rawp::ToolStatus;
    use dsh_kit::mcp::{STATUS_DESCRIPTION_META_KEY, STATUS_META_KEY};

    let registry = Registry::new();
    let _greet = registry.register::<greet>().unwrap();
    let _silent = registry.register::<silent>().unwrap();
    registry
        .set_status("greet", ToolStatus::Unavailable, Some("the server is gone"))
        .unwrap();
    let (client, _serving) = connect(&registry, modern()).await;
    let listed = client.peer().list_tools(None).await.unwrap();
    let meta = |name: &str, key: &str| {
        listed
            .tools
            .iter()
            .find(|tool| tool.name == name)
            .and_then(|tool| tool.meta.as_ref())
            .and_then(|meta| meta.0.get(key))
            .cloned()
    };
    assert_eq!(meta("greet", STATUS_META_KEY), Some("unavailable".into()));
    assert_eq!(
        meta("greet", STATUS_DESCRIPTION_META_KEY),
        Some("the server is gone".into())
    );
    assert_eq!(meta("silent", STATUS_META_KEY), None);

    registry
        .set_status("greet", ToolStatus::Available, None)
        .unwrap();
    let listed = client.peer().list_tools(None).await.unwrap();
    let greet = listed
        .tools
        .iter()
        .find(|tool| tool.name == "greet")
        .unwrap();
    assert!(
        greet
            .meta
            .as_ref()
            .is_none_or(|meta| !meta.0.contains_key(STATUS_META_KEY))
    );
}

#[cfg(feature = "code")]
#[tokio::test]
async fn a_program_runs_over_mcp_its_calls_made_through_the_pipeline() {
    use dsh_kit::code::{self, Limits, RUN_CODE};
    let registry = Registry::new();
    registry.register::<greet>().unwrap().keep();
    let tool = code::tool(registry.host(), Limits::default());
    registry.register_dynamic(tool).unwrap().keep();
    let results = Arc::new(AtomicUsize::new(0));
    let counted = Arc::clone(&results);
    let _events = registry.subscribe(move |event| {
        if matches!(event, dsh_kit::event::Event::Result(_)) {
            counted.fetch_add(1, Ordering::SeqCst);
        }
    });
    let (client, _serving) = connect(&registry, modern()).await;
    let listed = client.list_all_tools().await.unwrap();
    let run_code = listed
        .iter()
        .find(|tool| tool.name == RUN_CODE)
        .expect("listed");
    assert!(
        run_code
            .description
            .as_deref()
            .unwrap_or_default()
            .contains("greet(args: {")
    );
    let program = "const a = tools.greet({ name: 'Ada' }); return a.ok ? a.value : a.message;";
    let result = client
        .call_tool(call(RUN_CODE, json!({ "code": program })))
        .await
        .unwrap();
    assert_eq!(result.content[0].as_text().unwrap().text, "Hello, Ada!");
    assert_eq!(result.structured_content.unwrap()["result"], "Hello, Ada!");
    // The program's call and the program's own: two calls through the pipeline.
    assert_eq!(results.load(Ordering::SeqCst), 2);
}
