//! A tool crate that depends on dsh-kit alone (and tokio), the quick
//! start's `weather-server`, served over MCP on stdio and driven by the
//! official MCP Python SDK (`weather_client.py`): its helper types and its
//! typed failure as a client sees them.
#![cfg(unix)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use crate::common::{python, run};

/// The `weather-server` binary, built by cargo (already built when the
/// whole workspace's tests were, so this costs a check of its freshness).
fn weather_server() -> PathBuf {
    let mut build = Command::new(env!("CARGO"));
    build.args([
        "build",
        "--quiet",
        "--locked",
        "-p",
        "dsh-kit-quickstart",
        "--bin",
        "weather-server",
    ]);
    let built = run(build, Duration::from_secs(600));
    assert!(
        built.success,
        "building the quick start's weather-server failed:\n{}",
        built.text
    );
    // `CARGO_TARGET_TMPDIR` is `<target>/tmp`.
    let target = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .expect("the tmp directory is inside the target directory");
    let server = target.join("debug/weather-server");
    assert!(server.exists(), "no binary at {}", server.display());
    server
}

#[test]
fn the_python_sdk_sees_the_helper_types_and_typed_failure_of_a_crate_with_dsh_kit_alone() {
    let server = weather_server();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/weather_client.py");
    let mut command = Command::new(python());
    command.arg(&script).arg(&server);
    let ran = run(command, Duration::from_secs(120));
    assert!(ran.success, "weather_client.py failed:\n{}", ran.text);
    assert!(
        ran.text.contains("ok: weather's helper types"),
        "weather_client.py printed:\n{}",
        ran.text
    );
}
