//! Every card, from the example tool that presents it: the card shown while
//! the call runs and the card of its result, exactly.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use dsh_kit::CancellationToken;
use dsh_kit::card::Card;
use dsh_kit::event::{Event, StreamType};
use dsh_kit::permission::Rule;
use dsh_kit::{Registry, Status, ToolCall, ToolResult};
use dsh_kit_examples::register_all;
use serde_json::{Value, json};

fn registry() -> Registry {
    // `bash` and `edit_file` are destructive, so they ask by default; these tests allow them.
    let registry = Registry::builder()
        .rule(Rule::allow("bash"))
        .rule(Rule::allow("edit_file"))
        .build();
    register_all(&registry).unwrap();
    registry
}

/// Calls `name` and returns the running card a subscriber saw, and the result.
async fn call(registry: &Registry, name: &str, args: Value) -> (Option<Value>, ToolResult) {
    let running = Arc::new(Mutex::new(None));
    let sink = Arc::clone(&running);
    let subscription = registry.subscribe(move |event| {
        if let Event::Running { card, .. } = event {
            *sink.lock().unwrap() = Some(serde_json::to_value(card).unwrap());
        }
    });
    let result = registry.call(name, args).await;
    drop(subscription);
    let running = running.lock().unwrap().take();
    (running, result)
}

fn card(result: &ToolResult) -> Value {
    assert!(!result.is_error(), "{}", result.text());
    serde_json::to_value(result.card().expect("a top-level call has a card")).unwrap()
}

#[tokio::test]
async fn greet_presents_nothing_and_gets_the_generic_card() {
    let (running, result) = call(&registry(), "greet", json!({ "name": "Ada" })).await;
    assert_eq!(
        running,
        Some(json!({ "card": "generic", "title": "greet", "input": { "name": "Ada" } }))
    );
    assert_eq!(
        card(&result),
        json!({ "card": "generic", "title": "greet", "input": { "name": "Ada" }, "output": "Hello, Ada!" })
    );
}

#[tokio::test]
async fn read_file_presents_a_read_card() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("notes.txt");
    std::fs::write(&path, "one\ntwo\nthree\n").unwrap();
    let path = path.display().to_string();
    let (_, result) = call(
        &registry(),
        "read_file",
        json!({ "path": path, "offset": 2 }),
    )
    .await;
    assert_eq!(
        card(&result),
        json!({ "card": "read", "path": path, "start_line": 2, "end_line": 3, "content": "two\nthree\n" })
    );
}

#[tokio::test]
async fn edit_file_presents_a_diff_card() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("main.rs");
    std::fs::write(&path, "fn main() {\n    run();\n}\n").unwrap();
    let path = path.display().to_string();
    let (_, result) = call(
        &registry(),
        "edit_file",
        json!({ "path": path, "old": "run()", "new": "start()" }),
    )
    .await;
    let unified = format!(
        "--- {path}\n+++ {path}\n@@ -1,3 +1,3 @@\n fn main() {{\n-    run();\n+    start();\n }}\n"
    );
    assert_eq!(
        card(&result),
        json!({
            "card": "diff",
            "path": path,
            "unified_diff": unified,
            "hunks": [{
                "old_start": 1, "old_lines": 3, "new_start": 1, "new_lines": 3,
                "lines": [" fn main() {", "-    run();", "+    start();", " }"],
            }],
        })
    );
    assert_eq!(result.output_type, dsh_kit::OutputType::Diff);
}

#[tokio::test]
async fn bash_presents_a_terminal_card_from_the_start() {
    let registry = registry();
    let command = "echo out; echo err >&2; exit 3";
    let (running, result) = call(&registry, "bash", json!({ "command": command })).await;
    assert_eq!(
        running,
        Some(json!({ "card": "terminal", "command": command, "stdout": "", "stderr": "" }))
    );
    assert_eq!(
        card(&result),
        json!({ "card": "terminal", "command": command, "stdout": "out\n", "stderr": "err\n", "exit_code": 3 })
    );
    assert_eq!(result.text(), "out\n[stderr]\nerr\n[exit code 3]");
    assert_eq!(result.output_type, dsh_kit::OutputType::Text);
}

#[tokio::test]
async fn bash_streams_what_the_command_prints() {
    let registry = registry();
    let chunks = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&chunks);
    let _subscription = registry.subscribe(move |event| {
        if let Event::Stream(chunk) = event {
            sink.lock()
                .unwrap()
                .push((chunk.stream_type, chunk.chunk.clone()));
        }
    });
    let dir = tempfile::tempdir().unwrap();
    let result = registry
        .call(
            "bash",
            json!({ "command": "pwd; echo oops >&2", "cwd": dir.path() }),
        )
        .await;
    assert_eq!(result.status(), Status::Success, "{}", result.text());
    let mut chunks = chunks.lock().unwrap().clone();
    chunks.sort_by_key(|(kind, _)| *kind == StreamType::Stderr);
    let cwd = dir.path().canonicalize().unwrap().display().to_string();
    assert_eq!(
        chunks,
        [
            (StreamType::Stdout, format!("{cwd}\n")),
            (StreamType::Stderr, "oops\n".to_owned())
        ]
    );
}

#[tokio::test]
async fn bash_kills_a_command_past_its_timeout() {
    let (_, result) = call(
        &registry(),
        "bash",
        json!({ "command": "echo started; sleep 5", "timeout_ms": 300 }),
    )
    .await;
    assert_eq!(
        card(&result),
        json!({ "card": "terminal", "command": "echo started; sleep 5", "stdout": "started\n", "stderr": "" })
    );
    assert_eq!(
        result.value.as_ref().unwrap()["timed_out"],
        json!(true),
        "{:?}",
        result.value
    );
    assert_eq!(
        result.text(),
        "started\n[killed after 300 ms: the command ran past its timeout]"
    );
}

#[tokio::test]
async fn bash_stops_when_the_call_is_cancelled() {
    let registry = registry();
    let cancel = CancellationToken::new();
    let started = std::time::Instant::now();
    let call = ToolCall::new("bash", json!({ "command": "sleep 5" })).cancel_on(cancel.clone());
    let canceller = async {
        tokio::time::sleep(Duration::from_millis(100)).await;
        cancel.cancel();
    };
    let (result, ()) = tokio::join!(registry.call_with(call), canceller);
    assert_eq!(result.status(), Status::Cancelled);
    assert!(started.elapsed() < Duration::from_secs(4));
}

#[tokio::test]
async fn bash_runs_in_a_relative_directory_resolved_against_the_working_directory() {
    let result = registry()
        .call("bash", json!({ "command": "pwd", "cwd": "src/../src" }))
        .await;
    let expected = std::env::current_dir()
        .unwrap()
        .join("src")
        .canonicalize()
        .unwrap();
    assert_eq!(
        result.value.as_ref().unwrap()["stdout"],
        json!(format!("{}\n", expected.display()))
    );
}

#[tokio::test]
async fn grep_presents_a_search_card() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir(root.join("src")).unwrap();
    std::fs::write(root.join("src/main.rs"), "fn main() {\n    todo!();\n}\n").unwrap();
    std::fs::write(
        root.join("src/lib.rs"),
        "// TODO: document\npub fn lib() {}\n",
    )
    .unwrap();
    std::fs::write(root.join("notes.md"), "todo: nothing\n").unwrap();
    // What `.gitignore` hides is not searched.
    std::fs::write(root.join(".gitignore"), "target/\n").unwrap();
    std::fs::create_dir(root.join("target")).unwrap();
    std::fs::write(root.join("target/out.rs"), "todo!()\n").unwrap();
    let root_text = root.display().to_string();

    let registry = registry();
    let args =
        json!({ "pattern": "todo", "path": root_text, "glob": "*.rs", "case_insensitive": true });
    let (running, result) = call(&registry, "grep", args).await;
    assert_eq!(
        running,
        Some(json!({ "card": "search", "query": "todo", "results": [] }))
    );
    assert_eq!(
        card(&result),
        json!({
            "card": "search",
            "query": "todo",
            "results": [
                { "title": "src/lib.rs", "location": format!("{root_text}/src/lib.rs:1"), "snippet": "// TODO: document" },
                { "title": "src/main.rs", "location": format!("{root_text}/src/main.rs:2"), "snippet": "    todo!();" },
            ],
        })
    );
    assert_eq!(
        result.text(),
        "src/lib.rs:1:// TODO: document\nsrc/main.rs:2:    todo!();\n"
    );

    // One file as the root; `max_results` cuts the list and says so.
    let file = root.join("src/main.rs").display().to_string();
    let (_, result) = call(
        &registry,
        "grep",
        json!({ "pattern": "\\S", "path": file, "max_results": 2 }),
    )
    .await;
    assert_eq!(
        card(&result)["results"][1],
        json!({ "title": file, "location": format!("{file}:2"), "snippet": "    todo!();" })
    );
    assert_eq!(
        result.text(),
        format!(
            "{file}:1:fn main() {{\n{file}:2:    todo!();\n[only the first 2 matches are shown: narrow the pattern or the glob]\n"
        )
    );

    let result = registry
        .call("grep", json!({ "pattern": "(", "path": root_text }))
        .await;
    assert!(
        result
            .text()
            .starts_with("`grep` failed: `pattern` is not a valid regex: regex parse error"),
        "{}",
        result.text()
    );
}

/// Serves each response once, in order, on a loopback port; returns the base URL.
fn serve(responses: Vec<String>) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let address = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        for response in responses {
            let Ok((mut stream, _)) = listener.accept() else {
                return;
            };
            stream
                .set_read_timeout(Some(Duration::from_secs(5)))
                .unwrap();
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut line = String::new();
            while reader.read_line(&mut line).is_ok_and(|read| read > 2) {
                line.clear();
            }
            let _ = stream.write_all(response.as_bytes());
        }
    });
    format!("http://{address}")
}

fn http(status: &str, content_type: &str, body: &str) -> String {
    format!(
        "HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
}

#[tokio::test]
async fn fetch_presents_a_web_card() {
    let page = "<html><head><title>The &amp; Page</title><script>x()</script></head>\
        <body><h1>Welcome</h1><p>First   paragraph.</p><p>Second.</p></body></html>";
    let base = serve(vec![
        http("200 OK", "text/html; charset=utf-8", page),
        http("404 Not Found", "text/plain", "gone"),
        http("200 OK", "image/png", "PNG"),
    ]);
    let registry = registry();
    let url = format!("{base}/page");
    let (running, result) = call(&registry, "fetch", json!({ "url": url })).await;
    assert_eq!(
        running,
        Some(json!({ "card": "web", "url": url, "excerpt": "" }))
    );
    assert_eq!(
        card(&result),
        json!({ "card": "web", "url": url, "title": "The & Page", "excerpt": "Welcome\nFirst paragraph.\nSecond." })
    );
    assert_eq!(
        result.text(),
        format!("# The & Page\n{url}\n\nWelcome\nFirst paragraph.\nSecond.")
    );
    assert_eq!(result.output_type, dsh_kit::OutputType::WebContent);

    let missing = format!("{base}/missing");
    let result = registry.call("fetch", json!({ "url": missing })).await;
    assert_eq!(
        result.text(),
        format!("`fetch` failed: cannot fetch {missing}: the server answered 404 Not Found")
    );
    let image = format!("{base}/image");
    let result = registry.call("fetch", json!({ "url": image })).await;
    assert_eq!(
        result.text(),
        format!(
            "`fetch` failed: {image} is `image/png`, not text: this tool reads text pages only"
        )
    );
}

#[tokio::test]
async fn fetch_refuses_https_before_it_runs() {
    let result = registry()
        .call("fetch", json!({ "url": "https://example.com/" }))
        .await;
    assert_eq!(
        result.text(),
        "invalid arguments for `fetch` (code 1): cannot fetch `https://example.com/`: this build has no TLS, so only `http://` addresses work"
    );
}

#[test]
fn a_host_can_ask_for_the_running_card_of_a_call() {
    let registry = registry();
    let running = |name: &str, args: Value| {
        serde_json::to_value(registry.get(name).unwrap().present_call(&args)).unwrap()
    };
    assert_eq!(
        running("bash", json!({ "command": "ls" })),
        json!({ "card": "terminal", "command": "ls", "stdout": "", "stderr": "" })
    );
    assert_eq!(
        running("grep", json!({ "pattern": "x", "path": "/" })),
        json!({ "card": "search", "query": "x", "results": [] })
    );
    assert_eq!(
        running("fetch", json!({ "url": "http://a/" })),
        json!({ "card": "web", "url": "http://a/", "excerpt": "" })
    );
    // No `present_call`, or arguments the tool cannot read: the generic card.
    assert_eq!(
        running("read_file", json!({ "path": "/a" })),
        json!({ "card": "generic", "title": "read_file", "input": { "path": "/a" } })
    );
    assert_eq!(
        running("bash", json!({})),
        json!({ "card": "generic", "title": "bash", "input": {} })
    );
    let _: Card = registry.get("greet").unwrap().present_call(&json!({}));
}
