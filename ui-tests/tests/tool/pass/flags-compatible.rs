//! Flags that hold together, each pair a legitimate claim.

use dsh_kit::prelude::*;

/// Read a file.
#[tool(read_only, idempotent, open_world = false, concurrency_safe)]
async fn read(path: String) -> String {
    path
}

/// Delete a file: destructive, yet deleting it twice does no more.
#[tool(destructive, idempotent, requires_approval, read_only = false)]
async fn delete(path: String) -> String {
    path
}

/// Index the repository, always as a task.
#[tool(task_required, timeout_ms = 60000)]
async fn index(path: String) -> String {
    path
}

/// Search, as a task when the client takes one.
#[tool(task, task_required = false, read_only, destructive = false)]
async fn search(query: String) -> String {
    query
}

/// Convert, deferred yet listed from the start.
#[tool(defer, always_load, idempotent = false)]
async fn convert(amount: f64) -> f64 {
    amount
}

fn main() {
    let _ = (
        <read as Tool>::DEFINITION,
        <delete as Tool>::DEFINITION,
        <index as Tool>::DEFINITION,
        <search as Tool>::DEFINITION,
        <convert as Tool>::DEFINITION,
    );
}
