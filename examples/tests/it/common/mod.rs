//! What the tests that drive servers with outside clients share: the
//! virtualenv of the official MCP Python SDK and its probe script, scratch
//! directories, and running a command with a time limit.
#![allow(dead_code, reason = "each test file uses a part")]

pub mod nginx;

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// Runs `mcp_client.py` with `args` and the events file, and fails with its output if it fails.
pub fn run_python(args: &[String], events: &Path) {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp_client.py");
    let mut command = Command::new(python());
    command.arg(&script).args(args).arg(events);
    let output = run(command, Duration::from_secs(120));
    assert!(
        output.success,
        "mcp_client.py {} failed:\n{}",
        args.join(" "),
        output.text
    );
    // The SDK logs a session's close it did not take as done.
    assert!(
        !output.text.contains("Session termination failed"),
        "mcp_client.py {}: the session did not close cleanly:\n{}",
        args.join(" "),
        output.text
    );
}

/// The interpreter of a virtualenv with the pinned `mcp` and `jsonschema`,
/// made under `target/` on first use and kept for later runs.
pub fn python() -> &'static Path {
    static PYTHON: OnceLock<PathBuf> = OnceLock::new();
    PYTHON.get_or_init(|| virtualenv("tests/mcp_requirements.txt", "mcp-venv"))
}

/// The interpreter of a virtualenv with the packages `requirements` (a path
/// in this crate) pins, made under `target/` as `PREFIX-HASH` on first use
/// and kept for later runs; a change of the file makes a new one.
pub fn virtualenv(requirements: &str, prefix: &str) -> PathBuf {
    let requirements = Path::new(env!("CARGO_MANIFEST_DIR")).join(requirements);
    let pinned = std::fs::read(&requirements)
        .unwrap_or_else(|error| panic!("{} is unreadable: {error}", requirements.display()));
    // A new pin makes a new virtualenv.
    let dir =
        Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("{prefix}-{:016x}", fnv1a(&pinned)));
    let python = dir.join("bin/python");
    if dir.join("ready").exists() {
        return python;
    }
    // Made aside and renamed into place, so a run that is killed halfway, or
    // another test process making the same one, leaves nothing half-made.
    let staging = dir.with_extension(format!("partial-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&staging);
    let mut venv = Command::new("python3");
    venv.args(["-m", "venv"]).arg(&staging);
    let made = run(venv, Duration::from_secs(120));
    assert!(
        made.success,
        "`python3 -m venv` failed; the MCP tests need Python 3.10 or newer with `venv` (Debian: `apt install python3-venv`):\n{}",
        made.text
    );
    let mut pip = Command::new(staging.join("bin/python"));
    pip.args([
        "-m",
        "pip",
        "install",
        "--disable-pip-version-check",
        "--no-input",
        "--quiet",
        "-r",
    ])
    .arg(&requirements);
    let installed = run(pip, Duration::from_secs(300));
    assert!(
        installed.success,
        "installing {} from PyPI failed:\n{}",
        requirements.display(),
        installed.text
    );
    std::fs::write(staging.join("ready"), "").expect("the virtualenv is writable");
    if dir.exists() && !dir.join("ready").exists() {
        // Not made by this code (only whole virtualenvs are renamed into place).
        let _ = std::fs::remove_dir_all(&dir);
    }
    if std::fs::rename(&staging, &dir).is_err() {
        // Another process got there first: use its virtualenv.
        let _ = std::fs::remove_dir_all(&staging);
        assert!(
            dir.join("ready").exists(),
            "cannot put the virtualenv at {}",
            dir.display()
        );
    }
    python
}

/// The directory where the npm packages pinned in `source` (a directory of
/// this crate with `package.json` and `package-lock.json`) are installed
/// with `npm ci`, under `target/` as `PREFIX-HASH` on first use, with
/// `scripts` (files of `source`) copied in each time so an edit of them
/// runs. `None` after saying loudly that `what` did not run when Node.js
/// or npm is missing, unless `CI=true`, where that fails.
pub fn npm_ci(source: &str, prefix: &str, scripts: &[&str], what: &str) -> Option<PathBuf> {
    let found = ["node", "npm"].iter().all(|tool| {
        Command::new(tool)
            .arg("--version")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|status| status.success())
    });
    if !found {
        let message = format!(
            "Node.js and npm are not installed (Debian: apt-get install nodejs npm): {what} DID NOT RUN"
        );
        assert!(std::env::var("CI").as_deref() != Ok("true"), "{message}");
        eprintln!("\n!!! {message} !!!\n");
        return None;
    }
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join(source);
    let lock = std::fs::read(source.join("package-lock.json")).expect("the lock file is readable");
    let dir =
        Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("{prefix}-{:016x}", fnv1a(&lock)));
    if !dir.join("ready").exists() {
        // Made aside and renamed into place, as the virtualenv is.
        let staging = dir.with_extension(format!("partial-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&staging);
        std::fs::create_dir_all(&staging).unwrap();
        for file in ["package.json", "package-lock.json"] {
            std::fs::copy(source.join(file), staging.join(file)).unwrap();
        }
        let mut npm = Command::new("npm");
        npm.args(["ci", "--no-audit", "--no-fund", "--ignore-scripts"])
            .current_dir(&staging);
        let installed = run(npm, Duration::from_secs(300));
        assert!(
            installed.success,
            "npm ci in {} failed:\n{}",
            source.display(),
            installed.text
        );
        std::fs::write(staging.join("ready"), "").unwrap();
        if std::fs::rename(&staging, &dir).is_err() {
            let _ = std::fs::remove_dir_all(&staging);
            assert!(
                dir.join("ready").exists(),
                "cannot put the npm packages of {} at {}",
                source.display(),
                dir.display()
            );
        }
    }
    for script in scripts {
        std::fs::copy(source.join(script), dir.join(script)).unwrap();
    }
    Some(dir)
}

/// FNV-1a: a hash that stays the same from one Rust release to the next.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, byte| {
        (hash ^ u64::from(*byte)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// A directory for one test's files, under `target/tmp`.
pub struct Scratch(PathBuf);

impl Scratch {
    pub fn new(name: &str) -> Self {
        static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
            .join(format!("mcp-{name}-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }

    pub fn file(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// How a command ended, and what it printed.
pub struct Ran {
    pub success: bool,
    pub text: String,
}

/// Runs `command` to the end, killing it after `limit`.
pub fn run(mut command: Command, limit: Duration) -> Ran {
    let scratch = Scratch::new("run");
    let out_path = scratch.file("output");
    let out = std::fs::File::create(&out_path).unwrap();
    let err = out.try_clone().unwrap();
    let mut child = command
        .stdin(Stdio::null())
        .stdout(out)
        .stderr(err)
        .spawn()
        .unwrap_or_else(|error| panic!("cannot run {command:?}: {error}"));
    let deadline = Instant::now() + limit;
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break Some(status);
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let mut text = std::fs::read_to_string(&out_path).unwrap_or_default();
    if status.is_none() {
        text.push_str(&format!("\n(killed after {limit:?})"));
    }
    Ran {
        success: status.is_some_and(|status| status.success()),
        text,
    }
}

/// Starts `command`, a server that prints its URL as the first line of its
/// standard output, and waits up to `limit` for it: the child and the URL.
pub fn spawn_server(mut command: Command, limit: Duration) -> (Child, String) {
    let mut child = command
        .stdout(Stdio::piped())
        .spawn()
        .expect("the server starts");
    let stdout = child.stdout.take().expect("stdout is piped");
    let (sender, receiver) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut line = String::new();
        let _ = BufReader::new(stdout).read_line(&mut line);
        let _ = sender.send(line);
    });
    let Ok(line) = receiver.recv_timeout(limit) else {
        let _ = child.kill();
        let _ = child.wait();
        panic!("the server printed no URL in {limit:?}");
    };
    let url = line.trim().to_owned();
    assert!(url.starts_with("http://127.0.0.1:"), "not a URL: {url:?}");
    (child, url)
}

/// A port nothing listens on now, on 127.0.0.1.
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .map(|addr| addr.port())
        .expect("a free loopback port")
}
