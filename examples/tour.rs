//! A tour of dsh-kit: register the example tools, print what the model sees in
//! each provider's format, make good calls and bad ones, then show the
//! pipeline at work: a denied call, an approved one, a timeout, a spill and a
//! batch.
//!
//! Run it with `cargo run --example tour`.

use std::time::Instant;

use dsh_kit::export::Format;
use dsh_kit::permission::Approval;
use dsh_kit::permission::FnApprover;
use dsh_kit::permission::Rule;
use dsh_kit::prelude::*;
use dsh_kit::{Registry, ToolCall};
use dsh_kit_examples::register_all;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
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

    section("What the model sees");
    for (label, format) in [
        ("Anthropic", Format::Anthropic),
        ("OpenAI", Format::OpenAi),
        ("MCP", Format::Mcp),
    ] {
        println!("--- {label} ---\n{}\n", registry.export_json(format));
    }

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

    std::fs::remove_dir_all(&dir)?;
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
        println!(
            "  card:  {}",
            clip(&serde_json::to_string(card).unwrap_or_default())
        );
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
