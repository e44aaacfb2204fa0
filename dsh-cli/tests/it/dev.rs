//! `dsh dev`: a scratch tool server (serde_json alone, so one rebuild takes
//! seconds) served to a client that stays connected while its source is
//! edited: the client gets `list_changed` and the new definition, and the
//! tool still answers, without ever reconnecting.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use dsh_kit::mcp::{Backoff, McpProxy, ProxyEvent};
use dsh_kit::{ContentBlock, Registry, ToolResult};
use serde_json::json;
use tokio::io::{AsyncBufReadExt, BufReader};

const OLD: &str = "Greet someone by name.";
const NEW: &str = "Greet someone warmly, by name.";

/// The first text block a call gave: what the server wrote (the host's
/// MCP server may add the value's JSON after it).
fn first_text(result: &ToolResult) -> &str {
    assert!(!result.is_error(), "{:?}", result.content());
    match result.content().first() {
        Some(ContentBlock::Text { text }) => text,
        other => panic!("not text: {other:?}"),
    }
}

/// Writes the scratch server's package into `dir`.
fn scratch(dir: &Path) {
    std::fs::create_dir_all(dir.join("src")).unwrap();
    std::fs::write(
        dir.join("Cargo.toml"),
        "[package]\nname = \"dsh-dev-scratch\"\nversion = \"0.1.0\"\nedition = \"2024\"\npublish = false\n\n[dependencies]\nserde_json = \"1\"\n\n[workspace]\n",
    )
    .unwrap();
    // The workspace's versions, already downloaded: the build needs no network.
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../Cargo.lock"),
        dir.join("Cargo.lock"),
    )
    .unwrap();
    std::fs::write(
        dir.join("src/main.rs"),
        include_str!("../fixtures/tool_server.rs"),
    )
    .unwrap();
}

#[test]
fn a_save_rebuilds_the_server_and_a_stdio_client_gets_list_changed_without_reconnecting() {
    develop(Host::Stdio);
}

#[test]
fn a_save_rebuilds_the_server_and_an_http_client_gets_list_changed_without_reconnecting() {
    develop(Host::Http);
}

/// How the client reaches `dsh dev`.
#[derive(Clone, Copy, Debug)]
enum Host {
    Stdio,
    Http,
}

/// Starts `dsh dev` on a scratch server, connects a client over `host`,
/// edits the tool's description, and checks what the client sees.
fn develop(host: Host) {
    let dir = tempfile::tempdir().unwrap();
    let package = dir.path().join("tools");
    scratch(&package);
    let manifest = package.join("Cargo.toml");
    // Kept between runs: only the scratch crate itself builds again.
    // One per test, as the tests run side by side: two builds in one
    // directory would overwrite each other's binary.
    let target = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("dsh-dev-scratch-{host:?}"));
    let built = Command::new(env!("CARGO"))
        .args(["build", "--offline", "--quiet", "--manifest-path"])
        .arg(&manifest)
        .env("CARGO_TARGET_DIR", &target)
        .status()
        .expect("cannot run cargo");
    assert!(built.success(), "the scratch server does not build");

    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let mut dev = tokio::process::Command::new(env!("CARGO_BIN_EXE_dsh"));
        dev.arg("dev");
        if let Host::Http = host {
            dev.args(["--http", "127.0.0.1:0"]);
        }
        dev.arg("--watch")
            .arg(package.join("src"))
            .args([
                "--",
                env!("CARGO"),
                "run",
                "--offline",
                "--quiet",
                "--manifest-path",
            ])
            .arg(&manifest)
            .env("CARGO_TARGET_DIR", &target)
            .env("NO_COLOR", "1");
        dev.stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .kill_on_drop(true);
        let mut dev = dev.spawn().expect("cannot start dsh dev");
        let stdout = dev.stdout.take().expect("no stdout");
        let stdin = dev.stdin.take().expect("no stdin");
        let registry = Registry::new();
        let client = McpProxy::builder("dsh dev")
            .heartbeat(None)
            .reconnect(Backoff::never());
        let client = match host {
            Host::Stdio => client.connect(&registry, (stdout, stdin)).await,
            Host::Http => {
                // The URL is the first line of standard output.
                let mut url = String::new();
                BufReader::new(stdout)
                    .read_line(&mut url)
                    .await
                    .expect("dsh dev printed no URL");
                drop(stdin);
                client.http(&registry, url.trim()).await
            }
        }
        .expect("the client connects to dsh dev");
        let mut events = client.events();

        // dsh dev answers at once; the tool comes once the server is up.
        let description = || {
            registry
                .get("greet")
                .map(|tool| tool.definition().description().to_owned())
        };
        tokio::time::timeout(Duration::from_secs(120), async {
            while description().is_none() {
                match events.recv().await {
                    Ok(ProxyEvent::ToolsChanged { .. }) => {}
                    other => panic!("before greet came: {other:?}"),
                }
            }
        })
        .await
        .expect("greet did not come within 2 minutes");
        assert_eq!(description().as_deref(), Some(OLD));
        let greeting = registry.call("greet", json!({ "name": "Ada" })).await;
        assert_eq!(first_text(&greeting), "Hello, Ada!");

        let source = package.join("src/main.rs");
        let text = std::fs::read_to_string(&source).unwrap();
        std::fs::write(&source, text.replace(OLD, NEW)).unwrap();

        let diff = tokio::time::timeout(Duration::from_secs(120), async {
            loop {
                match events.recv().await {
                    Ok(ProxyEvent::ToolsChanged { diff })
                        if description().as_deref() == Some(NEW) =>
                    {
                        break diff;
                    }
                    Ok(ProxyEvent::ToolsChanged { .. }) => {}
                    other => panic!("the client saw something other than list_changed: {other:?}"),
                }
            }
        })
        .await
        .expect("the new definition did not come within 2 minutes");
        assert_eq!(diff.changed, ["greet"]);
        assert!(diff.added.is_empty() && diff.removed.is_empty(), "{diff}");
        assert!(client.is_connected());
        // This client pins each contract, as a dsh host does: it approves
        // the change it was told about, and the rebuilt tool answers over
        // the same connection.
        assert!(client.approve_contract("greet"));
        let greeting = registry.call("greet", json!({ "name": "Grace" })).await;
        assert_eq!(first_text(&greeting), "Hello, Grace!");
        drop(client);
        match host {
            // Closing the connection ends `dsh dev` and its server.
            Host::Stdio => {
                let ended = tokio::time::timeout(Duration::from_secs(30), dev.wait())
                    .await
                    .expect("dsh dev did not end when its host left")
                    .expect("cannot wait for dsh dev");
                assert!(ended.success(), "{ended}");
            }
            // An HTTP host may come back: `dsh dev` stays until stopped.
            Host::Http => dev.kill().await.expect("cannot stop dsh dev"),
        }
    });
    drop(runtime);
    drop(dir);
}
