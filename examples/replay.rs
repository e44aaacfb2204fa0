//! View a session log as a person reads it, and replay it: each call with its
//! tool, arguments, status, duration and card, then whether render and
//! present give the same content and card again.
//!
//! ```text
//! cargo run --example replay -- LOG   view and replay LOG
//! cargo run --example replay          record a short demo session first, then view it
//! ```
//!
//! The log is replayed against the example tools with default settings.
//! Exits with 1 when a replayed call differs, 2 on bad arguments.

use std::ffi::OsString;
use std::path::Path;
use std::process::ExitCode;

use dsh_kit::Registry;
use dsh_kit::card::terminal::Style;
use dsh_kit::log::replay::replay;
use dsh_kit::log::{Log, terminal};
use dsh_kit_examples::{demo, register_all};

const USAGE: &str = "\
usage: cargo run --example replay -- [LOG]

Shows every call of the session log LOG (JSON Lines, written by
dsh_kit::log::SessionLog) with its card, and replays it against the example
tools: render and present run again on the logged values and must give the
same content and cards, byte for byte.

Without LOG, records a short demo session of every example tool into a
temporary directory first, and shows that.

Exit status: 0 when every replayed call matches, 1 when one differs or the
log cannot be read, 2 on bad arguments.";

#[tokio::main]
async fn main() -> ExitCode {
    let args: Vec<OsString> = std::env::args_os().skip(1).collect();
    match args.as_slice() {
        [] => match record_demo().await {
            Ok(code) => code,
            Err(error) => fail(error.as_ref()),
        },
        [flag] if flag == "-h" || flag == "--help" => {
            println!("{USAGE}");
            ExitCode::SUCCESS
        }
        [log] if !log.to_string_lossy().starts_with('-') => {
            let registry = Registry::new();
            if let Err(error) = register_all(&registry) {
                return fail(&error);
            }
            show(&registry, Path::new(log))
        }
        _ => {
            eprintln!("{USAGE}");
            ExitCode::from(2)
        }
    }
}

/// Records the demo session into a temporary directory and shows it.
async fn record_demo() -> Result<ExitCode, Box<dyn std::error::Error>> {
    let dir = std::env::temp_dir().join(format!("dsh-replay-demo-{}", std::process::id()));
    let registry = demo::registry()?;
    println!("Recording a demo session in {} …\n", dir.display());
    let recorded = demo::record(&registry, &dir).await?;
    let code = show(&registry, &recorded.log);
    println!(
        "\nThe log stays at {0}; view it again with\n  cargo run --example replay -- {0}",
        recorded.log.display()
    );
    Ok(code)
}

/// Reads, replays and draws the log at `path`.
fn show(registry: &Registry, path: &Path) -> ExitCode {
    let log = match Log::read(path) {
        Ok(log) => log,
        Err(error) => return fail(&error),
    };
    let report = replay(registry, &log);
    print!(
        "{}",
        terminal::session(&log, Some(&report), Style::for_stdout())
    );
    if report.has_differences() {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

/// Prints `error` and its causes to stderr.
fn fail(error: &dyn std::error::Error) -> ExitCode {
    let mut message = format!("error: {error}");
    let mut source = error.source();
    while let Some(cause) = source {
        message.push_str(&format!(": {cause}"));
        source = cause.source();
    }
    eprintln!("{message}");
    ExitCode::FAILURE
}
