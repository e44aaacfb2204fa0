//! Hostile input and faulty hooks: no panic escapes a call, no permission
//! check is skipped, and nothing unbounded reaches the tool or the log.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use dsh_kit::event::Event;
use dsh_kit::log::{Log, Record, SessionLog};
use dsh_kit::permission::{
    Approval, ApprovalRequest, Approver, CallInfo, Decision, FnApprover, Rule, Tighten,
};
use dsh_kit::post_execute::{PostCall, PostOutcome};
use dsh_kit::prelude::*;
use dsh_kit::{RegisterError, RegistryBuilder, Status, Subscription, ToolCall};
use dsh_kit::{Registry, ToolResult};
use futures_util::future::BoxFuture;
use serde_json::Value;

/// Write a file (pretend).
#[tool(destructive)]
async fn write_file(
    /// The path
    path: String,
) -> String {
    WRITES.fetch_add(1, Ordering::SeqCst);
    format!("wrote {path}")
}

static WRITES: AtomicUsize = AtomicUsize::new(0);

/// Echo any JSON value.
#[tool(read_only)]
async fn echo(
    /// Anything
    value: Value,
) -> Value {
    value
}

/// Return a value nested `levels` deep.
#[tool(read_only)]
async fn deep(
    /// How deep
    levels: usize,
) -> Value {
    nested(levels)
}

/// `{"a": {"a": … null}}`, `levels` objects deep, built without recursion.
fn nested(levels: usize) -> Value {
    let mut value = Value::Null;
    for _ in 0..levels {
        let mut map = serde_json::Map::new();
        map.insert("a".into(), value);
        value = Value::Object(map);
    }
    value
}

/// Results and requests seen by a subscriber.
fn recorder(registry: &Registry) -> (Subscription, Arc<Mutex<Vec<Event>>>) {
    let events = Arc::new(Mutex::new(Vec::new()));
    let seen = Arc::clone(&events);
    let subscription = registry.subscribe(move |event| {
        if matches!(event, Event::Request { .. } | Event::Result(_)) {
            seen.lock().unwrap().push(event.clone());
        }
    });
    (subscription, events)
}

fn results(events: &Mutex<Vec<Event>>) -> Vec<Arc<ToolResult>> {
    events
        .lock()
        .unwrap()
        .iter()
        .filter_map(|event| match event {
            Event::Result(result) => Some(Arc::clone(result)),
            _ => None,
        })
        .collect()
}

fn build(builder: RegistryBuilder) -> Registry {
    let registry = builder.build();
    registry.register::<write_file>().unwrap().keep();
    registry.register::<echo>().unwrap().keep();
    registry.register::<deep>().unwrap().keep();
    registry
}

// 1. An approver's arguments are decided again.

#[tokio::test]
async fn arguments_from_the_approver_meet_the_deny_rules_gates_and_guards() {
    let gate_saw = Arc::new(Mutex::new(Vec::new()));
    let seen = Arc::clone(&gate_saw);
    let registry = build(
        Registry::builder()
            .rule(Rule::deny("write_file").when("path", "/etc/*").unwrap())
            .gate(move |call: &CallInfo<'_>| {
                seen.lock().unwrap().push(call.args["path"].clone());
                Decision::Allow
            })
            .guard(|call: &CallInfo<'_>| {
                if call.args["path"] == "/guarded" {
                    Tighten::Deny {
                        reason: "guarded".into(),
                    }
                } else {
                    Tighten::Keep
                }
            })
            .approver(FnApprover(|request: &ApprovalRequest<'_>| {
                match request.args["path"].as_str() {
                    Some("/tmp/a") => Approval::ApproveWith(json!({ "path": "/etc/passwd" })),
                    Some("/tmp/b") => Approval::ApproveWith(json!({ "path": "/guarded" })),
                    _ => Approval::Approve,
                }
            })),
    );
    let before = WRITES.load(Ordering::SeqCst);
    let result = registry
        .call("write_file", json!({ "path": "/tmp/a" }))
        .await;
    assert!(result.is_error());
    assert_eq!(
        result.text(),
        "`write_file` cannot run with the arguments its approver gave: denied by rule `deny write_file(path: /etc/*)`"
    );
    let result = registry
        .call("write_file", json!({ "path": "/tmp/b" }))
        .await;
    assert_eq!(
        result.text(),
        "`write_file` cannot run with the arguments its approver gave: guarded"
    );
    assert_eq!(WRITES.load(Ordering::SeqCst), before, "nothing was written");
    assert_eq!(
        *gate_saw.lock().unwrap(),
        [json!("/tmp/a"), json!("/tmp/b"), json!("/guarded")],
        "the gate saw the overridden arguments; a rule's deny stops before the gates"
    );
}

#[tokio::test]
async fn a_second_ask_is_put_once_and_a_second_override_is_refused() {
    let asked = Arc::new(AtomicUsize::new(0));
    let count = Arc::clone(&asked);
    // Always approves with other arguments: without a bound this would ask forever.
    let registry = build(Registry::builder().approver(FnApprover(
        move |request: &ApprovalRequest<'_>| {
            let n = count.fetch_add(1, Ordering::SeqCst);
            Approval::ApproveWith(
                json!({ "path": format!("{}/{n}", request.args["path"].as_str().unwrap()) }),
            )
        },
    )));
    let result = registry.call("write_file", json!({ "path": "/tmp" })).await;
    assert!(result.is_error());
    assert_eq!(
        result.text(),
        "`write_file` was not run: its approver changed the arguments, was asked again about the new ones, and changed them again; arguments are changed at most once per call"
    );
    assert_eq!(asked.load(Ordering::SeqCst), 2);
}

// 2. and 14. A panic in any host hook is a defined error result.

/// What each hook's panic becomes, as the model reads it.
async fn panicking(builder: RegistryBuilder, expected: &str) {
    let registry = build(builder);
    let (_subscription, events) = recorder(&registry);
    // In a spawned task, so an escaped panic would be a `JoinError`.
    let call = {
        let registry = registry.clone();
        tokio::spawn(async move {
            registry
                .call("write_file", json!({ "path": "/tmp/x" }))
                .await
        })
    };
    let result = call.await.expect("the panic stayed inside the call");
    assert!(result.is_error());
    assert_eq!(result.status(), Status::Error);
    assert_eq!(result.text(), expected);
    let logged = results(&events);
    assert_eq!(logged.len(), 1, "a result record follows the request");
    assert_eq!(logged[0].text(), expected);
}

fn approve_all() -> FnApprover<fn(&ApprovalRequest<'_>) -> Approval> {
    FnApprover(|_: &ApprovalRequest<'_>| Approval::Approve)
}

#[tokio::test]
async fn a_panicking_gate_denies() {
    panicking(
        Registry::builder()
            .gate(|_: &CallInfo<'_>| Decision::Allow)
            .gate(|_: &CallInfo<'_>| -> Decision { panic!("gate fault") }),
        "`write_file` cannot run: the pre-execute gate #2 panicked: gate fault",
    )
    .await;
}

#[tokio::test]
async fn a_panicking_guard_denies() {
    panicking(
        Registry::builder().guard(|_: &CallInfo<'_>| -> Tighten { panic!("guard fault") }),
        "`write_file` cannot run: the guard #1 panicked: guard fault",
    )
    .await;
}

#[tokio::test]
async fn a_panicking_approver_stops_the_call() {
    panicking(
        Registry::builder().approver(FnApprover(|_: &ApprovalRequest<'_>| -> Approval {
            panic!("approver fault")
        })),
        "`write_file` could not be approved: the approver panicked: approver fault",
    )
    .await;

    /// Panics while its answer is awaited, not when asked.
    struct Late;
    impl Approver for Late {
        fn approve<'a>(&'a self, _: ApprovalRequest<'a>) -> BoxFuture<'a, Approval> {
            Box::pin(async {
                tokio::task::yield_now().await;
                panic!("late fault")
            })
        }
    }
    panicking(
        Registry::builder().approver(Late),
        "`write_file` could not be approved: the approver panicked: late fault",
    )
    .await;
}

#[tokio::test]
async fn a_panicking_post_execute_hook_stops_the_call() {
    panicking(
        Registry::builder()
            .approver(approve_all())
            .post_execute(|_: &PostCall<'_>| -> PostOutcome { panic!("hook fault") }),
        "`write_file` was stopped after it ran: the post-execute hook #1 panicked: hook fault",
    )
    .await;
}

#[tokio::test]
async fn a_panicking_execute_layer_is_contained() {
    use dsh_kit::layer::ExecRequest;
    let registry = build(Registry::builder().approver(approve_all()).layer(
        tower::util::MapRequestLayer::new(|request: ExecRequest| {
            assert_ne!(request.args()["path"], "/boom", "layer fault");
            request
        }),
    ));
    let result = registry
        .call("write_file", json!({ "path": "/boom" }))
        .await;
    assert!(
        result
            .text()
            .starts_with("`write_file` panicked: an execute layer panicked: assertion `left != right` failed: layer fault"),
        "{}",
        result.text()
    );
    let result = registry
        .call("write_file", json!({ "path": "/fine" }))
        .await;
    assert_eq!(result.text(), "wrote /fine");
}

/// A path whose `Deserialize` panics on `"boom"`.
#[derive(JsonSchema)]
#[schemars(transparent)]
struct Fragile(String);

impl<'de> Deserialize<'de> for Fragile {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        assert_ne!(text, "boom", "cannot read boom");
        Ok(Fragile(text))
    }
}

#[derive(Deserialize, JsonSchema)]
struct FragileArgs {
    /// A path
    path: Fragile,
}

fn refuse_panics(args: &FragileArgs, _: &Exec) -> Validation {
    assert_ne!(args.path.0, "panic", "validate fault");
    Validation::Ok
}

/// Reads a fragile path.
#[tool(read_only, validate = refuse_panics, present = fragile_card)]
async fn fragile(args: FragileArgs) -> String {
    args.path.0
}

#[present]
fn fragile_card(_args: &FragileArgs, value: &String) -> Card {
    assert_ne!(value, "present", "present fault");
    Card::generic("fragile", json!({}), None)
}

#[tokio::test]
async fn panics_in_deserialize_validate_input_and_present_are_errors_naming_them() {
    let registry = Registry::new();
    registry.register::<fragile>().unwrap().keep();
    let (_subscription, events) = recorder(&registry);
    let call = |path: &str| registry.call("fragile", json!({ "path": path }));
    assert_eq!(
        call("boom").await.text(),
        "`fragile` could not read its arguments: their `Deserialize` impl panicked: assertion `left != right` failed: cannot read boom\n  left: \"boom\"\n right: \"boom\""
    );
    assert!(
        call("panic")
            .await
            .text()
            .starts_with("`fragile` could not check its arguments: its `validate_input` panicked: assertion `left != right` failed: validate fault")
    );
    assert!(
        call("present")
            .await
            .text()
            .starts_with("`fragile` could not present its output: the present panicked: assertion `left != right` failed: present fault")
    );
    assert_eq!(call("fine").await.text(), "fine");
    assert_eq!(results(&events).len(), 4);
}

// 3., 5. and 6. Bounded arguments and outputs; the log stays readable.

#[tokio::test]
async fn arguments_nested_too_deep_are_refused_before_the_log_sees_them() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("session.jsonl");
    let registry = build(Registry::builder());
    let log = SessionLog::open(&path).unwrap();
    let logging = registry.subscribe(log.subscriber());

    // At the limit: accepted, run, logged, and the log reads back.
    let at_limit = json!({ "value": nested(63) });
    let result = registry.call("echo", at_limit).await;
    assert!(!result.is_error(), "{}", result.text());
    // Just over it, and far over it, on this test thread's stack.
    for levels in [64, 10_000] {
        // Not `json!`, which would copy the value, recursively.
        let mut args = serde_json::Map::new();
        args.insert("value".into(), nested(levels));
        let result = registry.call("echo", Value::Object(args)).await;
        assert!(result.is_error());
        assert_eq!(
            result.text(),
            "invalid arguments for `echo`: the arguments are nested deeper than 64 levels of arrays and objects (the limit is 64)"
        );
    }
    drop(logging);
    let read = Log::read(&path).expect("every line of the log reads back");
    let requests: Vec<&Value> = read
        .records
        .iter()
        .filter_map(|line| match &line.record {
            Record::Request(request) => Some(&request.input),
            _ => None,
        })
        .collect();
    assert_eq!(requests.len(), 3);
    assert_eq!(
        requests[2],
        &json!(
            "(not recorded: the arguments are nested deeper than 64 levels of arrays and objects (the limit is 64))"
        )
    );
    assert_eq!(read.calls().len(), 3);
}

#[tokio::test]
async fn the_highest_depth_limit_still_logs_readable_records() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("session.jsonl");
    // Asked for 1,000; lowered to the highest the log can hold.
    let registry = build(
        Registry::builder()
            .max_arg_depth(1_000)
            .max_output_depth(1_000),
    );
    let log = SessionLog::open(&path).unwrap();
    let logging = registry.subscribe(log.subscriber());
    let result = registry
        .call(
            "echo",
            json!({ "value": nested(dsh_kit::limits::MAX_DEPTH - 1) }),
        )
        .await;
    assert!(!result.is_error(), "{}", result.text());
    let result = registry
        .call(
            "echo",
            json!({ "value": nested(dsh_kit::limits::MAX_DEPTH) }),
        )
        .await;
    assert!(result.is_error());
    drop(logging);
    let read = Log::read(&path).expect("the log reads back");
    assert_eq!(read.calls().len(), 2);
    assert!(read.calls()[0].executed.is_some());
}

#[tokio::test]
async fn an_output_nested_too_deep_is_an_error_not_a_stack_overflow() {
    let registry = build(Registry::builder());
    for levels in [65, 10_000] {
        let result = registry.call("deep", json!({ "levels": levels })).await;
        assert!(result.is_error());
        assert_eq!(
            result.text(),
            "`deep` returned an output nested deeper than 64 levels of arrays and objects (the limit is 64)"
        );
    }
    let result = registry.call("deep", json!({ "levels": 64 })).await;
    assert!(!result.is_error(), "{}", result.text());
}

#[tokio::test]
async fn arguments_and_outputs_over_the_size_limits_are_refused() {
    let registry = build(
        Registry::builder()
            .max_arg_bytes(1_000)
            .max_output_bytes(100),
    );
    let (_subscription, events) = recorder(&registry);
    let big = "x".repeat(2_000);
    let result = registry.call("echo", json!({ "value": big })).await;
    assert_eq!(
        result.text(),
        "invalid arguments for `echo`: the arguments are larger than 1000 bytes as JSON (the limit is 1000 bytes)"
    );
    let first = events.lock().unwrap()[0].clone();
    let Event::Request { input, .. } = first else {
        panic!("the request comes first");
    };
    assert!(input.as_str().unwrap().starts_with("(not recorded:"));

    let result = registry
        .call("echo", json!({ "value": "y".repeat(200) }))
        .await;
    assert_eq!(
        result.text(),
        "`echo` returned an output larger than 100 bytes as JSON (the limit is 100 bytes)"
    );
    // Arguments sent as a JSON string are measured too.
    let as_string = json!({ "value": "z".repeat(2_000) }).to_string();
    let result = registry.call("echo", Value::String(as_string)).await;
    assert!(
        result.text().contains("larger than 1000 bytes"),
        "{}",
        result.text()
    );
}

#[tokio::test]
async fn the_default_limits() {
    assert_eq!(dsh_kit::limits::DEFAULT_MAX_ARG_BYTES, 1024 * 1024);
    assert_eq!(dsh_kit::limits::DEFAULT_MAX_OUTPUT_BYTES, 16 * 1024 * 1024);
    assert_eq!(dsh_kit::limits::DEFAULT_MAX_DEPTH, 64);
    assert_eq!(
        dsh_kit::limits::DEFAULT_APPROVAL_TIMEOUT,
        Duration::from_secs(600)
    );
    let registry = build(Registry::builder());
    let result = registry
        .call("echo", json!({ "value": "x".repeat(1024 * 1024) }))
        .await;
    assert!(result.text().contains("larger than 1048576 bytes"));
}

// 4. Aliases are refused at registration.

#[derive(Deserialize, JsonSchema)]
struct AliasedArgs {
    /// The path
    #[serde(alias = "file")]
    path: String,
}

/// Reads a path that also goes by `file`.
#[tool]
async fn aliased(args: AliasedArgs) -> String {
    args.path
}

#[test]
fn a_serde_alias_is_refused_at_registration() {
    let registry = Registry::new();
    let error = registry.register::<aliased>().unwrap_err();
    assert!(
        matches!(&error, RegisterError::UnnamedField { tool, name } if tool == "aliased" && name == "file"),
        "{error:?}"
    );
    assert!(error.to_string().starts_with(
        "cannot register `aliased`: its arguments accept `file`, which the input schema does not name"
    ));
    assert!(registry.get("aliased").is_none());
}

// 10. The approval stage has a timeout; a dropped call leaves a result.

/// Never answers.
struct Silent;

impl Approver for Silent {
    fn approve<'a>(&'a self, _: ApprovalRequest<'a>) -> BoxFuture<'a, Approval> {
        Box::pin(std::future::pending())
    }
}

#[tokio::test]
async fn an_approver_that_never_answers_times_out() {
    let registry = build(
        Registry::builder()
            .approver(Silent)
            .approval_timeout(Duration::from_millis(20)),
    );
    let result = registry
        .call("write_file", json!({ "path": "/tmp/x" }))
        .await;
    assert_eq!(result.status(), Status::Timeout);
    assert_eq!(
        result.text(),
        "`write_file` was not run: its approval got no answer within 20 ms"
    );
}

#[tokio::test]
async fn a_dropped_call_still_records_a_result() {
    let registry = build(Registry::builder().approver(Silent));
    let (_subscription, events) = recorder(&registry);
    let call = ToolCall::new("write_file", json!({ "path": "/tmp/x" }));
    let id = call.id();
    let waited = tokio::time::timeout(Duration::from_millis(20), registry.call_with(call)).await;
    assert!(waited.is_err(), "the call was still waiting");
    let logged = results(&events);
    assert_eq!(logged.len(), 1);
    assert_eq!(logged[0].invocation_id, id);
    assert_eq!(logged[0].status(), Status::Cancelled);
    assert_eq!(
        logged[0].text(),
        "`write_file` was cancelled before it finished: the call was dropped"
    );
}

// 13. A huge unknown name is neither searched nor echoed whole.

#[tokio::test]
async fn a_huge_unknown_name_is_cut_short() {
    let registry = build(Registry::builder());
    let name = "write_fil".repeat(500_000);
    let result = registry.call(&name, json!({})).await;
    assert!(result.is_error());
    let text = result.text();
    assert!(text.len() < 300, "{} bytes", text.len());
    assert_eq!(text, format!("no tool named `{}…`", &name[..128]));
    assert!(registry.host().closest(&name).is_empty());
    // A near miss still gets its suggestion.
    assert_eq!(
        registry.call("write_fil", json!({})).await.text(),
        "no tool named `write_fil`; did you mean `write_file`?"
    );
}
