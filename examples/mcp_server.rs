//! The example tools as an MCP server, for any MCP host.
//!
//! ```sh
//! cargo run --example mcp_server                            # stdio, as an MCP host starts it
//! cargo run --example mcp_server -- --http 127.0.0.1:8931   # streamable HTTP at http://127.0.0.1:8931/mcp
//! ```
//!
//! Options:
//!
//! - `--http ADDR`: serve streamable HTTP on `ADDR`, a loopback address
//!   (port 0 picks a free one), instead of stdio; the first line on standard
//!   output is the URL to connect to.
//! - `--allow TOOL`: let `TOOL` run without asking. `edit_file` and `bash`
//!   are destructive, so they ask for approval, and this server has no one to
//!   ask: without `--allow` their calls are refused. Repeat for more tools.
//! - `--root DIR`: confine the tools' path arguments to `DIR` (repeat for
//!   more): each is resolved (`..`, `//`, symbolic links) and refused when
//!   it leads outside, and relative paths start at the first `DIR`. Without
//!   it they are resolved against the current directory but not confined.
//! - `--events FILE`: append every RAWP-DPS tool event (requests, progress,
//!   results, the catalog) to `FILE`, one JSON object a line.
//! - `--redis URL`: share tasks, notifications and sessions with the other
//!   replicas of this server through Redis at `URL`, under the key prefix
//!   `--redis-prefix P` (default `dsh-kit-examples`), so they sit behind a
//!   load balancer that is not sticky.
//! - `--proxy URL`: serve the tools of the MCP server at `URL` too (its
//!   streamable HTTP endpoint), named `remote_` and the tool's own name.
//! - `--skills DIR`: serve the skills in `DIR`, a directory of skill
//!   directories each holding a `SKILL.md` (default: this example's own
//!   `examples/skills`, when it is there).
//! - `--otel`: export the spans and metrics of every call and request over
//!   OTLP/HTTP, to the endpoint the standard `OTEL_EXPORTER_OTLP_ENDPOINT`
//!   names (`http://localhost:4318` without it).
//!
//! Logs and errors go to standard error; with stdio, standard output carries
//! the protocol alone. The log lines (every refused or failed call, with its
//! reason; warnings such as a Redis command retried) are filtered by
//! `RUST_LOG` (`warn,dsh_kit::pipeline::stop=info` when unset; `off` for none).

use std::fs::File;
use std::io::{LineWriter, Write};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Mutex;

use dsh_kit::mcp::redis::Redis;
use dsh_kit::mcp::{McpProxy, McpServer};
use dsh_kit::permission::Rule;
use dsh_kit::{Registry, Subscription};
use dsh_kit_examples::register_all;

const USAGE: &str =
    "usage: mcp_server [--http ADDR] [--allow TOOL]... [--root DIR]... [--events FILE] [--proxy URL] [--skills DIR] [--otel]

  --http ADDR     serve streamable HTTP on ADDR (loopback; port 0 picks one); prints the URL
  --allow TOOL    let TOOL run without asking (edit_file and bash ask, and no one can answer)
  --root DIR      confine path arguments to DIR (relative ones start there); repeatable
  --events FILE   append every RAWP-DPS tool event to FILE, one JSON line each
  --redis URL     share tasks, notifications and sessions with other replicas through Redis
  --redis-prefix P  the replicas' key prefix in Redis (default: dsh-kit-examples)
  --proxy URL     serve the tools of the MCP server at URL too, as remote_NAME
  --skills DIR    serve the skills in DIR (default: examples/skills of this checkout)
  --otel          export spans and metrics over OTLP/HTTP (OTEL_EXPORTER_OTLP_ENDPOINT)";

/// What the command line asked for.
struct Options {
    http: Option<SocketAddr>,
    allow: Vec<String>,
    roots: Vec<PathBuf>,
    events: Option<PathBuf>,
    redis: Option<String>,
    redis_prefix: String,
    proxy: Option<String>,
    skills: Option<PathBuf>,
    otel: bool,
}

/// Runs the server; `pub` so the `dsh-mcp-server` binary can run it too.
#[tokio::main]
pub async fn main() -> ExitCode {
    if std::env::args().any(|arg| arg == "-h" || arg == "--help") {
        println!(
            "{USAGE}\n\nServes the dsh-kit example tools over MCP: stdio by default, streamable HTTP with --http."
        );
        return ExitCode::SUCCESS;
    }
    let options = match parse(std::env::args().skip(1)) {
        Ok(options) => options,
        Err(message) => {
            eprintln!("mcp_server: {message}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    match run(options).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("mcp_server: {message}");
            ExitCode::FAILURE
        }
    }
}

async fn run(options: Options) -> Result<(), String> {
    // Flushed as `run` returns.
    let _telemetry = match options.otel {
        true => Some(dsh_kit::otel::init().map_err(|error| error.to_string())?),
        false => None,
    };
    // Refusals and warnings on standard error (stdout is MCP's, over stdio).
    dsh_kit_examples::logging::log_to_stderr();
    let mut builder = Registry::builder();
    for tool in &options.allow {
        builder = builder.rule(Rule::allow(tool));
    }
    for root in &options.roots {
        if !root.is_dir() {
            return Err(format!("`--root {}`: not a directory", root.display()));
        }
        builder = builder.path_root(root);
    }
    // The example's own skills, from its checkout, unless told otherwise.
    let skills = options.skills.clone().or_else(|| {
        let own = Path::new(env!("CARGO_MANIFEST_DIR")).join("skills");
        own.is_dir().then_some(own)
    });
    if let Some(dir) = &skills {
        let loaded =
            dsh_kit::skill::load_dir(dir).map_err(|error| format!("`--skills`: {error}"))?;
        builder = builder.skills(loaded);
    }
    let registry = builder.build();
    register_all(&registry).map_err(|error| error.to_string())?;
    let _events = match &options.events {
        Some(path) => Some(log_events(&registry, path)?),
        None => None,
    };
    let _proxy = match &options.proxy {
        Some(url) => Some(
            McpProxy::builder("remote")
                .prefix("remote_")
                .http(&registry, url)
                .await
                .map_err(|error| format!("`--proxy {url}`: {error}"))?,
        ),
        None => None,
    };
    registry.publish_catalog();

    let mut server = McpServer::new(registry).named("dsh-kit-examples", env!("CARGO_PKG_VERSION"));
    if let Some(url) = &options.redis {
        let redis = Redis::connect(url, &options.redis_prefix)
            .await
            .map_err(|error| error.to_string())?;
        server = server.redis(&redis);
    }
    match options.http {
        None => server
            .serve_stdio()
            .await
            .map_err(|error| error.to_string()),
        Some(addr) => {
            let http = server
                .serve_http(addr)
                .await
                .map_err(|error| error.to_string())?;
            let mut stdout = std::io::stdout();
            writeln!(stdout, "{}", http.url())
                .and_then(|()| stdout.flush())
                .map_err(|error| format!("cannot write the URL to standard output: {error}"))?;
            eprintln!("mcp_server: serving the example tools at {}", http.url());
            http.wait().await.map_err(|error| error.to_string())
        }
    }
}

/// Appends every RAWP-DPS event to the file at `path`, one JSON line each.
fn log_events(registry: &Registry, path: &PathBuf) -> Result<Subscription, String> {
    let file = File::options()
        .create(true)
        .append(true)
        .open(path)
        .map_err(|error| format!("cannot open {} for the events: {error}", path.display()))?;
    let file = Mutex::new(LineWriter::new(file));
    Ok(registry.subscribe_rawp(move |event| {
        let mut file = file
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Err(error) = serde_json::to_writer(&mut *file, event)
            .and_then(|()| file.write_all(b"\n").map_err(serde_json::Error::io))
        {
            eprintln!("mcp_server: cannot log an event: {error}");
        }
    }))
}

fn parse(mut args: impl Iterator<Item = String>) -> Result<Options, String> {
    let mut options = Options {
        http: None,
        allow: Vec::new(),
        roots: Vec::new(),
        events: None,
        redis: None,
        redis_prefix: "dsh-kit-examples".to_owned(),
        proxy: None,
        skills: None,
        otel: false,
    };
    while let Some(arg) = args.next() {
        let mut value = |name: &str| args.next().ok_or_else(|| format!("`{name}` needs a value"));
        match arg.as_str() {
            "--http" => {
                let addr = value("--http")?;
                options.http = Some(addr.parse().map_err(|error| {
                    format!("`--http {addr}`: not an address like 127.0.0.1:8931: {error}")
                })?);
            }
            "--allow" => options.allow.push(value("--allow")?),
            "--root" => options.roots.push(PathBuf::from(value("--root")?)),
            "--events" => options.events = Some(PathBuf::from(value("--events")?)),
            "--redis" => options.redis = Some(value("--redis")?),
            "--redis-prefix" => options.redis_prefix = value("--redis-prefix")?,
            "--proxy" => options.proxy = Some(value("--proxy")?),
            "--skills" => options.skills = Some(PathBuf::from(value("--skills")?)),
            "--otel" => options.otel = true,
            other => return Err(format!("unknown argument `{other}`")),
        }
    }
    Ok(options)
}
