//! A model loop over any OpenAI-compatible Chat Completions endpoint: send
//! the conversation and the example tools, run the tool calls of the answer
//! as one batch, send their results back, until the model answers in text.
//!
//! The two halves of each step are [`dsh_kit::provider::openai_chat`]'s:
//! [`Turn::parse`] reads the response, [`Turn::run`] runs the calls and
//! builds the `tool` messages. Each step is printed with its cards. Without
//! an endpoint, the loop runs against [`scripted::ScriptedServer`].

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use dsh_kit::Registry;
use dsh_kit::card::terminal::{self, Style};
use dsh_kit::export::Format;
use dsh_kit::permission::Rule;
use dsh_kit::provider::ModelTurn;
use dsh_kit::provider::openai_chat::{AssistantMessage, ToolMessage, Turn};
use serde::Serialize;
use serde_json::Value;

use crate::register_all;

pub mod scripted;

/// The task the scripted responses were recorded for.
pub const DEFAULT_PROMPT: &str = "Today is 2026-11-30. Turn the TODOs in notes.md into a checklist, each item due two weeks from today.";

/// The notes the agent starts from, written when the working directory has none.
pub const NOTES: &str =
    "# Notes\n\n- TODO: renew passport\n- TODO: book the dentist\n- done: file taxes\n";

/// The most requests one run makes.
pub const MAX_STEPS: usize = 8;

/// The most bytes of a response body read.
const MAX_RESPONSE_BYTES: u64 = 16 << 20;

/// What a run needs.
#[derive(Clone, Debug)]
pub struct Options {
    /// The endpoint's base URL (`…/v1`); `None` starts the scripted server.
    pub base_url: Option<String>,
    /// The API key, sent as a bearer token when there is one.
    pub api_key: Option<String>,
    /// The model to ask for.
    pub model: String,
    /// The user's request.
    pub prompt: String,
    /// Where the agent may edit files; `notes.md` is written there if absent.
    pub workdir: PathBuf,
    /// Colours or not.
    pub style: Style,
}

/// How a run went.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Summary {
    /// Requests sent.
    pub requests: usize,
    /// Tool calls run.
    pub calls: usize,
    /// Of those, the ones that failed.
    pub errors: usize,
    /// The model's final answer.
    pub answer: String,
}

/// One message of a Chat Completions conversation.
#[derive(Clone, Debug, Serialize)]
#[serde(untagged)]
enum Message {
    Text { role: &'static str, content: String },
    Assistant(AssistantMessage),
    Tool(ToolMessage),
}

/// Runs the loop, printing each step to `out`.
pub async fn run(options: &Options, out: &mut dyn Write) -> Result<Summary, String> {
    let workdir = prepare(&options.workdir)?;
    let server;
    let base_url = match &options.base_url {
        Some(url) => url.trim_end_matches('/').to_owned(),
        None => {
            server = scripted::ScriptedServer::start(&workdir)
                .await
                .map_err(|error| format!("cannot start the scripted server: {error}"))?;
            server.base_url()
        }
    };
    let scripted = options.base_url.is_none();

    // Edits only inside the working directory; `bash` asks, and no one can
    // answer here, so it is refused.
    let inside = format!("{}/*", workdir.display());
    let rule = Rule::allow("edit_file")
        .when("path", &inside)
        .map_err(|error| format!("cannot confine edits to {inside}: {error}"))?;
    let registry = Registry::builder().time_calls(true).rule(rule).build();
    register_all(&registry).map_err(|error| error.to_string())?;
    let tools = registry.export(Format::OpenAi);

    let say = |out: &mut dyn Write, text: String| {
        let _ = writeln!(out, "{text}");
    };
    say(
        out,
        format!(
            "dsh agent · {} · {base_url}{}",
            options.model,
            if scripted { " (scripted)" } else { "" }
        ),
    );
    say(out, format!("workdir: {}", workdir.display()));
    say(out, format!("user: {}", options.prompt));

    let mut messages = vec![
        Message::Text {
            role: "system",
            content: format!(
                "You are a careful assistant with tools. Files live in {}; give tools absolute paths.",
                workdir.display()
            ),
        },
        Message::Text {
            role: "user",
            content: options.prompt.clone(),
        },
    ];
    let mut summary = Summary {
        requests: 0,
        calls: 0,
        errors: 0,
        answer: String::new(),
    };
    for step in 1..=MAX_STEPS {
        let body = serde_json::json!({
            "model": options.model,
            "messages": messages,
            "tools": tools,
        });
        let response = post(&base_url, options.api_key.as_deref(), body).await?;
        summary.requests += 1;
        let turn = Turn::parse(&response).map_err(|error| format!("step {step}: {error}"))?;
        messages.push(Message::Assistant(turn.message.clone()));
        if turn.is_final() {
            say(out, format!("\n── step {step} · the model answers"));
            let answer = turn.text.clone().unwrap_or_default();
            say(out, format!("assistant: {answer}"));
            summary.answer = answer;
            say(
                out,
                format!(
                    "\n{} requests, {} tool calls, {} failed",
                    summary.requests, summary.calls, summary.errors
                ),
            );
            return Ok(summary);
        }
        let count = turn.calls.len();
        say(
            out,
            format!(
                "\n── step {step} · {count} tool call{}",
                if count == 1 { "" } else { "s" }
            ),
        );
        if let Some(text) = &turn.text {
            say(out, format!("assistant: {text}"));
        }
        let ran = turn.run(&registry).await;
        for (index, (call, result)) in turn.calls.iter().zip(&ran.results).enumerate() {
            let status = if result.is_error() { "error" } else { "ok" };
            say(
                out,
                format!(
                    "[{}] {} · {status} · {} ms",
                    index + 1,
                    call.name,
                    result.duration.as_millis()
                ),
            );
            match &call.args {
                Ok(args) => say(out, format!("    {args}")),
                Err(error) => say(out, format!("    (not run: {error})")),
            }
            match (result.card(), result.is_error()) {
                (Some(card), false) => {
                    let _ = write!(out, "{}", terminal::draw(card, options.style));
                }
                _ => say(out, format!("    → {}", ran.reply[index].content)),
            }
            summary.calls += 1;
            summary.errors += usize::from(result.is_error());
        }
        messages.extend(ran.reply.into_iter().map(Message::Tool));
    }
    Err(format!(
        "the model was still calling tools after {MAX_STEPS} requests"
    ))
}

/// Makes the working directory and its notes, and returns its absolute path.
fn prepare(workdir: &Path) -> Result<PathBuf, String> {
    std::fs::create_dir_all(workdir)
        .map_err(|error| format!("cannot create {}: {error}", workdir.display()))?;
    let workdir = workdir
        .canonicalize()
        .map_err(|error| format!("cannot resolve {}: {error}", workdir.display()))?;
    let notes = workdir.join("notes.md");
    if !notes.exists() {
        std::fs::write(&notes, NOTES)
            .map_err(|error| format!("cannot write {}: {error}", notes.display()))?;
    }
    Ok(workdir)
}

/// POSTs `body` to `{base_url}/chat/completions` and reads the JSON answer.
async fn post(base_url: &str, api_key: Option<&str>, body: Value) -> Result<Value, String> {
    let url = format!("{base_url}/chat/completions");
    let api_key = api_key.map(str::to_owned);
    // ureq blocks: run it off the async threads.
    tokio::task::spawn_blocking(move || {
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .timeout_global(Some(Duration::from_secs(300)))
            .http_status_as_error(false)
            .build()
            .into();
        let mut request = agent.post(&url).header("content-type", "application/json");
        if let Some(key) = &api_key {
            request = request.header("authorization", &format!("Bearer {key}"));
        }
        let mut response = request
            .send(body.to_string())
            .map_err(|error| match error {
                ureq::Error::Tls(_) if url.starts_with("https:") => {
                    format!("cannot POST {url}: https needs TLS; build with `--features tls`")
                }
                error => format!("cannot POST {url}: {error}"),
            })?;
        let status = response.status();
        let text = response
            .body_mut()
            .with_config()
            .limit(MAX_RESPONSE_BYTES)
            .read_to_string()
            .map_err(|error| format!("cannot read the answer from {url}: {error}"))?;
        if !status.is_success() {
            return Err(format!("{url} answered {status}: {text}"));
        }
        serde_json::from_str(&text)
            .map_err(|error| format!("{url} answered with a body that is not JSON: {error}"))
    })
    .await
    .map_err(|error| format!("the request stopped: {error}"))?
}
