//! The minimal call path: resolve, validate, deserialize, execute, gate, render.

use dsh_kit::Registry;
use dsh_kit::prelude::*;
use dsh_kit::{ContentBlock, State, Status};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

#[derive(Deserialize, JsonSchema)]
struct ReadArgs {
    /// Absolute path
    path: String,
    /// Maximum lines to return
    limit: Option<u32>,
}

/// Counts executions, so tests can prove bad input never reaches `execute`.
#[derive(Default)]
struct Calls(AtomicUsize);

/// Pretend to read a file.
#[tool(read_only, aliases = ["cat"])]
async fn read_file(args: ReadArgs, exec: &Exec) -> Result<String, ToolError> {
    exec.state::<Arc<Calls>>()?.0.fetch_add(1, Ordering::SeqCst);
    Ok(format!("{} ({:?})", args.path, args.limit))
}

fn registry() -> (Registry, Arc<Calls>) {
    let calls = Arc::new(Calls::default());
    let registry = Registry::builder().state(Arc::clone(&calls)).build();
    registry.register::<read_file>().unwrap();
    (registry, calls)
}

#[tokio::test]
async fn a_good_call_returns_content_value_and_a_generic_card() {
    let (registry, calls) = registry();
    let result = registry
        .call("read_file", json!({ "path": "/etc/hosts", "limit": 3 }))
        .await;
    assert_eq!(result.status(), Status::Success);
    assert!(!result.is_error());
    assert_eq!(
        result.content(),
        [ContentBlock::text("/etc/hosts (Some(3))")]
    );
    assert_eq!(result.value, Some(json!("/etc/hosts (Some(3))")));
    assert_eq!(
        serde_json::to_value(result.card().unwrap()).unwrap(),
        json!({
            "card": "generic",
            "title": "read_file",
            "input": { "path": "/etc/hosts", "limit": 3 },
            "output": "/etc/hosts (Some(3))"
        })
    );
    assert_eq!(calls.0.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn every_violation_is_reported_at_once_and_execute_never_runs() {
    let (registry, calls) = registry();
    let result = registry.call("read_file", json!({ "limit": -1 })).await;
    assert!(result.is_error());
    assert_eq!(result.status(), Status::Error);
    assert_eq!(
        result.text(),
        "invalid arguments for `read_file`: /limit: -1 is less than the minimum of 0; /path: required property missing"
    );
    assert_eq!(result.value, None);

    let result = registry
        .call("read_file", json!({ "path": 7, "limit": "ten" }))
        .await;
    assert_eq!(
        result.text(),
        r#"invalid arguments for `read_file`: /limit: "ten" is not of types "null", "integer"; /path: 7 is not of type "string""#
    );

    let result = registry.call("read_file", json!(["/etc/hosts"])).await;
    assert_eq!(
        result.text(),
        r#"invalid arguments for `read_file`: /: ["/etc/hosts"] is not of type "object""#
    );
    assert_eq!(calls.0.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn args_sent_as_a_json_string_are_accepted() {
    let (registry, _) = registry();
    let result = registry.call("cat", json!(r#"{"path": "/tmp/x"}"#)).await;
    assert_eq!(result.text(), "/tmp/x (None)");
    assert_eq!(result.tool_name, "read_file");

    let result = registry.call("cat", json!("/tmp/x")).await;
    assert_eq!(
        result.text(),
        r#"invalid arguments for `read_file`: /: "/tmp/x" is not of type "object""#
    );
}

#[tokio::test]
async fn an_unknown_tool_names_the_closest() {
    let (registry, _) = registry();
    let result = registry.call("read_flie", json!({})).await;
    assert!(result.is_error());
    assert_eq!(result.tool_name, "read_flie");
    assert_eq!(
        result.text(),
        "no tool named `read_flie`; did you mean `read_file`?"
    );
    let result = registry.call("launch_rockets", json!({})).await;
    assert_eq!(result.text(), "no tool named `launch_rockets`");
}

#[derive(Debug, thiserror::Error)]
enum LookupError {
    #[error("no user named `{0}`")]
    NotFound(String),
}

/// Look a user up.
#[tool]
async fn lookup(
    /// The user's name
    name: String,
) -> Result<u32, LookupError> {
    Err(LookupError::NotFound(name))
}

#[tokio::test]
async fn a_call_runs_the_tool_it_was_made_to_even_if_unregistered_before_it_is_polled() {
    let calls = Arc::new(Calls::default());
    let registry = Registry::builder().state(Arc::clone(&calls)).build();
    let handle = registry.register::<read_file>().unwrap();
    let made = registry.call("cat", json!({ "path": "/a" }));
    assert!(handle.unregister());
    let result = made.await;
    assert_eq!(result.status(), Status::Success, "{:?}", result.content());
    assert_eq!(result.tool_name, "read_file");
    assert_eq!(calls.0.load(Ordering::SeqCst), 1);
    // A call made once it is gone finds none.
    let result = registry.call("read_file", json!({ "path": "/a" })).await;
    assert!(result.is_error());
    assert_eq!(calls.0.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn a_tool_error_reaches_the_model() {
    let registry = Registry::new();
    registry.register::<lookup>().unwrap();
    let result = registry.call("lookup", json!({ "name": "ada" })).await;
    assert!(result.is_error());
    assert_eq!(result.text(), "`lookup` failed: no user named `ada`");
}

/// A percentage, at most 100.
#[derive(Serialize, Deserialize, JsonSchema)]
struct Percent {
    #[schemars(range(max = 100))]
    value: u32,
}

/// Returns an out-of-range percentage.
#[tool]
async fn overflow() -> Percent {
    Percent { value: 150 }
}

#[tokio::test]
async fn an_output_that_breaks_its_schema_never_reaches_the_model() {
    let registry = Registry::new();
    registry.register::<overflow>().unwrap();
    let result = registry.call("overflow", json!({})).await;
    assert!(result.is_error());
    assert_eq!(result.value, None);
    assert_eq!(
        result.text(),
        "`overflow` returned an output that breaks its schema: /value: 150 is greater than the maximum of 100"
    );
}

/// Panics.
#[tool]
async fn explode() -> String {
    panic!("boom")
}

#[tokio::test]
async fn a_panic_in_execute_becomes_an_error_result() {
    let registry = Registry::new();
    registry.register::<explode>().unwrap();
    let result = registry.call("explode", json!({})).await;
    assert!(result.is_error());
    assert_eq!(result.text(), "`explode` panicked: boom");
}

#[render]
fn shout(_args: &ShoutToolArgs, value: &String) -> Vec<ContentBlock> {
    assert!(!value.is_empty(), "nothing to shout");
    vec![ContentBlock::text(value.to_uppercase())]
}

/// Shout a word.
#[tool(render = shout)]
async fn shout_tool(
    /// The word
    word: String,
) -> String {
    word
}

#[tokio::test]
async fn a_render_shapes_the_content_and_a_panicking_one_becomes_an_error() {
    let registry = Registry::new();
    registry.register::<shout_tool>().unwrap();
    let result = registry.call("shout_tool", json!({ "word": "hey" })).await;
    assert_eq!(result.text(), "HEY");
    assert_eq!(result.value, Some(json!("hey")));

    let result = registry.call("shout_tool", json!({ "word": "" })).await;
    assert!(result.is_error());
    assert_eq!(
        result.text(),
        "`shout_tool` could not render its output: the render panicked: nothing to shout"
    );
}

/// Needs state the host did not give.
#[tool]
async fn needs_state(exec: &Exec) -> Result<String, ToolError> {
    Ok(exec.state::<String>()?.clone())
}

#[tokio::test]
async fn missing_state_is_an_error_naming_the_type() {
    let registry = Registry::new();
    registry.register::<needs_state>().unwrap();
    let result = registry.call("needs_state", json!({})).await;
    assert_eq!(
        result.text(),
        "`needs_state` failed: the host provided no `alloc::string::String` to this tool"
    );
}

#[tokio::test]
async fn the_fn_stays_callable_as_written() {
    let exec = Exec::builder("read_file")
        .state(State::default().with(Arc::new(Calls::default())))
        .build();
    let text = read_file(
        ReadArgs {
            path: "/x".into(),
            limit: None,
        },
        &exec,
    )
    .await
    .unwrap();
    assert_eq!(text, "/x (None)");
    assert_eq!(shout_tool("a".into()).await, "a");
}

/// Gives back the id of the call it runs in.
#[tool(read_only)]
async fn own_id(exec: &Exec) -> String {
    exec.invocation_id().to_string()
}

/// Accepts only a call whose context is its own.
fn in_a_call(args: &EchoArgs, exec: &Exec) -> Validation {
    if exec.invocation_id().to_string() == args.expected {
        Validation::Ok
    } else {
        Validation::invalid(
            format!("the context is of call {}", exec.invocation_id()),
            3,
        )
    }
}

/// Echoes what it was given.
#[tool(read_only, validate = in_a_call)]
async fn echo(
    /// The id the call is expected to run with
    expected: String,
) -> String {
    expected
}

/// Echoes what it was given, with no context at all.
#[tool(read_only)]
async fn plain(
    /// Given back
    text: String,
) -> String {
    text
}

#[tokio::test]
async fn a_tool_that_reads_its_context_gets_its_own_calls_and_one_that_does_not_gets_none() {
    let reads = [
        <own_id as Tool>::READS_EXEC,
        // Its validate fn reads the context.
        <echo as Tool>::READS_EXEC,
        <plain as Tool>::READS_EXEC,
    ];
    assert_eq!(reads, [true, true, false]);

    let registry = Registry::new();
    registry.register::<own_id>().unwrap();
    registry.register::<echo>().unwrap();
    registry.register::<plain>().unwrap();
    let call = dsh_kit::ToolCall::new("own_id", json!({}));
    let id = call.id();
    assert_eq!(registry.call_with(call).await.text(), id.to_string());

    let call = dsh_kit::ToolCall::new("echo", json!({ "expected": "" }));
    let id = call.id().to_string();
    let call = dsh_kit::ToolCall::new("echo", json!({ "expected": id })).invocation_id(call.id());
    let result = registry.call_with(call).await;
    assert!(!result.is_error(), "{}", result.text());
    assert_eq!(result.text(), id);

    assert_eq!(
        registry.call("plain", json!({ "text": "hi" })).await.text(),
        "hi"
    );
}
