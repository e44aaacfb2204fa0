//! Headless Chromium driven over WebDriver (Debian's `chromium-driver`):
//! a small client of the W3C WebDriver protocol, plain JSON over HTTP.
//!
//! Written here rather than taken from a crate: the tests need a dozen
//! commands, and the WebDriver crates bring an async HTTP stack and a
//! compile time this suite does not need; `ureq` is already a dependency.

use std::io::Read;
use std::net::TcpListener;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// The W3C name of an element reference in JSON.
const ELEMENT: &str = "element-6066-11e4-a52e-4f735466cecf";

const CHROMIUM: &str = "/usr/bin/chromium";
const CHROMEDRIVER: &str = "/usr/bin/chromedriver";

/// One browser at a time: the machine that runs the suite has few cores.
static ONE_BROWSER: Mutex<()> = Mutex::new(());

/// Makes sure Chromium and its driver are installed: installs them from
/// Debian's packages when missing and running as root, and fails with what
/// to do otherwise.
fn ensure_installed() {
    static INSTALL: Mutex<bool> = Mutex::new(false);
    let mut checked = INSTALL.lock().unwrap_or_else(|poison| poison.into_inner());
    if *checked {
        return;
    }
    let present =
        || std::path::Path::new(CHROMIUM).exists() && std::path::Path::new(CHROMEDRIVER).exists();
    if !present() {
        let root = Command::new("id")
            .arg("-u")
            .output()
            .is_ok_and(|out| String::from_utf8_lossy(&out.stdout).trim() == "0");
        assert!(
            root,
            "the browser tests need Chromium and its WebDriver: run `apt-get install chromium chromium-driver` (Debian) as root, then test again"
        );
        eprintln!("installing chromium and chromium-driver from Debian's packages…");
        let install = "apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium chromium-driver";
        let status = Command::new("sh")
            .args(["-c", install])
            .stdout(Stdio::null())
            .status()
            .expect("cannot run apt-get");
        assert!(
            status.success() && present(),
            "installing chromium and chromium-driver failed ({status}): install them by hand (`apt-get install chromium chromium-driver`)"
        );
    }
    *checked = true;
}

/// A WebDriver error, with the command that failed.
#[derive(Debug)]
pub struct Failure {
    /// What failed, and why.
    pub message: String,
    /// WebDriver's error code (`stale element reference`), when it sent one.
    pub code: Option<String>,
}

impl Failure {
    fn new(message: String) -> Self {
        Failure {
            message,
            code: None,
        }
    }
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

/// An element of the page.
#[derive(Clone, Debug)]
pub struct Element(String);

/// A headless Chromium under chromedriver; dropping it ends both.
pub struct Browser {
    driver: Child,
    base: String,
    session: String,
    agent: ureq::Agent,
    _profile: tempfile::TempDir,
    _one: std::sync::MutexGuard<'static, ()>,
}

impl Browser {
    /// Starts chromedriver on a free port and opens a session.
    pub fn start() -> Browser {
        let one = ONE_BROWSER
            .lock()
            .unwrap_or_else(|poison| poison.into_inner());
        ensure_installed();
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|listener| listener.local_addr())
            .expect("no free port")
            .port();
        let driver = Command::new(CHROMEDRIVER)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("cannot start chromedriver");
        let agent = ureq::Agent::new_with_config(
            ureq::Agent::config_builder()
                .timeout_global(Some(Duration::from_secs(30)))
                .http_status_as_error(false)
                .build(),
        );
        let profile = tempfile::tempdir().expect("no temporary directory");
        let mut browser = Browser {
            driver,
            base: format!("http://127.0.0.1:{port}"),
            session: String::new(),
            agent,
            _profile: profile,
            _one: one,
        };
        browser.wait_for_driver();
        let args = [
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-dev-shm-usage",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--disable-extensions",
            "--window-size=1500,1100",
            "--force-device-scale-factor=1",
            "--hide-scrollbars",
        ]
        .into_iter()
        .map(str::to_owned)
        .chain([format!(
            "--user-data-dir={}",
            browser._profile.path().display()
        )])
        .collect::<Vec<_>>();
        let created = browser
            .raw(
                "POST",
                "/session",
                Some(json!({
                    "capabilities": { "alwaysMatch": {
                        "browserName": "chrome",
                        "goog:chromeOptions": { "binary": CHROMIUM, "args": args },
                        "timeouts": { "script": 20000, "pageLoad": 20000, "implicit": 0 },
                    }}
                })),
            )
            .expect("cannot open a browser session");
        browser.session = created["sessionId"]
            .as_str()
            .expect("no session id")
            .to_owned();
        browser
    }

    fn wait_for_driver(&self) {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            if let Ok(status) = self.raw("GET", "/status", None)
                && status["ready"] == true
            {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "chromedriver did not start within 20 s"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Sends one command; the `value` of the answer, or the error it reports.
    fn raw(&self, method: &str, path: &str, body: Option<Value>) -> Result<Value, Failure> {
        let url = format!("{}{path}", self.base);
        let response = match body {
            Some(body) => self
                .agent
                .post(&url)
                .header("Content-Type", "application/json")
                .send(body.to_string()),
            None if method == "DELETE" => self.agent.delete(&url).call(),
            None => self.agent.get(&url).call(),
        };
        let mut response =
            response.map_err(|error| Failure::new(format!("{method} {path}: {error}")))?;
        let mut text = String::new();
        response
            .body_mut()
            .as_reader()
            .take(256 << 20)
            .read_to_string(&mut text)
            .map_err(|error| Failure::new(format!("{method} {path}: {error}")))?;
        let answer: Value = serde_json::from_str(&text).map_err(|error| {
            Failure::new(format!("{method} {path}: not JSON ({error}): {text}"))
        })?;
        let value = answer.get("value").cloned().unwrap_or(Value::Null);
        if let Some(error) = value.get("error").and_then(Value::as_str) {
            return Err(Failure {
                message: format!(
                    "{method} {path}: {error}: {}",
                    value["message"].as_str().unwrap_or_default()
                ),
                code: Some(error.to_owned()),
            });
        }
        Ok(value)
    }

    fn command(&self, method: &str, path: &str, body: Option<Value>) -> Result<Value, Failure> {
        self.raw(method, &format!("/session/{}{path}", self.session), body)
    }

    /// Opens `url`.
    pub fn open(&self, url: &str) {
        self.command("POST", "/url", Some(json!({ "url": url })))
            .unwrap_or_else(|error| panic!("cannot open {url}: {error}"));
    }

    /// Runs `script` (a function body; `arguments` are `args`) and returns its value.
    pub fn run(&self, script: &str, args: Value) -> Value {
        self.command(
            "POST",
            "/execute/sync",
            Some(json!({ "script": script, "args": args })),
        )
        .unwrap_or_else(|error| panic!("script failed: {error}\n{script}"))
    }

    /// The first element matching `css`, if any.
    pub fn find(&self, css: &str) -> Option<Element> {
        let found = self
            .command(
                "POST",
                "/element",
                Some(json!({ "using": "css selector", "value": css })),
            )
            .ok()?;
        found[ELEMENT].as_str().map(|id| Element(id.to_owned()))
    }

    /// Waits, up to 20 s, for an element matching `css`.
    pub fn wait_for(&self, css: &str) -> Element {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            if let Some(element) = self.find(css) {
                return element;
            }
            if Instant::now() > deadline {
                let body = self.run(
                    "return document.body ? document.body.innerText.slice(0, 3000) : ''",
                    json!([]),
                );
                panic!(
                    "no `{css}` within 20 s; the page shows:\n{}",
                    body.as_str().unwrap_or_default()
                );
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Waits, up to 20 s, for `script` to return `true`.
    pub fn wait_until(&self, what: &str, script: &str, args: Value) {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            if self.run(script, args.clone()) == Value::Bool(true) {
                return;
            }
            assert!(Instant::now() < deadline, "not within 20 s: {what}");
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Clicks `element`.
    pub fn click(&self, element: &Element) {
        self.command(
            "POST",
            &format!("/element/{}/click", element.0),
            Some(json!({})),
        )
        .unwrap_or_else(|error| panic!("cannot click: {error}"));
    }

    /// Clicks the element matching `css`, once there is one.
    pub fn click_on(&self, css: &str) {
        let element = self.wait_for(css);
        self.click(&element);
    }

    /// Clears the field matching `css` and types `text` into it.
    pub fn type_into(&self, css: &str, text: &str) {
        let element = self.wait_for(css);
        self.command(
            "POST",
            &format!("/element/{}/clear", element.0),
            Some(json!({})),
        )
        .unwrap_or_else(|error| panic!("cannot clear `{css}`: {error}"));
        self.command(
            "POST",
            &format!("/element/{}/value", element.0),
            Some(json!({ "text": text })),
        )
        .unwrap_or_else(|error| panic!("cannot type into `{css}`: {error}"));
    }

    /// The rendered text of the element matching `css`. The page may draw
    /// the element again between finding it and reading it (a list redrawn
    /// when the tools change): a stale element is looked up again, a few
    /// times, rather than failing the read.
    pub fn text(&self, css: &str) -> String {
        let mut attempts = 0;
        loop {
            let element = self.wait_for(css);
            match self.command("GET", &format!("/element/{}/text", element.0), None) {
                Ok(text) => return text.as_str().unwrap_or_default().to_owned(),
                Err(error)
                    if error.code.as_deref() == Some("stale element reference")
                        && attempts < 20 =>
                {
                    attempts += 1;
                    std::thread::sleep(std::time::Duration::from_millis(50));
                }
                Err(error) => panic!("cannot read `{css}`: {error}"),
            }
        }
    }

    /// Switches into the frame `element`.
    pub fn enter_frame(&self, element: &Element) {
        self.command(
            "POST",
            "/frame",
            Some(json!({ "id": { ELEMENT: element.0 } })),
        )
        .unwrap_or_else(|error| panic!("cannot enter the frame: {error}"));
    }

    /// Saves a PNG of the element matching `css` as `path`.
    pub fn screenshot(&self, css: &str, path: &PathBuf) {
        use base64::Engine;
        let element = self.wait_for(css);
        self.run(
            "arguments[0].scrollIntoView({block: 'start'});",
            json!([{ ELEMENT: element.0 }]),
        );
        let data = self
            .command("GET", &format!("/element/{}/screenshot", element.0), None)
            .unwrap_or_else(|error| panic!("cannot take a screenshot of `{css}`: {error}"));
        let png = base64::engine::general_purpose::STANDARD
            .decode(data.as_str().unwrap_or_default())
            .expect("the screenshot is not base64");
        assert!(png.starts_with(b"\x89PNG"), "the screenshot is not a PNG");
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).expect("cannot make the screenshot directory");
        }
        std::fs::write(path, png).expect("cannot save the screenshot");
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        if !self.session.is_empty() {
            let _ = self.raw("DELETE", &format!("/session/{}", self.session), None);
        }
        let _ = self.driver.kill();
        let _ = self.driver.wait();
    }
}
