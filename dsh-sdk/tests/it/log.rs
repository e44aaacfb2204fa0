//! The session log: what each call appends, durability, torn lines, reopening.

use std::fs;
use std::io::Write as _;
use std::path::Path;

use dsh_kit::Registry;
use dsh_kit::event::{Event, StreamType};
use dsh_kit::log::{Log, LogError, Record, SessionLog};
use dsh_kit::prelude::*;
use dsh_kit::{Status, ToolCall};
use serde_json::Value;

/// Greet someone by name.
#[tool(read_only, concurrency_safe)]
async fn greet(
    /// The name to greet
    name: String,
) -> String {
    format!("Hello, {name}!")
}

/// Count to a number, streaming each step.
#[tool(read_only, concurrency_safe)]
async fn count(
    /// How far to count
    to: u32,
    exec: &Exec,
) -> u32 {
    for step in 1..=to {
        exec.progress(format!("{step}"));
    }
    to
}

fn registry() -> Registry {
    let registry = Registry::new();
    registry.register::<greet>().unwrap();
    registry.register::<count>().unwrap();
    registry
}

fn tags(path: &Path) -> Vec<String> {
    fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|line| {
            let record: Value = serde_json::from_str(line).unwrap();
            record["record"].as_str().unwrap().to_owned()
        })
        .collect()
}

/// Writes a log of two calls and returns its path.
async fn two_calls(dir: &Path) -> std::path::PathBuf {
    let path = dir.join("session.jsonl");
    let registry = registry();
    let log = SessionLog::open(&path).unwrap();
    let _logging = registry.subscribe(log.subscriber());
    registry.call("greet", json!({ "name": "Ada" })).await;
    registry.call("count", json!({ "to": 2 })).await;
    path
}

#[tokio::test]
async fn every_call_appends_its_records_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let path = two_calls(dir.path()).await;
    assert_eq!(
        tags(&path),
        [
            "request", "running", "executed", "result", // greet
            "request", "running", "stream", "stream", "executed", "result", // count
        ]
    );
    let text = fs::read_to_string(&path).unwrap();
    assert!(text.ends_with('\n'));

    let log = Log::read(&path).unwrap();
    assert!(log.warnings.is_empty());
    let lines: Vec<usize> = log.records.iter().map(|record| record.line).collect();
    assert_eq!(lines, (1..=10).collect::<Vec<_>>());

    let calls = log.calls();
    assert_eq!(calls.len(), 2);
    let greet = &calls[0];
    assert_eq!((greet.tool_name(), greet.line), ("greet", 1));
    assert_eq!(greet.args(), Some(&json!({ "name": "Ada" })));
    let result = greet.result.as_ref().unwrap();
    assert_eq!(result.text(), "Hello, Ada!");
    assert_eq!(greet.running.as_ref().unwrap().kind(), "generic");
    let executed = greet.executed.as_ref().unwrap();
    assert_eq!(*executed.value, json!("Hello, Ada!"));
    assert!(executed.top_level);

    let count = &calls[1];
    let chunks: Vec<(&str, u64, StreamType)> = count
        .stream
        .iter()
        .map(|chunk| (chunk.chunk.as_str(), chunk.sequence, chunk.stream_type))
        .collect();
    assert_eq!(
        chunks,
        [
            ("1", 0, StreamType::Progress),
            ("2", 1, StreamType::Progress)
        ]
    );
}

#[tokio::test]
async fn calls_that_never_execute_have_no_executed_record() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("session.jsonl");
    let registry = registry();
    let log = SessionLog::open(&path).unwrap();
    let _logging = registry.subscribe(log.subscriber());
    registry.call("greet", json!({ "name": 42 })).await;
    registry.call("gret", json!({})).await;
    assert_eq!(tags(&path), ["request", "result", "request", "result"]);
    let calls = Log::read(&path).unwrap().calls();
    assert!(calls.iter().all(|call| call.executed.is_none()));
    assert_eq!(calls[1].tool_name(), "gret");
    assert_eq!(calls[1].result.as_ref().unwrap().status(), Status::Error);
}

#[tokio::test]
async fn records_mirror_the_rawp_payloads() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("session.jsonl");
    let registry = registry();
    let log = SessionLog::open(&path).unwrap();
    let _logging = registry.subscribe(log.subscriber());
    let rawp = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let sink = std::sync::Arc::clone(&rawp);
    let _rawp = registry.subscribe_rawp(move |event| {
        sink.lock()
            .unwrap()
            .push(serde_json::to_value(event).unwrap());
    });
    registry
        .call_batch(vec![ToolCall::new("count", json!({ "to": 1 }))])
        .await;

    let lines: Vec<Value> = fs::read_to_string(&path)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    let rawp = rawp.lock().unwrap();
    let without_tag = |record: &Value| {
        let mut record = record.clone();
        record.as_object_mut().unwrap().remove("record");
        record
    };
    // request: the same fields and values as the payload.
    assert_eq!(lines[0]["record"], "request");
    assert_eq!(rawp[0]["type"], "tool.invoke.request");
    assert_eq!(without_tag(&lines[0]), rawp[0]["payload"]);
    // stream: the payload, field for field.
    assert_eq!(lines[2]["record"], "stream");
    assert_eq!(without_tag(&lines[2]), rawp[1]["payload"]);
    // result: the overlapping fields alike.
    let result = &lines[4];
    let payload = &rawp[2]["payload"];
    for field in [
        "invocation_id",
        "tool_name",
        "status",
        "output_type",
        "truncated",
    ] {
        assert_eq!(result[field], payload[field], "{field}");
    }
    assert_eq!(result["value"], payload["output"]);
    assert_eq!(result["duration"], payload["duration_ms"]);
}

#[test]
fn a_published_catalog_is_logged_and_belongs_to_no_call() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("session.jsonl");
    let registry = registry();
    let log = SessionLog::open(&path).unwrap();
    let _logging = registry.subscribe(log.subscriber());
    registry.publish_catalog();
    assert_eq!(tags(&path), ["catalog"]);
    let read = Log::read(&path).unwrap();
    assert_eq!(read.catalogs().collect::<Vec<_>>(), [&registry.catalog()]);
    assert!(read.calls().is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_calls_never_interleave_records() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("session.jsonl");
    let registry = registry();
    let log = SessionLog::open(&path).unwrap();
    let _logging = registry.subscribe(log.subscriber());
    let long = "x".repeat(50_000);
    let tasks: Vec<_> = (0..32)
        .map(|index| {
            let registry = registry.clone();
            let name = format!("{index}{long}");
            tokio::spawn(async move {
                registry.call("greet", json!({ "name": name })).await;
                registry.call("count", json!({ "to": 3 })).await;
            })
        })
        .collect();
    for task in tasks {
        task.await.unwrap();
    }
    let log = Log::read(&path).unwrap();
    assert!(log.warnings.is_empty());
    let calls = log.calls();
    assert_eq!(calls.len(), 64);
    assert!(calls.iter().all(|call| call.result.is_some()));
    assert_eq!(log.records.len(), 32 * 4 + 32 * 7);
    assert!(calls.iter().all(|call| {
        call.result
            .as_ref()
            .is_some_and(|result| !result.is_error())
    }));
}

#[tokio::test]
async fn a_torn_last_line_is_skipped_with_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let path = two_calls(dir.path()).await;
    let whole = fs::read_to_string(&path).unwrap();
    let last = whole.lines().last().unwrap().to_owned();
    // A crash in the middle of writing the last record.
    let torn = &whole[..whole.len() - last.len() / 2];
    fs::write(&path, torn).unwrap();

    let log = Log::read(&path).unwrap();
    assert_eq!(log.records.len(), 9);
    assert_eq!(log.warnings.len(), 1);
    let warning = &log.warnings[0];
    assert_eq!(warning.line, 10);
    assert_eq!(warning.bytes, last.len() - last.len() / 2 + 1);
    assert!(
        warning.to_string().starts_with(&format!(
            "the last line (10) of the session log `{}` is a torn record of ",
            path.display()
        )),
        "{warning}"
    );
    // The torn call has no result.
    assert!(log.calls()[1].result.is_none());
}

#[tokio::test]
async fn a_torn_line_in_the_middle_is_an_error_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = two_calls(dir.path()).await;
    let text = fs::read_to_string(&path).unwrap();
    let mut lines: Vec<&str> = text.lines().collect();
    let third = lines[2];
    lines[2] = &third[..third.len() / 2];
    fs::write(&path, lines.join("\n") + "\n").unwrap();

    let error = Log::read(&path).unwrap_err();
    assert!(
        matches!(error, LogError::Corrupt { line: 3, .. }),
        "{error:?}"
    );
    assert_eq!(
        error.to_string(),
        format!(
            "line 3 of the session log `{}` is not a record",
            path.display()
        )
    );
    assert!(std::error::Error::source(&error).is_some());
}

#[test]
fn an_unknown_record_before_the_last_line_is_an_error() {
    let text = b"{\"record\":\"gossip\"}\n{\"record\":\"gossip\"}\n";
    let error = Log::parse("mem.jsonl", text).unwrap_err();
    assert!(matches!(error, LogError::Corrupt { line: 1, .. }));
}

#[test]
fn blank_lines_are_ignored_and_a_torn_multibyte_tail_is_a_warning() {
    let record = r#"{"record":"request","invocation_id":"6f1c2a8e-55b4-4b1e-9a43-8f0d2b7c1e90","tool_name":"greet","input":{"name":"語"}}"#;
    let mut bytes = format!("\n{record}\n\n{record}\n").into_bytes();
    // Cut inside the three bytes of `語`.
    bytes.extend_from_slice(&record.as_bytes()[..record.find('語').unwrap() + 1]);
    let log = Log::parse("mem.jsonl", &bytes).unwrap();
    assert_eq!(
        log.records.iter().map(|r| r.line).collect::<Vec<_>>(),
        [2, 4]
    );
    assert_eq!(log.warnings[0].line, 5);
}

#[test]
fn a_request_record_with_every_field_reads_and_writes_back_byte_for_byte() {
    // The input is kept as the model sent it: a JSON string, not the object inside.
    let line = r#"{"record":"request","invocation_id":"6f1c2a8e-55b4-4b1e-9a43-8f0d2b7c1e90","tool_name":"greet","tool_version":"1.2.0","input":"{\"name\":\"Ada\"}","parallel_group_id":"0b6d7c1e-2f4a-4c8e-9d3b-5a1f2e7c9b40"}"#;
    let record: Record = serde_json::from_str(line).unwrap();
    let Record::Request(request) = &record else {
        panic!("a request record reads as a request");
    };
    assert_eq!(request.input, json!(r#"{"name":"Ada"}"#));
    assert_eq!(
        request.parallel_group_id.as_deref(),
        Some("0b6d7c1e-2f4a-4c8e-9d3b-5a1f2e7c9b40")
    );
    assert_eq!(serde_json::to_string(&record).unwrap(), line);
}

#[test]
fn a_missing_file_is_a_read_error_naming_it() {
    let error = Log::read("/nonexistent/session.jsonl").unwrap_err();
    assert_eq!(
        error.to_string(),
        "could not read the session log `/nonexistent/session.jsonl`"
    );
}

#[tokio::test]
async fn opening_an_existing_log_appends() {
    let dir = tempfile::tempdir().unwrap();
    let path = two_calls(dir.path()).await;
    let registry = registry();
    let log = SessionLog::open(&path).unwrap();
    assert!(log.repaired().is_none());
    let _logging = registry.subscribe(log.subscriber());
    registry.call("greet", json!({ "name": "Bob" })).await;
    let calls = Log::read(&path).unwrap().calls();
    assert_eq!(calls.len(), 3);
    assert_eq!(calls[2].result.as_ref().unwrap().text(), "Hello, Bob!");
}

#[tokio::test]
async fn reopening_cuts_a_torn_tail_so_new_records_start_clean() {
    let dir = tempfile::tempdir().unwrap();
    let path = two_calls(dir.path()).await;
    fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .unwrap()
        .write_all(br#"{"record":"request","invocation_id":"6f1c"#)
        .unwrap();
    let before = Log::read(&path).unwrap();
    assert_eq!(before.warnings.len(), 1);

    let log = SessionLog::open(&path).unwrap();
    let repaired = log.repaired().unwrap();
    assert_eq!((repaired.line, repaired.bytes), (11, 41));
    let registry = registry();
    let _logging = registry.subscribe(log.subscriber());
    registry.call("greet", json!({ "name": "Bob" })).await;

    let after = Log::read(&path).unwrap();
    assert!(after.warnings.is_empty());
    assert_eq!(after.records.len(), 14);
    assert_eq!(after.calls().len(), 3);
}

#[tokio::test]
async fn reopening_keeps_a_whole_last_record_missing_its_newline() {
    let dir = tempfile::tempdir().unwrap();
    let path = two_calls(dir.path()).await;
    let text = fs::read_to_string(&path).unwrap();
    fs::write(&path, text.trim_end_matches('\n')).unwrap();

    let log = SessionLog::open(&path).unwrap();
    assert!(log.repaired().is_none());
    let registry = registry();
    let _logging = registry.subscribe(log.subscriber());
    registry.call("greet", json!({ "name": "Bob" })).await;
    let after = Log::read(&path).unwrap();
    assert!(after.warnings.is_empty());
    assert_eq!(after.calls().len(), 3);
    assert!(after.calls()[1].result.is_some());
}

#[test]
fn a_tail_longer_than_a_read_block_is_found() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("session.jsonl");
    let torn = format!(
        r#"{{"record":"request","invocation_id":"6f1c2a8e-55b4-4b1e-9a43-8f0d2b7c1e90","tool_name":"greet","input":{{"name":"{}"#,
        "x".repeat(200_000)
    );
    fs::write(&path, format!("\n{torn}")).unwrap();
    let log = SessionLog::open(&path).unwrap();
    assert_eq!(log.repaired().unwrap().line, 2);
    assert_eq!(fs::read(&path).unwrap(), b"\n");
}

#[cfg(target_os = "linux")]
#[tokio::test]
async fn a_failed_write_is_reported_and_a_log_that_cannot_cut_it_stops() {
    // Every write to /dev/full fails, and it cannot be truncated.
    let log = SessionLog::open("/dev/full").unwrap();
    let registry = registry();
    let _logging = registry.subscribe(log.subscriber());
    let result = registry.call("greet", json!({ "name": "Ada" })).await;
    assert!(!result.is_error(), "a failing log never fails a call");
    let error = log.take_error().unwrap();
    assert!(matches!(error, LogError::Write { .. }), "{error:?}");
    assert_eq!(
        error.to_string(),
        "could not append to the session log `/dev/full`"
    );
    let record = Record::from_event(&Event::Result(std::sync::Arc::new(result)));
    assert!(matches!(
        log.append(&record).unwrap_err(),
        LogError::Broken { .. }
    ));
}
