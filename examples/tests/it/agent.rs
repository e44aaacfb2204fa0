//! The `agent` example end to end: the `dsh-agent` binary (the example's own
//! code) against its bundled scripted server, over real HTTP on 127.0.0.1.
//! The transcript, with the working directory, the port and the durations
//! masked, is checked against `tests/snapshots/agent.txt` (review a change
//! with `UPDATE_SNAPSHOTS=1`), and the file the agent edited is read back.

use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

use dsh_kit_examples::agent::scripted::ScriptedServer;
use regex::Regex;
use serde_json::{Value, json};

const AGENT: &str = env!("CARGO_BIN_EXE_dsh-agent");

#[test]
fn the_agent_runs_the_scripted_conversation_to_its_end() {
    let workdir = tempfile::tempdir().unwrap();
    let workdir = workdir.path().canonicalize().unwrap();
    let output = Command::new(AGENT)
        .arg("--workdir")
        .arg(&workdir)
        .env_remove("OPENAI_API_KEY")
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert!(
        output.status.success(),
        "the agent failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );

    let transcript = stdout.replace(&workdir.display().to_string(), "<workdir>");
    let transcript = Regex::new(r"127\.0\.0\.1:\d+")
        .unwrap()
        .replace_all(&transcript, "127.0.0.1:<port>");
    let transcript = Regex::new(r"· \d+ ms")
        .unwrap()
        .replace_all(&transcript, "· <n> ms");
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/snapshots/agent.txt");
    if std::env::var_os("UPDATE_SNAPSHOTS").is_some() {
        std::fs::write(&path, transcript.as_bytes()).unwrap();
    } else {
        let expected = std::fs::read_to_string(&path).unwrap();
        assert_eq!(
            transcript, expected,
            "the transcript differs from tests/snapshots/agent.txt"
        );
    }

    assert_eq!(
        std::fs::read_to_string(workdir.join("notes.md")).unwrap(),
        "# Notes\n\n- [ ] renew passport (due 2026-12-14)\n- [ ] book the dentist (due 2026-12-14)\n- done: file taxes\n"
    );
}

#[test]
fn the_scripted_server_refuses_a_request_that_leaves_a_call_unanswered() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let workdir = tempfile::tempdir().unwrap();
    let server = runtime
        .block_on(ScriptedServer::start(workdir.path()))
        .unwrap();
    let url = format!("{}/chat/completions", server.base_url());
    let tools = json!([{"type": "function", "function": {"name": "read_file", "parameters": {}}}]);
    let post = |body: Value| {
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .timeout_global(Some(Duration::from_secs(20)))
            .http_status_as_error(false)
            .build()
            .into();
        let mut response = agent.post(&url).send(body.to_string()).unwrap();
        let status = response.status().as_u16();
        (status, response.body_mut().read_to_string().unwrap())
    };

    let (status, first) = post(json!({"model": "m", "tools": tools,
        "messages": [{"role": "user", "content": "hi"}]}));
    assert_eq!(status, 200);
    let first: Value = serde_json::from_str(&first).unwrap();
    let message = &first["choices"][0]["message"];
    assert_eq!(message["tool_calls"].as_array().unwrap().len(), 3);

    // Two of the three calls answered: the real API refuses that, and so does the server.
    let mut messages = vec![json!({"role": "user", "content": "hi"}), message.clone()];
    for call in &message["tool_calls"].as_array().unwrap()[..2] {
        messages.push(json!({"role": "tool", "tool_call_id": call["id"], "content": "ok"}));
    }
    let (status, body) = post(json!({"model": "m", "tools": tools, "messages": messages}));
    assert_eq!(status, 400, "{body}");
    assert!(body.contains("must each be answered, in order"), "{body}");

    let (status, _) = post(json!({"model": "m", "messages": []}));
    assert_eq!(status, 400);
}
