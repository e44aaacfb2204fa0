//! `dsh replay`: a session log drawn with every card, and replayed against
//! the tools of the server it was recorded from.

use std::path::PathBuf;

use clap::Args;
use dsh_kit::Registry;
use dsh_kit::log::replay::replay;
use dsh_kit::log::{Log, terminal};

use crate::server::ServerArgs;
use crate::ui::{DRAWING, Paint, out, paint};
use crate::{Done, Outcome};

/// `dsh replay`.
#[derive(Args, Debug)]
pub struct ReplayArgs {
    /// The session log (JSON Lines, as `dsh call --record`, `dsh web
    /// --record` or `dsh_kit::log::SessionLog` write it).
    #[arg(value_name = "LOG")]
    log: PathBuf,

    /// The server the log was recorded from: each logged call's value is
    /// rendered and presented again by its tools, and compared byte for
    /// byte. Without one the log is only drawn.
    #[command(flatten)]
    server: ServerArgs,
}

pub async fn run(args: ReplayArgs) -> Done {
    let log = Log::read(&args.log)?;
    let Some(server) = args.server.server()? else {
        let not_replayed = paint(
            Paint::Dim,
            "not replayed: name the server the log was recorded from (`--url`, `--stdio` or `-- COMMAND`) to replay it",
        );
        out(&format!(
            "{}{} {not_replayed}\n",
            terminal::session(&log, None, DRAWING),
            paint(Paint::Bold, "replay:")
        ));
        return Ok(Outcome::Ok);
    };
    let registry = Registry::new();
    let _proxy = server.connect(&registry).await?;
    let report = replay(&registry, &log);
    out(&terminal::session(&log, Some(&report), DRAWING));
    Ok(if report.has_differences() {
        Outcome::Failed
    } else {
        Outcome::Ok
    })
}
