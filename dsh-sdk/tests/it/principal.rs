//! Who makes a call: a principal restricted by scopes sees and calls only
//! its tools, in process, in tool search, in every export and over MCP;
//! rules decide by scope and subject; the approver, the events and the
//! session log see who called, never the token's claims.

use std::sync::{Arc, Mutex};

use dsh_kit::catalog::tool_search;
use dsh_kit::event::Event;
use dsh_kit::export::{Deferred, Format};
use dsh_kit::log::replay::{Outcome, replay};
use dsh_kit::log::{Log, SessionLog};
use dsh_kit::permission::{Approval, ApprovalRequest, FnApprover, Rule};
use dsh_kit::prelude::*;
use dsh_kit::{Caller, Cause, Principal, Registry, ToolCall, ToolResult};
use serde_json::{Map, Value};

/// Read the notes.
#[tool(read_only)]
async fn read_notes() -> String {
    "notes".to_owned()
}

/// Write a line to the notes, as whoever calls.
#[tool(scopes = ["notes:write"])]
async fn write_notes(
    /// The line to write
    line: String,
    exec: &Exec,
) -> String {
    format!("{} wrote {line}", exec.principal().subject())
}

/// Reset everything to factory settings.
#[tool(scopes = ["admin", "notes:write"], destructive)]
async fn reset_all() -> String {
    "reset".to_owned()
}

/// List the archived notes.
#[tool(defer, read_only)]
async fn list_archive() -> Vec<String> {
    Vec::new()
}

/// Purge the archived notes for good.
#[tool(defer, scopes = ["admin"])]
async fn purge_archive() -> String {
    "purged".to_owned()
}

/// Run a shell command.
#[tool(destructive)]
async fn run_command(command: String) -> String {
    command
}

/// A claim value standing for whatever secret a token may carry.
const SECRET: &str = "eyJhbGciOiJSUzI1NiJ9.secret-claim-value";

/// Granted `notes:write` only, with a claim that must never be written down.
fn ada() -> Principal {
    let mut claims = Map::new();
    claims.insert("session_token".into(), Value::String(SECRET.into()));
    Principal::new("ada")
        .with_client_id("notes-app")
        .with_issuer("https://auth.example.com")
        .with_scopes(["notes:write"])
        .with_claims(claims)
}

/// Granted nothing.
fn bob() -> Principal {
    Principal::new("bob")
}

/// Granted everything, by name.
fn root() -> Principal {
    Principal::new("root").with_scopes(["admin", "notes:write"])
}

/// Every tool above, and tool search.
fn registry_with_all(builder: dsh_kit::RegistryBuilder) -> Registry {
    let registry = builder.build();
    registry.register::<read_notes>().unwrap().keep();
    registry.register::<write_notes>().unwrap().keep();
    registry.register::<reset_all>().unwrap().keep();
    registry.register::<list_archive>().unwrap().keep();
    registry.register::<purge_archive>().unwrap().keep();
    registry.register::<run_command>().unwrap().keep();
    registry.register::<tool_search>().unwrap().keep();
    registry
}

/// Only the tools bob may see: what he must be shown, word for word.
fn registry_for_bob() -> Registry {
    let registry = Registry::new();
    registry.register::<read_notes>().unwrap().keep();
    registry.register::<list_archive>().unwrap().keep();
    registry.register::<run_command>().unwrap().keep();
    registry.register::<tool_search>().unwrap().keep();
    registry
}

fn names(tools: &[dsh_kit::ToolInfo]) -> Vec<&str> {
    tools.iter().map(|tool| tool.name()).collect()
}

async fn call_as(registry: &Registry, principal: Principal, name: &str, args: Value) -> ToolResult {
    registry
        .call_with(ToolCall::new(name, args).principal(principal))
        .await
}

const FORMATS: [Format; 7] = [
    Format::Anthropic,
    Format::AnthropicStrict,
    Format::OpenAi,
    Format::OpenAiStrict,
    Format::Gemini,
    Format::GeminiOpenApi,
    Format::Mcp,
];

#[tokio::test]
async fn a_principal_sees_and_calls_only_the_tools_whose_scopes_it_holds() {
    let registry = registry_with_all(Registry::builder());
    let all = [
        "list_archive",
        "purge_archive",
        "read_notes",
        "reset_all",
        "run_command",
        "tool_search",
        "write_notes",
    ];
    assert_eq!(names(&registry.tools()), all);
    assert_eq!(names(&registry.as_caller(Principal::host()).tools()), all);
    assert_eq!(names(&registry.as_caller(root()).tools()), all);
    assert_eq!(
        names(&registry.as_caller(ada()).tools()),
        [
            "list_archive",
            "read_notes",
            "run_command",
            "tool_search",
            "write_notes"
        ]
    );
    assert_eq!(
        names(&registry.as_caller(bob()).tools()),
        ["list_archive", "read_notes", "run_command", "tool_search"]
    );
    assert!(registry.as_caller(bob()).get("write_notes").is_none());
    assert!(registry.as_caller(ada()).get("write_notes").is_some());

    let written = call_as(&registry, ada(), "write_notes", json!({ "line": "hi" })).await;
    assert_eq!(written.text(), "ada wrote hi");
    // A call the host makes without naming anyone is the host's.
    let written = registry.call("write_notes", json!({ "line": "hi" })).await;
    assert_eq!(written.text(), "host wrote hi");
    // Half the scopes are not enough.
    let reset = call_as(&registry, ada(), "reset_all", json!({})).await;
    assert_eq!(
        reset.failure.as_ref().map(|f| f.cause),
        Some(Cause::UnknownTool)
    );
}

#[tokio::test]
async fn a_hidden_tool_called_anyway_fails_word_for_word_as_one_that_does_not_exist() {
    let registry = registry_with_all(Registry::builder());
    let without = registry_for_bob();
    for (name, args) in [
        ("write_notes", json!({ "line": "hi" })),
        // Misspelt: the closest names offered are only those bob may see.
        ("write_note", json!({})),
        ("purge_archiv", json!({})),
        ("reset_all", json!({ "anything": 1 })),
    ] {
        let hidden = call_as(&registry, bob(), name, args.clone()).await;
        let absent = call_as(&without, bob(), name, args).await;
        assert!(hidden.is_error(), "{name}");
        assert_eq!(hidden.failure, absent.failure, "{name}");
        assert_eq!(hidden.text(), absent.text(), "{name}");
        assert_eq!(hidden.tool_name, absent.tool_name, "{name}");
        assert_eq!(hidden.status(), absent.status(), "{name}");
    }
}

#[test]
fn every_export_and_the_catalog_list_only_what_the_principal_may_see() {
    let registry = registry_with_all(Registry::builder());
    let without = registry_for_bob();
    for format in FORMATS {
        assert_eq!(
            registry.as_caller(bob()).export(format),
            without.export(format),
            "{format:?}"
        );
        assert_eq!(
            registry.as_caller(Principal::host()).export(format),
            registry.export(format),
            "{format:?}"
        );
        for deferred in [Deferred::BuiltIn, Deferred::Native] {
            assert_eq!(
                registry.as_caller(bob()).export_with(format, deferred),
                without.host().export_with(format, deferred),
                "{format:?} {deferred:?}"
            );
        }
    }
    let responses =
        dsh_kit::provider::openai_responses::tools(registry.as_caller(bob()), Deferred::Native);
    let expected = dsh_kit::provider::openai_responses::tools(&without, Deferred::Native);
    assert_eq!(
        serde_json::to_value(responses).unwrap(),
        serde_json::to_value(expected).unwrap()
    );
    let catalog: Vec<String> = (registry.as_caller(bob()).catalog().tools.into_iter())
        .map(|tool| tool.name)
        .collect();
    assert_eq!(
        catalog,
        ["list_archive", "read_notes", "run_command", "tool_search"]
    );
    assert_eq!(
        registry.as_caller(Principal::host()).catalog(),
        registry.catalog()
    );
}

#[tokio::test]
async fn tool_search_finds_only_what_its_caller_may_see() {
    let registry = registry_with_all(Registry::builder());
    let found = |result: ToolResult| -> Vec<String> {
        let tools = result.value.expect("tool search returns its finds")["tools"].clone();
        let tools: Vec<Value> = serde_json::from_value(tools).unwrap();
        tools
            .iter()
            .map(|tool| tool["name"].as_str().unwrap().to_owned())
            .collect()
    };
    let query = json!({ "query": "archived notes purge list", "limit": 1 });
    let by_bob = call_as(&registry, bob(), "tool_search", query.clone()).await;
    // The hidden tool takes no place among the best: bob still gets one.
    assert_eq!(found(by_bob), ["list_archive"]);
    let query = json!({ "query": "archived notes purge list" });
    let mut by_root = found(call_as(&registry, root(), "tool_search", query).await);
    by_root.sort();
    assert_eq!(by_root, ["list_archive", "purge_archive"]);
    assert_eq!(
        names(
            &registry
                .as_caller(bob())
                .search_deferred("purge archive", 5)
        ),
        ["list_archive"]
    );
    // Loaded by root's search, for root alone: neither bob, who may not
    // see it, nor the host, who may, has it listed.
    assert!(names(&registry.as_caller(root()).visible_tools()).contains(&"purge_archive"));
    assert!(!names(&registry.as_caller(bob()).visible_tools()).contains(&"purge_archive"));
    assert!(!names(&registry.host().visible_tools()).contains(&"purge_archive"));
}

#[tokio::test]
async fn rules_decide_by_scope_and_by_subject() {
    let registry = registry_with_all(
        Registry::builder()
            .rule(Rule::allow("run_command").scope("admin"))
            .rule(Rule::deny("run_command").subject("mallory"))
            .rule(
                Rule::deny("write_notes")
                    .when("line", "rm *")
                    .unwrap()
                    .subject("ada"),
            ),
    );
    // root holds `admin`: the allow rule waives the destructive tool's ask.
    let ran = call_as(&registry, root(), "run_command", json!({ "command": "ls" })).await;
    assert_eq!(ran.text(), "ls");
    // bob does not: the default ask stands, and no approver is set up.
    let asked = call_as(&registry, bob(), "run_command", json!({ "command": "ls" })).await;
    assert_eq!(
        asked.text(),
        "`run_command` was denied: `run_command` may destroy data, and no approver is set up to allow it; to let it run, give the registry an approver (`Registry::builder().approver(…)`), or allow it with a rule (`Rule::allow(\"run_command\")`) where no rule asks for it"
    );
    // mallory is denied it whatever the arguments, so never even sees it.
    let mallory = Principal::new("mallory").with_scopes(["admin"]);
    assert!(!names(&registry.as_caller(mallory.clone()).tools()).contains(&"run_command"));
    let denied = call_as(
        &registry,
        mallory,
        "run_command",
        json!({ "command": "ls" }),
    )
    .await;
    assert_eq!(
        denied.failure.as_ref().map(|f| f.cause),
        Some(Cause::UnknownTool)
    );
    // A deny on some arguments hides nothing, and denies those.
    assert!(names(&registry.as_caller(ada()).tools()).contains(&"write_notes"));
    let denied = call_as(&registry, ada(), "write_notes", json!({ "line": "rm -rf" })).await;
    assert_eq!(
        denied.text(),
        "`write_notes` cannot run: denied by rule `deny write_notes(line: rm *) for subject ada`"
    );
    let other = Principal::new("eve").with_scopes(["notes:write"]);
    let written = call_as(&registry, other, "write_notes", json!({ "line": "rm -rf" })).await;
    assert_eq!(written.text(), "eve wrote rm -rf");
}

#[tokio::test]
async fn the_approver_and_the_gates_see_who_calls() {
    let asked_by: Arc<Mutex<Vec<String>>> = Arc::default();
    let gated: Arc<Mutex<Vec<String>>> = Arc::default();
    let (asked, seen) = (Arc::clone(&asked_by), Arc::clone(&gated));
    let registry = registry_with_all(
        Registry::builder()
            .approver(FnApprover(move |request: &ApprovalRequest<'_>| {
                let who = request.principal.subject().to_owned();
                asked.lock().unwrap().push(who.clone());
                if request.principal.has_scope("admin") {
                    Approval::Approve
                } else {
                    Approval::Reject {
                        reason: format!("{who} is no admin"),
                    }
                }
            }))
            .permissions(dsh_kit::permission::Permissions::new().gate(
                move |call: &dsh_kit::permission::CallInfo<'_>| {
                    seen.lock()
                        .unwrap()
                        .push(call.principal.subject().to_owned());
                    dsh_kit::permission::Decision::Allow
                },
            )),
    );
    let ran = call_as(&registry, root(), "run_command", json!({ "command": "ls" })).await;
    assert_eq!(ran.text(), "ls");
    let rejected = call_as(&registry, bob(), "run_command", json!({ "command": "ls" })).await;
    assert_eq!(
        rejected.text(),
        "`run_command` was rejected: bob is no admin"
    );
    assert_eq!(*asked_by.lock().unwrap(), ["root", "bob"]);
    assert_eq!(*gated.lock().unwrap(), ["root", "bob"]);
}

#[tokio::test]
async fn events_and_a_replayed_log_show_every_caller_and_no_claim() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("session.jsonl");
    let registry = registry_with_all(Registry::builder());
    let events: Arc<Mutex<Vec<Event>>> = Arc::default();
    let rawp: Arc<Mutex<Vec<String>>> = Arc::default();
    let (seen, seen_rawp) = (Arc::clone(&events), Arc::clone(&rawp));
    let _events = registry.subscribe(move |event| seen.lock().unwrap().push(event.clone()));
    let _rawp = registry.subscribe_rawp(move |event| {
        seen_rawp
            .lock()
            .unwrap()
            .push(serde_json::to_string(event).unwrap());
    });
    let log = SessionLog::open(&path).unwrap();
    let logging = registry.subscribe(log.subscriber());
    call_as(&registry, ada(), "write_notes", json!({ "line": "one" })).await;
    registry.call("read_notes", json!({})).await;
    call_as(&registry, bob(), "write_notes", json!({ "line": "two" })).await;
    drop(logging);

    let ada_caller = Caller {
        subject: "ada".into(),
        client_id: Some("notes-app".into()),
        issuer: Some("https://auth.example.com".into()),
        scopes: vec!["notes:write".into()],
    };
    let callers: Vec<Option<Caller>> = (events.lock().unwrap().iter())
        .filter_map(|event| match event {
            Event::Request { principal, .. } => Some(principal.clone()),
            _ => None,
        })
        .collect();
    let bob_caller = Caller::of(&bob());
    assert_eq!(
        callers,
        [Some(ada_caller.clone()), None, bob_caller.clone()]
    );
    let rawp = rawp.lock().unwrap().join("\n");
    assert!(rawp.contains(
        r#""principal":{"subject":"ada","client_id":"notes-app","issuer":"https://auth.example.com","scopes":["notes:write"]}"#
    ), "{rawp}");
    let text = std::fs::read_to_string(&path).unwrap();
    let debug = format!("{:?}", events.lock().unwrap());
    for written in [&text, &rawp, &debug] {
        assert!(!written.contains(SECRET), "{written}");
        assert!(!written.contains("session_token"), "{written}");
    }

    let log = Log::read(&path).unwrap();
    let report = replay(&registry, &log);
    let replayed: Vec<(Option<Caller>, &str)> = (report.calls.iter())
        .map(|call| (call.caller.clone(), call.tool_name.as_str()))
        .collect();
    assert_eq!(
        replayed,
        [
            (Some(ada_caller), "write_notes"),
            (None, "read_notes"),
            (bob_caller, "write_notes"),
        ]
    );
    assert_eq!(report.calls[0].outcome, Outcome::Identical);
    assert_eq!(report.calls[1].outcome, Outcome::Identical);
    // bob's call never reached the tool.
    assert!(matches!(report.calls[2].outcome, Outcome::Skipped(_)));
    let shown = report.to_string();
    assert!(shown.contains("`write_notes`"));
    let first = shown.lines().next().unwrap();
    assert!(
        first.ends_with("by ada (client notes-app): identical"),
        "{first}"
    );

    // Replayed as ada: a registry where she no longer holds the tool's
    // scope finds it unknown to her, as a live call would.
    let stricter = Registry::new();
    stricter
        .register_dynamic(dsh_kit::DynamicTool::new(
            dsh_kit::ToolDef::builder_owned("write_notes".to_owned(), "Write.".to_owned())
                .with_scopes(["admin"])
                .build(),
            json!({ "type": "object" }),
            |args, _| async move { Ok(args) },
        ))
        .unwrap()
        .keep();
    let report = replay(&stricter, &log);
    assert_eq!(report.calls[0].outcome, Outcome::UnknownTool);
}

#[tokio::test]
async fn a_model_turn_run_for_a_principal_runs_each_call_as_it() {
    let registry = registry_with_all(Registry::builder());
    let turn = |name: &str| dsh_kit::provider::Call {
        id: format!("call_{name}"),
        name: name.to_owned(),
        args: Ok(json!({ "line": "hi" })),
        caller: None,
    };
    let calls = [turn("write_notes"), turn("reset_all")];
    let results = dsh_kit::provider::run(&registry.as_caller(ada()), &calls).await;
    assert_eq!(results[0].text(), "ada wrote hi");
    let cause = results[1].failure.as_ref().map(|failure| failure.cause);
    assert_eq!(cause, Some(Cause::UnknownTool));
    let results = dsh_kit::provider::run(registry.host(), &calls[..1]).await;
    assert_eq!(results[0].text(), "host wrote hi");
}

/// Call another tool by name, through the registry this call runs in.
#[tool]
async fn relay(
    /// The tool to call
    tool: String,
    /// Its arguments
    arguments: Value,
    exec: &Exec,
) -> Result<String, ToolError> {
    let registry = Registry::of(exec).ok_or_else(|| ToolError::new("no registry"))?;
    let result = registry.call(&tool, arguments.clone()).await;
    let batch = registry
        .call_batch(vec![ToolCall::new(tool, arguments).nested()])
        .await;
    Ok(format!("{} | {}", result.text(), batch[0].text()))
}

#[tokio::test]
async fn a_tool_that_calls_another_calls_it_as_its_own_caller() {
    let registry = registry_with_all(Registry::builder());
    registry.register::<relay>().unwrap().keep();
    let relay_to = |tool: &str| json!({ "tool": tool, "arguments": { "line": "hi" } });

    let relayed = call_as(&registry, ada(), "relay", relay_to("write_notes")).await;
    assert_eq!(relayed.text(), "ada wrote hi | ada wrote hi");
    // A tool the caller may not see stays hidden from the tool it called.
    let relayed = call_as(&registry, ada(), "relay", relay_to("reset_all")).await;
    let unknown = call_as(&registry, ada(), "reset_all", json!({})).await;
    assert_eq!(
        relayed.text(),
        format!("{} | {}", unknown.text(), unknown.text())
    );
    // The host's own call relays as the host.
    let relayed = registry.call("relay", relay_to("write_notes")).await;
    assert_eq!(relayed.text(), "host wrote hi | host wrote hi");
}

/// What the caller of this call sees, through the registry it runs in:
/// the tools it may see, the ones listed to its model, and whether it may
/// see `tool`; with `search`, it searches first, as a nested call.
#[tool]
async fn peek(
    /// A tool to look for
    tool: String,
    /// A query to search the deferred tools with first
    search: Option<String>,
    exec: &Exec,
) -> Result<Value, ToolError> {
    let registry = Registry::of(exec).ok_or_else(|| ToolError::new("no registry"))?;
    if let Some(query) = search {
        registry
            .call("tool_search", json!({ "query": query }))
            .await;
    }
    let names = |tools: Vec<dsh_kit::ToolInfo>| -> Vec<String> {
        tools.iter().map(|tool| tool.name().to_owned()).collect()
    };
    Ok(json!({
        "tools": names(registry.tools()),
        "visible": names(registry.visible_tools()),
        "sees": registry.get(&tool).is_some(),
        "export": registry.export(Format::Mcp),
    }))
}

/// Every entry point's list for `view`: the tools the model is shown in
/// each format, each provider's list, and the catalog.
fn shown(view: &dsh_kit::CallerView) -> Value {
    let mut lists = Vec::new();
    for format in FORMATS {
        lists.push(view.export(format));
        for deferred in [Deferred::BuiltIn, Deferred::Native] {
            lists.push(view.export_with(format, deferred));
        }
    }
    for deferred in [Deferred::BuiltIn, Deferred::Native] {
        let responses = dsh_kit::provider::openai_responses::tools(view, deferred);
        lists.push(serde_json::to_value(responses).unwrap());
    }
    lists.push(serde_json::to_value(view.catalog()).unwrap());
    lists.push(json!(names(&view.visible_tools())));
    Value::Array(lists)
}

#[tokio::test]
async fn two_principals_and_two_sessions_never_see_each_others_tools_or_searches() {
    let registry = registry_with_all(Registry::builder());
    registry.register::<peek>().unwrap().keep();
    let (as_ada, as_bob) = (registry.as_caller(ada()), registry.as_caller(bob()));
    let (first, second) = (
        as_ada.clone().in_new_session(),
        as_ada.clone().in_new_session(),
    );
    let before: Vec<Value> = [&as_ada, &as_bob, &first, &second, registry.host()]
        .into_iter()
        .map(shown)
        .collect();

    // Ada's first session searches: the archive is listed in that session.
    let search = json!({ "query": "list the archived notes", "limit": 1 });
    let found = first.call("tool_search", search.clone()).await;
    assert!(found.text().contains("list_archive"), "{}", found.text());
    assert!(names(&first.visible_tools()).contains(&"list_archive"));
    assert!(
        first
            .export(Format::Mcp)
            .to_string()
            .contains("list_archive")
    );
    // Nobody else's list changed in any format: not ada's other session,
    // nor ada outside a session, nor bob, nor the host.
    let others = [&as_ada, &as_bob, &second, registry.host()];
    for (view, before) in others
        .into_iter()
        .zip([&before[0], &before[1], &before[3], &before[4]])
    {
        assert_eq!(&shown(view), before, "{view:?}");
    }

    // Bob searches outside any session: his own list, no one else's.
    let found = as_bob.call("tool_search", search).await;
    assert!(found.text().contains("list_archive"));
    assert!(names(&as_bob.visible_tools()).contains(&"list_archive"));
    assert_eq!(shown(&as_ada), before[0]);
    assert_eq!(shown(&second), before[3]);
    assert_eq!(shown(registry.host()), before[4]);
    // A later view of bob is bob's: his searches are his across views.
    assert_eq!(shown(&registry.as_caller(bob())), shown(&as_bob));

    // Nested: a tool sees its caller's tools and its caller's session.
    let peeked = |view: &dsh_kit::CallerView, search: Option<&str>| {
        let view = view.clone();
        let args = json!({ "tool": "write_notes", "search": search });
        async move { view.call("peek", args).await.value.expect("peek answers") }
    };
    let in_first = peeked(&first, None).await;
    assert_eq!(in_first["sees"], true);
    assert!(
        in_first["visible"]
            .as_array()
            .unwrap()
            .contains(&json!("list_archive"))
    );
    assert_eq!(in_first["export"], first.export(Format::Mcp));
    let in_second = peeked(&second, None).await;
    assert!(
        !in_second["visible"]
            .as_array()
            .unwrap()
            .contains(&json!("list_archive"))
    );
    assert_eq!(in_second["export"], second.export(Format::Mcp));
    let by_bob = peeked(&as_bob, None).await;
    assert_eq!(by_bob["sees"], false, "write_notes is hidden from bob");
    assert!(
        !by_bob["tools"]
            .as_array()
            .unwrap()
            .contains(&json!("write_notes"))
    );
    assert_eq!(
        by_bob["tools"],
        json!(names(&as_bob.tools())),
        "a nested list is the caller's, not the host's"
    );
    // A nested search loads into the session of the call it is part of.
    let nested = peeked(&second, Some("purge archived notes for good list")).await;
    assert!(
        nested["visible"]
            .as_array()
            .unwrap()
            .contains(&json!("list_archive"))
    );
    assert!(names(&second.visible_tools()).contains(&"list_archive"));
    assert_eq!(
        shown(&as_ada),
        before[0],
        "ada outside the sessions is unchanged"
    );
    assert_eq!(shown(registry.host()), before[4], "the host is unchanged");
    // Ada may not see the admin's tool, even by a nested search.
    assert!(!names(&second.visible_tools()).contains(&"purge_archive"));
}

#[test]
fn a_log_written_before_callers_were_recorded_reads_as_the_hosts() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("old.jsonl");
    let line = r#"{"record":"request","invocation_id":"6f1c2a8e-55b4-4b1e-9a43-8f0d2b7c1e90","tool_name":"read_notes","input":{}}"#;
    std::fs::write(&path, format!("{line}\n")).unwrap();
    let log = Log::read(&path).unwrap();
    assert_eq!(log.calls()[0].caller(), None);
    let record: dsh_kit::log::Record = serde_json::from_str(line).unwrap();
    assert_eq!(serde_json::to_string(&record).unwrap(), line);
}

#[cfg(feature = "mcp")]
mod mcp {
    use std::net::SocketAddr;

    use dsh_kit::mcp::McpServer;
    use dsh_kit::mcp::rmcp::model::{CallToolRequestParams, ErrorCode};
    use dsh_kit::mcp::rmcp::service::RunningService;
    use dsh_kit::mcp::rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
    use dsh_kit::mcp::rmcp::transport::{
        StreamableHttpClientTransport, StreamableHttpServerConfig, StreamableHttpService,
    };
    use dsh_kit::mcp::rmcp::{RoleClient, ServiceError, ServiceExt};

    use super::*;

    /// Serves `registry` over streamable HTTP on 127.0.0.1 behind a layer
    /// that does what an authenticator does: puts the request's principal
    /// into its extensions (none at all for `None`).
    async fn serve_as(registry: &Registry, principal: Option<Principal>) -> SocketAddr {
        let server = McpServer::new(registry.clone());
        let service = StreamableHttpService::new(
            move || Ok(server.clone()),
            Arc::new(LocalSessionManager::default()),
            StreamableHttpServerConfig::default(),
        );
        let principal = principal.map(Arc::new);
        let authenticate = move |mut request: axum::extract::Request,
                                 next: axum::middleware::Next| {
            if let Some(principal) = &principal {
                request.extensions_mut().insert(Arc::clone(principal));
            }
            next.run(request)
        };
        let router = axum::Router::new()
            .nest_service("/mcp", service)
            .layer(axum::middleware::from_fn(authenticate));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move { axum::serve(listener, router).await });
        addr
    }

    async fn client(addr: SocketAddr) -> RunningService<RoleClient, ()> {
        let transport = StreamableHttpClientTransport::from_uri(format!("http://{addr}/mcp"));
        ().serve(transport).await.expect("the client connects")
    }

    fn call(name: &str, args: Value) -> CallToolRequestParams {
        let Value::Object(args) = args else {
            panic!("arguments must be an object")
        };
        CallToolRequestParams::new(name.to_owned()).with_arguments(args)
    }

    async fn listed(client: &RunningService<RoleClient, ()>) -> Vec<String> {
        let tools = client.list_all_tools().await.unwrap();
        tools.iter().map(|tool| tool.name.to_string()).collect()
    }

    /// The JSON-RPC error of a call that must fail as a protocol error.
    async fn refused(client: &RunningService<RoleClient, ()>, name: &str) -> (ErrorCode, String) {
        match client.call_tool(call(name, json!({ "line": "x" }))).await {
            Err(ServiceError::McpError(error)) => (error.code, error.message.to_string()),
            other => panic!("`{name}` was not refused: {other:?}"),
        }
    }

    #[tokio::test]
    async fn over_mcp_a_principal_lists_and_calls_only_its_tools() {
        let registry = registry_with_all(Registry::builder());
        let as_ada = client(serve_as(&registry, Some(ada())).await).await;
        let as_bob = client(serve_as(&registry, Some(bob())).await).await;
        let as_host = client(serve_as(&registry, None).await).await;
        let mut tools_of_bob = listed(&as_bob).await;
        tools_of_bob.sort();
        assert_eq!(tools_of_bob, ["read_notes", "run_command", "tool_search"]);
        let tools_of_ada = listed(&as_ada).await;
        assert!(tools_of_ada.contains(&"write_notes".to_owned()));
        assert!(!tools_of_ada.contains(&"reset_all".to_owned()));
        assert!(listed(&as_host).await.contains(&"reset_all".to_owned()));
        // The scopes a tool needs are in its definition's `_meta`.
        let tools = as_ada.list_all_tools().await.unwrap();
        let write = tools
            .iter()
            .find(|tool| tool.name == "write_notes")
            .unwrap();
        let meta = serde_json::to_value(&write.meta).unwrap();
        assert_eq!(meta[dsh_kit::export::META_SCOPES], json!(["notes:write"]));

        let written = as_ada
            .call_tool(call("write_notes", json!({ "line": "hi" })))
            .await
            .unwrap();
        let written = serde_json::to_value(written).unwrap();
        assert_eq!(written["content"][0]["text"], "ada wrote hi");

        // Hidden from bob: the very protocol error of a tool no one has.
        let hidden = refused(&as_bob, "write_notes").await;
        let without = client(serve_as(&registry_for_bob(), Some(bob())).await).await;
        assert_eq!(hidden, refused(&without, "write_notes").await);
        assert_eq!(hidden.0, ErrorCode::INVALID_PARAMS);

        // Tool search over MCP searches as the caller.
        let search = json!({ "query": "purge archived notes" });
        let found = as_bob.call_tool(call("tool_search", search)).await.unwrap();
        let found = serde_json::to_string(&found).unwrap();
        assert!(
            found.contains("list_archive") && !found.contains("purge_archive"),
            "{found}"
        );
        for running in [as_ada, as_bob, as_host, without] {
            running.cancel().await.unwrap();
        }
    }

    #[tokio::test]
    async fn over_mcp_one_sessions_search_changes_no_other_sessions_list() {
        let registry = registry_with_all(Registry::builder());
        let host = serve_as(&registry, None).await;
        let (first, second) = (client(host).await, client(host).await);
        let ada_at = serve_as(&registry, Some(ada())).await;
        let (as_ada, as_bob) = (
            client(ada_at).await,
            client(serve_as(&registry, Some(bob())).await).await,
        );
        let ada_again = client(ada_at).await;
        let before = [
            listed(&second).await,
            listed(&as_ada).await,
            listed(&as_bob).await,
            listed(&ada_again).await,
        ];
        for list in &before {
            assert!(!list.contains(&"list_archive".to_owned()), "{list:?}");
        }

        let search = json!({ "query": "list the archived notes", "limit": 1 });
        first
            .call_tool(call("tool_search", search.clone()))
            .await
            .unwrap();
        assert!(listed(&first).await.contains(&"list_archive".to_owned()));
        as_ada.call_tool(call("tool_search", search)).await.unwrap();
        assert!(listed(&as_ada).await.contains(&"list_archive".to_owned()));
        // Neither the other session of the host, nor bob, nor ada's other
        // session, nor the host in process, sees a search it did not make.
        assert_eq!(listed(&second).await, before[0]);
        assert_eq!(listed(&as_bob).await, before[2]);
        assert_eq!(listed(&ada_again).await, before[3]);
        assert!(!names(&registry.host().visible_tools()).contains(&"list_archive"));
        assert!(!names(&registry.as_caller(ada()).visible_tools()).contains(&"list_archive"));
        for running in [first, second, as_ada, as_bob, ada_again] {
            running.cancel().await.unwrap();
        }
    }

    #[tokio::test]
    async fn over_mcp_each_call_is_recorded_with_its_caller() {
        let registry = registry_with_all(Registry::builder());
        let callers: Arc<Mutex<Vec<Option<Caller>>>> = Arc::default();
        let seen = Arc::clone(&callers);
        let _events = registry.subscribe(move |event| {
            if let Event::Request { principal, .. } = event {
                seen.lock().unwrap().push(principal.clone());
            }
        });
        let as_ada = client(serve_as(&registry, Some(ada())).await).await;
        as_ada
            .call_tool(call("write_notes", json!({ "line": "hi" })))
            .await
            .unwrap();
        assert_eq!(*callers.lock().unwrap(), [Caller::of(&ada())]);
        as_ada.cancel().await.unwrap();
    }
}

#[test]
fn a_tool_made_at_run_time_with_a_scope_that_is_no_scope_token_is_refused() {
    let registry = Registry::new();
    for scope in ["files write", "", "say\"hi\""] {
        let tool = dsh_kit::DynamicTool::new(
            dsh_kit::ToolDef::builder_owned("write".to_owned(), "Write.".to_owned())
                .with_scopes(["files:read", scope])
                .build(),
            json!({ "type": "object" }),
            |args, _| async move { Ok(args) },
        );
        let error = registry.register_dynamic(tool).unwrap_err();
        assert!(
            matches!(&error, dsh_kit::RegisterError::InvalidScope { tool, scope: refused } if tool == "write" && refused == scope),
            "{error}"
        );
    }
    let error = dsh_kit::RegisterError::InvalidScope {
        tool: "write".into(),
        scope: "files write".into(),
    };
    assert_eq!(
        error.to_string(),
        "cannot register `write`: its scope `files write` is not an OAuth scope: a scope is one or more printable ASCII characters other than a space, `\"` or `\\` (RFC 6749's scope-token)"
    );
}
