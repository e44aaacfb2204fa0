//! A proxy that starts the `mcp_server` example's process again after it
//! dies: its tools turn unavailable, then come back.
#![cfg(unix)]

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use dsh_kit::Registry;
use dsh_kit::event::rawp::ToolStatus;
use dsh_kit::mcp::{Backoff, McpProxy, ProxyEvent, ToolListDiff};
use serde_json::json;
use tokio::sync::broadcast;

const SERVER: &str = env!("CARGO_BIN_EXE_dsh-mcp-server");
/// The longest any one step here may take.
const STEP: Duration = Duration::from_secs(20);

/// The pid the server's last start wrote to `file`, once it differs from `not`.
async fn pid(file: &Path, not: Option<&str>) -> String {
    tokio::time::timeout(STEP, async {
        loop {
            if let Ok(pid) = std::fs::read_to_string(file) {
                let pid = pid.trim();
                if !pid.is_empty() && Some(pid) != not {
                    return pid.to_owned();
                }
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await
    .expect("the server wrote its pid")
}

async fn next(events: &mut broadcast::Receiver<ProxyEvent>) -> ProxyEvent {
    tokio::time::timeout(STEP, events.recv())
        .await
        .expect("the proxy reports in time")
        .expect("the proxy is still there")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_process_that_dies_is_started_again_and_its_tools_come_back() {
    let dir = tempfile::tempdir().unwrap();
    let pid_file = dir.path().join("server.pid");
    let registry = Registry::new();
    let file = pid_file.clone();
    let proxy = tokio::time::timeout(
        STEP,
        McpProxy::builder("examples")
            .reconnect(Backoff::new(
                Duration::from_millis(50),
                Duration::from_millis(200),
            ))
            .stdio_with(&registry, move || {
                // `sh` writes the server's pid, then becomes the server.
                let mut command = tokio::process::Command::new("sh");
                command
                    .arg("-c")
                    .arg(r#"echo $$ > "$0" && exec "$1""#)
                    .arg(&file)
                    .arg(SERVER);
                command
            }),
    )
    .await
    .expect("the proxy connects in time")
    .expect("the proxy connects");
    let mut events = proxy.events();
    let tools = proxy.tools();
    assert!(tools.contains(&"add_days".to_owned()), "{tools:?}");
    let args = json!({ "date": "2024-02-28", "days": 1 });
    assert!(!registry.call("add_days", args.clone()).await.is_error());

    let first = pid(&pid_file, None).await;
    assert!(
        Command::new("kill")
            .args(["-9", &first])
            .status()
            .unwrap()
            .success()
    );
    assert_eq!(
        next(&mut events).await,
        ProxyEvent::Disconnected {
            reason: "its connection closed".to_owned()
        }
    );
    let status = |name: &str| {
        registry
            .catalog()
            .tools
            .into_iter()
            .find(|tool| tool.name == name)
            .map(|tool| tool.status)
    };
    // Started again by the proxy: the same tools, nothing to diff.
    let back = loop {
        match next(&mut events).await {
            ProxyEvent::Reconnected { diff, .. } => break diff,
            ProxyEvent::ReconnectFailed { .. } => {}
            other => panic!("unexpected {other:?}"),
        }
    };
    assert_eq!(back, ToolListDiff::default());
    assert_ne!(pid(&pid_file, Some(&first)).await, first);
    assert!(proxy.is_connected());
    assert_eq!(proxy.tools(), tools);
    assert_eq!(status("add_days"), Some(ToolStatus::Available));
    let ran = registry.call("add_days", args).await;
    assert!(!ran.is_error(), "{}", ran.text());
}
