//! Replay determinism across every example tool, and the viewer's drawing.

use std::collections::BTreeSet;
use std::path::Path;

use dsh_kit::Registry;
use dsh_kit::ToolCall;
use dsh_kit::card::{
    Card, DiffCard, DiffHunk, ReadCard, SearchCard, SearchHit, TerminalCard, WebCard,
};
use dsh_kit::log::replay::{Outcome, replay};
use dsh_kit::log::{Log, SessionLog};
use dsh_kit::permission::{Approval, ApprovalRequest, FnApprover};
use dsh_kit::prelude::*;
use dsh_kit_examples::demo;
use dsh_kit_examples::view::{self, Style};
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

    let text = view::session(&log, &report, Style::PLAIN);
    assert!(text.starts_with(&format!(
        "session {} · 13 calls\n\n#1 greet · success · ",
        recorded.log.display()
    )));
    for expected in [
        "╭─ terminal\n  │ $ echo hello from the shell; echo a warning >&2; exit 3\n  │ hello from the shell\n  │ a warning\n  │ [exit 3]\n  ╰─\n",
        "  │ -second line\n  │ +2nd line\n",
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

#[test]
fn a_terminal_card_is_a_console_block() {
    let card = Card::from(
        TerminalCard::new("cargo test")
            .stdout("running 2 tests\nok\n")
            .stderr("warning: unused\n")
            .exit_code(101),
    );
    assert_eq!(
        view::card(&card, Style::PLAIN),
        "╭─ terminal\n│ $ cargo test\n│ running 2 tests\n│ ok\n│ warning: unused\n│ [exit 101]\n╰─\n"
    );
    let colored = view::card(&card, Style::COLOR);
    assert!(
        colored.contains("\x1b[31mwarning: unused\x1b[0m"),
        "{colored:?}"
    );
    assert!(colored.contains("\x1b[31m[exit 101]\x1b[0m"), "{colored:?}");
}

#[test]
fn a_diff_card_colours_removed_and_added_lines() {
    let card = Card::from(DiffCard::new(
        "src/lib.rs",
        "--- src/lib.rs\n+++ src/lib.rs\n@@ -1,2 +1,2 @@\n fn main() {\n-    old();\n+    new();\n",
        vec![DiffHunk {
            old_start: 1,
            old_lines: 2,
            new_start: 1,
            new_lines: 2,
            lines: vec![
                " fn main() {".into(),
                "-    old();".into(),
                "+    new();".into(),
            ],
        }],
    ));
    assert_eq!(
        view::card(&card, Style::PLAIN),
        "╭─ diff src/lib.rs\n│ @@ -1,2 +1,2 @@\n│  fn main() {\n│ -    old();\n│ +    new();\n╰─\n"
    );
    let colored = view::card(&card, Style::COLOR);
    assert!(
        colored.contains("\x1b[31m-    old();\x1b[0m"),
        "{colored:?}"
    );
    assert!(
        colored.contains("\x1b[32m+    new();\x1b[0m"),
        "{colored:?}"
    );
    assert!(
        colored.contains("\x1b[36m@@ -1,2 +1,2 @@\x1b[0m"),
        "{colored:?}"
    );
}

#[test]
fn a_read_card_numbers_its_lines() {
    let card = Card::from(ReadCard::new("/etc/hosts", "a\nb\nc\n").lines(8, 10));
    assert_eq!(
        view::card(&card, Style::PLAIN),
        "╭─ read /etc/hosts · lines 8–10\n│  8 │ a\n│  9 │ b\n│ 10 │ c\n╰─\n"
    );
}

#[test]
fn a_search_card_is_a_list() {
    let card = Card::from(SearchCard::new(
        "fn main",
        vec![
            SearchHit::new("main.rs", "/src/main.rs:1", "fn main() {"),
            SearchHit::new("build.rs", "/build.rs:3", "fn main() -> Result<()> {"),
        ],
    ));
    assert_eq!(
        view::card(&card, Style::PLAIN),
        "╭─ search \"fn main\" · 2 results\n│ 1. main.rs — /src/main.rs:1\n│    fn main() {\n│ 2. build.rs — /build.rs:3\n│    fn main() -> Result<()> {\n╰─\n"
    );
}

#[test]
fn a_web_card_shows_address_title_and_excerpt() {
    let card = Card::from(WebCard::new("http://example.com/", "Example text.").title("Example"));
    assert_eq!(
        view::card(&card, Style::PLAIN),
        "╭─ web http://example.com/\n│ Example\n│ Example text.\n╰─\n"
    );
}

#[test]
fn a_generic_card_is_pretty_json() {
    let card = Card::generic(
        "greet",
        json!({ "name": "Ada" }),
        Some(json!("Hello, Ada!")),
    );
    assert_eq!(
        view::card(&card, Style::PLAIN),
        "╭─ generic · greet\n│ input\n│ {\n│   \"name\": \"Ada\"\n│ }\n│ output\n│ \"Hello, Ada!\"\n╰─\n"
    );
}

#[test]
fn tool_text_cannot_drive_the_terminal_and_long_cards_are_cut() {
    let card = Card::from(TerminalCard::new("x").stdout("\x1b[2Jcleared?\n"));
    assert!(view::card(&card, Style::PLAIN).contains("│ \\u{1b}[2Jcleared?\n"));

    let long: String = (1..=100).map(|n| format!("{n}\n")).collect();
    let drawn = view::card(&Card::from(ReadCard::new("/big", long)), Style::PLAIN);
    assert!(
        drawn.contains("│  40 │ 40\n│ … 60 more lines\n╰─\n"),
        "{drawn}"
    );

    let wide = "x".repeat(500);
    let drawn = view::card(&Card::from(WebCard::new("http://a/", wide)), Style::PLAIN);
    assert!(drawn.contains(&format!("│ {}…\n", "x".repeat(view::MAX_LINE_CHARS))));
}
