//! A tour of dsh-sdk: register the example tools, print what the model sees in
//! each provider's format, then make good calls and bad ones.
//!
//! Run it with `cargo run --example tour`.

use dsh_examples::register_all;
use dsh_sdk::export::Format;
use dsh_sdk::prelude::*;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let registry = Registry::new();
    register_all(&registry)?;

    section("What the model sees");
    for (label, format) in [
        ("Anthropic", Format::Anthropic),
        ("OpenAI", Format::OpenAi),
        ("MCP", Format::Mcp),
    ] {
        println!("--- {label} ---\n{}\n", registry.export_json(format));
    }

    let dir = std::env::temp_dir().join(format!("dsh-tour-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let notes = dir.join("notes.txt");
    std::fs::write(&notes, "first line\nsecond line\nthird line\n")?;
    let notes = notes.display().to_string();

    section("Good calls");
    show(&registry, "greet", json!({ "name": "Ada" })).await;
    show(&registry, "add_days", json!({ "date": "2024-02-27", "days": 3 })).await;
    show(&registry, "cat", json!({ "path": notes, "offset": 2, "limit": 1 })).await;
    show(
        &registry,
        "edit_file",
        json!({ "path": notes, "old": "second", "new": "2nd" }),
    )
    .await;
    show(&registry, "greet", json!(r#"{"name": "a model that sends strings"}"#)).await;

    section("Bad calls");
    show(&registry, "greet", json!({ "name": 42 })).await;
    show(&registry, "read_file", json!({ "limit": -1 })).await;
    show(&registry, "add_days", json!({ "date": "2024-02-27", "days": 100000 })).await;
    show(&registry, "add_days", json!({ "date": "not a date", "days": 1 })).await;
    show(
        &registry,
        "edit_file",
        json!({ "path": notes, "old": "no such text", "new": "x" }),
    )
    .await;
    show(&registry, "read_flie", json!({ "path": notes })).await;

    std::fs::remove_dir_all(&dir)?;
    Ok(())
}

async fn show(registry: &Registry, name: &str, args: serde_json::Value) {
    let result = registry.call(name, args.clone()).await;
    let status = if result.is_error { "error" } else { "ok" };
    println!("> {name} {args}");
    println!("  [{status}] {}", result.text().replace('\n', "\n  "));
    if let Some(value) = &result.value {
        println!("  value: {value}");
    }
    if let Some(card) = &result.card {
        println!("  card:  {}", serde_json::to_string(card).unwrap_or_default());
    }
    println!();
}

fn section(title: &str) {
    println!("=== {title} ===\n");
}
