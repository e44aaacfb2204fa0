//! A tour of dsh-kit: register the example tools, make good calls and bad
//! ones, each with the card a UI would show, then the pipeline at work (a
//! denied call, an approved one, a timeout, a spill and a batch), and
//! finally the session log replayed byte for byte.
//!
//! Run it with `cargo run --example tour`; `-- --exports` also prints what
//! the model sees of every tool in three providers' formats.

use std::time::Instant;

use dsh_kit::card::terminal::{self, Style};
use dsh_kit::export::Format;
use dsh_kit::log::replay::{Outcome, replay};
use dsh_kit::log::{Log, SessionLog};
use dsh_kit::permission::Approval;
use dsh_kit::permission::FnApprover;
use dsh_kit::permission::Rule;
use dsh_kit::prelude::*;
use dsh_kit::{Registry, ToolCall};
use dsh_kit_examples::register_all;

const USAGE: &str = "usage: cargo run --example tour [-- --exports]";

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let exports = match std::env::args().skip(1).collect::<Vec<_>>().as_slice() {
        [] => false,
        [flag] if flag == "--exports" => true,
        [flag] if flag == "-h" || flag == "--help" => {
            println!("{USAGE}");
            return Ok(());
        }
        _ => {
            eprintln!("{USAGE}");
            std::process::exit(2);
        }
    };
    let dir = std::env::temp_dir().join(format!("dsh-tour-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;

    // The host's policy: paths stay inside the tour's directory; never read
    // secrets; approve edits to notes only (a real host would ask a person
    // here); spill results over 2,000 characters.
    let registry = Registry::builder()
        .time_calls(true)
        .path_root(&dir)
        .rule(Rule::deny("read_file").when_path("path", "*secret*")?)
        .approver(FnApprover(
            |request: &dsh_kit::permission::ApprovalRequest<'_>| {
                println!("  (approver) {}", request.prompt);
                let path = request.args["path"].as_str().unwrap_or_default();
                if path.ends_with("notes.txt") {
                    Approval::Approve
                } else {
                    Approval::Reject {
                        reason: "only notes.txt may be edited".into(),
                    }
                }
            },
        ))
        .max_result_chars(2_000)
        .spill_dir(dir.join("spill"))
        .build();
    register_all(&registry)?;
    // Every call of the tour goes to a session log, replayed at the end.
    let log_path = dir.join("session.jsonl");
    let log = SessionLog::open(&log_path)?;
    let logging = registry.subscribe(log.subscriber());

    let notes = dir.join("notes.txt");
    std::fs::write(&notes, "first line\nsecond line\nthird line\n")?;
    let notes = notes.display().to_string();

    section("Good calls");
    show(&registry, "greet", json!({ "name": "Ada" })).await;
    show(
        &registry,
        "add_days",
        json!({ "date": "2024-02-27", "days": 3 }),
    )
    .await;
    show(
        &registry,
        "cat",
        json!({ "path": notes, "offset": 2, "limit": 1 }),
    )
    .await;
    show(
        &registry,
        "edit_file",
        json!({ "path": notes, "old": "second", "new": "2nd" }),
    )
    .await;
    show(
        &registry,
        "greet",
        json!(r#"{"name": "a model that sends strings"}"#),
    )
    .await;

    section("Bad calls");
    show(&registry, "greet", json!({ "name": 42 })).await;
    show(&registry, "read_file", json!({ "limit": -1 })).await;
    show(
        &registry,
        "add_days",
        json!({ "date": "2024-02-27", "days": 100000 }),
    )
    .await;
    show(
        &registry,
        "add_days",
        json!({ "date": "not a date", "days": 1 }),
    )
    .await;
    show(
        &registry,
        "edit_file",
        json!({ "path": notes, "old": "no such text", "new": "x" }),
    )
    .await;
    show(&registry, "read_flie", json!({ "path": notes })).await;

    section("The pipeline");
    println!("A denied call (a rule forbids files named *secret*, at any depth):");
    show(
        &registry,
        "read_file",
        json!({ "path": "notes/../keys/secret.txt" }),
    )
    .await;
    println!("A path that leaves the tour's directory, refused before any rule sees it:");
    show(
        &registry,
        "read_file",
        json!({ "path": "notes.txt/../../../etc/hostname" }),
    )
    .await;
    println!("An edit outside notes.txt, rejected by the approver:");
    let other = dir.join("other.txt");
    std::fs::write(&other, "hello\n")?;
    show(
        &registry,
        "edit_file",
        json!({ "path": other.display().to_string(), "old": "hello", "new": "bye" }),
    )
    .await;
    println!("A timeout (`wait` allows itself 2 s):");
    show(&registry, "wait", json!({ "millis": 5000 })).await;
    println!("A spill (over 2,000 characters):");
    let spilled = registry.call("lorem", json!({ "paragraphs": 40 })).await;
    println!("> lorem {{\"paragraphs\":40}}");
    println!("  truncated: {}", spilled.truncated);
    for line in spilled.text().lines().take(3) {
        println!("  {line}");
    }
    println!("  …\n");

    println!("A batch: three waits run side by side, the edit runs alone, results in order:");
    let started = Instant::now();
    let results = registry
        .call_batch(vec![
            ToolCall::new("wait", json!({ "millis": 300 })),
            ToolCall::new("wait", json!({ "millis": 300 })),
            ToolCall::new("wait", json!({ "millis": 300 })),
            ToolCall::new(
                "edit_file",
                json!({ "path": notes, "old": "third", "new": "3rd" }),
            ),
            ToolCall::new("greet", json!({ "name": "batch" })),
        ])
        .await;
    for result in &results {
        println!(
            "  {:<10} {:?} after {:>4} ms: {}",
            result.tool_name,
            result.status(),
            result.duration.as_millis(),
            clip(result.text().lines().next().unwrap_or_default())
        );
    }
    println!(
        "  the whole batch took {} ms\n",
        started.elapsed().as_millis()
    );

    section("The replay");
    drop(logging);
    drop(log);
    let log = Log::read(&log_path)?;
    let report = replay(&registry, &log);
    let same = (report.calls.iter())
        .filter(|call| matches!(call.outcome, Outcome::Identical))
        .count();
    println!(
        "The session log holds {} calls. Replayed from it, {same} gave the same content and card, byte for byte; {}.",
        report.calls.len(),
        if report.has_differences() {
            "some differ"
        } else {
            "the others never ran (refused, failed or timed out), so there is nothing to project again"
        }
    );
    println!("`cargo run --example replay` draws a whole session log, card by card.\n");

    if exports {
        section("What the model sees");
        for (label, format) in [
            ("Anthropic", Format::Anthropic),
            ("OpenAI", Format::OpenAi),
            ("MCP", Format::Mcp),
        ] {
            println!("--- {label} ---\n{}\n", registry.export_json(format));
        }
    } else {
        println!(
            "What the model sees of each tool, in Anthropic's, OpenAI's and MCP's formats: `cargo run --example tour -- --exports`."
        );
    }

    std::fs::remove_dir_all(&dir)?;
    if report.has_differences() {
        return Err("the replay differs from the session".into());
    }
    Ok(())
}

async fn show(registry: &Registry, name: &str, args: serde_json::Value) {
    let result = registry.call(name, args.clone()).await;
    let status = if result.is_error() { "error" } else { "ok" };
    println!("> {name} {args}");
    println!("  [{status}] {}", result.text().replace('\n', "\n  "));
    if let Some(value) = &result.value {
        println!("  value: {}", clip(&value.to_string()));
    }
    if let Some(card) = result.card() {
        for line in terminal::draw(card, Style::for_stdout()).lines() {
            println!("  {line}");
        }
    }
    println!();
}

fn clip(text: &str) -> String {
    match text.char_indices().nth(160) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text.to_owned(),
    }
}

fn section(title: &str) {
    println!("=== {title} ===\n");
}
