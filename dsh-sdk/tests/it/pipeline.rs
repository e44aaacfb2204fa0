//! Every stage of the pipeline and every fault path, with exact outcomes.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use dsh_kit::event::{Event, StreamType};
use dsh_kit::layer::RetryPolicy;
use dsh_kit::permission::{
    Approval, ApprovalRequest, CallInfo, Decision, FnApprover, PlanMode, Rule,
};
use dsh_kit::post_execute::{PostCall, PostDecision, PostOutcome};
use dsh_kit::prelude::*;
use dsh_kit::{Backoff, Registry};
use dsh_kit::{Status, ToolCall};
use tokio_util::sync::CancellationToken;

/// Run a shell command (pretend).
#[tool(destructive, aliases = ["sh"])]
async fn bash(
    /// The command line
    command: String,
) -> String {
    format!("ran {command}")
}

/// Read a file (pretend).
#[tool(read_only, concurrency_safe, aliases = ["cat"])]
async fn read_file(
    /// The path
    path: String,
) -> String {
    format!("read {path}")
}

/// Rejects paths outside /work.
fn inside_work(args: &CheckedReadArgs, _: &Exec) -> Validation {
    if args.path.starts_with("/work/") {
        Validation::Ok
    } else {
        Validation::invalid(format!("`{}` is outside /work", args.path), 7)
    }
}

/// Read a file under /work (pretend).
#[tool(read_only, validate = inside_work)]
async fn checked_read(
    /// The path
    path: String,
) -> String {
    format!("read {path}")
}

fn registry(builder: dsh_kit::RegistryBuilder) -> Registry {
    let registry = builder.build();
    registry.register::<bash>().unwrap();
    registry.register::<read_file>().unwrap();
    registry.register::<checked_read>().unwrap();
    registry
}

#[tokio::test]
async fn validate_input_reaches_the_model_with_its_code() {
    let registry = registry(Registry::builder());
    let result = registry
        .call("checked_read", json!({ "path": "/etc/passwd" }))
        .await;
    assert_eq!(
        result.text(),
        "invalid arguments for `checked_read` (code 7): `/etc/passwd` is outside /work"
    );
    let result = registry
        .call("checked_read", json!({ "path": "/work/a" }))
        .await;
    assert_eq!(result.text(), "read /work/a");
}

#[tokio::test]
async fn permission_matrix() {
    // (rules, tool called, args, expected text)
    let rm = json!({ "command": "rm -rf /" });
    let ls = json!({ "command": "ls" });
    let cases: Vec<(Vec<Rule>, &str, serde_json::Value, &str)> = vec![
        // defaults: destructive asks (no approver: denied), read-only runs
        (
            vec![],
            "bash",
            ls.clone(),
            "`bash` was denied: `bash` may destroy data, and no approver is set up to allow it; to let it run, give the registry an approver (`Registry::builder().approver(…)`), or allow it with a rule (`Rule::allow(\"bash\")`) where no rule asks for it",
        ),
        (vec![], "read_file", json!({ "path": "/a" }), "read /a"),
        // an allow rule waives the default ask, by name or through an alias
        (vec![Rule::allow("bash")], "bash", ls.clone(), "ran ls"),
        (vec![Rule::allow("sh")], "bash", ls.clone(), "ran ls"),
        (vec![Rule::allow("bash")], "sh", ls.clone(), "ran ls"),
        // deny beats allow; a pattern over one argument
        (
            vec![
                Rule::allow("bash"),
                Rule::deny("bash").when("command", "rm *").unwrap(),
            ],
            "bash",
            rm.clone(),
            "`bash` cannot run: denied by rule `deny bash(command: rm *)`",
        ),
        (
            vec![
                Rule::allow("bash"),
                Rule::deny("bash").when("command", "rm *").unwrap(),
            ],
            "sh",
            ls.clone(),
            "ran ls",
        ),
        (
            vec![
                Rule::allow("bash"),
                Rule::deny("sh").when("command", "rm *").unwrap(),
            ],
            "bash",
            rm.clone(),
            "`bash` cannot run: denied by rule `deny sh(command: rm *)`",
        ),
        // ask beats allow; deny beats ask
        (
            vec![Rule::allow("read_file"), Rule::ask("read_file")],
            "cat",
            json!({ "path": "/a" }),
            "`read_file` was denied: `read_file` needs approval by rule `ask read_file`, and no approver is set up to allow it; to let it run, give the registry an approver (`Registry::builder().approver(…)`), or allow it with a rule (`Rule::allow(\"read_file\")`) where no rule asks for it",
        ),
        (
            vec![Rule::allow("cat"), Rule::ask("cat"), Rule::deny("cat")],
            "read_file",
            json!({ "path": "/a" }),
            "`read_file` cannot run: denied by rule `deny cat`",
        ),
    ];
    for (index, (rules, tool, args, expected)) in cases.into_iter().enumerate() {
        let mut builder = Registry::builder();
        for rule in rules {
            builder = builder.rule(rule);
        }
        let registry = registry(builder);
        let result = registry.call(tool, args.clone()).await;
        assert_eq!(result.text(), expected, "case {index}: {tool} {args}");

        // The same decision holds for the call inside a batch.
        let batched = registry
            .call_batch(vec![ToolCall::new(tool, args.clone())])
            .await;
        assert_eq!(batched[0].text(), expected, "case {index} in a batch");
    }
}

#[tokio::test]
async fn gates_run_in_order_and_guards_only_tighten() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let (first, second) = (Arc::clone(&seen), Arc::clone(&seen));
    let registry = registry(
        Registry::builder()
            .gate(move |call: &CallInfo<'_>| {
                first.lock().unwrap().push(format!("first {}", call.tool));
                Decision::Allow
            })
            .gate(move |call: &CallInfo<'_>| {
                second.lock().unwrap().push(format!("second {}", call.tool));
                Decision::Allow
            })
            .guard(PlanMode),
    );
    let result = registry.call("read_file", json!({ "path": "/a" })).await;
    assert_eq!(result.text(), "read /a");
    assert_eq!(
        *seen.lock().unwrap(),
        ["first read_file", "second read_file"]
    );

    // An allow rule cannot get a non-read-only tool past plan mode.
    let registry = registry_with_plan_mode();
    let result = registry.call("bash", json!({ "command": "ls" })).await;
    assert_eq!(
        result.text(),
        "`bash` cannot run: plan mode: `bash` is not read-only; only read-only tools run in plan mode"
    );
}

fn registry_with_plan_mode() -> Registry {
    registry(
        Registry::builder()
            .rule(Rule::allow("bash"))
            .guard(PlanMode),
    )
}

#[tokio::test]
async fn the_approver_settles_ask_and_may_override_the_arguments() {
    let asked = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&asked);
    let registry = registry(Registry::builder().approver(FnApprover(
        move |request: &ApprovalRequest<'_>| {
            counter.fetch_add(1, Ordering::SeqCst);
            match request.args["command"].as_str() {
                Some("ls" | "ls -l") => Approval::Approve,
                Some("ls -la") => Approval::ApproveWith(json!({ "command": "ls -l" })),
                Some("oops") => Approval::ApproveWith(json!({ "command": 3 })),
                _ => Approval::Reject {
                    reason: "not today".into(),
                },
            }
        },
    )));
    let call = |command: &str| registry.call("bash", json!({ "command": command }));
    assert_eq!(call("ls").await.text(), "ran ls");
    assert_eq!(call("ls -la").await.text(), "ran ls -l");
    assert_eq!(
        call("oops").await.text(),
        "the approved arguments are invalid: invalid arguments for `bash`: /command: 3 is not of type \"string\""
    );
    assert_eq!(call("rm").await.text(), "`bash` was rejected: not today");
    // `ls -la` is asked about twice: the arguments that will run, `ls -l`,
    // are decided again, and `bash` asks by default.
    assert_eq!(asked.load(Ordering::SeqCst), 5);
}

/// Sleeps, ignoring its cancellation token.
#[tool(read_only, concurrency_safe, timeout_ms = 50)]
async fn sleepy(
    /// Milliseconds
    millis: u64,
) -> String {
    tokio::time::sleep(Duration::from_millis(millis)).await;
    "awake".into()
}

#[tokio::test]
async fn a_tool_timeout_and_a_registry_timeout_end_the_call_with_status_timeout() {
    let registry = Registry::builder().timeout(Duration::from_secs(5)).build();
    registry.register::<sleepy>().unwrap();
    let result = registry.call("sleepy", json!({ "millis": 10_000 })).await;
    assert_eq!(result.status(), Status::Timeout);
    assert!(result.is_error());
    assert_eq!(result.text(), "`sleepy` timed out after 50 ms");

    let registry = Registry::builder()
        .timeout(Duration::from_millis(20))
        .build();
    registry.register::<read_file>().unwrap();
    registry.register::<slow_read>().unwrap();
    let result = registry.call("slow_read", json!({})).await;
    assert_eq!(result.status(), Status::Timeout);
    assert_eq!(result.text(), "`slow_read` timed out after 20 ms");
}

/// A limit too far off to name an instant (`Duration::MAX`) never ends a
/// call, and never panics; a call that waits still finishes.
#[tokio::test]
async fn a_timeout_too_far_off_lets_the_call_finish() {
    let registry = Registry::builder().timeout(Duration::MAX).build();
    registry.register::<wait_a_little>().unwrap();
    let result = registry.call("wait_a_little", json!({})).await;
    assert_eq!(result.status(), Status::Success, "{}", result.text());
    assert_eq!(result.text(), "waited");
}

/// Waits a few milliseconds.
#[tool(read_only)]
async fn wait_a_little() -> String {
    tokio::time::sleep(Duration::from_millis(5)).await;
    "waited".into()
}

/// Takes a second.
#[tool(read_only)]
async fn slow_read() -> String {
    tokio::time::sleep(Duration::from_secs(1)).await;
    "done".into()
}

static FLAKY_CALLS: AtomicUsize = AtomicUsize::new(0);
static UNSAFE_CALLS: AtomicUsize = AtomicUsize::new(0);

/// Fails twice, then succeeds.
#[tool(idempotent)]
async fn flaky() -> Result<String, ToolError> {
    match FLAKY_CALLS.fetch_add(1, Ordering::SeqCst) {
        0 | 1 => Err(ToolError::new("try again")),
        n => Ok(format!("attempt {}", n + 1)),
    }
}

/// Always fails, and is neither idempotent nor read-only.
#[tool]
async fn not_retryable() -> Result<String, ToolError> {
    UNSAFE_CALLS.fetch_add(1, Ordering::SeqCst);
    Err(ToolError::new("nope"))
}

#[tokio::test]
async fn retries_only_idempotent_or_read_only_tools_and_counts_attempts() {
    let registry = Registry::builder().retry(RetryPolicy::new(3)).build();
    registry.register::<flaky>().unwrap();
    registry.register::<not_retryable>().unwrap();
    let result = registry.call("flaky", json!({})).await;
    assert_eq!(result.text(), "attempt 3");
    assert_eq!(FLAKY_CALLS.load(Ordering::SeqCst), 3);

    let result = registry.call("not_retryable", json!({})).await;
    assert_eq!(result.text(), "`not_retryable` failed: nope");
    assert_eq!(UNSAFE_CALLS.load(Ordering::SeqCst), 1);
}

static STUBBORN_CALLS: AtomicUsize = AtomicUsize::new(0);

/// Fails every time.
#[tool(read_only)]
async fn stubborn() -> Result<String, ToolError> {
    STUBBORN_CALLS.fetch_add(1, Ordering::SeqCst);
    Err(ToolError::new("still broken"))
}

#[tokio::test]
async fn retry_gives_up_after_max_attempts_and_respects_its_predicate() {
    let registry = Registry::builder().retry(RetryPolicy::new(4)).build();
    registry.register::<stubborn>().unwrap();
    let result = registry.call("stubborn", json!({})).await;
    assert_eq!(result.text(), "`stubborn` failed: still broken");
    assert_eq!(STUBBORN_CALLS.load(Ordering::SeqCst), 4);

    let registry = Registry::builder()
        .retry(RetryPolicy::new(4).retry_on(|_| false))
        .build();
    registry.register::<stubborn>().unwrap();
    registry.call("stubborn", json!({})).await;
    assert_eq!(STUBBORN_CALLS.load(Ordering::SeqCst), 5);
}

static PACED: Mutex<Vec<Instant>> = Mutex::new(Vec::new());

/// Fails every time, noting when it ran.
#[tool(read_only)]
async fn paced() -> Result<String, ToolError> {
    PACED.lock().unwrap().push(Instant::now());
    Err(ToolError::new("not yet"))
}

#[tokio::test]
async fn retries_wait_the_backoff_between_attempts() {
    let backoff = Backoff::new(Duration::from_millis(40), Duration::from_millis(60));
    let registry = Registry::builder()
        .retry(RetryPolicy::new(4).backoff(backoff))
        .build();
    registry.register::<paced>().unwrap();
    let result = registry.call("paced", json!({})).await;
    assert_eq!(result.text(), "`paced` failed: not yet");
    let ran = PACED.lock().unwrap().clone();
    assert_eq!(ran.len(), 4);
    let gaps: Vec<Duration> = ran.windows(2).map(|two| two[1] - two[0]).collect();
    // At least half of 40 ms, then of 80 ms capped at 60 ms, twice.
    let least = [20, 30, 30].map(Duration::from_millis);
    for (gap, least) in gaps.iter().zip(least) {
        assert!(*gap >= least, "{gaps:?}");
    }
}

static SPARED_CALLS: AtomicUsize = AtomicUsize::new(0);

/// Fails every time.
#[tool(idempotent)]
async fn spared() -> Result<String, ToolError> {
    SPARED_CALLS.fetch_add(1, Ordering::SeqCst);
    Err(ToolError::new("no"))
}

#[tokio::test]
async fn a_backoff_bounds_the_retries_too() {
    let registry = Registry::builder()
        .retry(RetryPolicy::new(5).backoff(Backoff::never()))
        .build();
    registry.register::<spared>().unwrap();
    registry.call("spared", json!({})).await;
    assert_eq!(SPARED_CALLS.load(Ordering::SeqCst), 1);

    let backoff = Backoff::new(Duration::from_millis(1), Duration::from_millis(1)).max_attempts(2);
    let registry = Registry::builder()
        .retry(RetryPolicy::new(5).backoff(backoff))
        .build();
    registry.register::<spared>().unwrap();
    registry.call("spared", json!({})).await;
    // The first attempt and the backoff's two retries.
    assert_eq!(SPARED_CALLS.load(Ordering::SeqCst), 4);
}

static DROPPED: AtomicUsize = AtomicUsize::new(0);

struct CountDrop;
impl Drop for CountDrop {
    fn drop(&mut self) {
        DROPPED.fetch_add(1, Ordering::SeqCst);
    }
}

/// Never finishes and never looks at its token.
#[tool(read_only, concurrency_safe)]
async fn forever() -> String {
    let _guard = CountDrop;
    std::future::pending::<()>().await;
    unreachable!()
}

#[tokio::test]
async fn cancelling_a_call_drops_a_tool_that_ignores_its_token() {
    let registry = Registry::new();
    registry.register::<forever>().unwrap();
    let token = CancellationToken::new();
    let call = ToolCall::new("forever", json!({})).cancel_on(token.clone());
    let canceller = tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(30)).await;
        token.cancel();
    });
    let result = registry.call_with(call).await;
    canceller.await.unwrap();
    assert_eq!(result.status(), Status::Cancelled);
    assert_eq!(result.text(), "`forever` was cancelled before it finished");
    assert_eq!(
        DROPPED.load(Ordering::SeqCst),
        1,
        "the tool's future was not dropped"
    );

    // A whole batch.
    let batch = CancellationToken::new();
    let cancel = batch.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(30)).await;
        cancel.cancel();
    });
    let results = registry
        .host()
        .call_batch_with(
            vec![
                ToolCall::new("forever", json!({})),
                ToolCall::new("forever", json!({})),
            ],
            batch,
        )
        .await;
    assert!(results.iter().all(|r| r.status() == Status::Cancelled));
    assert_eq!(DROPPED.load(Ordering::SeqCst), 3);
}

/// The tokens the `watcher` tool saw, for the test to check after the call.
#[derive(Default)]
struct SeenTokens(Mutex<Vec<CancellationToken>>);

/// Keeps its call's token where the test can see it, then waits forever.
#[tool(read_only, concurrency_safe)]
async fn watcher(exec: &Exec) -> String {
    if let Ok(seen) = exec.state::<Arc<SeenTokens>>() {
        seen.0.lock().unwrap().push(exec.cancellation().clone());
    }
    std::future::pending::<()>().await;
    unreachable!()
}

#[tokio::test]
async fn cancelling_a_batch_cancels_the_token_each_tool_holds() {
    let seen = Arc::new(SeenTokens::default());
    let registry = Registry::builder().state(Arc::clone(&seen)).build();
    registry.register::<watcher>().unwrap();

    let own = CancellationToken::new();
    let batch = CancellationToken::new();
    let cancel = batch.clone();
    let seen_by_canceller = Arc::clone(&seen);
    tokio::spawn(async move {
        // Cancel once both tools hold their tokens.
        while seen_by_canceller.0.lock().unwrap().len() < 2 {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        cancel.cancel();
    });
    let calls = vec![
        ToolCall::new("watcher", json!({})),
        ToolCall::new("watcher", json!({})).cancel_on(own.clone()),
    ];
    let results = tokio::time::timeout(
        Duration::from_secs(10),
        registry.host().call_batch_with(calls, batch),
    )
    .await
    .expect("the batch was never cancelled: the tools did not record their tokens");
    assert!(results.iter().all(|r| r.status() == Status::Cancelled));
    let tokens = seen.0.lock().unwrap();
    assert_eq!(tokens.len(), 2);
    assert!(
        tokens.iter().all(CancellationToken::is_cancelled),
        "a tool's own token did not see the batch's cancellation"
    );
    assert!(
        own.is_cancelled(),
        "the host's token of the call was not cancelled with the batch"
    );
}

/// A percentage that should be at most 100.
#[derive(Serialize, Deserialize, JsonSchema)]
struct Score {
    #[schemars(range(max = 100))]
    percent: u32,
}

/// Scores.
#[tool]
async fn score(
    /// The score to return
    percent: u32,
) -> Score {
    Score { percent }
}

fn score_registry(hook: impl dsh_kit::post_execute::PostExecute) -> Registry {
    let registry = Registry::builder().post_execute(hook).build();
    registry.register::<score>().unwrap();
    registry
}

#[tokio::test]
async fn post_execute_decisions() {
    let pass = score_registry(|_: &PostCall<'_>| {
        PostOutcome::pass().with_context(ContentBlock::text("note: scores are rounded"))
    });
    let result = pass.call("score", json!({ "percent": 40 })).await;
    assert_eq!(result.text(), "{\"percent\":40}\nnote: scores are rounded");

    let content = score_registry(|_: &PostCall<'_>| {
        PostDecision::AcceptContent(vec![ContentBlock::text("a good score")]).into()
    });
    let result = content.call("score", json!({ "percent": 40 })).await;
    assert_eq!(result.text(), "a good score");
    assert_eq!(
        result.value,
        Some(json!({ "percent": 40 })),
        "the value stays"
    );

    let value = score_registry(|call: &PostCall<'_>| {
        PostDecision::AcceptValue(json!({ "percent": call.value["percent"].as_u64().unwrap() / 2 }))
            .into()
    });
    let result = value.call("score", json!({ "percent": 40 })).await;
    assert_eq!(
        result.text(),
        "{\"percent\":20}",
        "render runs again on the new value"
    );
    assert_eq!(result.value, Some(json!({ "percent": 20 })));
    let card = serde_json::to_value(result.card().unwrap()).unwrap();
    assert_eq!(
        card["output"],
        json!({ "percent": 20 }),
        "present runs again too"
    );

    let invalid = score_registry(|_: &PostCall<'_>| {
        PostDecision::AcceptValue(json!({ "percent": 900 })).into()
    });
    let result = invalid.call("score", json!({ "percent": 40 })).await;
    assert_eq!(
        result.text(),
        "a post-execute hook replaced the value: `score` returned an output that breaks its schema: /percent: 900 is greater than the maximum of 100"
    );

    let block = score_registry(|_: &PostCall<'_>| {
        PostDecision::Block {
            feedback: "scores over 30 need a reason".into(),
        }
        .into()
    });
    let result = block.call("score", json!({ "percent": 40 })).await;
    assert!(result.is_error());
    assert_eq!(result.value, None);
    assert_eq!(
        result.text(),
        "`score` was blocked: scores over 30 need a reason"
    );
}

#[tokio::test]
async fn an_invalid_output_is_an_error_naming_the_field() {
    let registry = Registry::new();
    registry.register::<score>().unwrap();
    let result = registry.call("score", json!({ "percent": 101 })).await;
    assert!(result.is_error());
    assert_eq!(result.value, None);
    assert_eq!(
        result.text(),
        "`score` returned an output that breaks its schema: /percent: 101 is greater than the maximum of 100"
    );
}

/// Repeats a letter.
#[tool(read_only)]
async fn repeat(
    /// How many times
    times: usize,
) -> String {
    "é".repeat(times)
}

/// Repeats a letter, capping its own output.
#[tool(read_only, max_result_chars = 1_000_000)]
async fn repeat_capped(
    /// How many times
    times: usize,
) -> String {
    "é".repeat(times)
}

/// A registry whose results over 100 characters spill to `spill_dir`,
/// previewing 10.
fn spilling_over_100_chars(spill_dir: &std::path::Path) -> Registry {
    Registry::builder()
        .max_result_chars(100)
        .spill_dir(spill_dir)
        .spill_preview_chars(10)
        .build()
}

#[tokio::test]
async fn oversized_content_spills_to_a_file_named_by_the_invocation_id() {
    let dir = tempfile::tempdir().unwrap();
    let spill_dir = dir.path().join("spill");
    let registry = spilling_over_100_chars(&spill_dir);
    registry.register::<repeat>().unwrap();
    registry.register::<repeat_capped>().unwrap();

    let small = registry.call("repeat", json!({ "times": 100 })).await;
    assert!(!small.truncated);
    assert_eq!(small.text(), "é".repeat(100));

    let result = registry.call("repeat", json!({ "times": 500 })).await;
    assert!(result.truncated);
    assert!(!result.is_error());
    let path = spill_dir.join(format!("{}.txt", result.invocation_id));
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "é".repeat(500));
    assert_eq!(
        result.text(),
        format!(
            "Output too large (500 characters); the full output was saved to {}. Preview (first 10 characters):\n{}",
            path.display(),
            "é".repeat(10)
        )
    );
    assert_eq!(
        result.value,
        Some(json!("é".repeat(500))),
        "the value is whole"
    );
    let entries: Vec<_> = std::fs::read_dir(&spill_dir).unwrap().collect();
    assert_eq!(entries.len(), 1, "no temporary file is left behind");

    let capped = registry
        .call("repeat_capped", json!({ "times": 500 }))
        .await;
    assert!(!capped.truncated, "a tool's own limit wins");
}

/// What `repeat_json` returns.
#[derive(Serialize, Deserialize, JsonSchema)]
struct Repeated {
    text: String,
}

/// Repeats a letter, as JSON.
#[tool(read_only)]
async fn repeat_json(
    /// How many times
    times: usize,
) -> Repeated {
    Repeated {
        text: "é".repeat(times),
    }
}

/// The default rendering of a value that is not a string is its JSON: it
/// spills as that text does, counted in characters, at the limit exactly.
#[tokio::test]
async fn a_json_value_over_the_limit_spills_its_rendering() {
    let dir = tempfile::tempdir().unwrap();
    let spill_dir = dir.path().join("spill");
    let registry = spilling_over_100_chars(&spill_dir);
    registry.register::<repeat_json>().unwrap();
    // `{"text":"…"}` is 11 characters around the letters.
    let at_limit = registry.call("repeat_json", json!({ "times": 89 })).await;
    assert!(!at_limit.truncated);
    let json = format!(r#"{{"text":"{}"}}"#, "é".repeat(89));
    assert_eq!(at_limit.text(), json);
    assert_eq!(at_limit.content(), [ContentBlock::text(json)]);

    let over = registry.call("repeat_json", json!({ "times": 90 })).await;
    assert!(over.truncated);
    let path = spill_dir.join(format!("{}.txt", over.invocation_id));
    let json = format!(r#"{{"text":"{}"}}"#, "é".repeat(90));
    assert_eq!(std::fs::read_to_string(&path).unwrap(), json);
    assert!(
        over.text().starts_with("Output too large (101 characters)"),
        "{}",
        over.text()
    );
    assert_eq!(over.value, Some(json!({ "text": "é".repeat(90) })));
}

#[tokio::test]
async fn a_failed_spill_keeps_the_value_and_the_preview() {
    let dir = tempfile::tempdir().unwrap();
    let not_a_dir = dir.path().join("file");
    std::fs::write(&not_a_dir, "").unwrap();
    let registry = Registry::builder()
        .max_result_chars(10)
        .spill_preview_chars(5)
        .spill_dir(&not_a_dir)
        .build();
    registry.register::<repeat>().unwrap();
    let result = registry.call("repeat", json!({ "times": 50 })).await;
    assert!(!result.is_error(), "{}", result.text());
    assert_eq!(result.status(), Status::Success);
    assert!(result.truncated);
    assert_eq!(
        result.value,
        Some(json!("é".repeat(50))),
        "the value is whole"
    );
    let text = result.text();
    assert!(
        text.starts_with(
            "Output too large (50 characters, over the limit of 10), and the full output could not be saved: could not create the spill directory "
        ),
        "{text}"
    );
    assert!(
        text.ends_with(". Preview (first 5 characters):\nééééé"),
        "{text}"
    );
}

/// Streams its work.
#[tool(read_only)]
async fn chatty(exec: &Exec) -> String {
    exec.progress("starting");
    exec.stdout("line 1\n");
    exec.stderr("warning\n");
    "done".into()
}

#[tokio::test]
async fn subscribers_observe_requests_stream_chunks_and_every_result() {
    let registry = Registry::new();
    registry.register::<chatty>().unwrap();
    let events = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&events);
    let subscription =
        registry.subscribe(move |event: &Event| sink.lock().unwrap().push(event.clone()));

    let ok = registry.call("chatty", json!({})).await;
    let bad = registry.call("chatty", json!([])).await;
    let seen = Arc::clone(&events);
    let events = events.lock().unwrap().clone();
    // ok: request, running, 3 chunks, executed, result; bad: request, result.
    assert_eq!(events.len(), 9);
    let chunks: Vec<(StreamType, String, u64)> = events
        .iter()
        .filter_map(|event| match event {
            Event::Stream(chunk) => {
                assert_eq!(chunk.invocation_id, ok.invocation_id);
                Some((chunk.stream_type, chunk.chunk.clone(), chunk.sequence))
            }
            _ => None,
        })
        .collect();
    assert_eq!(
        chunks,
        [
            (StreamType::Progress, "starting".to_owned(), 0),
            (StreamType::Stdout, "line 1\n".to_owned(), 1),
            (StreamType::Stderr, "warning\n".to_owned(), 2),
        ]
    );
    let results: Vec<&dsh_kit::ToolResult> = events
        .iter()
        .filter_map(|event| match event {
            Event::Result(result) => Some(result.as_ref()),
            _ => None,
        })
        .collect();
    assert_eq!(results, [&ok, &bad]);
    assert!(matches!(&events[0], Event::Request { tool_name, .. } if tool_name == "chatty"));

    drop(subscription);
    registry.call("chatty", json!({})).await;
    assert_eq!(
        seen.lock().unwrap().len(),
        9,
        "an unsubscribed subscriber still hears events"
    );
}

#[test]
fn no_guard_can_loosen_a_decision() {
    use dsh_kit::permission::Tighten;
    let decisions = [
        Decision::Allow,
        Decision::Ask { prompt: "p".into() },
        Decision::Deny { reason: "r".into() },
    ];
    let tightenings = [
        Tighten::Keep,
        Tighten::Ask { prompt: "q".into() },
        Tighten::Deny { reason: "s".into() },
    ];
    let rank = |d: &Decision| match d {
        Decision::Allow => 0,
        Decision::Ask { .. } => 1,
        Decision::Deny { .. } => 2,
    };
    for decision in &decisions {
        for tighten in &tightenings {
            let after = decision.clone().tighten(tighten.clone());
            assert!(
                rank(&after) >= rank(decision),
                "{decision:?} loosened by {tighten:?}"
            );
        }
    }
}

#[tokio::test]
async fn any_tower_middleware_composes_with_the_execute_stage() {
    use dsh_kit::layer::ExecRequest;

    // A host layer sees every request (tool name, attempt) before it runs...
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = Arc::clone(&seen);
    // ...and tower's own concurrency limit makes safe calls of a batch wait their turn.
    let registry = Registry::builder()
        .layer(tower::util::MapRequestLayer::new(
            move |request: ExecRequest| {
                log.lock().unwrap().push(format!(
                    "{}#{}",
                    request.tool().name(),
                    request.attempt()
                ));
                request
            },
        ))
        .layer(tower::limit::ConcurrencyLimitLayer::new(1))
        .build();
    registry.register::<sleepy>().unwrap();

    let started = Instant::now();
    let results = registry
        .call_batch(
            (0..3)
                .map(|_| ToolCall::new("sleepy", json!({ "millis": 30 })))
                .collect(),
        )
        .await;
    let elapsed = started.elapsed();
    assert!(results.iter().all(|r| r.text() == "awake"));
    assert!(
        elapsed >= Duration::from_millis(90),
        "three 30 ms calls under a limit of 1 took {elapsed:?}: they overlapped"
    );
    assert_eq!(*seen.lock().unwrap(), ["sleepy#1", "sleepy#1", "sleepy#1"]);
}
