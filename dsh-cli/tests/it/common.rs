//! What the tests share: the `dsh` binary, the example MCP server (as a
//! command, or started on HTTP), and running a command with a deadline.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;
use std::sync::mpsc;
use std::time::Duration;

/// No `dsh` command of these tests should take longer, even on a slow machine.
const DEADLINE: Duration = Duration::from_secs(180);

/// The `dsh` binary under test.
pub fn dsh() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_dsh"));
    // The tests read plain text whatever the terminal.
    command.env("NO_COLOR", "1").env_remove("CLICOLOR_FORCE");
    command
}

/// What a command printed, and how it ended.
#[derive(Debug)]
pub struct Run {
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    /// Asserts the exit status, showing both streams when it differs.
    pub fn expect_code(&self, code: i32) -> &Self {
        assert_eq!(
            self.code,
            Some(code),
            "exit status\n--- stdout\n{}\n--- stderr\n{}",
            self.stdout,
            self.stderr
        );
        self
    }
}

/// Runs `command` to its end (killed past [`DEADLINE`]), with no input.
pub fn run(mut command: Command) -> Run {
    let child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("cannot start dsh");
    let id = child.id();
    let (done, finished) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = done.send(child.wait_with_output());
    });
    let output = match finished.recv_timeout(DEADLINE) {
        Ok(output) => output.expect("cannot read what dsh printed"),
        Err(_) => {
            let _ = Command::new("kill").arg(id.to_string()).status();
            panic!("dsh did not finish within {DEADLINE:?}: {command:?}");
        }
    };
    Run {
        code: output.status.code(),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

/// The example MCP server (`examples/src/bin/mcp_server.rs`). A workspace
/// test run has built it beside this test binary; a run of this package's
/// tests alone builds it first (cargo releases its lock while tests run).
pub fn example_server() -> &'static Path {
    static SERVER: OnceLock<PathBuf> = OnceLock::new();
    SERVER.get_or_init(|| {
        let deps = std::env::current_exe().expect("no test binary path");
        let profile_dir = deps
            .parent()
            .and_then(Path::parent)
            .expect("the test binary is not in target/PROFILE/deps");
        let built = profile_dir.join(format!("dsh-mcp-server{}", std::env::consts::EXE_SUFFIX));
        if built.is_file() {
            return built;
        }
        let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let output = Command::new(env!("CARGO"))
            .args(["build", "-p", "dsh-kit-examples", "--bin", "dsh-mcp-server"])
            .current_dir(&workspace)
            .stderr(Stdio::inherit())
            .output()
            .expect("cannot run cargo");
        assert!(
            output.status.success(),
            "cannot build the example MCP server"
        );
        assert!(built.is_file(), "cargo built no {}", built.display());
        built
    })
}

/// The example server as the words after `--`.
pub fn stdio_server() -> Vec<String> {
    vec!["--".to_owned(), example_server().display().to_string()]
}

/// The example server serving streamable HTTP on 127.0.0.1, stopped when dropped.
pub struct HttpServer {
    child: Child,
    pub url: String,
}

impl HttpServer {
    pub fn start() -> HttpServer {
        let mut child = Command::new(example_server())
            .args(["--http", "127.0.0.1:0"])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("cannot start the example server");
        let stdout = child.stdout.take().expect("no stdout");
        let mut url = String::new();
        BufReader::new(stdout)
            .read_line(&mut url)
            .expect("the example server printed no URL");
        let url = url.trim().to_owned();
        assert!(url.starts_with("http://127.0.0.1:"), "not a URL: {url:?}");
        HttpServer { child, url }
    }

    /// `--url URL`.
    pub fn args(&self) -> Vec<String> {
        vec!["--url".to_owned(), self.url.clone()]
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
