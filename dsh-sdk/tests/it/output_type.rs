//! `output_type` resolution, the protocol's three steps: the catalog's declaration,
//! then the category's default (one test per row of the table), then `text`;
//! checked on results that go through the pipeline.

use dsh_kit::Registry;
use dsh_kit::event::Event;
use dsh_kit::event::rawp::RawpEvent;
use dsh_kit::prelude::*;
use serde_json::Value;

/// Calls `name` with `args` on a registry holding `T`, and returns the
/// `output_type` of its `tool.invoke.result`, checking it is the one on the
/// [`ToolResult`] too.
async fn output_type_of<T: Tool>(args: Value) -> OutputType {
    let registry = Registry::new();
    registry.register::<T>().unwrap();
    let name = T::DEFINITION.name().to_owned();
    let result = registry.call(&name, args).await;
    let rawp = Event::Result(std::sync::Arc::new(result.clone())).to_rawp();
    let Some(RawpEvent::InvokeResult(rawp)) = rawp else {
        panic!("no tool.invoke.result for {result:?}")
    };
    assert_eq!(rawp.output_type, result.output_type);
    result.output_type
}

// --- 1. the declaration comes first ------------------------------------------

/// Write a file, declaring structured output.
#[tool(category = "filesystem", output_type = "structured")]
async fn declared_write(
    /// Whether to change anything
    change: bool,
) -> Option<String> {
    change.then(|| "-a\n+b\n".to_owned())
}

#[tokio::test]
async fn a_declaration_beats_the_category() {
    assert_eq!(
        output_type_of::<declared_write>(json!({ "change": true })).await,
        OutputType::Structured
    );
    assert_eq!(
        output_type_of::<declared_write>(json!({ "change": false })).await,
        OutputType::Structured
    );
}

// --- 2. the category table, row by row ---------------------------------------

/// Write a file (Write, Edit, MultiEdit): returns the diff, `None` when nothing changed.
#[tool(category = "filesystem")]
async fn write(
    /// Whether to change anything
    change: bool,
) -> Option<String> {
    change.then(|| "--- a\n+++ a\n@@ -1 +1 @@\n-x\n+y\n".to_owned())
}

#[tokio::test]
async fn filesystem_write_is_diff_when_a_change_happened() {
    assert_eq!(
        output_type_of::<write>(json!({ "change": true })).await,
        OutputType::Diff
    );
}

#[tokio::test]
async fn filesystem_write_is_empty_when_nothing_changed() {
    assert_eq!(
        output_type_of::<write>(json!({ "change": false })).await,
        OutputType::Empty
    );
}

/// Write a file and return nothing (NotebookEdit style).
#[tool(category = "notebook")]
async fn notebook_edit() {}

#[tokio::test]
async fn a_write_that_returns_nothing_is_empty() {
    assert_eq!(
        output_type_of::<notebook_edit>(json!({})).await,
        OutputType::Empty
    );
}

/// Write a file that fails: no change happened.
#[tool(category = "filesystem")]
async fn failing_write() -> Result<String, ToolError> {
    Err(ToolError::new("disk full"))
}

#[tokio::test]
async fn a_failed_write_is_empty() {
    assert_eq!(
        output_type_of::<failing_write>(json!({})).await,
        OutputType::Empty
    );
}

/// Read a file (Read, NotebookRead).
#[tool(read_only, category = "filesystem")]
async fn read() -> String {
    "line one\n".into()
}

#[tokio::test]
async fn filesystem_read_is_file_content() {
    assert_eq!(
        output_type_of::<read>(json!({})).await,
        OutputType::FileContent
    );
}

/// Read a file's metadata: a structure, not the file's content.
#[tool(read_only, category = "filesystem")]
async fn stat() -> Value {
    json!({ "size": 12, "modified": "2026-12-01" })
}

#[tokio::test]
async fn a_filesystem_read_of_a_structure_is_structured() {
    assert_eq!(
        output_type_of::<stat>(json!({})).await,
        OutputType::Structured
    );
}

/// Delete a file, saying what was deleted (allowed here without approval).
#[tool(category = "filesystem")]
async fn delete_file(
    /// The file
    path: String,
) -> String {
    format!("deleted {path}")
}

/// Move a file, reporting the move.
#[tool(category = "filesystem")]
async fn move_file() -> Value {
    json!({ "from": "a.txt", "to": "b.txt" })
}

/// Edit a file, returning only the changed lines.
#[tool(category = "filesystem")]
async fn bare_edit() -> String {
    "-old line\n+new line\n unchanged\n".into()
}

#[tokio::test]
async fn a_filesystem_write_is_a_diff_only_when_its_value_reads_as_one() {
    assert_eq!(
        output_type_of::<delete_file>(json!({ "path": "a.txt" })).await,
        OutputType::Text
    );
    assert_eq!(
        output_type_of::<move_file>(json!({})).await,
        OutputType::Structured
    );
    assert_eq!(
        output_type_of::<bare_edit>(json!({})).await,
        OutputType::Diff
    );
}

/// Read a notebook.
#[tool(read_only, category = "notebook")]
async fn notebook_read() -> Value {
    json!({ "cells": [] })
}

#[tokio::test]
async fn notebook_read_is_file_content() {
    assert_eq!(
        output_type_of::<notebook_read>(json!({})).await,
        OutputType::FileContent
    );
}

/// List files (Glob, LS).
#[tool(read_only, category = "filesystem")]
async fn glob() -> Vec<String> {
    vec!["src/lib.rs".into(), "src/main.rs".into()]
}

#[tokio::test]
async fn filesystem_listing_is_file_list() {
    assert_eq!(
        output_type_of::<glob>(json!({})).await,
        OutputType::FileList
    );
}

/// Run a command (Bash).
#[tool(category = "shell")]
async fn bash() -> String {
    "ok\n".into()
}

#[tokio::test]
async fn shell_is_text() {
    assert_eq!(output_type_of::<bash>(json!({})).await, OutputType::Text);
}

/// Search file contents (Grep).
#[tool(read_only, category = "search")]
async fn grep() -> Value {
    json!({ "matches": [{ "path": "a.rs", "line": 1 }] })
}

#[tokio::test]
async fn search_is_text() {
    assert_eq!(output_type_of::<grep>(json!({})).await, OutputType::Text);
}

/// Find the files that match (Grep with files only).
#[tool(read_only, category = "search")]
async fn grep_files() -> Vec<String> {
    vec!["a.rs".into()]
}

#[tokio::test]
async fn search_for_files_is_file_list() {
    assert_eq!(
        output_type_of::<grep_files>(json!({})).await,
        OutputType::FileList
    );
}

/// Fetch a page (WebFetch).
#[tool(read_only, category = "web")]
async fn web_fetch() -> String {
    "<html></html>".into()
}

#[tokio::test]
async fn web_is_web_content() {
    assert_eq!(
        output_type_of::<web_fetch>(json!({})).await,
        OutputType::WebContent
    );
}

/// Write the to-do list (TodoWrite).
#[tool(category = "task_management")]
async fn todo_write() -> Vec<String> {
    vec!["done".into()]
}

#[tokio::test]
async fn task_management_is_structured() {
    assert_eq!(
        output_type_of::<todo_write>(json!({})).await,
        OutputType::Structured
    );
}

/// Delegate to a sub-agent (Task).
#[tool(category = "agent")]
async fn task() -> String {
    "the sub-agent's answer".into()
}

#[tokio::test]
async fn agent_is_agent_result() {
    assert_eq!(
        output_type_of::<task>(json!({})).await,
        OutputType::AgentResult
    );
}

// --- 3. the fallback ---------------------------------------------------------

/// Enter plan mode: a category the table has no row for.
#[tool(category = "planning")]
async fn enter_plan_mode() -> String {
    "planning".into()
}

/// A tool with no category and no declaration.
#[tool]
async fn plain() -> Value {
    json!({ "a": 1 })
}

#[tokio::test]
async fn without_a_declaration_or_a_row_it_is_text() {
    assert_eq!(
        output_type_of::<enter_plan_mode>(json!({})).await,
        OutputType::Text
    );
    assert_eq!(output_type_of::<plain>(json!({})).await, OutputType::Text);
    for category in [Category::Planning, Category::Mcp, Category::Custom] {
        let def = ToolDef::builder("t", "T.").category(category).build();
        assert_eq!(
            def.resolve_output_type(Some(&json!(["a"]))),
            OutputType::Text
        );
    }
}

#[tokio::test]
async fn an_unknown_tool_is_text() {
    let registry = Registry::new();
    assert_eq!(
        registry.call("missing", json!({})).await.output_type,
        OutputType::Text
    );
}
