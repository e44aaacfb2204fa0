//! `dsh replay`: a session log drawn with every card, and replayed against
//! the tools of the server it was recorded from.

use std::path::PathBuf;

use clap::Args;
use dsh_kit::Registry;
use dsh_kit::log::Log;
use dsh_kit::log::replay::replay;

use crate::server::ServerArgs;
use crate::ui::out;
use crate::{Done, Outcome, view};

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
        out(&view::session(&log, None));
        return Ok(Outcome::Ok);
    };
    let registry = Registry::new();
    let _proxy = server.connect(&registry).await?;
    let report = replay(&registry, &log);
    out(&view::session(&log, Some(&report)));
    Ok(if report.has_differences() {
        Outcome::Failed
    } else {
        Outcome::Ok
    })
}
