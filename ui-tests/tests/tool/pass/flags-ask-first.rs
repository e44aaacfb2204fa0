//! `ask_first` beside a task flag, whichever comes first, and turned off
//! where there are no tasks.

use dsh_kit::prelude::*;

/// Ask a name, then greet as a task.
#[tool(read_only, task_required, ask_first)]
async fn greet(exec: &Exec) -> String {
    let _ = exec;
    "hello".to_owned()
}

/// Ask a path, then index it as a task when the client takes one.
#[tool(ask_first, task)]
async fn index(path: String) -> String {
    path
}

/// Answer at once: nothing to ask first of.
#[tool(read_only, ask_first = false)]
async fn now(zone: String) -> String {
    zone
}

fn main() {
    assert!(<greet as Tool>::DEFINITION.asks_first());
    assert!(<index as Tool>::DEFINITION.asks_first());
    assert!(!<now as Tool>::DEFINITION.asks_first());
}
