//! The cards as people see them, in a real browser (headless Chromium over
//! WebDriver): the playground page driven like a person would, and the MCP
//! Apps view of a card fed the result of a real MCP call.
//!
//! Screenshots of every card kind go to `target/screenshots/`.

mod webdriver;

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::time::Duration;

use dsh_kit::event::rawp::{Diagnostic, Severity, ToolStatus};
use dsh_kit::log::{Log, SessionLog};
use dsh_kit::mcp::rmcp::ServiceExt;
use dsh_kit::mcp::rmcp::model::{
    CallToolRequestParams, ClientCapabilities, ClientConfig, Implementation,
    ReadResourceRequestParams, ResourceContents,
};
use dsh_kit::mcp::rmcp::transport::StreamableHttpClientTransport;
use dsh_kit::mcp::{MCP_APPS_EXTENSION, McpServer};
use dsh_kit::playground::{PageApprover, Playground};
use dsh_kit::{DynamicTool, Registry, ToolDef};
use dsh_kit_examples::register_all;
use serde_json::{Value, json};
use webdriver::Browser;

/// Every example tool, as `register_all` registers them.
const EXAMPLE_TOOLS: [&str; 9] = [
    "add_days",
    "bash",
    "edit_file",
    "fetch",
    "greet",
    "grep",
    "lorem",
    "read_file",
    "wait",
];

fn screenshots() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/screenshots")
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("no runtime")
}

/// A web server on 127.0.0.1 that answers every request with one HTML page,
/// for the `fetch` tool; it stops with the test process.
fn web_page() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").expect("cannot bind");
    let url = format!(
        "http://{}/guide.html",
        listener.local_addr().expect("no address")
    );
    std::thread::spawn(move || {
        for stream in listener.incoming().take(16) {
            let Ok(mut stream) = stream else { continue };
            let _ = stream.set_read_timeout(Some(Duration::from_secs(5)));
            let mut reader = BufReader::new(stream.try_clone().expect("cannot clone the socket"));
            let mut line = String::new();
            while reader.read_line(&mut line).is_ok_and(|read| read > 2) {
                line.clear();
            }
            let body = "<html><head><title>Field guide to tools</title></head><body><h1>Tools</h1><p>A tool is one async fn the model calls.</p><p>Cards show people what it did.</p></body></html>";
            let _ = write!(
                stream,
                "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    url
}

/// Picks `tool` in the catalog and waits for its form.
fn pick(browser: &Browser, tool: &str) {
    browser.click_on(&format!("#tool-list li[data-tool='{tool}'] button"));
    browser.wait_for(&format!("#call-form[data-tool='{tool}']:not([hidden])"));
}

fn field(pointer: &str) -> String {
    format!("#fields [data-pointer='{pointer}'] > input")
}

/// Submits the form and waits for the result of a call that does not ask.
fn submit(browser: &Browser) -> Value {
    let before = browser.run(
        "return document.getElementById('result-panel').dataset.invocation || ''",
        json!([]),
    );
    browser.click_on("#call-button");
    browser.wait_until(
        "the result of the call",
        "const p = document.getElementById('result-panel'); return p.dataset.state === 'done' && (p.dataset.invocation || '') !== arguments[0];",
        json!([before]),
    );
    browser.run(
        "return { status: document.querySelector('#result-meta [data-status]').dataset.status, content: document.getElementById('result-content').innerText, kind: (document.querySelector('#result-card [data-card]') || {dataset: {}}).dataset.card || null };",
        json!([]),
    )
}

/// Answers the call waiting for approval, then waits for its result.
fn answer_approval(
    browser: &Browser,
    tool: &str,
    approve: bool,
    screenshot: Option<&str>,
    while_running: Option<&dyn Fn(&Browser)>,
) -> Value {
    let before = browser.run(
        "return document.getElementById('result-panel').dataset.invocation || ''",
        json!([]),
    );
    browser.click_on("#call-button");
    let button = if approve { "approve" } else { "reject" };
    let waiting = format!("#approvals:not([hidden]) #approval-list li[data-tool='{tool}']");
    browser.wait_for(&waiting);
    if let Some(name) = screenshot {
        browser.screenshot("#approvals", &screenshots().join(name));
    }
    browser.click_on(&format!("{waiting} button.{button}"));
    if let Some(running) = while_running {
        running(browser);
    }
    browser.wait_until(
        "the result of the approved call",
        "const p = document.getElementById('result-panel'); return p.dataset.state === 'done' && (p.dataset.invocation || '') !== arguments[0];",
        json!([before]),
    );
    browser.run(
        "return { status: document.querySelector('#result-meta [data-status]').dataset.status, content: document.getElementById('result-content').innerText, kind: (document.querySelector('#result-card [data-card]') || {dataset: {}}).dataset.card || null };",
        json!([]),
    )
}

fn violations_at(browser: &Browser, pointer: &str) -> String {
    browser
        .run(
            "const f = document.querySelector(`#fields [data-pointer='${arguments[0]}']`); const v = f && f.querySelector(':scope > .violation'); return v && !v.hidden ? v.textContent : '';",
            json!([pointer]),
        )
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

#[test]
fn the_playground_in_a_browser() {
    let runtime = runtime();
    let dir = tempfile::tempdir().expect("no temporary directory");
    let files = dir.path().join("files");
    std::fs::create_dir(&files).expect("cannot make a directory");
    let notes = files.join("notes.txt");
    std::fs::write(
        &notes,
        "# Notes\nThe registry holds the tools.\nA card shows a call.\nReplay checks the log.\nThe end.\n",
    )
    .expect("cannot write");
    let session = dir.path().join("session.jsonl");
    let page_url = web_page();

    let approver = PageApprover::with_timeout(Duration::from_secs(60));
    let registry = Registry::builder().approver(approver.clone()).build();
    register_all(&registry).expect("the example tools register");
    let log = SessionLog::open(&session).expect("cannot open the session log");
    let _logging = registry.subscribe(log.subscriber());
    let server = runtime
        .block_on(
            Playground::new(registry.clone())
                .approver(approver)
                .session_log(&session)
                .serve("127.0.0.1:0".parse().expect("an address")),
        )
        .expect("the playground serves");

    let browser = Browser::start();
    browser.open(&server.url());
    browser.wait_for("#connection[data-state='live']");

    // The catalog lists every example tool, with its flags.
    browser.wait_until(
        "the catalog lists the tools",
        "return document.querySelectorAll('#tool-list li[data-tool]').length === arguments[0];",
        json!([EXAMPLE_TOOLS.len()]),
    );
    let listed = browser.run(
        "return [...document.querySelectorAll('#tool-list li[data-tool]')].map(li => li.dataset.tool).sort();",
        json!([]),
    );
    assert_eq!(listed, json!(EXAMPLE_TOOLS));
    assert!(
        browser
            .text("#tool-list li[data-tool='bash']")
            .contains("destructive")
    );
    assert!(
        browser
            .text("#tool-list li[data-tool='read_file']")
            .contains("filesystem")
    );

    // A status change republishes the catalog, and the page shows it.
    registry
        .set_status(
            "wait",
            ToolStatus::Unavailable,
            Some("switched off by the test"),
        )
        .expect("wait is registered");
    browser.wait_for("#tool-list li[data-tool='wait'][data-status='unavailable']");
    assert!(
        browser
            .text("#tool-list li[data-tool='wait']")
            .contains("switched off by the test")
    );
    registry
        .set_status("wait", ToolStatus::Available, None)
        .expect("wait is registered");
    browser.wait_for("#tool-list li[data-tool='wait'][data-status='available']");
    registry.add_diagnostic(
        Diagnostic::new(Severity::Warning, "SLOW_DISK", "the disk is slow today").tool("read_file"),
    );
    browser.wait_for("#tool-list li[data-tool='read_file'] .diagnostics li.sev-warning");
    assert_eq!(
        browser.text("#tool-list li[data-tool='read_file'] .diagnostics li"),
        "warning SLOW_DISK: the disk is slow today"
    );

    // A tool that joins the pool shows up at once; its form follows its
    // schema: an enum as a select, an array of nested objects, bounds.
    let trip = registry
        .register_dynamic(DynamicTool::new(
            ToolDef::builder_owned("plan_trip", "Plan a trip.").read_only(true).build(),
            json!({
                "type": "object",
                "properties": {
                    "mode": { "type": "string", "enum": ["train", "bus"], "description": "How to travel" },
                    "stops": {
                        "type": "array",
                        "minItems": 1,
                        "items": {
                            "type": "object",
                            "properties": {
                                "city": { "type": "string", "minLength": 1 },
                                "nights": { "type": "integer", "minimum": 1, "maximum": 14 }
                            },
                            "required": ["city", "nights"]
                        }
                    },
                    "traveller": {
                        "type": "object",
                        "properties": { "name": { "type": "string" } },
                        "required": ["name"]
                    }
                },
                "required": ["mode", "stops", "traveller"]
            }),
            |args, _exec| async move { Ok(args) },
        ))
        .expect("plan_trip registers");
    pick(&browser, "plan_trip");
    let options = browser.run(
        "return [...document.querySelectorAll(\"#fields [data-pointer='/mode'] > select option\")].map(o => o.textContent);",
        json!([]),
    );
    assert_eq!(options, json!(["choose…", "train", "bus"]));
    browser.click_on("#fields [data-pointer='/mode'] > select option:nth-child(3)");
    browser.click_on("#fields [data-pointer='/stops'] > button");
    browser.type_into(&field("/stops/0/city"), "Lyon");
    browser.type_into(&field("/stops/0/nights"), "20");
    browser.click_on("#call-button");
    browser.wait_for("#call-form[data-checked='page']");
    assert_eq!(
        violations_at(&browser, "/stops/0/nights"),
        "20 is greater than the maximum of 14"
    );
    assert_eq!(
        violations_at(&browser, "/traveller/name"),
        "required property missing"
    );
    browser.type_into(&field("/stops/0/nights"), "2");
    browser.type_into(&field("/traveller/name"), "Ada");
    let result = submit(&browser);
    assert_eq!(result["status"], "success", "{result}");
    assert_eq!(
        serde_json::from_str::<Value>(result["content"].as_str().unwrap_or_default())
            .expect("the content is the JSON echoed"),
        json!({ "mode": "bus", "stops": [{ "city": "Lyon", "nights": 2 }], "traveller": { "name": "Ada" } })
    );
    assert!(trip.unregister(), "plan_trip was registered");
    browser.wait_until(
        "the unregistered tool leaves the catalog",
        "return !document.querySelector(\"#tool-list li[data-tool='plan_trip']\");",
        json!([]),
    );

    // A good call: the content the model sees beside the generic card.
    pick(&browser, "greet");
    browser.type_into(&field("/name"), "Ada");
    let result = submit(&browser);
    assert_eq!(result["status"], "success");
    assert_eq!(result["content"], "Hello, Ada!");
    assert_eq!(result["kind"], "generic");
    assert!(
        browser
            .text("#result-card [data-card='generic']")
            .contains("\"Ada\"")
    );
    browser.screenshot(
        "#result-card [data-card='generic']",
        &screenshots().join("generic.png"),
    );

    // A bad call, caught in the page: each violation at its field, nothing sent.
    pick(&browser, "add_days");
    browser.type_into(&field("/days"), "99999");
    browser.click_on("#call-button");
    browser.wait_for("#call-form[data-checked='page']");
    assert_eq!(
        violations_at(&browser, "/date"),
        "required property missing"
    );
    assert_eq!(
        violations_at(&browser, "/days"),
        "99999 is greater than the maximum of 36500"
    );
    // The same call sent anyway: the pipeline's violations, at the same fields.
    browser.click_on("#check-in-page");
    let result = submit(&browser);
    assert_eq!(result["status"], "error");
    assert_eq!(result["kind"], Value::Null);
    assert_eq!(
        browser.run(
            "return document.getElementById('call-form').dataset.checked",
            json!([])
        ),
        "server"
    );
    assert_eq!(
        violations_at(&browser, "/date"),
        "required property missing"
    );
    assert_eq!(
        violations_at(&browser, "/days"),
        "99999 is greater than the maximum of 36500"
    );
    assert!(browser.text("#result-meta").contains("invalid arguments"));
    assert!(
        browser
            .text("#result-content")
            .contains("invalid arguments for `add_days`")
    );
    // Its trace: the call's span, failed, and the event that says why.
    assert_eq!(
        browser.run(
            "return document.querySelector('#result-trace .span-row').dataset.error",
            json!([])
        ),
        "invalid_arguments"
    );
    assert!(
        browser
            .text("#trace-events")
            .contains("call stopped error.type=\"invalid_arguments\"")
    );
    browser.click_on("#check-in-page");

    // A read card, with line numbers from where the read began.
    pick(&browser, "read_file");
    browser.type_into(&field("/path"), &notes.display().to_string());
    browser.type_into(&field("/offset"), "2");
    browser.type_into(&field("/limit"), "3");
    let result = submit(&browser);
    assert_eq!(result["kind"], "read", "{result}");
    let numbers = browser.run(
        "return [...document.querySelectorAll('#result-card .dsh-lines .dsh-ln')].map(n => n.textContent);",
        json!([]),
    );
    assert_eq!(numbers, json!(["2", "3", "4"]));
    browser.screenshot(
        "#result-card [data-card='read']",
        &screenshots().join("read.png"),
    );

    // A search card: hits grouped by file.
    std::fs::write(
        files.join("more.txt"),
        "another card\nno match here\ncard again\n",
    )
    .expect("cannot write");
    pick(&browser, "grep");
    browser.type_into(&field("/pattern"), "card");
    browser.type_into(&field("/path"), &files.display().to_string());
    let result = submit(&browser);
    assert_eq!(result["kind"], "search", "{result}");
    let groups = browser.run(
        "return [...document.querySelectorAll('#result-card .dsh-group')].map(g => [g.querySelector('.dsh-file').textContent, g.querySelectorAll('li').length]);",
        json!([]),
    );
    let groups = groups.as_array().expect("groups");
    assert_eq!(groups.len(), 2, "{groups:?}");
    assert!(
        groups.iter().any(|group| group[0]
            .as_str()
            .is_some_and(|file| file.contains("more.txt"))
            && group[1] == 2),
        "{groups:?}"
    );
    browser.screenshot(
        "#result-card [data-card='search']",
        &screenshots().join("search.png"),
    );

    // A web card: title, address and text.
    pick(&browser, "fetch");
    browser.type_into(&field("/url"), &page_url);
    let result = submit(&browser);
    assert_eq!(result["kind"], "web", "{result}");
    assert_eq!(
        browser.text("#result-card .dsh-title"),
        "Field guide to tools"
    );
    assert_eq!(browser.text("#result-card a.dsh-url"), page_url);
    assert!(
        browser
            .text("#result-card .dsh-excerpt")
            .contains("one async fn the model calls")
    );
    browser.screenshot(
        "#result-card [data-card='web']",
        &screenshots().join("web.png"),
    );

    // A destructive call asks in the page; approved, it runs: a terminal card
    // with the exit code and the output's ANSI colours.
    pick(&browser, "bash");
    browser.type_into(
        &field("/command"),
        r"printf 'building\n\033[32mok\033[0m 3 passed\n\033[1;31mFAILED\033[0m 1 failed\n'; echo 'warning: slow test' >&2; exit 1",
    );
    let result = answer_approval(&browser, "bash", true, Some("approval.png"), None);
    assert_eq!(result["kind"], "terminal", "{result}");
    assert_eq!(browser.text("#result-card .dsh-badge.dsh-bad"), "exit 1");
    assert_eq!(
        browser.text("#result-card .dsh-stdout .ansi-fg-green"),
        "ok"
    );
    assert_eq!(
        browser.text("#result-card .dsh-stdout .ansi-fg-red.ansi-bold"),
        "FAILED"
    );
    assert!(
        browser
            .text("#result-card .dsh-stderr")
            .contains("warning: slow test")
    );
    assert!(!browser.text("#result-card .dsh-stdout").contains('\u{1b}'));
    browser.screenshot(
        "#result-card [data-card='terminal']",
        &screenshots().join("terminal.png"),
    );
    // Beside the card, the call's trace: its span, the approval it waited
    // for inside it, and the execute stage after.
    let spans = browser.run(
        "return [...document.querySelectorAll('#result-trace .span-row')].map(r => r.dataset.span);",
        json!([]),
    );
    assert_eq!(spans[0], "execute_tool bash", "{spans}");
    let spans: Vec<&str> = spans
        .as_array()
        .expect("a list")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    let approval = spans.iter().position(|span| *span == "approval");
    let execute = spans.iter().position(|span| *span == "tool.execute");
    assert!(
        approval.is_some() && approval < execute,
        "the approval, then execute: {spans:?}"
    );
    browser.screenshot("#result-panel", &screenshots().join("trace.png"));

    // While a command runs, its card shows the output streamed so far.
    browser.type_into(&field("/command"), "echo started; sleep 3; echo finished");
    let result = answer_approval(
        &browser,
        "bash",
        true,
        None,
        Some(&|browser: &Browser| {
            browser.wait_until(
                "the running card shows the streamed output",
                "const card = document.querySelector(\"#live-calls .dsh-card-terminal[aria-busy='true'] .dsh-stdout\"); return !!card && card.textContent === 'started\\n';",
                json!([]),
            );
        }),
    );
    assert_eq!(result["kind"], "terminal", "{result}");
    assert_eq!(
        browser.text("#result-card .dsh-stdout"),
        "started\nfinished"
    );

    // Rejected in the page, it does not run.
    browser.type_into(&field("/command"), "touch should-not-exist");
    let result = answer_approval(&browser, "bash", false, None, None);
    assert_eq!(result["status"], "error");
    assert!(
        result["content"]
            .as_str()
            .is_some_and(|text| text.contains("rejected in the playground")),
        "{result}"
    );

    // A diff card, approved too.
    pick(&browser, "edit_file");
    browser.type_into(&field("/path"), &notes.display().to_string());
    browser.type_into(&field("/old"), "A card shows a call.");
    browser.type_into(&field("/new"), "A card shows a call to a person.");
    let result = answer_approval(&browser, "edit_file", true, None, None);
    assert_eq!(result["kind"], "diff", "{result}");
    assert_eq!(
        browser.text("#result-card .dsh-add .dsh-code"),
        "A card shows a call to a person."
    );
    assert_eq!(
        browser.text("#result-card .dsh-del .dsh-code"),
        "A card shows a call."
    );
    browser.screenshot(
        "#result-card [data-card='diff']",
        &screenshots().join("diff.png"),
    );
    browser.screenshot("#result-panel", &screenshots().join("result.png"));
    // The same change side by side: the removed line faces the added one.
    browser.click_on("#result-card .dsh-toggle");
    browser.wait_for("#result-card .dsh-split-view:not([hidden])");
    let facing = browser.run(
        "return [...document.querySelectorAll('#result-card .dsh-split tr')].filter(r => r.querySelector('.dsh-del-cell')).map(r => [...r.children].map(c => c.textContent));",
        json!([]),
    );
    assert_eq!(
        facing,
        json!([[
            "3",
            "A card shows a call.",
            "3",
            "A card shows a call to a person."
        ]])
    );
    assert!(
        browser.run(
            "return document.querySelector('#result-card .dsh-unified').hidden",
            json!([])
        ) == json!(true)
    );
    browser.screenshot(
        "#result-card [data-card='diff']",
        &screenshots().join("diff-side-by-side.png"),
    );
    assert!(
        std::fs::read_to_string(&notes)
            .expect("notes")
            .contains("to a person")
    );

    // A call made outside the page shows up in its live events, with its card.
    let outside = runtime.block_on(registry.call("greet", json!({ "name": "the test" })));
    let id = outside.invocation_id.to_string();
    browser.wait_for(&format!(
        "#event-list li[data-type='tool.invoke.request'][data-invocation='{id}']"
    ));
    browser.wait_for(&format!(
        "#event-list li[data-type='tool.invoke.result'][data-invocation='{id}']"
    ));
    assert!(
        browser
            .text(&format!(
                "#live-calls [data-invocation='{id}'] [data-card='generic']"
            ))
            .contains("the test")
    );

    // The session log: open it, step through its calls with their cards, replay it.
    drop(_logging);
    let logged = Log::read(&session).expect("the session log reads").calls();
    browser.click_on("#log-open");
    browser.wait_until(
        "the log's calls are listed",
        "return document.querySelectorAll('#log-calls li').length === arguments[0];",
        json!([logged.len()]),
    );
    assert_eq!(
        browser.text("#log-position"),
        format!("call 1 of {}", logged.len())
    );
    assert!(browser.text("#log-call").contains("plan_trip"));
    browser.wait_for("#log-call [data-card='generic']");
    browser.click_on("#log-next");
    assert_eq!(
        browser.text("#log-position"),
        format!("call 2 of {}", logged.len())
    );
    browser.click_on("#log-replay");
    browser.wait_for("#log-summary[data-replayed='true']");
    assert!(
        browser.text("#log-summary").contains("0 differing"),
        "{}",
        browser.text("#log-summary")
    );
    assert!(browser.find("#log-calls li.outcome-differs").is_none());

    // A log whose greeting was changed after the fact: replay highlights it.
    let tampered = dir.path().join("tampered.jsonl");
    let text = std::fs::read_to_string(&session).expect("the log");
    let changed: Vec<String> = text
        .lines()
        .map(|line| {
            if line.starts_with("{\"record\":\"result\"") && line.contains("Hello, Ada!") {
                line.replace("Hello, Ada!", "Hello, Bob!")
            } else {
                line.to_owned()
            }
        })
        .collect();
    assert_ne!(
        changed.join("\n"),
        text.trim_end(),
        "the log has the greeting"
    );
    std::fs::write(&tampered, changed.join("\n") + "\n").expect("cannot write");
    browser.type_into("#log-file", &tampered.display().to_string());
    browser.wait_until(
        "the uploaded log opens",
        "return document.getElementById('log-status').textContent.startsWith('tampered.jsonl');",
        json!([]),
    );
    browser.click_on("#log-replay");
    browser.wait_for("#log-calls li.outcome-differs");
    assert!(
        browser.text("#log-summary").contains("1 differing"),
        "{}",
        browser.text("#log-summary")
    );
    browser.click_on("#log-calls li.outcome-differs button");
    browser.wait_for("#log-call .difference[data-field='content']");
    let marks = browser.run(
        "return [...document.querySelectorAll(\"#log-call .difference[data-field='content'] mark\")].map(m => m.textContent);",
        json!([]),
    );
    assert_eq!(marks, json!(["Bob", "Ada"]));
    browser.screenshot("#log-panel", &screenshots().join("replay.png"));
    browser.screenshot("body", &screenshots().join("playground.png"));

    drop(browser);
    runtime
        .block_on(server.shutdown(Duration::from_secs(2)))
        .expect("the playground stops");
}

#[test]
fn an_mcp_apps_host_shows_the_card_of_a_real_call() {
    let runtime = runtime();
    let dir = tempfile::tempdir().expect("no temporary directory");
    let file = dir.path().join("poem.txt");
    std::fs::write(&file, "one\ntwo\nthree\nfour\n").expect("cannot write");

    let registry = Registry::new();
    register_all(&registry).expect("the example tools register");
    let (tool_meta, resources, html, result) = runtime.block_on(async {
        let server = McpServer::new(registry)
            .serve_http("127.0.0.1:0".parse().expect("an address"))
            .await
            .expect("the MCP server serves");
        // An MCP Apps host says so, and gets the card with each result.
        let mut capabilities = ClientCapabilities::default();
        capabilities.extensions = Some(
            [(MCP_APPS_EXTENSION.to_owned(), serde_json::Map::new())]
                .into_iter()
                .collect(),
        );
        let client = ClientConfig::new(capabilities, Implementation::new("apps-host", "1.0.0"))
            .serve(StreamableHttpClientTransport::from_uri(server.url()))
            .await
            .expect("the client connects");
        let tools = client.list_all_tools().await.expect("tools/list");
        let read_file = tools
            .iter()
            .find(|tool| tool.name == "read_file")
            .expect("read_file is listed");
        let greet = tools
            .iter()
            .find(|tool| tool.name == "greet")
            .expect("greet is listed");
        let greet_meta = serde_json::to_value(&greet.meta).expect("JSON");
        assert!(
            greet_meta.get("ui").is_none() && greet_meta.get("ui/resourceUri").is_none(),
            "a tool without a card has no view: {greet_meta}"
        );
        let tool_meta = serde_json::to_value(&read_file.meta).expect("JSON");
        let resources = client.list_all_resources().await.expect("resources/list");
        let resources = serde_json::to_value(&resources).expect("JSON");
        let uri = tool_meta["ui"]["resourceUri"]
            .as_str()
            .expect("a resource URI")
            .to_owned();
        let read = client
            .read_resource(ReadResourceRequestParams::new(uri.clone()))
            .await
            .expect("resources/read");
        let [
            ResourceContents::TextResourceContents {
                uri: read_uri,
                mime_type,
                text,
                ..
            },
        ] = read.contents.as_slice()
        else {
            panic!("one text resource expected: {read:?}");
        };
        assert_eq!(read_uri, &uri);
        assert_eq!(mime_type.as_deref(), Some("text/html;profile=mcp-app"));
        let args = json!({ "path": file.display().to_string(), "offset": 2, "limit": 2 });
        let Value::Object(args) = args else {
            unreachable!()
        };
        let result = client
            .call_tool(CallToolRequestParams::new("read_file").with_arguments(args))
            .await
            .expect("tools/call");
        let result = serde_json::to_value(&result).expect("JSON");
        let _ = client.cancel().await;
        server.shutdown().await.expect("the server stops");
        (tool_meta, resources, text.clone(), result)
    });

    assert_eq!(tool_meta["ui"]["resourceUri"], "ui://dsh/cards/read_file");
    let listed = resources
        .as_array()
        .expect("resources")
        .iter()
        .find(|resource| resource["uri"] == "ui://dsh/cards/read_file")
        .expect("the view of read_file is listed");
    assert_eq!(listed["mimeType"], "text/html;profile=mcp-app");
    // The render is all the model gets; the card is for the view.
    assert_eq!(result.get("structuredContent"), None);
    assert!(
        result["content"][0]["text"]
            .as_str()
            .is_some_and(|text| text.contains("two"))
    );
    assert_eq!(result["_meta"]["dsh/card"]["card"], "read");

    // A host: the view in a sandboxed frame, answered over postMessage, sent
    // the tool's input and then the result of the real call.
    let browser = Browser::start();
    browser.open("about:blank");
    browser.run(
        r#"
        const [html, result, input] = arguments;
        window.host = { seen: [], initialized: false };
        const frame = document.createElement('iframe');
        frame.id = 'view';
        frame.setAttribute('sandbox', 'allow-scripts');
        frame.style.cssText = 'width: 760px; height: 420px; border: 0';
        const send = (message) => frame.contentWindow.postMessage(message, '*');
        window.addEventListener('message', (event) => {
          if (event.source !== frame.contentWindow) return;
          const message = event.data;
          window.host.seen.push(message.method);
          if (message.method === 'ui/initialize') {
            send({ jsonrpc: '2.0', id: message.id, result: { protocolVersion: message.params.protocolVersion, hostInfo: { name: 'test host', version: '1' }, hostCapabilities: {}, hostContext: {} } });
          } else if (message.method === 'ui/notifications/initialized') {
            window.host.initialized = true;
            send({ jsonrpc: '2.0', method: 'ui/notifications/tool-input', params: { arguments: input } });
            send({ jsonrpc: '2.0', method: 'ui/notifications/tool-result', params: result });
          }
        });
        frame.srcdoc = html;
        document.body.append(frame);
        "#,
        json!([html, result, { "path": file.display().to_string() }]),
    );
    browser.wait_until(
        "the view initializes",
        "return window.host.initialized === true;",
        json!([]),
    );
    let frame = browser.wait_for("#view");
    browser.enter_frame(&frame);
    browser.wait_for("[data-card='read']");
    assert_eq!(browser.text(".dsh-title"), file.display().to_string());
    let rows = browser.run(
        "return [...document.querySelectorAll('.dsh-lines tr')].map(r => [...r.children].map(c => c.textContent));",
        json!([]),
    );
    assert_eq!(rows, json!([["2", "two"], ["3", "three"]]));
    browser.screenshot(
        "[data-card='read']",
        &screenshots().join("mcp-app-read.png"),
    );
}
