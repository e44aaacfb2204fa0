//! A real model loop with the example tools.
//!
//! ```sh
//! cargo run --example agent                                   # offline: a bundled scripted server
//! OPENAI_API_KEY=… cargo run --example agent --features tls -- --base-url https://api.openai.com/v1
//! cargo run --example agent -- --base-url http://127.0.0.1:11434/v1 --model qwen3   # a local server
//! ```
//!
//! Each step sends the conversation and the tools to a Chat Completions
//! endpoint, runs the answer's tool calls as one batch, prints them with their
//! cards, and sends the results back, until the model answers in text.
//!
//! Options:
//!
//! - `--base-url URL`: any OpenAI-compatible endpoint (`…/v1`). Without it,
//!   a scripted server starts on 127.0.0.1 and answers with recorded
//!   responses (`examples/agent/`): a few steps with parallel calls and a
//!   failing edit.
//! - `--model NAME`: the model (default `gpt-4.1`).
//! - `--prompt TEXT`: the request (default: a checklist of the TODOs in
//!   `notes.md`, what the scripted responses answer).
//! - `--workdir DIR`: where `notes.md` is and edits may go (default: a new
//!   directory under the system's temporary directory).
//!
//! The key is read from `OPENAI_API_KEY` and sent as a bearer token when set.
//! `https://` endpoints need TLS, which the examples build without unless
//! asked: add `--features tls`.

use std::path::PathBuf;
use std::process::ExitCode;

use dsh_kit::card::terminal::Style;
use dsh_kit_examples::agent::{self, DEFAULT_PROMPT, Options};

const USAGE: &str = "usage: agent [--base-url URL] [--model NAME] [--prompt TEXT] [--workdir DIR]

  --base-url URL   an OpenAI-compatible Chat Completions endpoint, `…/v1` (default: a bundled scripted server)
  --model NAME     the model (default gpt-4.1)
  --prompt TEXT    the request (default: what the scripted server answers)
  --workdir DIR    where notes.md is and edits may go (default: a new temporary directory)

The API key is read from OPENAI_API_KEY.";

/// Runs the agent; `pub` so the `dsh-agent` binary can run it too.
#[tokio::main]
pub async fn main() -> ExitCode {
    if std::env::args().any(|arg| arg == "-h" || arg == "--help") {
        println!("{USAGE}");
        return ExitCode::SUCCESS;
    }
    let options = match parse(std::env::args().skip(1)) {
        Ok(options) => options,
        Err(message) => {
            eprintln!("agent: {message}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let mut out = std::io::stdout();
    match agent::run(&options, &mut out).await {
        Ok(_) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("agent: {message}");
            ExitCode::FAILURE
        }
    }
}

fn parse(mut args: impl Iterator<Item = String>) -> Result<Options, String> {
    let mut options = Options {
        base_url: None,
        api_key: std::env::var("OPENAI_API_KEY")
            .ok()
            .filter(|key| !key.is_empty()),
        model: "gpt-4.1".into(),
        prompt: DEFAULT_PROMPT.into(),
        workdir: std::env::temp_dir().join(format!("dsh-agent-{}", std::process::id())),
        style: Style::for_stdout(),
    };
    while let Some(arg) = args.next() {
        let mut value = |name: &str| args.next().ok_or(format!("{name} needs a value"));
        match arg.as_str() {
            "--base-url" => options.base_url = Some(value("--base-url")?),
            "--model" => options.model = value("--model")?,
            "--prompt" => options.prompt = value("--prompt")?,
            "--workdir" => options.workdir = PathBuf::from(value("--workdir")?),
            other => return Err(format!("unknown argument `{other}`")),
        }
    }
    Ok(options)
}
