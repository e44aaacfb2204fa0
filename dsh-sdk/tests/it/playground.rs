//! The playground's HTTP side, in process: what the page relies on, and
//! what it refuses. The page itself is driven in a browser by the examples'
//! browser tests.
#![cfg(feature = "playground")]

use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::http::{Request, StatusCode};
use dsh_kit::Registry;
use dsh_kit::log::SessionLog;
use dsh_kit::playground::{PageApprover, Playground};
use dsh_kit::prelude::*;
use serde_json::Value;
use tower::ServiceExt;

/// Greet someone by name.
#[tool(read_only)]
async fn greet(
    /// The name to greet
    name: String,
    /// How many times, 1 to 3
    #[schemars(range(min = 1, max = 3))]
    times: Option<u32>,
) -> String {
    format!("Hello, {name}!").repeat(times.unwrap_or(1) as usize)
}

/// Forget everything.
#[tool(destructive)]
async fn forget() -> String {
    "forgotten".to_owned()
}

async fn send(router: &Router, request: Request<Body>) -> (StatusCode, Value) {
    let response = router.clone().oneshot(request).await.unwrap();
    let status = response.status();
    let bytes = axum::body::to_bytes(response.into_body(), 1 << 20)
        .await
        .unwrap();
    (
        status,
        serde_json::from_slice(&bytes).unwrap_or(Value::Null),
    )
}

fn get(path: &str) -> Request<Body> {
    Request::get(path)
        .header("host", "127.0.0.1:3080")
        .body(Body::empty())
        .unwrap()
}

fn post(path: &str, body: Value) -> Request<Body> {
    Request::post(path)
        .header("host", "127.0.0.1:3080")
        .header("content-type", "application/json")
        .body(Body::from(body.to_string()))
        .unwrap()
}

#[tokio::test]
async fn a_call_answers_with_each_violation_at_its_pointer_and_the_result() {
    let registry = Registry::new();
    registry.register::<greet>().unwrap().keep();
    let router = Playground::new(registry).router();

    let (status, tools) = send(&router, get("/api/tools")).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(tools["tools"][0]["name"], "greet");
    assert_eq!(tools["tools"][0]["flags"]["read_only"], true);
    assert_eq!(
        tools["tools"][0]["input_schema"]["required"],
        json!(["name"])
    );

    let (status, bad) = send(
        &router,
        post(
            "/api/call",
            json!({ "tool": "greet", "args": { "times": 9 } }),
        ),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        bad["violations"],
        json!([
            { "pointer": "/name", "message": "required property missing" },
            { "pointer": "/times", "message": "9 is greater than the maximum of 3" },
        ])
    );
    assert_eq!(bad["error_kind"], "invalid_arguments");
    assert_eq!(bad["result"]["status"], "error");
    assert_eq!(bad["result"]["card"], Value::Null);

    let (_, good) = send(
        &router,
        post(
            "/api/call",
            json!({ "tool": "greet", "args": { "name": "Ada", "times": 2 } }),
        ),
    )
    .await;
    assert_eq!(good["violations"], json!([]));
    assert_eq!(good["error_kind"], Value::Null);
    assert_eq!(
        good["result"]["content"][0]["text"],
        "Hello, Ada!Hello, Ada!"
    );
    assert_eq!(good["result"]["card"]["card"], "generic");

    let (_, unknown) = send(&router, post("/api/call", json!({ "tool": "gret" }))).await;
    assert_eq!(unknown["error_kind"], "unknown_tool");
}

#[tokio::test]
async fn other_sites_and_other_hosts_are_refused() {
    let router = Playground::new(Registry::new()).router();

    let rebound = Request::get("/api/tools")
        .header("host", "evil.example:3080")
        .body(Body::empty())
        .unwrap();
    let (status, refused) = send(&router, rebound).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    assert!(refused["error"].as_str().unwrap().contains("evil.example"));

    let mut cross_site = post("/api/call", json!({ "tool": "greet" }));
    cross_site
        .headers_mut()
        .insert("origin", "http://evil.example".parse().unwrap());
    let (status, _) = send(&router, cross_site).await;
    assert_eq!(status, StatusCode::FORBIDDEN);

    // A form post, which another site can send without asking.
    let form = Request::post("/api/call")
        .header("host", "127.0.0.1:3080")
        .header("content-type", "text/plain")
        .body(Body::from(r#"{"tool":"greet"}"#))
        .unwrap();
    let (status, refused) = send(&router, form).await;
    assert_eq!(status, StatusCode::UNSUPPORTED_MEDIA_TYPE);
    assert!(
        refused["error"]
            .as_str()
            .unwrap()
            .contains("application/json")
    );

    let (status, refused) = send(&router, post("/api/call", json!({ "tol": "greet" }))).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(
        refused["error"].as_str().unwrap().contains("tol"),
        "{refused}"
    );
}

fn post_raw(path: &str, body: impl Into<Body>) -> Request<Body> {
    Request::post(path)
        .header("host", "127.0.0.1:3080")
        .header("content-type", "application/json")
        .body(body.into())
        .unwrap()
}

#[tokio::test]
async fn a_malformed_body_is_refused_with_what_was_wrong() {
    let router = Playground::new(Registry::new()).router();

    let (status, refused) = send(&router, post_raw("/api/call", r#"{"tool": "greet","#)).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    let message = refused["error"].as_str().unwrap();
    assert!(
        message.starts_with("the request body is not JSON: "),
        "{message}"
    );
    assert!(message.contains("line 1 column 17"), "{message}");

    let (status, refused) = send(&router, post("/api/call", json!({ "tool": 7 }))).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    let message = refused["error"].as_str().unwrap();
    assert!(
        message.starts_with("the request body is not what this endpoint takes: tool: "),
        "{message}"
    );
    assert!(message.contains("expected a string"), "{message}");

    let (status, refused) = send(&router, post("/api/approvals/answer", json!({ "id": 1 }))).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    let message = refused["error"].as_str().unwrap();
    assert!(message.contains("missing field `approve`"), "{message}");

    let (status, refused) = send(&router, post("/api/log", json!({ "replay": "yes" }))).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(
        refused["error"].as_str().unwrap().contains("replay: "),
        "{refused}"
    );
}

#[tokio::test]
async fn hostile_bodies_are_refused_without_panicking() {
    let router = Playground::new(Registry::new()).router();

    // Nested far past serde_json's recursion limit.
    let deep = format!(
        r#"{{"tool":"greet","args":{}{}}}"#,
        "[".repeat(100_000),
        "]".repeat(100_000)
    );
    let (status, refused) = send(&router, post_raw("/api/call", deep)).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(
        refused["error"]
            .as_str()
            .unwrap()
            .contains("recursion limit"),
        "{refused}"
    );

    let huge = vec![b' '; 33 * 1024 * 1024];
    let (status, refused) = send(&router, post_raw("/api/log", huge)).await;
    assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE);
    assert!(
        refused["error"].as_str().unwrap().contains("larger than"),
        "{refused}"
    );

    let (status, _) = send(&router, post_raw("/api/call", &b"\xff\xfe{"[..])).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);

    let (status, _) = send(&router, post_raw("/api/call", "")).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
}

#[tokio::test]
async fn a_call_that_asks_waits_for_the_page_s_answer() {
    let approver = PageApprover::with_timeout(Duration::from_secs(30));
    let registry = Registry::builder().approver(approver.clone()).build();
    registry.register::<forget>().unwrap().keep();
    let router = Playground::new(registry).approver(approver).router();

    for approve in [false, true] {
        let call = tokio::spawn({
            let router = router.clone();
            async move { send(&router, post("/api/call", json!({ "tool": "forget" }))).await }
        });
        let pending = tokio::time::timeout(Duration::from_secs(10), async {
            loop {
                let (_, approvals) = send(&router, get("/api/approvals")).await;
                if let Some(first) = approvals["pending"].get(0) {
                    return first.clone();
                }
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
        })
        .await
        .expect("the call asks within 10 s");
        assert_eq!(pending["tool"], "forget");
        assert_eq!(pending["prompt"], "`forget` may destroy data: allow it?");

        let (status, _) = send(
            &router,
            post(
                "/api/approvals/answer",
                json!({ "id": pending["id"], "approve": approve }),
            ),
        )
        .await;
        assert_eq!(status, StatusCode::OK);
        let (_, answer) = call.await.unwrap();
        if approve {
            assert_eq!(answer["result"]["content"][0]["text"], "forgotten");
        } else {
            assert_eq!(answer["result"]["status"], "error");
            assert!(
                answer["result"]["content"][0]["text"]
                    .as_str()
                    .unwrap()
                    .contains("rejected in the playground")
            );
        }
        let (status, _) = send(
            &router,
            post(
                "/api/approvals/answer",
                json!({ "id": pending["id"], "approve": true }),
            ),
        )
        .await;
        assert_eq!(status, StatusCode::NOT_FOUND, "an answer counts once");
    }
}

#[tokio::test]
async fn a_log_opens_with_its_cards_and_replays_with_its_differences() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("session.jsonl");
    let registry = Registry::new();
    registry.register::<greet>().unwrap().keep();
    let log = SessionLog::open(&path).unwrap();
    let logging = registry.subscribe(log.subscriber());
    registry.call("greet", json!({ "name": "Ada" })).await;
    registry.call("greet", json!({})).await;
    drop(logging);
    let router = Playground::new(registry).router();

    let (status, opened) = send(&router, post("/api/log", json!({ "path": path }))).await;
    assert_eq!(status, StatusCode::OK, "{opened}");
    let calls = opened["calls"].as_array().unwrap();
    assert_eq!(calls.len(), 2);
    assert_eq!(calls[0]["result"]["card"]["output"], "Hello, Ada!");
    assert_eq!(calls[0]["replay"], Value::Null, "not replayed until asked");

    let (_, replayed) = send(
        &router,
        post("/api/log", json!({ "path": path, "replay": true })),
    )
    .await;
    assert_eq!(replayed["calls"][0]["replay"]["outcome"], "identical");
    assert_eq!(replayed["calls"][1]["replay"]["outcome"], "skipped");

    // The same log, uploaded with its greeting changed.
    let text = std::fs::read_to_string(&path)
        .unwrap()
        .lines()
        .map(|line| {
            if line.starts_with(r#"{"record":"result""#) {
                line.replace("Hello, Ada!", "Hello, Bob!")
            } else {
                line.to_owned()
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    let (_, tampered) = send(
        &router,
        post(
            "/api/log",
            json!({ "text": text, "name": "tampered.jsonl", "replay": true }),
        ),
    )
    .await;
    assert_eq!(tampered["path"], "tampered.jsonl");
    let replay = &tampered["calls"][0]["replay"];
    assert_eq!(replay["outcome"], "differs");
    let fields: Vec<&str> = replay["differences"]
        .as_array()
        .unwrap()
        .iter()
        .map(|difference| difference["field"].as_str().unwrap())
        .collect();
    assert_eq!(fields, ["content", "card"]);
    assert_eq!(
        replay["differences"][0]["expected"],
        r#"[{"type":"text","text":"Hello, Bob!"}]"#
    );

    let (status, refused) = send(
        &router,
        post(
            "/api/log",
            json!({ "path": dir.path().join("missing.jsonl") }),
        ),
    )
    .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(refused["error"].as_str().unwrap().contains("missing.jsonl"));
    let (status, _) = send(&router, post("/api/log", json!({}))).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
}
