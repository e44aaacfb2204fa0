//! The limits a call is held to are the limits the model reads: a
//! registry's timeout, result size and path confinement end the
//! description of every tool they apply to, in every format, and a tool's
//! own limit comes before the registry's in both.

use std::time::Duration;

use dsh_kit::export::Format;
use dsh_kit::prelude::*;
use dsh_kit::{Cause, Registry, ToolCall, ToolPath};
use serde_json::{Value, json};

/// Sleep a while.
#[tool]
async fn nap(
    /// How long, in milliseconds
    millis: u64,
) -> String {
    tokio::time::sleep(Duration::from_millis(millis)).await;
    "woke".to_owned()
}

/// Sleep a while, quickly.
#[tool(timeout_ms = 50)]
async fn short_nap(
    /// How long, in milliseconds
    millis: u64,
) -> String {
    tokio::time::sleep(Duration::from_millis(millis)).await;
    "woke".to_owned()
}

/// Name a file.
#[tool(read_only)]
async fn name_file(
    /// The file
    path: ToolPath,
) -> String {
    path.to_string()
}

fn registry(root: &std::path::Path) -> Registry {
    let registry = Registry::builder()
        .timeout(Duration::from_millis(200))
        .max_result_chars(4000)
        .path_root(root)
        .build();
    registry.register::<nap>().unwrap().keep();
    registry.register::<short_nap>().unwrap().keep();
    registry.register::<name_file>().unwrap().keep();
    registry
}

/// Each tool's description as `format` exports it, by name.
fn descriptions(registry: &Registry, format: Format) -> Vec<(String, String)> {
    let Value::Array(tools) = registry.export(format) else {
        panic!("{format:?} exports an array")
    };
    tools
        .iter()
        .map(|tool| {
            let tool = tool.get("function").unwrap_or(tool);
            (
                tool["name"].as_str().unwrap().to_owned(),
                tool["description"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

#[test]
fn the_registry_s_limits_end_each_description_they_apply_to() {
    let root = tempfile::tempdir().unwrap();
    let registry = registry(root.path());
    let cut = "a result over 4000 characters is cut to a preview, the rest saved to a file";
    let confined = "a relative path is taken against the working directory, and a path that resolves (links followed) outside the allowed directories is refused";
    for format in [Format::Mcp, Format::Anthropic, Format::OpenAi] {
        let described = descriptions(&registry, format);
        let of = |name: &str| {
            described
                .iter()
                .find(|(named, _)| named == name)
                .map(|(_, description)| description.as_str())
                .unwrap_or_else(|| panic!("{format:?} lists {name}"))
        };
        assert_eq!(
            of("nap"),
            format!("Sleep a while.\n\nLimits: a call times out after 200 ms; {cut}."),
            "{format:?}"
        );
        assert_eq!(
            of("short_nap"),
            format!("Sleep a while, quickly.\n\nLimits: a call times out after 50 ms; {cut}."),
            "{format:?}"
        );
        assert_eq!(
            of("name_file"),
            format!("Name a file.\n\nLimits: a call times out after 200 ms; {cut}; {confined}."),
            "{format:?}"
        );
    }
}

#[tokio::test]
async fn the_timeout_said_is_the_timeout_enforced() {
    let root = tempfile::tempdir().unwrap();
    let registry = registry(root.path());
    let within = registry.call("nap", json!({ "millis": 20 })).await;
    assert_eq!(within.text(), "woke");
    let past = registry.call("nap", json!({ "millis": 2000 })).await;
    assert_eq!(
        past.failure.as_ref().map(|f| f.cause),
        Some(Cause::Timeout),
        "{}",
        past.text()
    );
    // The tool's own 50 ms, not the registry's 200 ms.
    let own = registry
        .call_with(ToolCall::new("short_nap", json!({ "millis": 120 })))
        .await;
    assert_eq!(
        own.failure.as_ref().map(|f| f.cause),
        Some(Cause::Timeout),
        "{}",
        own.text()
    );
}

#[test]
fn a_registry_with_no_limits_of_its_own_adds_no_sentence() {
    let registry = Registry::new();
    registry.register::<nap>().unwrap().keep();
    registry.register::<name_file>().unwrap().keep();
    for (name, description) in descriptions(&registry, Format::Mcp) {
        assert!(!description.contains("Limits:"), "{name}: {description}");
    }
}
