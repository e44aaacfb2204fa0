//! What the model of each real MCP host is handed when it calls the
//! `mcp_server` example: the host matrix. Every host runs its own code, from
//! the registries and pinned (`tests/hosts/`): the official MCP Python SDK,
//! pydantic-ai with its MCP toolset, openai-agents (`hosts.py`, in a
//! virtualenv made under `target/`), langchain-mcp-adapters (the same
//! script, in a virtualenv of its own: it needs `mcp` 1), the official
//! TypeScript SDK and the Vercel AI SDK with `@ai-sdk/mcp` (`hosts.mjs`,
//! installed with `npm ci` under `target/`; without Node.js they are left
//! out loudly, unless `CI=true`, where that fails). The frameworks that build the model's message do so
//! with a fake model of their own kind, which records the tool message it is
//! handed; the SDKs build none, and a host on them hands its model the
//! result's `content`.
//!
//! For a rendered read (an 11 KB file), a typed failure (`edit_file` with
//! text that does not occur) and a plain string (`greet`), each host's model
//! must get the render's text, in at most 1.2 times its characters; the
//! failure's kind and its data; and the string once. The table of what
//! each host handed its model goes to standard error when it passes, and
//! into the failure's message when it does not.
#![cfg(unix)]

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;
use std::time::Duration;

use dsh_kit::Registry;
use dsh_kit::permission::Rule;
use dsh_kit_examples::register_all;
use serde_json::{Value, json};

use crate::common::{Scratch, npm_ci, run, virtualenv};

const SERVER: &str = env!("CARGO_BIN_EXE_dsh-mcp-server");
/// The most characters a host may hand its model for a render, per
/// character of the render.
const MOST: f64 = 1.2;
/// The longest one driver may take, its hosts' start-up included.
const DRIVER: Duration = Duration::from_secs(180);

/// The Python hosts (with `mcp` 2, and with `mcp` 1) and the Node.js hosts.
const PYTHON_HOSTS: [&str; 3] = ["python-sdk", "pydantic-ai", "openai-agents"];
const LANGCHAIN: &str = "langchain";
const NODE_HOSTS: [&str; 2] = ["ts-sdk", "vercel-ai"];

/// What one call's result must reach the model as.
struct Expected {
    /// The render's text, for the read.
    render: String,
    /// The failure's kind and the path its data holds.
    kind: String,
    path: String,
    /// The plain string.
    plain: String,
}

/// One host's answer to one case, judged.
struct Row {
    host: String,
    case: String,
    chars: usize,
    /// What the case looks for was seen (the render; the string once).
    seen: Option<bool>,
    /// The failure's kind and data were seen.
    kind_seen: Option<bool>,
    /// Why the row fails, if it does.
    problems: Vec<String>,
}

#[test]
fn every_host_hands_its_model_the_render_once_and_the_failure_s_kind() {
    let scratch = Scratch::new("hosts");
    let file = scratch.file("source.txt");
    std::fs::write(&file, source_text()).unwrap();
    let expected = tokio::runtime::Runtime::new()
        .unwrap()
        .block_on(expected(&file));
    let cases = json!([
        { "case": "read", "tool": "read_file", "args": { "path": file } },
        {
            "case": "failure",
            "tool": "edit_file",
            "args": { "path": file, "old": "text that occurs nowhere in the file", "new": "x" }
        },
        { "case": "plain", "tool": "greet", "args": { "name": "Ada" } },
    ]);
    let cases_file = scratch.file("cases.json");
    std::fs::write(&cases_file, cases.to_string()).unwrap();
    let out = scratch.file("handed.jsonl");

    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/hosts/hosts.py");
    let python = virtualenv("tests/hosts/requirements.txt", "hosts-venv");
    let mut command = Command::new(python);
    command
        .arg(&script)
        .arg(SERVER)
        .arg(&cases_file)
        .arg(&out)
        .args(PYTHON_HOSTS);
    drive("hosts.py", command);
    let python = virtualenv("tests/hosts/langchain-requirements.txt", "langchain-venv");
    let mut command = Command::new(python);
    command
        .arg(&script)
        .arg(SERVER)
        .arg(&cases_file)
        .arg(&out)
        .arg(LANGCHAIN);
    drive("hosts.py langchain", command);
    let mut hosts: Vec<&str> = PYTHON_HOSTS.to_vec();
    hosts.push(LANGCHAIN);
    let node = npm_ci(
        "tests/hosts",
        "hosts-npm",
        &["hosts.mjs"],
        "the Node.js hosts of the host matrix",
    );
    if let Some(dir) = node {
        let mut command = Command::new("node");
        command
            .arg(dir.join("hosts.mjs"))
            .arg(SERVER)
            .arg(&cases_file)
            .arg(&out)
            .current_dir(dir);
        drive("hosts.mjs", command);
        hosts.extend(NODE_HOSTS);
    }

    let handed = read_handed(&out);
    let mut rows = Vec::new();
    for host in &hosts {
        for case in ["read", "failure", "plain"] {
            let model = handed.get(&(host.to_string(), case.to_owned()));
            rows.push(judge(host, case, model.map(String::as_str), &expected));
        }
    }
    let table = table(&rows, &expected);
    let failed: Vec<String> = rows
        .iter()
        .filter(|row| !row.problems.is_empty())
        .map(|row| format!("{} × {}: {}", row.host, row.case, row.problems.join("; ")))
        .collect();
    assert!(
        failed.is_empty(),
        "{} of {} host × case pairs hand their model the wrong thing:\n  {}\n\n{table}",
        failed.len(),
        rows.len(),
        failed.join("\n  ")
    );
    eprintln!("\n{table}");
}

/// About 11 KB of source-like text, one numbered line after another.
fn source_text() -> String {
    (1..=220).fold(String::new(), |mut text, n| {
        let _ = writeln!(
            text,
            "    let value_{n:03} = compute(\"item {n}\", {}, &mut state);",
            n * 7 % 101
        );
        text
    })
}

/// The render, the failure and the string, from the example tools in
/// this process: what the server sends is measured against them.
async fn expected(file: &Path) -> Expected {
    let registry = Registry::builder().rule(Rule::allow("edit_file")).build();
    register_all(&registry).unwrap();
    let read = registry.call("read_file", json!({ "path": file })).await;
    assert!(!read.is_error(), "{}", read.text());
    let render = read.text();
    assert!(
        (10_000..16_000).contains(&render.chars().count()),
        "the read's render is meant to be about 13,000 characters, not {}",
        render.chars().count()
    );
    let failed = registry
        .call(
            "edit_file",
            json!({ "path": file, "old": "text that occurs nowhere in the file", "new": "x" }),
        )
        .await;
    let failure = failed.failure.expect("the edit fails");
    let kind = failure.kind.expect("the failure is typed");
    assert_eq!(kind, "NoMatchesFound");
    let path = failure
        .data
        .as_ref()
        .and_then(|data| data["path"].as_str())
        .expect("the failure's data holds the path")
        .to_owned();
    let greeted = registry.call("greet", json!({ "name": "Ada" })).await;
    Expected {
        render,
        kind,
        path,
        plain: greeted.text(),
    }
}

/// Runs a driver to the end; it must succeed.
fn drive(name: &str, mut command: Command) {
    // No tracing or telemetry export: the hosts reach no network.
    command
        .env("OPENAI_AGENTS_DISABLE_TRACING", "1")
        .env("LOGFIRE_IGNORE_NO_CONFIG", "1");
    let ran = run(command, DRIVER);
    assert!(ran.success, "{name} failed:\n{}", ran.text);
}

/// What each (host, case) handed its model, from the drivers' lines.
fn read_handed(out: &Path) -> BTreeMap<(String, String), String> {
    let text = std::fs::read_to_string(out).unwrap_or_default();
    text.lines()
        .map(|line| {
            let value: Value = serde_json::from_str(line)
                .unwrap_or_else(|error| panic!("a driver wrote {line:?}: {error}"));
            let field = |name: &str| {
                value[name]
                    .as_str()
                    .unwrap_or_else(|| panic!("a driver's line has no {name}: {line}"))
                    .to_owned()
            };
            ((field("host"), field("case")), field("model"))
        })
        .collect()
}

fn judge(host: &str, case: &str, model: Option<&str>, expected: &Expected) -> Row {
    let mut row = Row {
        host: host.to_owned(),
        case: case.to_owned(),
        chars: 0,
        seen: None,
        kind_seen: None,
        problems: Vec::new(),
    };
    let Some(model) = model else {
        row.problems
            .push("the host handed its model nothing".into());
        return row;
    };
    row.chars = model.chars().count();
    match case {
        "read" => {
            let seen = model.contains(&expected.render);
            row.seen = Some(seen);
            if !seen {
                row.problems
                    .push("the render's text is not in what the model got".into());
            }
            let most = expected.render.chars().count() as f64 * MOST;
            if row.chars as f64 > most {
                row.problems.push(format!(
                    "{} characters, more than {MOST}x the render's {} ({:.2}x)",
                    row.chars,
                    expected.render.chars().count(),
                    ratio(row.chars, &expected.render)
                ));
            }
        }
        "failure" => {
            let kind = model.contains(&expected.kind);
            let data = model.contains(&expected.path);
            row.kind_seen = Some(kind && data);
            if !kind {
                row.problems
                    .push(format!("the kind `{}` is missing", expected.kind));
            }
            if !data {
                row.problems.push(format!(
                    "the failure's data (the path {}) is missing",
                    expected.path
                ));
            }
        }
        _ => {
            let times = model.matches(&expected.plain).count();
            row.seen = Some(times == 1);
            if times != 1 {
                row.problems.push(format!(
                    "{:?} is there {times} times, not once",
                    expected.plain
                ));
            }
        }
    }
    row
}

fn ratio(chars: usize, render: &str) -> f64 {
    chars as f64 / render.chars().count() as f64
}

/// The matrix as a table to quote: host × case, the characters the model
/// got (and their ratio to the render's), what was seen.
fn table(rows: &[Row], expected: &Expected) -> String {
    let yes_no = |seen: Option<bool>| match seen {
        Some(true) => "yes",
        Some(false) => "NO",
        None => "-",
    };
    let mut text = format!(
        "host matrix: the render is {} characters; at most {MOST}x allowed\n",
        expected.render.chars().count()
    );
    let _ = writeln!(
        text,
        "| {:<13} | {:<7} | {:>10} | {:>5} | {:<11} | {:<17} | {:<4} |",
        "host", "case", "characters", "ratio", "render seen", "failure kind seen", "ok"
    );
    let _ = writeln!(
        text,
        "|{:-<15}|{:-<9}|{:->12}|{:->7}|{:-<13}|{:-<19}|{:-<6}|",
        "", "", "", "", "", "", ""
    );
    for row in rows {
        let ratio = match row.case.as_str() {
            "read" => format!("{:.2}", ratio(row.chars, &expected.render)),
            _ => "-".to_owned(),
        };
        let _ = writeln!(
            text,
            "| {:<13} | {:<7} | {:>10} | {:>5} | {:<11} | {:<17} | {:<4} |",
            row.host,
            row.case,
            row.chars,
            ratio,
            yes_no(row.seen),
            yes_no(row.kind_seen),
            if row.problems.is_empty() {
                "ok"
            } else {
                "FAIL"
            }
        );
    }
    text
}
