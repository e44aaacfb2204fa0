//! What the provider tests share: a few tools, the recorded responses under
//! `tests/fixtures/provider/`, and the reviewed snapshots under
//! `tests/snapshots/provider/`.
//!
//! A snapshot is the exact JSON the next request would carry after the
//! model's turn: the assistant message (or items) echoed back, then the
//! reply built from the results, serialized straight from the typed
//! messages (fields in the order they go on the wire), pretty-printed. To accept a change, run
//! with `UPDATE_SNAPSHOTS=1`, review the diff, and commit it.

#![allow(dead_code)]

use std::path::PathBuf;

use dsh_kit::Registry;
use dsh_kit::prelude::*;

/// The scenarios every format is tested with, by file name.
pub const SCENARIOS: [&str; 7] = [
    "single",
    "parallel",
    "string_encoded",
    "unknown_tool",
    "malformed",
    "failing",
    "image",
];

/// A note from a fixed set, so results are the same on every run.
#[tool(read_only, concurrency_safe)]
pub async fn read_note(
    /// The note's file name
    path: String,
) -> Result<String, ToolError> {
    match path.as_str() {
        "todo.txt" => Ok("buy milk\ncall Ada".into()),
        "done.txt" => Ok("file taxes".into()),
        other => Err(ToolError::new(format!("no note named `{other}`"))),
    }
}

/// Add two integers.
#[tool(read_only, concurrency_safe)]
pub async fn add(
    /// The first addend
    a: i64,
    /// The second addend
    b: i64,
) -> i64 {
    a + b
}

/// Divide one integer by another.
#[tool(read_only)]
pub async fn divide(
    /// The dividend
    a: i64,
    /// The divisor, not zero
    b: i64,
) -> Result<i64, ToolError> {
    if b == 0 {
        return Err(ToolError::new(
            "division by zero: give a divisor other than 0",
        ));
    }
    Ok(a / b)
}

/// Take a screenshot of the screen.
#[tool(read_only, render = screenshot_content)]
pub async fn screenshot(
    /// The image's media type
    format: Option<String>,
) -> String {
    let _ = format;
    // A 1x1 transparent PNG.
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==".into()
}

#[render]
fn screenshot_content(args: &ScreenshotArgs, png: &String) -> Vec<ContentBlock> {
    let mime = args.format.clone().unwrap_or_else(|| "image/png".into());
    vec![
        ContentBlock::text("The screen, 1x1 pixels:"),
        ContentBlock::image(png.clone(), mime),
    ]
}

/// Two calls of this meet only when they run at the same time: a batch that
/// ran them one after the other would time out.
#[tool(read_only, concurrency_safe, timeout_ms = 5000)]
pub async fn rendezvous(
    /// Who arrives
    who: String,
) -> String {
    static BARRIER: std::sync::OnceLock<tokio::sync::Barrier> = std::sync::OnceLock::new();
    BARRIER
        .get_or_init(|| tokio::sync::Barrier::new(2))
        .wait()
        .await;
    format!("{who} met the other")
}

/// A registry with the tools above.
pub fn registry() -> Registry {
    let registry = Registry::new();
    registry.register::<read_note>().unwrap().keep();
    registry.register::<add>().unwrap().keep();
    registry.register::<divide>().unwrap().keep();
    registry.register::<screenshot>().unwrap().keep();
    registry
}

/// A recorded response, as the provider sent it.
pub fn fixture(format: &str, scenario: &str) -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/provider")
        .join(format)
        .join(format!("{scenario}.json"));
    std::fs::read_to_string(&path).unwrap_or_else(|error| panic!("{}: {error}", path.display()))
}

/// Compares `actual` with its reviewed snapshot; returns the difference, if any.
pub fn snapshot(format: &str, scenario: &str, actual: &impl serde::Serialize) -> Option<String> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/snapshots/provider")
        .join(format)
        .join(format!("{scenario}.json"));
    let actual = serde_json::to_string_pretty(actual).unwrap() + "\n";
    if std::env::var_os("UPDATE_SNAPSHOTS").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &actual).unwrap();
        return None;
    }
    let expected = std::fs::read_to_string(&path)
        .unwrap_or_else(|error| panic!("{}: {error}; run with UPDATE_SNAPSHOTS=1", path.display()));
    (actual != expected)
        .then(|| format!("{format}/{scenario} differs from its snapshot:\n{actual}"))
}
