//! The tool catalog (RAWP-DPS `tool.catalog.publish`): its payload, status transitions that
//! republish it, and the severity rules calls obey.

use std::sync::{Arc, Mutex};

use dsh_kit::Status;
use dsh_kit::catalog::CatalogError;
use dsh_kit::catalog::TOOL_DEGRADED;
use dsh_kit::event::rawp::{CatalogPublish, Diagnostic, Severity, ToolStatus};
use dsh_kit::event::{Event, StreamType};
use dsh_kit::permission::Rule;
use dsh_kit::prelude::*;
use dsh_kit::{Registry, ToolResult};
use serde_json::Value;

/// Search with ripgrep (pretend).
#[tool(read_only, concurrency_safe, category = "search", aliases = ["ripgrep"])]
async fn rg(
    /// The pattern
    pattern: String,
) -> String {
    format!("searched {pattern}")
}

/// Edit a file (pretend).
#[tool(destructive, category = "filesystem", output_type = "diff")]
async fn edit(
    /// The path
    path: String,
) -> String {
    format!("edited {path}")
}

/// Say hello.
#[tool(requires_approval)]
async fn hello() -> String {
    "hello".into()
}

fn registry() -> Registry {
    let registry = Registry::builder()
        .rule(Rule::allow("edit"))
        .rule(Rule::allow("hello"))
        .build();
    registry.register::<rg>().unwrap();
    registry.register::<edit>().unwrap();
    registry.register::<hello>().unwrap();
    registry
}

/// Every catalog published while subscribed, as JSON.
fn catalogs(registry: &Registry) -> (Arc<Mutex<Vec<Value>>>, dsh_kit::Subscription) {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&seen);
    let subscription = registry.subscribe(move |event| {
        if let Event::Catalog(catalog) = event {
            sink.lock()
                .unwrap()
                .push(serde_json::to_value(catalog).unwrap());
        }
    });
    (seen, subscription)
}

fn statuses(catalog: &Value) -> Vec<(String, Value, Value)> {
    catalog["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| {
            (
                tool["name"].as_str().unwrap().to_owned(),
                tool["status"].clone(),
                tool.get("status_description")
                    .cloned()
                    .unwrap_or(Value::Null),
            )
        })
        .collect()
}

#[test]
fn the_payload_describes_every_tool_sorted_by_name() {
    let registry = registry();
    let catalog = serde_json::to_value(registry.catalog()).unwrap();
    let rg_schema = registry.get("rg").unwrap().input_schema().clone();
    let edit_schema = registry.get("edit").unwrap().input_schema().clone();
    let hello_schema = registry.get("hello").unwrap().input_schema().clone();
    let hash = |name: &str| dsh_kit::export::digest::tool_hash(&registry.get(name).unwrap());
    assert_eq!(
        catalog,
        json!({
            "tools": [
                {
                    "name": "edit",
                    "description": "Edit a file (pretend).",
                    "input_schema": edit_schema,
                    "output_type": "diff",
                    "requires_approval": true,
                    "category": "filesystem",
                    "status": "available",
                    "contract_hash": hash("edit"),
                },
                {
                    "name": "hello",
                    "description": "Say hello.",
                    "input_schema": hello_schema,
                    "requires_approval": true,
                    "status": "available",
                    "contract_hash": hash("hello"),
                },
                {
                    "name": "rg",
                    "description": "Search with ripgrep (pretend).",
                    "input_schema": rg_schema,
                    "requires_approval": false,
                    "category": "search",
                    "status": "available",
                    "contract_hash": hash("rg"),
                },
            ]
        })
    );
}

#[tokio::test]
async fn a_status_transition_republishes_the_catalog() {
    let registry = registry();
    let (seen, _subscription) = catalogs(&registry);

    registry.publish_catalog();
    // A missing executable…
    registry
        .set_status(
            "ripgrep",
            ToolStatus::Unavailable,
            Some("`rg` is not on the PATH"),
        )
        .unwrap();
    // …the same again changes nothing, so nothing is published…
    registry
        .set_status(
            "rg",
            ToolStatus::Unavailable,
            Some("`rg` is not on the PATH"),
        )
        .unwrap();
    // …then installed, but old.
    registry
        .set_status("rg", ToolStatus::Degraded, Some("`rg` 12 lacks `--json`"))
        .unwrap();
    registry
        .set_status("rg", ToolStatus::Available, None)
        .unwrap();

    let seen = seen.lock().unwrap();
    let rg = |catalog: &Value| statuses(catalog).pop().unwrap();
    assert_eq!(seen.len(), 4, "{seen:#?}");
    assert_eq!(rg(&seen[0]), ("rg".into(), json!("available"), Value::Null));
    assert_eq!(
        rg(&seen[1]),
        (
            "rg".into(),
            json!("unavailable"),
            json!("`rg` is not on the PATH")
        )
    );
    assert_eq!(
        rg(&seen[2]),
        (
            "rg".into(),
            json!("degraded"),
            json!("`rg` 12 lacks `--json`")
        )
    );
    assert_eq!(rg(&seen[3]), ("rg".into(), json!("available"), Value::Null));
    // Only `rg` changed.
    for catalog in seen.iter() {
        assert_eq!(statuses(catalog)[0].1, "available");
        assert_eq!(statuses(catalog)[1].1, "available");
    }
}

#[test]
fn the_status_of_an_unknown_tool_cannot_be_set() {
    let registry = registry();
    let error = registry
        .set_status("rgg", ToolStatus::Unavailable, None)
        .unwrap_err();
    assert!(matches!(error, CatalogError::UnknownTool { .. }));
    assert_eq!(
        error.to_string(),
        "cannot set the status of `rgg`: no tool of that name is registered; did you mean `rg`?"
    );
    assert_eq!(
        registry
            .set_status("zzz", ToolStatus::Unavailable, None)
            .unwrap_err()
            .to_string(),
        "cannot set the status of `zzz`: no tool of that name is registered"
    );
}

#[tokio::test]
async fn an_unavailable_tool_is_refused_until_it_is_available_again() {
    let registry = registry();
    registry
        .set_status(
            "rg",
            ToolStatus::Unavailable,
            Some("`rg` is not on the PATH"),
        )
        .unwrap();
    // By name or alias, whatever the arguments: nothing is read or run.
    for name in ["rg", "ripgrep"] {
        for args in [json!({ "pattern": "x" }), json!({})] {
            let result = registry.call(name, args).await;
            assert_eq!(result.status(), Status::Error);
            assert!(result.is_error());
            assert_eq!(result.tool_name, "rg");
            assert_eq!(
                result.text(),
                "`rg` is unavailable and cannot be called: `rg` is not on the PATH"
            );
            assert_eq!(result.output_type, OutputType::Text);
        }
    }
    registry
        .set_status("rg", ToolStatus::Unavailable, None)
        .unwrap();
    assert_eq!(
        registry.call("rg", json!({ "pattern": "x" })).await.text(),
        "`rg` is unavailable and cannot be called"
    );
    // Other tools are untouched.
    assert_eq!(registry.call("hello", json!({})).await.text(), "hello");

    registry
        .set_status("rg", ToolStatus::Available, None)
        .unwrap();
    assert_eq!(
        registry.call("rg", json!({ "pattern": "x" })).await.text(),
        "searched x"
    );
}

#[tokio::test]
async fn a_fatal_diagnostic_blocks_its_tool() {
    let registry = registry();
    let (seen, _subscription) = catalogs(&registry);
    registry.add_diagnostic(
        Diagnostic::new(Severity::Fatal, "DEPENDENCY_MISSING", "libpcre2 is missing")
            .tool("ripgrep"),
    );
    let result = registry.call("rg", json!({ "pattern": "x" })).await;
    assert_eq!(result.status(), Status::Error);
    assert_eq!(
        result.text(),
        "`rg` is blocked by a fatal diagnostic and cannot be called: DEPENDENCY_MISSING: libpcre2 is missing"
    );
    assert_eq!(registry.call("hello", json!({})).await.text(), "hello");

    // Stored under the tool's name, and published.
    assert_eq!(
        seen.lock().unwrap()[0]["diagnostics"],
        json!([{ "severity": "fatal", "tool_name": "rg", "code": "DEPENDENCY_MISSING", "message": "libpcre2 is missing" }])
    );

    assert!(registry.remove_diagnostic(Some("rg"), "DEPENDENCY_MISSING"));
    assert!(!registry.remove_diagnostic(Some("rg"), "DEPENDENCY_MISSING"));
    assert_eq!(
        registry.call("rg", json!({ "pattern": "x" })).await.text(),
        "searched x"
    );
    let seen = seen.lock().unwrap();
    assert_eq!(
        seen.len(),
        2,
        "a removal republishes; a failed one does not"
    );
    assert!(seen[1].get("diagnostics").is_none());
}

#[tokio::test]
async fn a_fatal_diagnostic_of_the_whole_catalog_blocks_every_tool() {
    let registry = registry();
    registry.add_diagnostic(Diagnostic::new(
        Severity::Fatal,
        "AGENT_INIT_FAILED",
        "the sandbox did not start",
    ));
    for name in ["rg", "edit", "hello"] {
        assert_eq!(
            registry.call(name, json!({})).await.text(),
            format!(
                "`{name}` is blocked by a fatal diagnostic of the whole catalog and cannot be called: AGENT_INIT_FAILED: the sandbox did not start"
            )
        );
    }
    assert!(registry.clear_diagnostics(None));
    assert_eq!(registry.call("hello", json!({})).await.text(), "hello");
}

/// The progress chunks of one call.
async fn progress_of(registry: &Registry, name: &str, args: Value) -> (ToolResult, Vec<String>) {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&seen);
    let subscription = registry.subscribe(move |event| {
        if let Event::Stream(chunk) = event
            && chunk.stream_type == StreamType::Progress
        {
            sink.lock()
                .unwrap()
                .push((chunk.sequence, chunk.chunk.clone()));
        }
    });
    let result = registry.call(name, args).await;
    drop(subscription);
    let seen = seen.lock().unwrap();
    for (index, (sequence, _)) in seen.iter().enumerate() {
        assert_eq!(*sequence, index as u64);
    }
    (
        result,
        seen.iter().map(|(_, chunk)| chunk.clone()).collect(),
    )
}

#[tokio::test]
async fn error_diagnostics_and_degraded_status_warn_the_user_and_the_call_runs() {
    let registry = registry();
    registry.add_diagnostic(
        Diagnostic::new(
            Severity::Error,
            "VERSION_MISMATCH",
            "`rg` 12 is older than 13",
        )
        .tool("rg"),
    );
    registry.add_diagnostic(Diagnostic::new(
        Severity::Error,
        "CONFIG_INVALID",
        "`.ripgreprc` has an unknown flag",
    ));
    registry
        .set_status(
            "rg",
            ToolStatus::Degraded,
            Some("PCRE2 is off: no look-around"),
        )
        .unwrap();

    let warnings = registry.warnings("ripgrep");
    assert_eq!(
        warnings,
        [
            Diagnostic::new(
                Severity::Error,
                "CONFIG_INVALID",
                "`.ripgreprc` has an unknown flag"
            ),
            Diagnostic::new(
                Severity::Error,
                "VERSION_MISMATCH",
                "`rg` 12 is older than 13"
            )
            .tool("rg"),
            Diagnostic::new(
                Severity::Warning,
                TOOL_DEGRADED,
                "PCRE2 is off: no look-around"
            )
            .tool("rg"),
        ]
    );

    let (result, progress) = progress_of(&registry, "rg", json!({ "pattern": "x" })).await;
    assert_eq!(result.status(), Status::Success);
    assert_eq!(result.text(), "searched x", "the model is not told");
    assert_eq!(
        progress,
        [
            "warning: CONFIG_INVALID: `.ripgreprc` has an unknown flag",
            "warning: VERSION_MISMATCH: `rg` 12 is older than 13",
            "warning: TOOL_DEGRADED: PCRE2 is off: no look-around",
        ]
    );
    // Another tool gets the catalog-wide warning only.
    let (_, progress) = progress_of(&registry, "hello", json!({})).await;
    assert_eq!(
        progress,
        ["warning: CONFIG_INVALID: `.ripgreprc` has an unknown flag"]
    );
    // A degraded tool without a reason says so plainly.
    registry.clear_diagnostics(None);
    registry.clear_diagnostics(Some("ripgrep"));
    registry
        .set_status("rg", ToolStatus::Degraded, None)
        .unwrap();
    assert_eq!(
        registry.warnings("rg"),
        [Diagnostic::new(Severity::Warning, TOOL_DEGRADED, "`rg` works with limits").tool("rg")]
    );
}

#[tokio::test]
async fn warning_and_info_diagnostics_change_nothing_about_calls() {
    let registry = registry();
    registry
        .add_diagnostic(Diagnostic::new(Severity::Warning, "SLOW", "the disk is slow").tool("rg"));
    registry.add_diagnostic(Diagnostic::new(
        Severity::Info,
        "CACHE",
        "the index is warm",
    ));
    assert!(registry.warnings("rg").is_empty());
    let (result, progress) = progress_of(&registry, "rg", json!({ "pattern": "x" })).await;
    assert_eq!(result.text(), "searched x");
    assert!(progress.is_empty());
    // Both are published, catalog-wide first.
    let catalog: CatalogPublish = registry.catalog();
    assert_eq!(
        catalog.diagnostics,
        [
            Diagnostic::new(Severity::Info, "CACHE", "the index is warm"),
            Diagnostic::new(Severity::Warning, "SLOW", "the disk is slow").tool("rg"),
        ]
    );
}

#[test]
fn a_diagnostic_with_the_same_tool_and_code_replaces_the_old_one() {
    let registry = registry();
    let (seen, _subscription) = catalogs(&registry);
    let error = Diagnostic::new(Severity::Error, "VERSION_MISMATCH", "old").tool("rg");
    registry.add_diagnostic(error.clone());
    registry.add_diagnostic(error);
    registry
        .add_diagnostic(Diagnostic::new(Severity::Fatal, "VERSION_MISMATCH", "too old").tool("rg"));
    assert_eq!(
        registry.catalog().diagnostics,
        [Diagnostic::new(Severity::Fatal, "VERSION_MISMATCH", "too old").tool("rg")]
    );
    assert_eq!(
        seen.lock().unwrap().len(),
        2,
        "adding the same one again publishes nothing"
    );
}

#[test]
fn severities_are_ordered_from_mild_to_fatal() {
    assert!(Severity::Info < Severity::Warning);
    assert!(Severity::Warning < Severity::Error);
    assert!(Severity::Error < Severity::Fatal);
}
