//! The example tools in the web playground.
//!
//! ```sh
//! cargo run --example playground                  # http://127.0.0.1:3080/
//! cargo run --example playground -- --port 8080   # another port
//! ```
//!
//! Options:
//!
//! - `--port PORT`: serve on 127.0.0.1:PORT (default 3080; 0 picks a free one).
//! - `--addr ADDR`: serve on ADDR, a loopback address with a port.
//! - `--log FILE`: record every call in the session log FILE (default: a
//!   fresh file in the temporary directory), which the page offers to open
//!   and replay.
//!
//! `edit_file` and `bash` are destructive: their calls ask for approval in
//! the page. The first line on standard output is the page's address.

use std::net::{Ipv4Addr, SocketAddr};
use std::path::PathBuf;
use std::process::ExitCode;

use dsh_kit::Registry;
use dsh_kit::log::SessionLog;
use dsh_kit::playground::{PageApprover, Playground};
use dsh_kit_examples::register_all;

const USAGE: &str = "usage: playground [--port PORT | --addr ADDR] [--log FILE]

  --port PORT   serve on 127.0.0.1:PORT (default 3080; 0 picks a free port)
  --addr ADDR   serve on ADDR, a loopback address with a port
  --log FILE    record the session log in FILE (default: a new file in the temporary directory)";

struct Options {
    addr: SocketAddr,
    log: Option<PathBuf>,
}

#[tokio::main]
async fn main() -> ExitCode {
    if std::env::args().any(|arg| arg == "-h" || arg == "--help") {
        println!("{USAGE}\n\nServes the dsh-kit example tools in a web playground.");
        return ExitCode::SUCCESS;
    }
    let options = match parse(std::env::args().skip(1)) {
        Ok(options) => options,
        Err(message) => {
            eprintln!("playground: {message}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    match run(options).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("playground: {error}");
            ExitCode::FAILURE
        }
    }
}

async fn run(options: Options) -> Result<(), Box<dyn std::error::Error>> {
    let approver = PageApprover::new();
    let registry = Registry::builder().approver(approver.clone()).build();
    register_all(&registry)?;

    let log_path = options.log.unwrap_or_else(|| {
        std::env::temp_dir().join(format!("dsh-playground-{}.jsonl", std::process::id()))
    });
    let log = SessionLog::open(&log_path)
        .map_err(|error| format!("cannot record the session log: {error}"))?;
    let _logging = registry.subscribe(log.subscriber());
    registry.publish_catalog();

    let server = Playground::new(registry)
        .approver(approver)
        .session_log(&log_path)
        .serve(options.addr)
        .await?;
    println!("{}", server.url());
    eprintln!("session log: {}", log_path.display());
    server.wait().await?;
    Ok(())
}

fn parse(mut args: impl Iterator<Item = String>) -> Result<Options, String> {
    let mut options = Options {
        addr: SocketAddr::from((Ipv4Addr::LOCALHOST, 3080)),
        log: None,
    };
    while let Some(arg) = args.next() {
        let mut value = |name: &str| args.next().ok_or(format!("`{name}` needs a value"));
        match arg.as_str() {
            "--port" => {
                let port = value("--port")?;
                let port: u16 = port
                    .parse()
                    .map_err(|_| format!("`--port {port}`: give a port number, 0 to 65535"))?;
                options.addr.set_port(port);
            }
            "--addr" => {
                let addr = value("--addr")?;
                options.addr = addr.parse().map_err(|_| {
                    format!("`--addr {addr}`: give an address with a port, like 127.0.0.1:3080")
                })?;
            }
            "--log" => options.log = Some(PathBuf::from(value("--log")?)),
            other => return Err(format!("unknown option `{other}`")),
        }
    }
    Ok(options)
}
