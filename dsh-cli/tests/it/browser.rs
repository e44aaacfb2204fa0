//! `dsh web` driven in headless Chromium: the playground of the example
//! server's tools over stdio, calls from its form (the server's own card
//! shown for a tool that presents one), the calls recorded, and the session
//! log opened and replayed in the page; then the same log in a `dsh web` of
//! the server over HTTP.

// The examples' WebDriver client, shared rather than copied; this test
// needs fewer of its commands (no frames, no screenshots).
#[path = "../../../examples/tests/it/browser/webdriver.rs"]
#[allow(dead_code)]
mod webdriver;

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

use serde_json::json;
use webdriver::Browser;

use crate::common::{HttpServer, dsh, stdio_server};

/// `dsh web` running, stopped when dropped.
struct Web {
    child: Child,
    url: String,
}

impl Web {
    fn start(mut command: Command) -> Web {
        let mut child = command
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("cannot start dsh web");
        let mut url = String::new();
        BufReader::new(child.stdout.take().expect("no stdout"))
            .read_line(&mut url)
            .expect("dsh web printed no URL");
        let url = url.trim().to_owned();
        assert!(url.starts_with("http://127.0.0.1:"), "not a URL: {url:?}");
        Web { child, url }
    }
}

impl Drop for Web {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn dsh_web_serves_the_playground_of_a_server_and_its_log() {
    let dir = tempfile::tempdir().unwrap();
    let session = dir.path().join("session.jsonl");
    let mut command = dsh();
    command
        .args(["web", "--addr", "127.0.0.1:0", "--record"])
        .arg(&session)
        .args(stdio_server())
        // The server has no one to ask: the page asks, then the server runs it.
        .args(["--allow", "edit_file"]);
    let web = Web::start(command);

    let browser = Browser::start();
    browser.open(&web.url);
    browser.wait_for("#connection[data-state='live']");
    browser.wait_until(
        "the catalog lists the server's tools",
        "return document.querySelectorAll('#tool-list li[data-tool]').length === 9;",
        json!([]),
    );

    // A call from the form generated from greet's input schema.
    browser.click_on("#tool-list li[data-tool='greet'] button");
    browser.wait_for("#call-form[data-tool='greet']:not([hidden])");
    browser.type_into("#fields [data-pointer='/name'] > input", "Ada");
    browser.click_on("#call-button");
    browser.wait_until(
        "the result of the call",
        "return document.getElementById('result-panel').dataset.state === 'done';",
        json!([]),
    );
    assert_eq!(
        browser.run(
            "return document.querySelector('#result-meta [data-status]').dataset.status;",
            json!([])
        ),
        json!("success")
    );
    assert!(browser.text("#result-content").contains("Hello, Ada!"));
    browser.wait_for("#result-card [data-card='generic']");

    // A tool the server presents a card for shows that card, not the generic one.
    let notes = dir.path().join("notes.txt");
    std::fs::write(&notes, "one\ntwo\n").unwrap();
    browser.click_on("#tool-list li[data-tool='read_file'] button");
    browser.wait_for("#call-form[data-tool='read_file']:not([hidden])");
    browser.type_into(
        "#fields [data-pointer='/path'] > input",
        &notes.display().to_string(),
    );
    browser.click_on("#call-button");
    browser.wait_for("#result-card [data-card='read']");
    assert_eq!(
        browser.run(
            "return document.querySelectorAll('#result-card [data-card=\"generic\"]').length;",
            json!([])
        ),
        json!(0)
    );
    let card = browser.text("#result-card");
    assert!(
        card.contains(&notes.display().to_string()) && card.contains("two"),
        "{card}"
    );

    // A destructive tool asks in the page; approved, it runs on the server,
    // and the server's diff card shows.
    browser.click_on("#tool-list li[data-tool='edit_file'] button");
    browser.wait_for("#call-form[data-tool='edit_file']:not([hidden])");
    browser.type_into(
        "#fields [data-pointer='/path'] > input",
        &notes.display().to_string(),
    );
    browser.type_into("#fields [data-pointer='/old'] > input", "two");
    browser.type_into("#fields [data-pointer='/new'] > input", "zwei");
    browser.click_on("#call-button");
    let waiting = "#approvals:not([hidden]) #approval-list li[data-tool='edit_file']";
    browser.wait_for(waiting);
    browser.click_on(&format!("{waiting} button.approve"));
    browser.wait_for("#result-card [data-card='diff']");
    assert_eq!(browser.text("#result-card .dsh-add .dsh-code"), "zwei");
    assert_eq!(std::fs::read_to_string(&notes).unwrap(), "one\nzwei\n");

    // The recorded session, opened in the page and replayed against the server.
    browser.click_on("#log-open");
    browser.wait_until(
        "the log's call is listed",
        "return document.querySelectorAll('#log-calls li').length === 3;",
        json!([]),
    );
    assert!(browser.text("#log-call").contains("greet"));
    browser.click_on("#log-replay");
    browser.wait_for("#log-summary[data-replayed='true']");
    let summary = browser.text("#log-summary");
    assert!(
        summary.contains("3 identical") && summary.contains("0 differing"),
        "{summary}"
    );
    // The proxied call's logged card is the server's own.
    browser.click_on("#log-next");
    browser.wait_for("#log-call [data-card='read']");
    browser.click_on("#log-next");
    browser.wait_for("#log-call [data-card='diff']");
    drop(web);

    // The same log, opened by a `dsh web` of the server over HTTP, and
    // replayed against it there.
    let http = HttpServer::start();
    let mut command = dsh();
    command
        .args(["web", "--addr", "127.0.0.1:0", "--log"])
        .arg(&session)
        .args(http.args());
    let web = Web::start(command);
    browser.open(&web.url);
    browser.wait_for("#connection[data-state='live']");
    browser.wait_until(
        "the catalog lists the server's tools over HTTP",
        "return document.querySelectorAll('#tool-list li[data-tool]').length === 9;",
        json!([]),
    );
    browser.click_on("#log-open");
    browser.wait_until(
        "the log's calls are listed",
        "return document.querySelectorAll('#log-calls li').length === 3;",
        json!([]),
    );
    browser.click_on("#log-replay");
    browser.wait_for("#log-summary[data-replayed='true']");
    let summary = browser.text("#log-summary");
    assert!(
        summary.contains("3 identical") && summary.contains("0 differing"),
        "{summary}"
    );
    browser.click_on("#log-next");
    browser.wait_for("#log-call [data-card='read']");
    drop(web);
}

#[test]
fn dsh_web_without_a_server_or_a_log_says_what_to_give() {
    let mut command = dsh();
    command.arg("web");
    let run = crate::common::run(command);
    run.expect_code(2);
    assert!(run.stderr.contains("needs a server"), "{}", run.stderr);
}
