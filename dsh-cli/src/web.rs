//! `dsh web`: the playground for a server's tools, or for a session log to
//! step through and replay, on 127.0.0.1.

use std::net::SocketAddr;
use std::path::PathBuf;

use clap::Args;
use dsh_kit::Registry;
use dsh_kit::log::SessionLog;
use dsh_kit::playground::{PageApprover, Playground};

use crate::error::CliError;
use crate::server::ServerArgs;
use crate::ui::{Paint, note, out, paint};
use crate::{Done, Outcome};

/// `dsh web`.
#[derive(Args, Debug)]
pub struct WebArgs {
    /// A session log the page opens, to step through its calls and cards
    /// and replay them (against the server's tools, when one is named).
    #[arg(long, value_name = "FILE")]
    log: Option<PathBuf>,

    /// Append every call made from the page to this session log.
    #[arg(long, value_name = "FILE")]
    record: Option<PathBuf>,

    /// Where to serve the page: a loopback address (port 0 picks a free one).
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:3080")]
    addr: SocketAddr,

    #[command(flatten)]
    server: ServerArgs,
}

pub async fn run(args: WebArgs) -> Done {
    let server = args.server.server()?;
    if server.is_none() && args.log.is_none() {
        return Err(CliError::Usage(
            "`dsh web` needs a server (`--url URL`, `--stdio \"COMMAND\"` or `-- COMMAND`) or a session log (`--log FILE`), or both".to_owned(),
        ));
    }
    if let Some(log) = &args.log
        && !log.is_file()
    {
        return Err(CliError::NoLog { path: log.clone() });
    }
    let approver = PageApprover::new();
    let registry = Registry::builder().approver(approver.clone()).build();
    let _proxy = match &server {
        Some(server) => Some(server.connect(&registry).await?),
        None => None,
    };
    let record = match &args.record {
        Some(path) => Some(SessionLog::open(path)?),
        None => None,
    };
    let _logging = record
        .as_ref()
        .map(|log| registry.subscribe(log.subscriber()));
    let mut playground = Playground::new(registry).approver(approver);
    if let Some(log) = args.log.as_ref().or(args.record.as_ref()) {
        playground = playground.session_log(log);
    }
    let served = playground.serve(args.addr).await?;
    // The URL alone on the first line of standard output, for scripts.
    out(&format!("{}\n", served.url()));
    note(format_args!(
        "the playground is at {}; {} to stop",
        paint(Paint::Cyan, served.url()),
        paint(Paint::Bold, "Ctrl-C")
    ));
    tokio::select! {
        result = served.wait() => result?,
        _ = tokio::signal::ctrl_c() => {}
    }
    Ok(Outcome::Ok)
}
