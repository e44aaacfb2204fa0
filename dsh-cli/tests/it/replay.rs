//! `dsh replay`: a log `dsh call --record` wrote, drawn and replayed against
//! the server over HTTP; a log changed after the fact differs.

use crate::common::{HttpServer, dsh, run, stdio_server};

#[test]
fn a_recorded_log_replays_identically_and_a_tampered_one_differs() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("session.jsonl");
    let notes = dir.path().join("notes.txt");
    std::fs::write(&notes, "one\ntwo\n").unwrap();
    let read_notes = serde_json::json!({ "path": notes.display().to_string() }).to_string();
    for (tool, args, code) in [
        ("greet", r#"{"name":"Ada"}"#, 0),
        ("add_days", r#"{"date":"2024-02-27","days":3}"#, 0),
        ("read_file", r#"{"path":"/nonexistent/dsh-test"}"#, 1),
        ("read_file", read_notes.as_str(), 0),
    ] {
        let mut call = dsh();
        call.args(["call", tool, args, "--record"])
            .arg(&log)
            .args(stdio_server());
        run(call).expect_code(code);
    }

    let server = HttpServer::start();
    let mut replay = dsh();
    replay.arg("replay").arg(&log).args(server.args());
    let replay = run(replay);
    replay.expect_code(0);
    let text = &replay.stdout;
    // The card the server presented, recorded through the proxy and drawn.
    let read_card = format!(
        "╭─ read {} · lines 1–2\n  │ 1 │ one\n  │ 2 │ two\n",
        notes.display()
    );
    assert!(text.contains("· 4 calls"), "{text}");
    assert!(text.contains("#1 greet · success"), "{text}");
    assert!(text.contains("╭─ generic · greet"), "{text}");
    assert!(text.contains("#2 add_days · success"), "{text}");
    assert!(text.contains("#3 read_file · error"), "{text}");
    assert!(text.contains("#4 read_file · success"), "{text}");
    assert!(text.contains(&read_card), "{text}");
    assert!(text.contains("replay ✓ identical"), "{text}");
    assert!(
        text.ends_with("replay: 3 identical, 0 differing, 0 unknown tool, 1 skipped\n"),
        "{text}"
    );

    // Drawn without a server: nothing to replay against.
    let mut drawn = dsh();
    drawn.arg("replay").arg(&log);
    let drawn = run(drawn);
    drawn.expect_code(0);
    assert!(
        drawn.stdout.contains("#1 greet · success"),
        "{}",
        drawn.stdout
    );
    assert!(drawn.stdout.contains(&read_card), "{}", drawn.stdout);
    assert!(
        drawn.stdout.contains("not replayed: name the server"),
        "{}",
        drawn.stdout
    );

    let tampered = dir.path().join("tampered.jsonl");
    let changed: String = std::fs::read_to_string(&log)
        .unwrap()
        .lines()
        .map(|line| {
            let line = if line.starts_with("{\"record\":\"result\"") {
                line.replace("Hello, Ada!", "Hello, Bob!")
            } else {
                line.to_owned()
            };
            line + "\n"
        })
        .collect();
    std::fs::write(&tampered, changed).unwrap();
    let mut differs = dsh();
    differs.arg("replay").arg(&tampered).args(server.args());
    let differs = run(differs);
    differs.expect_code(1);
    assert!(differs.stdout.contains("replay ✗"), "{}", differs.stdout);
    // The difference itself: what was logged and what the replay gave.
    assert!(
        differs.stdout.contains("content differs at byte")
            && differs.stdout.contains("expected `…ext\",\"text\":\"Hello, Bob!\"}]`, got `…ext\",\"text\":\"Hello, Ada!\"}]`"),
        "{}",
        differs.stdout
    );
    assert!(differs.stdout.contains("1 differing"), "{}", differs.stdout);
}

#[test]
fn a_log_that_is_not_one_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("notes.txt");
    std::fs::write(&log, "not json\nat all\n").unwrap();
    let mut replay = dsh();
    replay.arg("replay").arg(&log);
    let replay = run(replay);
    replay.expect_code(2);
    assert!(replay.stderr.contains("notes.txt"), "{}", replay.stderr);
}
