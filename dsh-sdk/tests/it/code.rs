//! Code mode: the typed API a program is written against, the sandbox it
//! runs in, its calls through the pipeline, its bounds, and its replay.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use dsh_kit::code::{self, CodeError, Limits, RUN_CODE};
use dsh_kit::event::Event;
use dsh_kit::log::replay::{Outcome, replay};
use dsh_kit::log::{Log, SessionLog};
use dsh_kit::permission::Rule;
use dsh_kit::prelude::*;
use dsh_kit::{Cause, Registry, ToolResult};
use proptest::prelude::*;
use serde_json::Value;

/// How a lookup fails.
#[derive(Debug, Serialize, JsonSchema, thiserror::Error)]
enum LookupError {
    /// No entry has the key.
    #[error("no entry `{key}`")]
    Missing { key: String },
}

/// An entry found by key.
#[derive(Serialize, Deserialize, JsonSchema)]
struct Entry {
    /// The key asked for.
    key: String,
    /// How many words it holds.
    words: u32,
    /// Its tags, if any.
    tags: Option<Vec<String>>,
}

/// Look an entry up by key.
#[tool(read_only)]
async fn lookup(
    /// The key to look up
    key: String,
) -> Result<Entry, LookupError> {
    match key.as_str() {
        "missing" => Err(LookupError::Missing { key }),
        _ => Ok(Entry {
            words: u32::try_from(key.len()).unwrap_or(0),
            key,
            tags: None,
        }),
    }
}

/// Delete everything.
#[tool(destructive)]
async fn purge() -> String {
    "purged".into()
}

/// A registry with `lookup`, `purge` (denied by rule) and the code tool.
fn registry_with(limits: Limits) -> Registry {
    let registry = Registry::builder().rule(Rule::deny("purge")).build();
    registry.register::<lookup>().unwrap().keep();
    registry.register::<purge>().unwrap().keep();
    let tool = code::tool(registry.host(), limits);
    registry.register_dynamic(tool).unwrap().keep();
    registry
}

fn registry() -> Registry {
    registry_with(Limits::default())
}

async fn run_code(registry: &Registry, program: &str) -> ToolResult {
    registry.call(RUN_CODE, json!({ "code": program })).await
}

/// The `CodeError` variant a failed run ended with, and its message.
fn failed(result: &ToolResult) -> (String, String) {
    let failure = result.failure.as_ref().expect("the run failed");
    assert_eq!(failure.cause, Cause::Tool, "{}", result.text());
    (failure.kind.clone().unwrap_or_default(), result.text())
}

#[test]
fn the_api_types_arguments_values_and_failures_from_the_schemas() {
    let api = code::declarations(registry().host(), &[RUN_CODE]);
    assert!(api.contains("declare const tools: {\n"), "{api}");
    assert!(
        api.contains(
            "  /** Look an entry up by key. */\n  lookup(args: {\n    /** The key to look up */\n    key: string;\n  }): Result<{\n"
        ),
        "{api}"
    );
    assert!(
        api.contains("    /** How many words it holds. */\n    words: number;\n"),
        "{api}"
    );
    assert!(api.contains("    tags: string[] | null;\n"), "{api}");
    // The declared failure: `kind` and `data` typed, any other cause without them.
    assert!(
        api.contains("{ ok: false; cause: \"tool\"; message: string } & ({\n"),
        "{api}"
    );
    assert!(api.contains("kind: \"Missing\";"), "{api}");
    assert!(
        api.contains("{ ok: false; cause: Exclude<Cause, \"tool\">; message: string }>;"),
        "{api}"
    );
    assert!(
        api.contains("  purge(args: {}): Result<string>;\n"),
        "{api}"
    );
    assert!(
        !api.contains("run_code("),
        "the code tool is not in its own API: {api}"
    );
    assert!(
        api.contains("type Cause = \"unknown_tool\" | \"unavailable\" | \"invalid_arguments\""),
        "{api}"
    );
}

#[test]
fn the_api_is_the_same_bytes_whatever_the_registration_order() {
    let one = Registry::new();
    one.register::<lookup>().unwrap().keep();
    one.register::<purge>().unwrap().keep();
    let other = Registry::new();
    other.register::<purge>().unwrap().keep();
    other.register::<lookup>().unwrap().keep();
    assert_eq!(
        code::declarations(one.host(), &[]),
        code::declarations(other.host(), &[])
    );
}

#[test]
fn the_code_tool_describes_the_api_and_exports_like_any_tool() {
    let registry = registry();
    let tool = registry.get(RUN_CODE).unwrap();
    assert!(tool.definition().description().contains("lookup(args: {"));
    let anthropic = registry.export(dsh_kit::export::Format::Anthropic);
    let names: Vec<&str> = anthropic
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|tool| tool["name"].as_str())
        .collect();
    assert!(names.contains(&RUN_CODE), "{names:?}");
}

#[tokio::test]
async fn a_program_gets_typed_values_and_its_result_and_console_come_back() {
    let registry = registry();
    let result = run_code(
        &registry,
        r#"
        const found = await tools.lookup({ key: "alpha" });
        if (!found.ok) return "unexpected";
        console.log("words:", found.value.words, { key: found.value.key });
        const missing = tools.lookup({ key: "missing" });
        return { words: found.value.words, missing: [missing.ok, missing.cause, missing.kind, missing.data] };
        "#,
    )
    .await;
    assert_eq!(result.failure, None, "{}", result.text());
    let value = result.value.clone().unwrap();
    assert_eq!(
        value["result"],
        json!({ "words": 5, "missing": [false, "tool", "Missing", { "key": "missing" }] })
    );
    assert_eq!(value["console"], json!(["words: 5 {\"key\":\"alpha\"}"]));
    assert_eq!(value["calls"].as_array().unwrap().len(), 2);
    assert_eq!(
        result.text(),
        "words: 5 {\"key\":\"alpha\"}\n{\"missing\":[false,\"tool\",\"Missing\",{\"key\":\"missing\"}],\"words\":5}"
    );
}

#[tokio::test]
async fn every_call_of_a_program_is_a_call_of_the_pipeline_with_its_events() {
    let registry = registry();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&seen);
    let _events = registry.subscribe(move |event: &Event| {
        if let Event::Result(result) = event {
            sink.lock().unwrap().push(result.tool_name.to_string());
        }
    });
    let result = run_code(
        &registry,
        "tools.lookup({ key: 'a' }); tools.lookup({ key: 'b' }); return 1;",
    )
    .await;
    assert_eq!(result.failure, None, "{}", result.text());
    assert_eq!(*seen.lock().unwrap(), ["lookup", "lookup", RUN_CODE]);
}

#[tokio::test]
async fn a_denied_tool_is_a_failed_outcome_the_program_can_check_and_the_host_is_intact() {
    let registry = registry();
    let result = run_code(
        &registry,
        "const r = tools.purge({}); return [r.ok, r.cause, typeof r.message];",
    )
    .await;
    assert_eq!(
        result.value.unwrap()["result"],
        json!([false, "denied", "string"])
    );
    // Arguments the schema refuses are refused for the program as for a model.
    let result = run_code(&registry, "return tools.lookup({ key: 7 }).cause;").await;
    assert_eq!(result.value.unwrap()["result"], "invalid_arguments");
}

#[tokio::test]
async fn the_sandbox_has_no_clock_and_no_randomness() {
    let registry = registry();
    let result = run_code(
        &registry,
        "return [typeof Date, typeof Math.random, typeof performance, typeof setTimeout, typeof require];",
    )
    .await;
    assert_eq!(
        result.value.unwrap()["result"],
        json!([
            "undefined",
            "undefined",
            "undefined",
            "undefined",
            "undefined"
        ])
    );
}

/// Limits small enough for the hostile programs to hit fast.
fn tight() -> Limits {
    Limits::default()
        .timeout(Duration::from_millis(500))
        .max_memory_bytes(8 * 1024 * 1024)
        .max_stack_bytes(256 * 1024)
        .max_output_chars(10_000)
        .max_calls(20)
}

#[tokio::test]
async fn each_bound_ends_a_hostile_program_with_its_own_error() {
    let registry = registry_with(tight());
    let cases = [
        ("while (true) {}", "Timeout", "time limit of 500 ms"),
        (
            "const a = []; while (true) a.push('x'.repeat(1000) + a.length);",
            "OutOfMemory",
            "out of memory",
        ),
        (
            "function f(n) { return f(n + 1) + 1; } return f(0);",
            "StackOverflow",
            "stack limit",
        ),
        (
            "for (;;) console.log('spam'.repeat(100));",
            "OutputTooLong",
            "10000 characters",
        ),
        (
            "return 'x'.repeat(20000);",
            "OutputTooLong",
            "10000 characters",
        ),
        (
            "for (let i = 0; i < 5000; i++) tools.lookup({ key: 'k' });",
            "TooManyCalls",
            "more than 20 tool calls",
        ),
        (
            "for (let i = 0; i < 5000; i++) { try { tools.lookup({ key: 'k' }); } catch (e) {} } return 'escaped';",
            "TooManyCalls",
            "more than 20 tool calls",
        ),
        (
            "return 'x'.repeat(2 ** 28).length;",
            "OutOfMemory",
            "out of memory",
        ),
        (
            "let o = {}; for (let i = 0; i < 1000; i++) o = { o }; return o;",
            "ResultNotJson",
            "not JSON",
        ),
        ("return (", "Syntax", "does not parse"),
        (
            "throw new TypeError('bad input');",
            "Threw",
            "TypeError: bad input",
        ),
        (
            "await new Promise(() => {});",
            "NeverSettles",
            "never settles",
        ),
        ("return 10n;", "ResultNotJson", "not JSON"),
    ];
    for (program, kind, message) in cases {
        let started = Instant::now();
        let result = run_code(&registry, program).await;
        let (got, text) = failed(&result);
        assert_eq!(got, kind, "{program}: {text}");
        assert!(text.contains(message), "{program}: {text}");
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "{program} took {:?}",
            started.elapsed()
        );
    }
    // The host is intact: the next program runs as if nothing happened.
    let result = run_code(
        &registry,
        "return tools.lookup({ key: 'after' }).value.words;",
    )
    .await;
    assert_eq!(result.value.unwrap()["result"], 5);
}

#[tokio::test]
async fn a_program_longer_than_its_limit_is_not_run() {
    let registry = registry_with(Limits::default().max_program_chars(10));
    let (kind, text) = failed(&run_code(&registry, "return 'a long program';").await);
    assert_eq!(kind, "ProgramTooLong");
    assert!(
        text.contains("24 characters long, over the limit of 10"),
        "{text}"
    );
}

#[tokio::test]
async fn prototype_tampering_does_not_reach_the_host() {
    let registry = registry();
    let result = run_code(
        &registry,
        r#"
        Object.prototype.ok = "forged";
        JSON.stringify = () => "forged";
        JSON.parse = () => ({ ok: true, value: "forged" });
        Array.prototype.push = () => 0;
        Function.prototype.call = () => "forged";
        try { tools.lookup = () => ({ ok: true, value: { words: 99 } }); } catch (e) {}
        const r = tools.lookup({ key: "abc" });
        return { words: r.value.words, key: r.value.key };
        "#,
    )
    .await;
    assert_eq!(result.failure, None, "{}", result.text());
    assert_eq!(
        result.value.unwrap()["result"],
        json!({ "key": "abc", "words": 3 })
    );
}

#[tokio::test]
async fn a_cancelled_run_stops_its_program() {
    let registry = registry();
    let call = run_code(&registry, "while (true) {}");
    let result = tokio::time::timeout(Duration::from_millis(200), call).await;
    assert!(
        result.is_err(),
        "an endless program does not finish by itself"
    );
    // Dropping the call stopped the program's thread: the host still serves.
    let result = run_code(&registry, "return 1;").await;
    assert_eq!(result.value.unwrap()["result"], 1);
}

#[tokio::test]
async fn a_logged_run_replays_byte_for_byte_without_running_a_tool() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("session.jsonl");
    let registry = registry();
    let log = SessionLog::open(&path).unwrap();
    let logging = registry.subscribe(log.subscriber());
    let program = r#"
        const keys = ["one", "three", "missing", "eleven"];
        const words = keys.map((key) => tools.lookup({ key })).filter((r) => r.ok).map((r) => r.value.words);
        console.log("found", words.length);
        return { total: words.reduce((a, b) => a + b, 0), largest: Math.max(...words) };
    "#;
    let live = run_code(&registry, program).await;
    drop(logging);
    assert_eq!(live.failure, None, "{}", live.text());
    let log = Log::read(&path).unwrap();

    // The inner calls are in the log as the calls they are.
    let calls = log.calls();
    let names: Vec<&str> = calls.iter().map(|call| call.tool_name()).collect();
    assert_eq!(names, [RUN_CODE, "lookup", "lookup", "lookup", "lookup"]);

    // The log's replay re-projects every call, the run's content included.
    let report = replay(&registry, &log);
    assert!(!report.has_differences(), "{report:?}");
    assert!(matches!(report.calls[0].outcome, Outcome::Identical));

    // The program runs again against the logged calls, in a registry whose
    // tools would fail if they ran: the value is the logged one, byte for byte.
    let replaying = Registry::new();
    replaying.register_dynamic(failing_lookup()).unwrap().keep();
    let replays = code::replay::replay(&replaying, &log, RUN_CODE, &Limits::default()).await;
    assert_eq!(replays.len(), 1);
    assert!(replays[0].is_identical(), "{replays:?}");
}

/// A `lookup` that fails if it ever runs.
fn failing_lookup() -> dsh_kit::DynamicTool {
    dsh_kit::DynamicTool::new(
        ToolDef::builder_owned("lookup", "Never runs in a replay.").build(),
        json!({ "type": "object", "properties": { "key": { "type": "string" } } }),
        |_, _| async { Err(ToolError::new("a replay ran a tool")) },
    )
}

#[tokio::test]
async fn a_replay_whose_log_was_altered_says_it_differs() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("session.jsonl");
    let registry = registry();
    let log = SessionLog::open(&path).unwrap();
    let logging = registry.subscribe(log.subscriber());
    run_code(
        &registry,
        "return tools.lookup({ key: 'four' }).value.words * 2;",
    )
    .await;
    drop(logging);
    // The inner call's logged outcome says 5 words, not 4.
    let text = std::fs::read_to_string(&path).unwrap();
    let altered: Vec<String> = text
        .lines()
        .map(|line| {
            let mut record: Value = serde_json::from_str(line).unwrap();
            if record["record"] == "result" && record["tool_name"] == "lookup" {
                record["value"]["words"] = json!(5);
            }
            record.to_string()
        })
        .collect();
    std::fs::write(&path, altered.join("\n") + "\n").unwrap();
    let replays = code::replay::replay(
        &registry,
        &Log::read(&path).unwrap(),
        RUN_CODE,
        &Limits::default(),
    )
    .await;
    match &replays[0].outcome {
        code::replay::ProgramOutcome::Differs { logged, replayed } => {
            assert!(logged.contains("\"result\":8"), "{logged}");
            assert!(replayed.contains("\"result\":10"), "{replayed}");
        }
        other => panic!("expected a difference, got {other:?}"),
    }
}

#[tokio::test]
async fn a_replayed_program_that_asks_for_other_calls_diverges() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("session.jsonl");
    let registry = registry();
    let log = SessionLog::open(&path).unwrap();
    let logging = registry.subscribe(log.subscriber());
    run_code(&registry, "return tools.lookup({ key: 'a' }).value.words;").await;
    drop(logging);
    let text = std::fs::read_to_string(&path).unwrap();
    // The program in the log now asks for another key.
    std::fs::write(&path, text.replace("key: 'a'", "key: 'b'")).unwrap();
    let replays = code::replay::replay(
        &registry,
        &Log::read(&path).unwrap(),
        RUN_CODE,
        &Limits::default(),
    )
    .await;
    assert!(
        matches!(
            &replays[0].outcome,
            code::replay::ProgramOutcome::Failed(CodeError::Diverged { tool, index: 0, .. }) if tool == "lookup"
        ),
        "{replays:?}"
    );
}

/// Fragments a fuzzed program is built from: valid and broken JavaScript,
/// tool calls good and bad, and the hostile constructs above.
const FRAGMENTS: &[&str] = &[
    "tools.lookup({ key: 'k' });",
    "tools.lookup({ key: 1 });",
    "tools.lookup();",
    "tools.purge({});",
    "tools.nope && tools.nope();",
    "console.log(1, 'a', {}, [], null, undefined);",
    "let x = 'y'.repeat(1000);",
    "return 1;",
    "return { a: [1, 2] };",
    "throw 1;",
    "throw new Error('e');",
    "Object.prototype.toJSON = () => 1;",
    "for (let i = 0; i < 100; i++) {}",
    "while (true) {}",
    "function f() { return f(); } f();",
    "await Promise.resolve(1);",
    "{",
    "}",
    "(",
    "/*",
    "`",
    "\u{0}",
    "tools.lookup({ key: 'k'.repeat(100000) });",
    "return Symbol();",
    "return () => 1;",
];

proptest! {
    #![proptest_config(ProptestConfig { cases: 40, ..ProptestConfig::default() })]

    /// Whatever the program, the run ends within its time limit with a
    /// value or a typed failure, and never takes the host down.
    #[test]
    fn any_program_ends_in_a_value_or_a_typed_failure(
        picks in proptest::collection::vec(0..FRAGMENTS.len(), 0..8),
        noise in "[ -~]{0,40}",
    ) {
        let mut program: String = picks.iter().map(|&pick| FRAGMENTS[pick]).collect::<Vec<_>>().join("\n");
        program.push_str(&noise);
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        let registry = registry_with(tight().timeout(Duration::from_millis(300)));
        let started = Instant::now();
        let result = runtime.block_on(run_code(&registry, &program));
        prop_assert!(started.elapsed() < Duration::from_secs(5));
        match &result.failure {
            None => prop_assert!(result.value.is_some()),
            Some(failure) => {
                prop_assert_eq!(failure.cause, Cause::Tool, "{}", result.text());
                prop_assert!(failure.kind.is_some(), "{}", result.text());
            }
        }
    }
}

#[test]
fn the_code_tool_goes_out_beside_or_instead_of_the_tools_in_every_format() {
    use dsh_kit::code::Exposure;
    use dsh_kit::export::Format;
    let registry = registry();
    for format in [
        Format::Anthropic,
        Format::OpenAi,
        Format::Gemini,
        Format::Mcp,
    ] {
        let beside = code::export(registry.host(), format, Exposure::Beside, RUN_CODE);
        assert_eq!(beside, registry.export(format));
        let instead = code::export(registry.host(), format, Exposure::Instead, RUN_CODE);
        assert_eq!(
            instead.as_array().map(Vec::len),
            Some(1),
            "{format:?}: {instead}"
        );
        assert!(
            instead.to_string().contains(RUN_CODE),
            "{format:?}: {instead}"
        );
    }
    let programmatic = code::anthropic_programmatic(registry.host(), RUN_CODE, false);
    let names: Vec<&str> = programmatic
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["code_execution", "lookup", "purge"]);
    assert_eq!(programmatic[0]["type"], code::ANTHROPIC_CODE_EXECUTION);
    assert_eq!(
        programmatic[1]["allowed_callers"],
        json!([code::ANTHROPIC_CODE_EXECUTION])
    );
    let both = code::anthropic_programmatic(registry.host(), RUN_CODE, true);
    assert_eq!(
        both[2]["allowed_callers"],
        json!(["direct", code::ANTHROPIC_CODE_EXECUTION])
    );
}
