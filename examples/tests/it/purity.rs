//! Every example projection is pure: the same bytes on every run, whatever
//! the hash seeds, the thread, the heap or the clock (`dsh_kit::testing`).
//! Each tool is one test, so their pauses before the last run overlap.

use chrono::NaiveDate;
use dsh_kit::testing::assert_pure;
use dsh_kit_examples::search::{GrepMatch, GrepResults};
use dsh_kit_examples::shell::CommandOutput;
use dsh_kit_examples::web::Page;
use dsh_kit_examples::{
    Edited, FileSlice, Shifted, add_days, bash, edit_file, fetch, greet, grep, lorem, read_file,
    wait,
};
use serde_json::json;

#[test]
fn greet_is_pure() {
    assert_pure::<greet>(json!({ "name": "Ada" }), &"Hello, Ada!".to_owned());
}

#[test]
fn read_file_is_pure() {
    let slice = FileSlice {
        path: "/etc/hosts".into(),
        start_line: 2,
        end_line: 3,
        total_lines: 10,
        content: "127.0.0.1 localhost\n::1 localhost\n".into(),
    };
    assert_pure::<read_file>(
        json!({ "path": "/etc/hosts", "offset": 2, "limit": 2 }),
        &slice,
    );
}

#[test]
fn add_days_is_pure() {
    let shifted = Shifted {
        date: NaiveDate::from_ymd_opt(2024, 2, 29).unwrap(),
        weekday: "Thu".into(),
    };
    assert_pure::<add_days>(json!({ "date": "2024-02-28", "days": 1 }), &shifted);
}

#[test]
fn edit_file_is_pure() {
    let edited = Edited {
        path: "/src/main.rs".into(),
        replacements: 1,
        diff: "--- /src/main.rs\n+++ /src/main.rs\n@@ -1,3 +1,3 @@\n fn main() {\n-    run();\n+    start();\n }\n"
            .into(),
    };
    assert_pure::<edit_file>(
        json!({ "path": "/src/main.rs", "old": "run", "new": "start" }),
        &edited,
    );
}

#[test]
fn wait_and_lorem_are_pure() {
    assert_pure::<wait>(json!({ "millis": 250 }), &"waited 250 ms".to_owned());
    assert_pure::<lorem>(
        json!({ "paragraphs": 2 }),
        &"1. Lorem\n2. Lorem\n".to_owned(),
    );
}

#[test]
fn bash_is_pure() {
    let output = CommandOutput {
        command: "ls -l".into(),
        stdout: "total 0\n".into(),
        stderr: "warning\n".into(),
        exit_code: Some(0),
        timed_out: false,
    };
    assert_pure::<bash>(json!({ "command": "ls -l", "timeout_ms": 1000 }), &output);
}

#[test]
fn grep_is_pure() {
    let results = GrepResults {
        pattern: "TODO".into(),
        root: "/src".into(),
        matches: vec![
            GrepMatch {
                path: "/src/a.rs".into(),
                line: 3,
                text: "// TODO: this".into(),
            },
            GrepMatch {
                path: "/src/b.rs".into(),
                line: 7,
                text: "// TODO: that".into(),
            },
        ],
        truncated: true,
    };
    assert_pure::<grep>(
        json!({ "pattern": "TODO", "path": "/src", "max_results": 2 }),
        &results,
    );
}

#[test]
fn fetch_is_pure() {
    let page = Page {
        url: "http://127.0.0.1:8080/".into(),
        status: 200,
        content_type: Some("text/html".into()),
        title: Some("Home".into()),
        text: "Welcome home.".into(),
        truncated: false,
    };
    assert_pure::<fetch>(json!({ "url": "http://127.0.0.1:8080/" }), &page);
}
