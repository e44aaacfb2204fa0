//! The README's quick start, followed as a newcomer would with nothing else
//! to go on: a fresh crate whose Cargo.toml is the README's (a path
//! dependency on this checkout) and whose `main.rs` is the README's "Serve
//! them" snippet, built, run, and driven over streamable HTTP by the
//! official MCP Python SDK (`newcomer_client.py`), which lists its three
//! tools and calls each, the destructive one included. Both come out of
//! README.md itself, so the test fails when the README drifts.
#![cfg(unix)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use crate::common::{free_port, python, run, spawn_server};

/// The address the README's snippet serves on, replaced by a free port.
const README_ADDR: &str = "127.0.0.1:8931";

fn checkout() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("examples/ is inside the checkout")
        .to_path_buf()
}

/// The body of the first fenced block after `heading` whose info string
/// starts with `info` (`rust`, `toml`).
fn block_after<'a>(readme: &'a str, heading: &str, info: &str) -> &'a str {
    let start = readme
        .find(heading)
        .unwrap_or_else(|| panic!("README.md has no `{heading}`"));
    let rest = &readme[start..];
    let fence = rest
        .find(&format!("\n```{info}"))
        .unwrap_or_else(|| panic!("README.md has no ```{info} block after `{heading}`"));
    let body = &rest[fence + 1..];
    let body = &body[body.find('\n').expect("a fence line ends") + 1..];
    let end = body.find("\n```").expect("the block is closed by a fence");
    &body[..=end]
}

/// The README's `[dependencies]` for a crate next to a clone, with the
/// clone's path made this checkout's.
fn dependencies(readme: &str) -> String {
    let toml = block_after(readme, "## Quick start", "toml");
    assert!(
        toml.contains("path = \"../dsh-rs/dsh-sdk\""),
        "the README's TOML no longer depends on a clone by path:\n{toml}"
    );
    let sdk = checkout().join("dsh-sdk");
    toml.replace(
        "../dsh-rs/dsh-sdk",
        sdk.to_str().expect("a UTF-8 checkout path"),
    )
}

#[test]
fn a_crate_made_from_the_readme_serves_its_three_tools_to_the_python_sdk() {
    let readme = std::fs::read_to_string(checkout().join("README.md")).unwrap();
    let main = block_after(&readme, "### Serve them", "rust");
    assert!(
        main.contains(README_ADDR),
        "the README's server no longer serves {README_ADDR}:\n{main}"
    );
    let port = free_port();
    let main = main.replace(README_ADDR, &format!("127.0.0.1:{port}"));

    let dir = tempfile::tempdir().unwrap();
    let krate = dir.path().join("newcomer");
    std::fs::create_dir_all(krate.join("src")).unwrap();
    std::fs::write(
        krate.join("Cargo.toml"),
        format!(
            "[package]\nname = \"newcomer\"\nversion = \"0.1.0\"\nedition = \"2024\"\n\n{}",
            dependencies(&readme)
        ),
    )
    .unwrap();
    std::fs::write(krate.join("src/main.rs"), main).unwrap();
    // The versions this checkout is tested with, so the build needs no
    // registry look-up and shares the workspace's compiled dependencies.
    std::fs::copy(checkout().join("Cargo.lock"), krate.join("Cargo.lock")).unwrap();

    // `CARGO_TARGET_TMPDIR` is `<target>/tmp`.
    let target = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .expect("the tmp directory is inside the target directory")
        .to_path_buf();
    let mut build = Command::new(env!("CARGO"));
    build
        .current_dir(&krate)
        .args(["build", "--quiet", "--offline"])
        .env("CARGO_TARGET_DIR", &target);
    let built = run(build, Duration::from_secs(1200));
    assert!(
        built.success,
        "the README's crate does not build:\n{}",
        built.text
    );

    let mut server = Command::new(target.join("debug/newcomer"));
    server.env("RUST_LOG", "warn");
    let (mut child, url) = spawn_server(server, Duration::from_secs(30));
    let file = dir.path().join("notes.txt");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/newcomer_client.py");
    let mut client = Command::new(python());
    client.arg(&script).arg(&url).arg(&file);
    let ran = run(client, Duration::from_secs(120));
    let _ = child.kill();
    let _ = child.wait();
    assert!(ran.success, "newcomer_client.py failed:\n{}", ran.text);
    assert!(
        ran.text.contains("ok: the README's three tools"),
        "newcomer_client.py printed:\n{}",
        ran.text
    );
}
