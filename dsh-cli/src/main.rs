//! `dsh`: the command line for MCP tool authors. Points at any MCP server
//! (a command speaking MCP on its standard input and output, or a
//! streamable HTTP URL) or at a dsh session log:
//!
//! ```text
//! dsh inspect -- cargo run --example mcp_server     definitions, contract hashes, provider compatibility
//! dsh call greet '{"name":"Ada"}' --url http://127.0.0.1:8931/mcp
//! dsh web -- cargo run --example mcp_server          the playground, in a browser
//! dsh dev -- cargo run --example mcp_server          serve it to a host, rebuilt on every save
//! dsh lock --check -- cargo run --example mcp_server the contracts CI holds a server to
//! dsh replay session.jsonl                          a session log, drawn and replayed
//! ```

mod call;
mod dev;
mod error;
mod inspect;
mod lock;
mod replay;
mod server;
mod ui;
mod warnings;
mod web;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

use crate::error::CliError;
use crate::ui::{Paint, paint};

/// The command line for MCP tool authors: inspect, call, lock and develop any
/// MCP server, with a web playground and session-log replay.
///
/// Name the server with `--url URL` (streamable HTTP, `--bearer TOKEN` for a
/// token), `--stdio "COMMAND ARGS"`, or a command after `--`.
#[derive(Parser, Debug)]
#[command(
    name = "dsh",
    version,
    propagate_version = true,
    max_term_width = 100,
    after_help = "Exit status: 0 when all is well; 1 when the tool failed, a contract drifted or a replay differs; 2 when the command could not do its work (it says what to do)."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// A web playground for a server's tools, or for a session log: forms
    /// from their schemas, calls, cards, events, approvals, replay.
    Web(web::WebArgs),
    /// Each tool's definition, contract hash, and what each provider's
    /// format would reject or lose.
    Inspect(inspect::InspectArgs),
    /// Calls one tool and prints what it gave: the content and its card.
    /// Exits with 1 when the tool fails.
    Call(call::CallArgs),
    /// Draws a session log with every card, and replays it against a
    /// server's tools, showing every difference. Exits with 1 on one.
    Replay(replay::ReplayArgs),
    /// Serves a server under development to an MCP host, on stdio or HTTP,
    /// and rebuilds and restarts it when its sources change; the host gets
    /// `list_changed` and never reconnects.
    Dev(dev::DevArgs),
    /// Writes the contract hash of every tool to a lock file to commit;
    /// `--check` fails, saying what changed, when a definition drifted.
    Lock(lock::LockArgs),
}

/// The exit status of a command that ran: 0 when all is well, 1 when the
/// tool failed, a contract drifted or a replay differs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Outcome {
    Ok,
    Failed,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    warnings::show();
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            report(&error);
            return ExitCode::from(2);
        }
    };
    let result = runtime.block_on(async {
        match cli.command {
            Command::Web(args) => web::run(args).await,
            Command::Inspect(args) => inspect::run(args).await,
            Command::Call(args) => call::run(args).await,
            Command::Replay(args) => replay::run(args).await,
            Command::Dev(args) => dev::run(args).await,
            Command::Lock(args) => lock::run(args).await,
        }
    });
    // Child processes and connections end with the runtime, not after it.
    runtime.shutdown_timeout(std::time::Duration::from_secs(5));
    match result {
        Ok(Outcome::Ok) => ExitCode::SUCCESS,
        Ok(Outcome::Failed) => ExitCode::FAILURE,
        Err(error) => {
            report(&error);
            ExitCode::from(2)
        }
    }
}

/// Prints `error` and its causes to standard error.
fn report(error: &dyn std::error::Error) {
    use std::io::Write as _;
    let mut message = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        message.push_str(&format!(": {cause}"));
        source = cause.source();
    }
    let _ = writeln!(
        anstream::stderr(),
        "{} {message}",
        paint(Paint::Red, "error:")
    );
}

/// `Result` of a command.
type Done = Result<Outcome, CliError>;

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    use super::*;
    use crate::server::Server;

    #[test]
    fn the_command_line_is_well_formed() {
        Cli::command().debug_assert();
    }

    fn server_of(args: &[&str]) -> Result<Option<Server>, String> {
        let cli = Cli::try_parse_from(args).map_err(|error| error.kind().to_string())?;
        let Command::Inspect(inspect) = cli.command else {
            panic!("not inspect");
        };
        inspect.server.server().map_err(|error| error.to_string())
    }

    #[test]
    fn a_server_is_a_url_a_command_line_or_the_words_after_the_dashes() {
        assert_eq!(
            server_of(&["dsh", "inspect", "--url", "https://h/mcp", "--bearer", "t"]),
            Ok(Some(Server::Http {
                url: "https://h/mcp".into(),
                bearer: Some("t".into())
            }))
        );
        let stdio = Ok(Some(Server::Stdio {
            program: "cargo".into(),
            args: vec!["run".into(), "--example".into(), "my server".into()],
        }));
        assert_eq!(
            server_of(&[
                "dsh",
                "inspect",
                "--stdio",
                "cargo run --example 'my server'"
            ]),
            stdio
        );
        assert_eq!(
            server_of(&[
                "dsh",
                "inspect",
                "--",
                "cargo",
                "run",
                "--example",
                "my server"
            ]),
            stdio
        );
        assert_eq!(server_of(&["dsh", "inspect"]), Ok(None));
        // One server at a time.
        assert!(server_of(&["dsh", "inspect", "--url", "http://h/mcp", "--", "x"]).is_err());
        assert!(server_of(&["dsh", "inspect", "--stdio", "x", "--", "y"]).is_err());
        assert!(
            server_of(&["dsh", "inspect", "--stdio", "cargo 'run"])
                .unwrap_err()
                .contains("close its quotes")
        );
    }
}

#[cfg(test)]
mod readme {
    use clap::Parser;

    use super::Cli;

    /// Every `dsh …` line of a README's code blocks, as the shell splits it
    /// (a trailing `# comment` left out).
    fn commands(readme: &str) -> Vec<Vec<String>> {
        readme
            .lines()
            .filter(|line| line.starts_with("dsh "))
            .map(|line| {
                let line = line.split(" # ").next().unwrap_or(line);
                shlex::split(line).unwrap_or_else(|| panic!("cannot split {line:?}"))
            })
            .collect()
    }

    #[test]
    fn the_readmes_show_commands_dsh_takes() {
        for readme in [
            include_str!("../../README.md"),
            include_str!("../README.md"),
        ] {
            let commands = commands(readme);
            assert!(commands.len() >= 3, "{commands:?}");
            for command in commands {
                if let Err(error) = Cli::try_parse_from(&command) {
                    panic!("{command:?}: {error}");
                }
            }
        }
    }
}
