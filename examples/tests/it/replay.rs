//! Replay determinism across every example tool, and the viewer's drawing.

use std::collections::BTreeSet;
use std::path::Path;

use dsh_kit::Registry;
use dsh_kit::ToolCall;
use dsh_kit::card::terminal::Style;
use dsh_kit::log::replay::{Outcome, replay};
use dsh_kit::log::{Log, SessionLog, terminal};
use dsh_kit::permission::{Approval, ApprovalRequest, FnApprover};
use dsh_kit::prelude::*;
use dsh_kit_examples::demo;
use serde_json::Value;

/// Every example tool; edits and commands approved; results over 2,000
/// characters spill under `spill`.
fn registry(spill: &Path) -> Registry {
    let registry = Registry::builder()
        .approver(FnApprover(|_: &ApprovalRequest<'_>| Approval::Approve))
        .max_result_chars(2_000)
        .spill_dir(spill)
        .build();
    dsh_kit_examples::register_all(&registry).unwrap();
    registry
}

/// Many calls of every example tool, good and bad.
fn calls(work: &Path, url: &str) -> Vec<(&'static str, Value)> {
    let file = |name: &str| work.join(name).display().to_string();
    let root = work.display().to_string();
    let mut calls: Vec<(&'static str, Value)> = Vec::new();
    for name in [
        "Ada",
        "Grace Hopper",
        "語🦀",
        "\"quotes\" and \\ and \t",
        "",
    ] {
        calls.push(("greet", json!({ "name": name })));
    }
    for (date, days) in [
        ("2024-02-27", 3),
        ("2024-02-29", 365),
        ("1999-12-31", -36_500),
        ("2000-01-01", 0),
    ] {
        calls.push(("add_days", json!({ "date": date, "days": days })));
    }
    for (offset, limit) in [
        (None, None),
        (Some(2), Some(2)),
        (Some(40), None),
        (Some(1), Some(1)),
    ] {
        let mut args = json!({ "path": file("notes.txt") });
        if let Some(offset) = offset {
            args["offset"] = json!(offset);
        }
        if let Some(limit) = limit {
            args["limit"] = json!(limit);
        }
        calls.push(("read_file", args));
    }
    calls.push(("read_file", json!({ "path": file("unicode.txt") })));
    calls.push(("cat", json!({ "path": file("notes.txt"), "limit": 1 })));
    for (old, new, all) in [
        ("second", "2nd", false),
        ("line", "LINE", true),
        ("2nd LINE", "second line\nand one more", false),
        ("nothing like this", "x", false),
    ] {
        calls.push((
            "edit_file",
            json!({ "path": file("notes.txt"), "old": old, "new": new, "replace_all": all }),
        ));
    }
    calls.push((
        "edit_file",
        json!({ "path": file("unicode.txt"), "old": "ünïcödé", "new": "unicode 語" }),
    ));
    for command in [
        "echo hello",
        "printf 'no newline'",
        "echo out; echo err >&2",
        "exit 7",
        "printf 'caf\\303\\251 \\033[31mred\\033[0m\\n'",
        "seq 1 300",
    ] {
        calls.push(("bash", json!({ "command": command })));
    }
    calls.push(("bash", json!({ "command": "pwd", "cwd": root })));
    for (pattern, extra) in [
        ("line", json!({})),
        ("LINE", json!({ "case_insensitive": true })),
        ("e", json!({ "max_results": 2 })),
        ("nothing matches this", json!({})),
        ("line", json!({ "glob": "*.txt" })),
    ] {
        let mut args = json!({ "pattern": pattern, "path": root });
        for (key, value) in extra.as_object().unwrap() {
            args[key] = value.clone();
        }
        calls.push(("grep", args));
    }
    calls.push(("fetch", json!({ "url": url })));
    calls.push(("fetch", json!({ "url": url, "max_chars": 20 })));
    for millis in [0, 120] {
        calls.push(("wait", json!({ "millis": millis })));
    }
    for paragraphs in [1, 3, 100] {
        calls.push(("lorem", json!({ "paragraphs": paragraphs })));
    }
    calls
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn every_example_tool_replays_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    let work = dir.path().join("work");
    std::fs::create_dir_all(&work).unwrap();
    std::fs::write(
        work.join("notes.txt"),
        "first line\nsecond line\nthird line\n",
    )
    .unwrap();
    std::fs::write(work.join("unicode.txt"), "ünïcödé\ttabs\r\nand 🦀\n").unwrap();
    let url = demo::serve_page(demo::PAGE).unwrap();
    let registry = registry(&dir.path().join("spill"));

    let path = dir.path().join("session.jsonl");
    let log = SessionLog::open(&path).unwrap();
    let logging = registry.subscribe(log.subscriber());
    // Twice: the second round edits a changed file and reads it back.
    for _ in 0..2 {
        for (name, args) in calls(&work, &url) {
            registry.call(name, args).await;
        }
    }
    // A batch, run in parallel where the tools allow.
    let batch = (0..6)
        .map(|index| match index % 3 {
            0 => ToolCall::new("greet", json!({ "name": format!("batch {index}") })),
            1 => ToolCall::new("wait", json!({ "millis": 30 })),
            _ => ToolCall::new("read_file", json!({ "path": work.join("notes.txt") })),
        })
        .collect();
    registry.call_batch(batch).await;
    drop(logging);
    assert!(log.take_error().is_none());

    let log = Log::read(&path).unwrap();
    assert!(log.warnings.is_empty());
    let report = replay(&registry, &log);
    assert!(!report.has_differences(), "{report}");
    let summary = report.summary();
    assert_eq!(summary.unknown_tool, 0, "{report}");
    assert!(summary.identical >= 80, "{report}");

    // Every tool the examples register was replayed, with every card kind.
    let replayed: BTreeSet<&str> = report
        .calls
        .iter()
        .filter(|call| call.outcome == Outcome::Identical)
        .map(|call| call.tool_name.as_str())
        .collect();
    for tool in registry.tools() {
        assert!(
            replayed.contains(tool.name()),
            "`{}` was never replayed",
            tool.name()
        );
    }
    let kinds: BTreeSet<&str> = log
        .calls()
        .iter()
        .filter_map(|call| call.result.as_ref()?.card().map(Card::kind))
        .collect::<Vec<_>>()
        .into_iter()
        .collect();
    assert_eq!(
        kinds,
        BTreeSet::from(["diff", "generic", "read", "search", "terminal", "web"])
    );
    // A spilled result was among them, and its file checked.
    assert!(
        report
            .calls
            .iter()
            .any(|call| call.spill_file.as_ref().is_some_and(|file| file.found))
    );
}

#[tokio::test]
async fn the_demo_session_replays_without_differences() {
    let dir = tempfile::tempdir().unwrap();
    let registry = demo::registry().unwrap();
    let recorded = demo::record(&registry, dir.path()).await.unwrap();
    let log = Log::read(&recorded.log).unwrap();
    let report = replay(&registry, &log);
    assert!(!report.has_differences(), "{report}");

    // A fresh registry with the same settings, as the viewer uses for a LOG argument.
    let fresh = Registry::new();
    dsh_kit_examples::register_all(&fresh).unwrap();
    assert_eq!(replay(&fresh, &log).summary(), report.summary());

    let text = terminal::session(&log, Some(&report), Style::PLAIN);
    assert!(text.starts_with(&format!(
        "session {} · 13 calls\n\n#1 greet · success · ",
        recorded.log.display()
    )));
    for expected in [
        "╭─ terminal\n  │ $ echo hello from the shell; echo a warning >&2; exit 3\n  │ hello from the shell\n  │ a warning\n  │ [exit 3]\n  ╰─\n",
        "  │ -second line\n  │ +2nd line\n",
        "\n  decided approved\n  ╭─ diff ",
        "╭─ web http://127.0.0.1:",
        "  invalid arguments for `greet`: /name: 42 is not of type \"string\"\n  replay skipped: never executed (status error)\n",
        "  the model saw a preview: the whole output was spilled to a file\n  replay ✓ identical\n",
        "#11 read_flie · error · ",
    ] {
        assert!(text.contains(expected), "missing {expected:?} in\n{text}");
    }
    assert!(
        text.ends_with("replay: 11 identical, 0 differing, 0 unknown tool, 2 skipped\n"),
        "{text}"
    );
    assert!(!text.contains('\x1b'));
}
