//! Replay: content and cards projected again from the log, byte for byte.

// The contract fixes the projections' parameter types: `&Output` is `&String` here.
#![allow(clippy::ptr_arg)]

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use dsh_kit::Registry;
use dsh_kit::card::{ReadCard, TerminalCard};
use dsh_kit::log::replay::{Field, Outcome, Skip, replay};
use dsh_kit::log::{Log, SessionLog};
use dsh_kit::permission::{Approval, FnApprover, Rule};
use dsh_kit::post_execute::{PostCall, PostDecision, PostOutcome};
use dsh_kit::prelude::*;
use dsh_kit::{RegistryBuilder, Status, ToolCall};
use serde_json::Value;

/// Greet someone by name.
#[tool(read_only, concurrency_safe)]
async fn greet(
    /// The name to greet
    name: String,
) -> String {
    format!("Hello, {name}!")
}

/// Measures of a number.
#[derive(Serialize, Deserialize, JsonSchema)]
struct Measures {
    third: f64,
    sum: f64,
    tiny: f64,
    huge: f64,
    ratio: f32,
}

/// Float arithmetic whose digits must survive the log.
#[tool(read_only, render = measures_text, present = measures_card)]
async fn measure(
    /// Any number
    x: f64,
) -> Measures {
    Measures {
        third: x / 3.0,
        sum: 0.1 + x,
        tiny: x * 1e-300,
        huge: x * 1e300,
        ratio: (x / 7.0) as f32,
    }
}

#[render]
fn measures_text(_args: &MeasureArgs, value: &Measures) -> Vec<ContentBlock> {
    vec![ContentBlock::text(format!(
        "{} {} {:e} {:e} {}",
        value.third, value.sum, value.tiny, value.huge, value.ratio
    ))]
}

#[present]
fn measures_card(args: &MeasureArgs, value: &Measures) -> Card {
    Card::Read(ReadCard::new(args.x.to_string(), value.third.to_string()))
}

/// Run a command (pretend), with a card while it runs.
#[tool(present_call = shell_running, present = shell_card)]
async fn shell(
    /// The command line
    command: String,
) -> String {
    format!("ran {command}\n")
}

#[present]
fn shell_running(args: &ShellArgs) -> Card {
    Card::from(TerminalCard::new(args.command.clone()))
}

#[present]
fn shell_card(args: &ShellArgs, value: &String) -> Card {
    Card::from(
        TerminalCard::new(args.command.clone())
            .stdout(value.clone())
            .exit_code(0),
    )
}

/// Repeat a word many times.
#[tool(read_only, max_result_chars = 100)]
async fn repeat(
    /// The word
    word: String,
    /// How many times
    times: u32,
) -> String {
    (0..times)
        .map(|_| word.as_str())
        .collect::<Vec<_>>()
        .join(" ")
}

static RENDERS: AtomicUsize = AtomicUsize::new(0);
static PRESENTS: AtomicUsize = AtomicUsize::new(0);
static RUNNING: AtomicUsize = AtomicUsize::new(0);

fn next(counter: &AtomicUsize) -> usize {
    counter.fetch_add(1, Ordering::Relaxed)
}

/// A tool whose render, present and running card count their calls: impure.
#[tool(read_only, render = counted_text, present = counted_card, present_call = counted_running)]
async fn counted(
    /// Anything
    word: String,
) -> String {
    word
}

#[render]
fn counted_text(_args: &CountedArgs, value: &String) -> Vec<ContentBlock> {
    vec![ContentBlock::text(format!("{value} #{}", next(&RENDERS)))]
}

#[present]
fn counted_card(_args: &CountedArgs, value: &String) -> Card {
    Card::generic(format!("{value} #{}", next(&PRESENTS)), json!({}), None)
}

#[present]
fn counted_running(_args: &CountedArgs) -> Card {
    Card::generic(format!("running #{}", next(&RUNNING)), json!({}), None)
}

/// A tool whose render panics on some values.
#[tool(read_only, render = fragile_text)]
async fn fragile(
    /// Anything
    word: String,
) -> String {
    word
}

#[render]
fn fragile_text(_args: &FragileArgs, value: &String) -> Vec<ContentBlock> {
    assert!(value != "boom", "cannot render `{value}`");
    vec![ContentBlock::text(value.clone())]
}

/// Sleep (too long, for the timeout).
#[tool(read_only, timeout_ms = 20)]
async fn sleepy() -> String {
    tokio::time::sleep(Duration::from_secs(5)).await;
    "awake".into()
}

fn register(registry: &Registry) {
    registry.register::<greet>().unwrap();
    registry.register::<measure>().unwrap();
    registry.register::<shell>().unwrap();
    registry.register::<repeat>().unwrap();
    registry.register::<counted>().unwrap();
    registry.register::<fragile>().unwrap();
    registry.register::<sleepy>().unwrap();
}

fn builder(spill: &Path) -> RegistryBuilder {
    Registry::builder().spill_dir(spill).spill_preview_chars(30)
}

fn registry(spill: &Path) -> Registry {
    let registry = builder(spill).build();
    register(&registry);
    registry
}

/// Runs `calls` through `registry` into a fresh log and reads it back.
async fn logged(registry: &Registry, dir: &Path, calls: Vec<(&str, Value)>) -> Log {
    let path = dir.join("session.jsonl");
    let log = SessionLog::open(&path).unwrap();
    let logging = registry.subscribe(log.subscriber());
    for (name, args) in calls {
        registry.call(name, args).await;
    }
    drop(logging);
    assert!(log.take_error().is_none());
    Log::read(&path).unwrap()
}

#[tokio::test]
async fn pure_projections_replay_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    let registry = registry(&dir.path().join("spill"));
    let mut calls: Vec<(&str, Value)> = Vec::new();
    for x in [
        1.0,
        0.1,
        -2.5e-7,
        std::f64::consts::PI,
        1.0 / 3.0,
        123_456_789.123_456_79,
    ] {
        calls.push(("measure", json!({ "x": x })));
    }
    for name in ["Ada", "語🦀", "\"quoted\"\n"] {
        calls.push(("greet", json!({ "name": name })));
        calls.push(("shell", json!({ "command": format!("echo {name}") })));
    }
    let log = logged(&registry, dir.path(), calls).await;
    let report = replay(&registry, &log);
    assert!(!report.has_differences(), "{report}");
    assert_eq!(report.summary().identical, 12, "{report}");
    // The card shown while it ran was checked too.
    let shell = log.calls().into_iter().find(|c| c.tool_name() == "shell");
    assert_eq!(shell.unwrap().running.unwrap().kind(), "terminal");
}

#[tokio::test]
async fn an_impure_render_present_and_running_card_are_caught() {
    let dir = tempfile::tempdir().unwrap();
    let registry = registry(&dir.path().join("spill"));
    let calls = (0..3)
        .map(|_| ("counted", json!({ "word": "same" })))
        .collect();
    let log = logged(&registry, dir.path(), calls).await;

    let report = replay(&registry, &log);
    assert!(report.has_differences());
    assert_eq!(report.summary().differing, 3);
    for call in &report.calls {
        let Outcome::Differs(differences) = &call.outcome else {
            panic!("{call}")
        };
        let fields: Vec<Field> = differences.iter().map(|d| d.field).collect();
        assert_eq!(fields, [Field::RunningCard, Field::Content, Field::Card]);
        assert_eq!(call.tool_name, "counted");
    }
    let (call, content) = report
        .differences()
        .find(|(_, d)| d.field == Field::Content)
        .unwrap();
    assert_eq!(call.line, 1);
    assert!(content.expected.ends_with(r##"same #0"}]"##), "{content:?}");
    assert!(content.actual.ends_with(r##"same #3"}]"##), "{content:?}");
    let text = report.to_string();
    assert!(
        text.contains(&format!(
            "line 1 `counted` {}: differs in running_card, content, card\n",
            call.invocation_id
        )),
        "{text}"
    );
    assert!(
        text.contains("    content differs at byte 30: expected `…"),
        "{text}"
    );
    assert!(
        text.ends_with("0 identical, 3 differing, 0 unknown tool, 0 skipped"),
        "{text}"
    );
}

#[tokio::test]
async fn a_render_that_panicked_gives_the_same_error_on_replay() {
    let dir = tempfile::tempdir().unwrap();
    let registry = registry(&dir.path().join("spill"));
    let log = logged(
        &registry,
        dir.path(),
        vec![
            ("fragile", json!({ "word": "boom" })),
            ("fragile", json!({ "word": "fine" })),
        ],
    )
    .await;
    let calls = log.calls();
    let live = calls[0].result.as_ref().unwrap();
    assert!(live.is_error());
    assert_eq!(
        live.text(),
        "`fragile` could not render its output: the render panicked: cannot render `boom`"
    );
    assert!(calls[0].executed.is_some());

    let report = replay(&registry, &log);
    assert_eq!(report.calls[0].outcome, Outcome::Identical, "{report}");
    assert_eq!(report.calls[1].outcome, Outcome::Identical, "{report}");
    // And again: the error text does not depend on the run.
    assert_eq!(replay(&registry, &log), report);
}

#[tokio::test]
async fn a_tool_the_registry_lacks_is_reported_per_call() {
    let dir = tempfile::tempdir().unwrap();
    let registry = registry(&dir.path().join("spill"));
    let log = logged(
        &registry,
        dir.path(),
        vec![
            ("shell", json!({ "command": "ls" })),
            ("greet", json!({ "name": "Ada" })),
        ],
    )
    .await;
    let smaller = Registry::new();
    smaller.register::<greet>().unwrap();

    let report = replay(&smaller, &log);
    assert_eq!(report.calls[0].outcome, Outcome::UnknownTool);
    assert_eq!(report.calls[0].tool_name, "shell");
    assert_eq!(report.calls[1].outcome, Outcome::Identical);
    assert!(!report.has_differences());
    assert_eq!(report.summary().unknown_tool, 1);
    assert!(
        report.calls[0]
            .to_string()
            .ends_with("not replayed: the registry has no such tool")
    );
}

#[tokio::test]
async fn calls_that_never_executed_are_skipped() {
    let dir = tempfile::tempdir().unwrap();
    let spill = dir.path().join("spill");
    let registry = builder(&spill)
        .rule(Rule::deny("shell").when("command", "rm *").unwrap())
        .build();
    register(&registry);
    let log = logged(
        &registry,
        dir.path(),
        vec![
            ("greet", json!({ "name": 42 })),
            ("no_such_tool", json!({})),
            ("shell", json!({ "command": "rm -rf /" })),
            ("sleepy", json!({})),
            ("greet", json!({ "name": "Ada" })),
        ],
    )
    .await;
    let report = replay(&registry, &log);
    let outcomes: Vec<&Outcome> = report.calls.iter().map(|call| &call.outcome).collect();
    let not_executed = |status| Outcome::Skipped(Skip::NotExecuted { status });
    assert_eq!(
        outcomes,
        [
            &not_executed(Status::Error),
            &not_executed(Status::Error),
            &not_executed(Status::Error),
            &not_executed(Status::Timeout),
            &Outcome::Identical,
        ]
    );
    assert_eq!(report.calls[1].tool_name, "no_such_tool");
    assert!(
        report.calls[3]
            .to_string()
            .ends_with("skipped: never executed (status timeout)")
    );
    assert!(!report.has_differences());
}

#[tokio::test]
async fn a_log_that_ends_mid_call_skips_that_call() {
    let dir = tempfile::tempdir().unwrap();
    let registry = registry(&dir.path().join("spill"));
    let log = logged(
        &registry,
        dir.path(),
        vec![("greet", json!({ "name": "Ada" }))],
    )
    .await;
    let text = fs::read_to_string(&log.path).unwrap();
    let without_result: Vec<&str> = text.lines().filter(|l| !l.contains("\"result\"")).collect();
    let cut = Log::parse("cut.jsonl", without_result.join("\n").as_bytes()).unwrap();
    let report = replay(&registry, &cut);
    assert_eq!(report.calls[0].outcome, Outcome::Skipped(Skip::NoResult));
}

/// The spill file of the first call of `log`.
fn spill_path(spill: &Path, log: &Log) -> PathBuf {
    spill.join(format!("{}.txt", log.calls()[0].invocation_id))
}

#[tokio::test]
async fn a_spilled_result_replays_its_message_and_checks_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let spill = dir.path().join("spill");
    let registry = registry(&spill);
    let log = logged(
        &registry,
        dir.path(),
        vec![("repeat", json!({ "word": "lorem", "times": 100 }))],
    )
    .await;
    let live = log.calls()[0].result.clone().unwrap();
    assert!(live.truncated);
    assert!(live.text().starts_with("Output too large (599 characters)"));

    let report = replay(&registry, &log);
    assert_eq!(report.calls[0].outcome, Outcome::Identical, "{report}");
    let file = report.calls[0].spill_file.clone().unwrap();
    assert_eq!(file.path, spill_path(&spill, &log));
    assert!(file.found);

    // A spill file that no longer holds the render is a difference.
    fs::write(&file.path, "something else").unwrap();
    let report = replay(&registry, &log);
    let Outcome::Differs(differences) = &report.calls[0].outcome else {
        panic!("{report}")
    };
    assert_eq!(differences.len(), 1);
    assert_eq!(differences[0].field, Field::SpillFile);
    assert_eq!(differences[0].expected, "something else");

    // One cleaned away is only noted.
    fs::remove_file(&file.path).unwrap();
    let report = replay(&registry, &log);
    assert_eq!(report.calls[0].outcome, Outcome::Identical);
    assert!(!report.calls[0].spill_file.as_ref().unwrap().found);
}

#[tokio::test]
async fn replaying_with_other_spill_settings_shows_in_the_content() {
    let dir = tempfile::tempdir().unwrap();
    let live = registry(&dir.path().join("spill"));
    let log = logged(
        &live,
        dir.path(),
        vec![("repeat", json!({ "word": "lorem", "times": 100 }))],
    )
    .await;
    let elsewhere = registry(&dir.path().join("elsewhere"));
    let report = replay(&elsewhere, &log);
    let fields: Vec<Field> = report.differences().map(|(_, d)| d.field).collect();
    assert_eq!(fields, [Field::Content]);
}

#[tokio::test]
async fn a_spill_that_failed_at_call_time_is_skipped() {
    let dir = tempfile::tempdir().unwrap();
    let blocked = dir.path().join("not-a-dir");
    fs::write(&blocked, "a file where the spill directory should be").unwrap();
    let registry = registry(&blocked);
    let log = logged(
        &registry,
        dir.path(),
        vec![("repeat", json!({ "word": "lorem", "times": 100 }))],
    )
    .await;
    assert!(
        log.calls()[0]
            .result
            .as_ref()
            .unwrap()
            .text()
            .contains("could not be saved")
    );
    let report = replay(&registry, &log);
    assert_eq!(report.calls[0].outcome, Outcome::Skipped(Skip::SpillFailed));
    // The log says so in a record of its own, with why.
    let failed = log.calls()[0].spill_failed.clone().unwrap();
    assert_eq!(failed.tool_name, "repeat");
    assert!(failed.error.contains("spill directory"), "{}", failed.error);
}

#[tokio::test]
async fn a_failed_spill_in_a_log_without_its_record_is_still_skipped() {
    let dir = tempfile::tempdir().unwrap();
    let blocked = dir.path().join("not-a-dir");
    fs::write(&blocked, "a file where the spill directory should be").unwrap();
    let registry = registry(&blocked);
    logged(
        &registry,
        dir.path(),
        vec![("repeat", json!({ "word": "lorem", "times": 100 }))],
    )
    .await;
    // A log written before spill failures had a record of their own.
    let text = fs::read_to_string(dir.path().join("session.jsonl")).unwrap();
    let older: Vec<&str> = text
        .lines()
        .filter(|line| !line.starts_with(r#"{"record":"spill_failed""#))
        .collect();
    assert!(older.len() < text.lines().count());
    let path = dir.path().join("older.jsonl");
    fs::write(&path, older.join("\n") + "\n").unwrap();
    let log = Log::read(&path).unwrap();
    assert!(log.calls()[0].spill_failed.is_none());
    let report = replay(&registry, &log);
    assert_eq!(report.calls[0].outcome, Outcome::Skipped(Skip::SpillFailed));
}

#[tokio::test]
async fn post_execute_decisions_and_overrides_replay_from_the_log() {
    let dir = tempfile::tempdir().unwrap();
    let spill = dir.path().join("spill");
    let hook = |call: &PostCall<'_>| -> PostOutcome {
        let word = call.args.get("name").and_then(Value::as_str).unwrap_or("");
        let outcome: PostOutcome = match word {
            "content" => PostDecision::AcceptContent(vec![ContentBlock::text("replaced")]).into(),
            "value" => PostDecision::AcceptValue(json!("Hello, replaced value!")).into(),
            _ => PostOutcome::pass(),
        };
        outcome.with_context(ContentBlock::text(format!("context for {word}")))
    };
    // The arguments it gives are asked about again, and approved as they are.
    let approver = FnApprover(|request: &dsh_kit::permission::ApprovalRequest<'_>| {
        if request.args["command"] == "ls -l" {
            Approval::Approve
        } else {
            Approval::ApproveWith(json!({ "command": "ls -l" }))
        }
    });
    let live = builder(&spill)
        .post_execute(hook)
        .rule(Rule::ask("shell"))
        .approver(approver)
        .build();
    register(&live);
    let log = logged(
        &live,
        dir.path(),
        vec![
            ("greet", json!({ "name": "content" })),
            ("greet", json!({ "name": "value" })),
            ("greet", json!({ "name": "pass" })),
            ("shell", json!({ "command": "ls" })),
        ],
    )
    .await;
    let calls = log.calls();
    assert_eq!(
        calls[0].result.as_ref().unwrap().text(),
        "replaced\ncontext for content"
    );
    assert_eq!(
        *calls[3].executed.as_ref().unwrap().args,
        json!({ "command": "ls -l" })
    );

    // A registry without the hooks or the approver: nothing runs again, the log holds them.
    let plain = registry(&spill);
    let report = replay(&plain, &log);
    assert_eq!(report.summary().identical, 4, "{report}");
}

#[tokio::test]
async fn a_nested_call_replays_without_a_card() {
    let dir = tempfile::tempdir().unwrap();
    let registry = registry(&dir.path().join("spill"));
    let path = dir.path().join("session.jsonl");
    let log = SessionLog::open(&path).unwrap();
    let logging = registry.subscribe(log.subscriber());
    let result = registry
        .call_with(ToolCall::new("greet", json!({ "name": "inner" })).nested())
        .await;
    drop(logging);
    assert!(result.card().is_none());
    let log = Log::read(&path).unwrap();
    assert!(!log.calls()[0].executed.as_ref().unwrap().top_level);
    assert_eq!(replay(&registry, &log).calls[0].outcome, Outcome::Identical);
}

#[tokio::test]
async fn a_batch_replays_call_by_call() {
    let dir = tempfile::tempdir().unwrap();
    let registry = registry(&dir.path().join("spill"));
    let path = dir.path().join("session.jsonl");
    let log = SessionLog::open(&path).unwrap();
    let logging = registry.subscribe(log.subscriber());
    let batch = (0..8)
        .map(|index| ToolCall::new("greet", json!({ "name": format!("n{index}") })))
        .collect();
    registry.call_batch(batch).await;
    drop(logging);
    let log = Log::read(&path).unwrap();
    let report = replay(&registry, &log);
    assert_eq!(report.summary().identical, 8, "{report}");
}

#[tokio::test]
async fn a_dynamic_tool_replays_like_a_typed_one() {
    let dir = tempfile::tempdir().unwrap();
    let registry = registry(&dir.path().join("spill"));
    let shout = dsh_kit::DynamicTool::new(
        ToolDef::builder_owned("shout", "Say something loudly.")
            .read_only(true)
            .build(),
        json!({
            "type": "object",
            "properties": { "text": { "type": "string" } },
            "required": ["text"]
        }),
        |args, _exec| async move {
            let text = args["text"].as_str().unwrap_or_default();
            Ok(json!({ "loud": text.to_uppercase(), "length": text.len() }))
        },
    );
    let _shout = registry.register_dynamic(shout).unwrap();
    let log = logged(
        &registry,
        dir.path(),
        vec![
            ("shout", json!({ "text": "hi" })),
            ("shout", json!({ "text": "語🦀" })),
        ],
    )
    .await;
    let report = replay(&registry, &log);
    assert_eq!(report.summary().identical, 2, "{report}");
}
