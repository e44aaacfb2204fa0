//! Code mode: the same task done by calling tools one at a time, as a
//! model does without it, and by one program in `run_code`; then the
//! program's log replayed without running a tool.
//!
//! ```text
//! cargo run --example code_mode
//! ```
//!
//! The task: of 20 files, find the one with the most words. Called one at
//! a time, every file's whole text reaches the model (and each call costs
//! a model turn); as one program, the model reads only what the program
//! returns. Both answers are checked to agree; the characters of tool
//! results that reach the model and the wall time of each way are printed.

use std::time::Instant;

use dsh_kit::Registry;
use dsh_kit::code::{self, Limits, RUN_CODE};
use dsh_kit::log::replay::replay;
use dsh_kit::log::{Log, SessionLog};
use dsh_kit::prelude::*;

/// How many files the task reads.
const FILES: usize = 20;

/// The text of file `index`: a few hundred words, a different count for each.
fn text_of(index: usize) -> String {
    const WORDS: [&str; 8] = [
        "tool", "model", "schema", "call", "value", "program", "result", "log",
    ];
    let count = 120 + (index * 53) % 290;
    (0..count)
        .map(|word| WORDS[(word + index) % WORDS.len()])
        .collect::<Vec<_>>()
        .join(" ")
}

/// List the files of the corpus.
#[tool(read_only)]
async fn list_files() -> Vec<String> {
    (0..FILES)
        .map(|index| format!("notes/{index:02}.txt"))
        .collect()
}

/// Read a file of the corpus as text.
#[tool(read_only)]
async fn read_file(
    /// The file's path, as `list_files` gives it
    path: String,
) -> Result<String, ToolError> {
    let index: usize = path
        .strip_prefix("notes/")
        .and_then(|name| name.strip_suffix(".txt"))
        .and_then(|number| number.parse().ok())
        .filter(|index| *index < FILES)
        .ok_or_else(|| ToolError::new(format!("no file `{path}`")))?;
    Ok(text_of(index))
}

/// The program a model writes for the task.
const PROGRAM: &str = r#"
const files = tools.list_files({});
if (!files.ok) return files.message;
let largest = { path: "", words: -1 };
for (const path of files.value) {
  const read = tools.read_file({ path });
  if (!read.ok) { console.log("skipped", path, read.message); continue; }
  const words = read.value.split(/\s+/).filter((word) => word.length > 0).length;
  if (words > largest.words) largest = { path, words };
}
return largest;
"#;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let registry = Registry::new();
    registry.register::<list_files>()?.keep();
    registry.register::<read_file>()?.keep();
    registry
        .register_dynamic(code::tool(registry.host(), Limits::default()))?
        .keep();

    println!("The API the model reads (in `run_code`'s description):\n");
    println!("{}", code::declarations(registry.host(), &[RUN_CODE]));

    // One call at a time: every result reaches the model.
    let started = Instant::now();
    let listed = registry.call("list_files", json!({})).await;
    let mut seen = listed.text().chars().count();
    let mut largest = (String::new(), 0);
    for path in listed
        .value
        .as_ref()
        .and_then(|value| value.as_array())
        .into_iter()
        .flatten()
    {
        let read = registry.call("read_file", json!({ "path": path })).await;
        seen += read.text().chars().count();
        let words = read.text().split_whitespace().count();
        if words > largest.1 {
            largest = (path.as_str().unwrap_or_default().to_owned(), words);
        }
    }
    let direct = started.elapsed();
    println!(
        "direct:  {} calls, {seen} characters of results reach the model, {direct:?}",
        FILES + 1
    );
    println!("         largest: {} ({} words)", largest.0, largest.1);

    // One program, its calls logged.
    let dir = std::env::temp_dir().join(format!("dsh-code-mode-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let path = dir.join("session.jsonl");
    let log = SessionLog::open(&path)?;
    let logging = registry.subscribe(log.subscriber());
    let started = Instant::now();
    let ran = registry.call(RUN_CODE, json!({ "code": PROGRAM })).await;
    let program = started.elapsed();
    drop(logging);
    if ran.is_error() {
        return Err(ran.text().into());
    }
    println!(
        "program: 1 call ({} inside), {} characters of results reach the model, {program:?}",
        FILES + 1,
        ran.text().chars().count()
    );
    println!("         {}", ran.text());
    let result = &ran.value.as_ref().ok_or("no value")?["result"];
    assert_eq!(
        result["path"],
        json!(largest.0),
        "both ways find the same file"
    );
    assert_eq!(
        result["words"],
        json!(largest.1),
        "both ways count the same words"
    );

    // Replay: the log re-projects every call, and the program runs again
    // against the logged calls, without running a tool.
    let log = Log::read(&path)?;
    let report = replay(&registry, &log);
    let replays = code::replay::replay(&registry, &log, RUN_CODE, &Limits::default()).await;
    let identical = replays.iter().all(|replay| replay.is_identical());
    println!(
        "replay:  {} calls in the log, content identical: {}, program's value identical: {identical}",
        report.calls.len(),
        !report.has_differences()
    );
    std::fs::remove_dir_all(&dir)?;
    if report.has_differences() || !identical {
        return Err("the replay differs".into());
    }
    Ok(())
}
