//! `dsh dev`: a server under development, served to an MCP host through a
//! proxy that stays up while the server is rebuilt and restarted on every
//! change of its sources.
//!
//! The host talks to `dsh dev` (on stdio, or streamable HTTP with `--http`)
//! and never to the server itself, so a restart never drops it: the
//! server's tools turn `unavailable` while it rebuilds, then its new list is
//! read, diffed by contract hash, and published with `list_changed`. A
//! build that fails leaves the tools unavailable until the next change.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::path::{Component, Path, PathBuf};
use std::time::Duration;

use clap::Args;
use dsh_kit::Registry;
use dsh_kit::export::digest::tool_hash;
use dsh_kit::mcp::{Backoff, ContractPins, McpProxy, McpServer, ProxyEvent};
use dsh_kit::permission::{Approval, ApprovalRequest, FnApprover};
use notify::{EventKind, RecursiveMode, Watcher};
use tokio::sync::mpsc;

use crate::error::CliError;
use crate::server::{Server, ServerArgs};
use crate::ui::{Paint, Spinner, note, out, paint, warn};
use crate::{Done, Outcome};

/// How long the sources must stay still before a rebuild: an editor's save
/// is often several writes.
const SETTLE: Duration = Duration::from_millis(300);

/// Attempts to start the server after a change before waiting for the next.
const START_ATTEMPTS: u32 = 3;

/// `dsh dev`.
#[derive(Args, Debug)]
pub struct DevArgs {
    /// Serve the host over streamable HTTP on this loopback address (port 0
    /// picks a free one) instead of stdio; the URL is the first line of
    /// standard output.
    #[arg(long, value_name = "ADDR")]
    http: Option<SocketAddr>,

    /// A file or directory whose changes restart the server; repeat for
    /// more (the current directory unless given). `target/` and hidden
    /// directories are left out.
    #[arg(long, value_name = "PATH")]
    watch: Vec<PathBuf>,

    #[command(flatten)]
    server: ServerArgs,
}

pub async fn run(args: DevArgs) -> Done {
    let Some(server) = args.server.server()? else {
        return Err(CliError::Usage(
            "`dsh dev` needs the command of the server under development: `dsh dev -- cargo run --example mcp_server`, or `--stdio \"COMMAND\"`".to_owned(),
        ));
    };
    if matches!(server, Server::Http { .. }) {
        return Err(CliError::Usage(
            "`dsh dev` starts and restarts the server itself: give its command with `--stdio \"COMMAND\"` or `-- COMMAND` (for a server already running, use `dsh web` or `dsh inspect --url`)".to_owned(),
        ));
    }
    let watch = if args.watch.is_empty() {
        vec![PathBuf::from(".")]
    } else {
        args.watch.clone()
    };
    let (changes, mut changed) = mpsc::unbounded_channel();
    let _watcher = watcher(&watch, changes)?;

    // The host decides about its calls; the proxy does not ask again.
    let registry = Registry::builder()
        .approver(FnApprover(|_: &ApprovalRequest<'_>| Approval::Approve))
        .build();
    let mcp = McpServer::new(registry.clone()).named("dsh dev", env!("CARGO_PKG_VERSION"));
    // Serving starts at once: a host that starts `dsh dev` gets its answers
    // while the server still builds, and the tools when it is up.
    let mut serving = match args.http {
        Some(addr) => {
            let http = mcp.serve_http(addr).await?;
            out(&format!("{}\n", http.url()));
            note(format_args!(
                "serving MCP at {}",
                paint(Paint::Cyan, http.url())
            ));
            tokio::spawn(async move { http.wait().await })
        }
        None => tokio::spawn(mcp.serve_stdio()),
    };

    let mut proxy = start(&server, &registry).await;
    note(format_args!(
        "watching {} for changes; {} to stop",
        watch
            .iter()
            .map(|path| path.display().to_string())
            .collect::<Vec<_>>()
            .join(", "),
        paint(Paint::Bold, "Ctrl-C")
    ));
    loop {
        tokio::select! {
            change = changed.recv() => {
                let Some(path) = change else { break };
                settle(&mut changed).await;
                note(format_args!("{} changed", path.display()));
                let before = contracts(&registry);
                proxy = restart(&server, &registry, proxy).await;
                report(&before, &contracts(&registry));
            }
            ended = &mut serving => {
                match ended {
                    Ok(Ok(())) => note("the host closed the connection"),
                    Ok(Err(error)) => return Err(error.into()),
                    Err(error) => warn(format_args!("the MCP server stopped: {error}")),
                }
                break;
            }
            _ = tokio::signal::ctrl_c() => break,
        }
    }
    drop(proxy);
    Ok(Outcome::Ok)
}

/// Starts the server and registers its tools; `None`, having said why, when
/// it does not come up (a build that fails): the next change tries again.
async fn start(server: &Server, registry: &Registry) -> Option<McpProxy> {
    let spinner = Spinner::start(format!("building and starting {}", server.describe()));
    // `run` took a command line: a URL has nothing to start.
    let Server::Stdio { program, args } = server.clone() else {
        return None;
    };
    let connected = McpProxy::builder(server.name())
        // The changes are the author's own: served as they come, never
        // blocked as a contract that changed behind the host's back.
        .pins(ContractPins::following())
        .heartbeat(None)
        .reconnect(
            Backoff::new(Duration::from_millis(200), Duration::from_secs(2))
                .max_attempts(START_ATTEMPTS),
        )
        .stdio_with(registry, move || {
            let mut command = tokio::process::Command::new(&program);
            command.args(&args);
            command
        })
        .await;
    spinner.finish();
    match connected {
        Ok(proxy) => {
            let tools = proxy.tools();
            note(format_args!(
                "{} is up with {} tool{}: {}",
                server.describe(),
                tools.len(),
                if tools.len() == 1 { "" } else { "s" },
                tools.join(", ")
            ));
            Some(proxy)
        }
        Err(error) => {
            warn(format_args!(
                "{error}; fix it and save: the next change starts it again"
            ));
            None
        }
    }
}

/// Restarts the server after a change: the running proxy reconnects to a
/// fresh process, keeping its tools registered (unavailable meanwhile); a
/// proxy that gave up, or none, is started anew.
async fn restart(
    server: &Server,
    registry: &Registry,
    proxy: Option<McpProxy>,
) -> Option<McpProxy> {
    let Some(proxy) = proxy.filter(McpProxy::is_connected) else {
        return start(server, registry).await;
    };
    let mut events = proxy.events();
    let spinner = Spinner::start(format!("rebuilding and restarting {}", server.describe()));
    proxy.restart("its sources changed");
    let outcome = loop {
        match events.recv().await {
            Ok(ProxyEvent::Reconnected { .. }) => break Ok(()),
            Ok(ProxyEvent::GaveUp { error, .. }) => break Err(error),
            Ok(_) => {}
            Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {}
            Err(tokio::sync::broadcast::error::RecvError::Closed) => {
                break Err("the proxy stopped".to_owned());
            }
        }
    };
    spinner.finish();
    match outcome {
        Ok(_) => Some(proxy),
        Err(error) => {
            warn(format_args!(
                "{} did not come back ({error}); its tools stay unavailable: fix it and save to try again",
                server.describe()
            ));
            // Kept: its tools stay listed, unavailable, until the next change.
            Some(proxy)
        }
    }
}

/// Every tool's contract hash.
fn contracts(registry: &Registry) -> BTreeMap<String, String> {
    registry
        .tools()
        .iter()
        .map(|tool| (tool.name().to_owned(), tool_hash(tool)))
        .collect()
}

/// Says how the tool list changed, by contract hash.
fn report(before: &BTreeMap<String, String>, after: &BTreeMap<String, String>) {
    let mut changes = Vec::new();
    for (name, hash) in after {
        match before.get(name) {
            None => changes.push(format!(
                "{} {name} ({})",
                paint(Paint::Green, "added"),
                short(hash)
            )),
            Some(was) if was != hash => changes.push(format!(
                "{} {name} ({} → {})",
                paint(Paint::Yellow, "changed"),
                short(was),
                short(hash)
            )),
            Some(_) => {}
        }
    }
    for name in before.keys().filter(|name| !after.contains_key(*name)) {
        changes.push(format!("{} {name}", paint(Paint::Red, "removed")));
    }
    if changes.is_empty() {
        note("restarted; no tool changed");
    } else {
        note(format_args!(
            "restarted; published the new tool list (list_changed): {}",
            changes.join(", ")
        ));
    }
}

/// The start of a contract hash, enough to tell two apart.
fn short(hash: &str) -> &str {
    hash.get(..19).unwrap_or(hash)
}

/// Waits until no change came for [`SETTLE`], dropping those that did.
async fn settle(changed: &mut mpsc::UnboundedReceiver<PathBuf>) {
    while let Ok(Some(_)) = tokio::time::timeout(SETTLE, changed.recv()).await {}
}

/// Watches `paths`, sending the path of each change that counts.
fn watcher(
    paths: &[PathBuf],
    changes: mpsc::UnboundedSender<PathBuf>,
) -> Result<notify::RecommendedWatcher, CliError> {
    // Events name paths under the roots as watched: absolute, so that a
    // root inside a hidden directory (a temporary one) is not itself hidden.
    let roots = paths
        .iter()
        .map(|path| {
            std::fs::canonicalize(path).map_err(|source| CliError::Watch {
                path: path.clone(),
                source: notify::Error::io(source),
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    let under = roots.clone();
    let mut watcher = notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
        let Ok(event) = event else { return };
        if !matches!(
            event.kind,
            EventKind::Create(_) | EventKind::Modify(_) | EventKind::Remove(_)
        ) {
            return;
        }
        let counted = event.paths.into_iter().find(|path| {
            under
                .iter()
                .any(|root| path.strip_prefix(root).is_ok_and(counts))
        });
        if let Some(path) = counted {
            let _ = changes.send(path);
        }
    })
    .map_err(|source| CliError::Watch {
        path: paths.first().cloned().unwrap_or_default(),
        source,
    })?;
    for root in &roots {
        watcher
            .watch(root, RecursiveMode::Recursive)
            .map_err(|source| CliError::Watch {
                path: root.clone(),
                source,
            })?;
    }
    Ok(watcher)
}

/// Whether a change of `path` (inside a watched root) calls for a rebuild: not build output
/// (`target/`), not a hidden file or directory (`.git/`, an editor's swap
/// file), not an editor's backup (`file~`).
fn counts(path: &Path) -> bool {
    let hidden = path.components().any(|component| match component {
        Component::Normal(name) => {
            let name = name.to_string_lossy();
            name == "target" || (name.starts_with('.') && name.len() > 1)
        }
        _ => false,
    });
    !hidden && !path.to_string_lossy().ends_with('~')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn build_output_and_hidden_files_do_not_restart() {
        assert!(counts(Path::new("src/main.rs")));
        assert!(counts(Path::new("main.rs")));
        assert!(!counts(Path::new("target/debug/tool")));
        assert!(!counts(Path::new(".git/index")));
        assert!(!counts(Path::new("src/.main.rs.swp")));
        assert!(!counts(Path::new("src/main.rs~")));
    }
}
