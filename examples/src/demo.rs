//! A short session of every example tool, recorded in a session log: what
//! `cargo run --example replay` shows when it is given no log.

use std::io::{self, Read as _, Write as _};
use std::net::TcpListener;
use std::path::{Path, PathBuf};

use dsh_kit::Registry;
use dsh_kit::log::{LogError, SessionLog};
use dsh_kit::permission::{Approval, ApprovalRequest, FnApprover};
use dsh_kit::prelude::*;
use dsh_kit::{RegisterError, ToolCall};
use serde_json::Value;

use crate::register_all;

/// The page the demo's `fetch` calls get.
pub const PAGE: &str = "<!doctype html><html><head><title>Replay demo</title></head>\
<body><h1>A page served by the demo</h1><p>Session logs keep the canonical value of every call, \
so a replay can draw this card again without fetching anything.</p></body></html>";

/// Setting up or recording the demo failed.
#[derive(Debug, thiserror::Error)]
pub enum DemoError {
    /// A file or directory of the demo could not be made.
    #[error("could not write `{}`", path.display())]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// Why.
        #[source]
        source: io::Error,
    },
    /// The local web server could not start.
    #[error("could not start the demo's web server")]
    Serve(#[source] io::Error),
    /// A tool could not be registered.
    #[error(transparent)]
    Register(#[from] RegisterError),
    /// The session log could not be opened.
    #[error(transparent)]
    Log(#[from] LogError),
}

/// Every example tool in a registry with default settings (so results over
/// 100,000 characters spill to the default spill directory) and an approver
/// that approves every call, where a real host would ask a person.
pub fn registry() -> Result<Registry, RegisterError> {
    let registry = Registry::builder()
        .approver(FnApprover(|_: &ApprovalRequest<'_>| Approval::Approve))
        .build();
    register_all(&registry)?;
    Ok(registry)
}

/// Serves `html` to every request at `http://127.0.0.1:PORT/` from a
/// background thread that lives as long as the process; returns the address.
pub fn serve_page(html: &'static str) -> Result<String, DemoError> {
    let listener = TcpListener::bind("127.0.0.1:0").map_err(DemoError::Serve)?;
    let address = listener.local_addr().map_err(DemoError::Serve)?;
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            // The request itself does not matter: read what came, answer the page.
            let mut request = [0; 4096];
            let _ = stream.read(&mut request);
            let _ = write!(
                stream,
                "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{html}",
                html.len()
            );
        }
    });
    Ok(format!("http://{address}/"))
}

/// What [`record`] made.
#[derive(Debug, Clone)]
pub struct Recorded {
    /// The session log.
    pub log: PathBuf,
    /// The directory the tools worked in.
    pub work: PathBuf,
}

/// Records a short session in `dir`: a notes file under `dir/work` that the
/// tools read, edit and search, and the log at `dir/session.jsonl`, with one
/// or more calls of every example tool, a batch, a spilled result and two
/// calls that fail before they run.
pub async fn record(registry: &Registry, dir: &Path) -> Result<Recorded, DemoError> {
    let work = dir.join("work");
    let io = |path: &Path| {
        let path = path.to_owned();
        move |source| DemoError::Io { path, source }
    };
    std::fs::create_dir_all(&work).map_err(io(&work))?;
    let notes = work.join("notes.txt");
    std::fs::write(&notes, "first line\nsecond line\nthird line\n").map_err(io(&notes))?;
    let notes = notes.display().to_string();
    let url = serve_page(PAGE)?;

    let path = dir.join("session.jsonl");
    let log = SessionLog::open(&path)?;
    let logging = registry.subscribe(log.subscriber());
    let calls: Vec<(&str, Value)> = vec![
        ("greet", json!({ "name": "Ada" })),
        ("add_days", json!({ "date": "2024-02-27", "days": 3 })),
        (
            "read_file",
            json!({ "path": notes, "offset": 2, "limit": 2 }),
        ),
        (
            "edit_file",
            json!({ "path": notes, "old": "second", "new": "2nd" }),
        ),
        (
            "bash",
            json!({ "command": "echo hello from the shell; echo a warning >&2; exit 3" }),
        ),
        (
            "grep",
            json!({ "pattern": "line", "path": work.display().to_string() }),
        ),
        ("fetch", json!({ "url": url })),
        ("wait", json!({ "millis": 250 })),
        ("lorem", json!({ "paragraphs": 1000 })),
        ("greet", json!({ "name": 42 })),
        ("read_flie", json!({ "path": notes })),
    ];
    for (name, args) in calls {
        registry.call(name, args).await;
    }
    registry
        .call_batch(vec![
            ToolCall::new("greet", json!({ "name": "batch one" })),
            ToolCall::new("greet", json!({ "name": "batch two" })),
        ])
        .await;
    drop(logging);
    if let Some(error) = log.take_error() {
        return Err(error.into());
    }
    Ok(Recorded { log: path, work })
}
