//! The MCP server over streamable HTTP against rmcp's own server, serving
//! the same two tools, in one run: throughput, latency, CPU per request and
//! idle memory, and the ratios dsh/rmcp.
//!
//! Each server runs in a child process of its own (this binary, started
//! again with `DSH_HTTP_BENCH_SERVE=dsh` or `=rmcp`), stateless, answering
//! `application/json`, `TCP_NODELAY` on every accepted socket. The load
//! generator is closed-loop: N clients, each with one kept-alive hyper
//! connection, each sending its next `tools/call` (the two tools in turn)
//! as soon as the last was answered. Runs alternate between the servers,
//! at concurrency 1, 16 and 64, with and without `TCP_QUICKACK` on the
//! client's socket (set again after every read, as Linux clears it), for
//! several rounds; the table gives each cell's median over the rounds.
//! Each ratio is the median of the rounds' own ratios, each the two servers'
//! runs of one round, back to back: a slow moment of the machine (a
//! neighbour, a frequency step) moves both runs of its round, not one
//! server's median.
//!
//! - requests/s: answered calls over the run's wall time;
//! - p50/p99: each call's latency, from the request's first byte written to
//!   the reply's last byte read;
//! - CPU/request: the server process's user and system time over the run
//!   (`/proc/PID/stat`), per answered call;
//! - idle RSS: the server process's resident set after start and a few
//!   calls, before the load;
//! - what an idle session costs dsh's server (with sessions, another child):
//!   its resident set's growth over 1,000 sessions opened and left idle.
//!
//! Run with `cargo bench -p dsh-kit --features mcp --bench http`.
//! `DSH_HTTP_BENCH_SECONDS` (default 1.5) sets each run's length and
//! `DSH_HTTP_BENCH_ROUNDS` (default 5) the rounds; with 0 rounds only the
//! idle figures are measured and printed. `DSH_HTTP_BENCH_CLIENTS` (default
//! `1,16,64`) sets the concurrencies. `DSH_HTTP_BENCH_PAGES` set adds a
//! report of which of the binary's pages each server has resident (see
//! `common/pages.rs`).

use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use axum::body::Body;
use dsh_kit::Registry;
use dsh_kit::mcp::McpServer;
use dsh_kit::prelude::*;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};

#[path = "common/pages.rs"]
mod pages;

/// Which server a child process runs.
const ROLE: &str = "DSH_HTTP_BENCH_SERVE";

/// The arguments of `greet`, shared by both servers.
#[derive(Deserialize, JsonSchema)]
struct GreetArgs {
    /// The name to greet
    name: String,
}

/// The arguments of `add`, shared by both servers.
#[derive(Deserialize, JsonSchema)]
struct AddArgs {
    /// The first addend
    a: i64,
    /// The second addend
    b: i64,
}

/// Greet someone by name.
#[tool(read_only, concurrency_safe)]
async fn greet(args: GreetArgs) -> String {
    format!("Hello, {}!", args.name)
}

/// Add two integers.
#[tool(read_only, concurrency_safe)]
async fn add(args: AddArgs) -> i64 {
    args.a + args.b
}

/// The same tools, written for rmcp; its `#[tool_handler]` builds the
/// router it dispatches with (`Self::tool_router()`), as rmcp's examples do.
#[derive(Clone)]
struct RmcpTools;

#[rmcp::tool_router]
impl RmcpTools {
    /// Greet someone by name.
    #[rmcp::tool(description = "Greet someone by name.")]
    async fn greet(&self, Parameters(args): Parameters<GreetArgs>) -> String {
        format!("Hello, {}!", args.name)
    }

    /// Add two integers.
    #[rmcp::tool(description = "Add two integers.")]
    async fn add(&self, Parameters(args): Parameters<AddArgs>) -> String {
        (args.a + args.b).to_string()
    }
}

#[rmcp::tool_handler]
impl rmcp::ServerHandler for RmcpTools {}

fn main() {
    match std::env::var(ROLE).as_deref() {
        Ok("dsh") => serve_dsh(true),
        Ok("dsh-sessions") => serve_dsh(false),
        Ok("rmcp") => serve_rmcp(),
        _ => compare(),
    }
}

fn server_runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime")
}

/// Serves dsh's server, stateless or with sessions; prints its address, then runs until killed.
fn serve_dsh(stateless: bool) {
    server_runtime().block_on(async {
        let registry = Registry::new();
        registry.register::<greet>().expect("greet registers");
        registry.register::<add>().expect("add registers");
        let server = McpServer::new(registry)
            .stateless(stateless)
            .serve_http("127.0.0.1:0".parse().expect("an address"))
            .await
            .expect("the dsh server starts");
        println!("{}", server.local_addr());
        server.wait().await.expect("the dsh server runs");
    });
}

/// Serves rmcp's server the way dsh serves its own: HTTP/1 connections,
/// `TCP_NODELAY`, stateless, JSON replies.
fn serve_rmcp() {
    server_runtime().block_on(async {
        let config = StreamableHttpServerConfig::default()
            .with_legacy_session_mode(false)
            .with_json_response(true);
        let service = StreamableHttpService::new(
            || Ok(RmcpTools),
            Arc::new(NeverSessionManager::default()),
            config,
        );
        let router = axum::Router::new().nest_service("/mcp", service);
        let listener = TcpListener::bind("127.0.0.1:0")
            .await
            .expect("a socket binds");
        println!("{}", listener.local_addr().expect("its address"));
        loop {
            let (stream, _) = listener.accept().await.expect("a connection");
            stream.set_nodelay(true).expect("TCP_NODELAY");
            let service = TowerToHyperService::new(router.clone());
            tokio::spawn(async move {
                let mut builder = hyper::server::conn::http1::Builder::new();
                builder.timer(TokioTimer::new());
                let _ = builder
                    .serve_connection(TokioIo::new(stream), service)
                    .await;
            });
        }
    });
}

/// A server running in a child process.
struct Server {
    name: &'static str,
    child: Child,
    addr: SocketAddr,
}

impl Server {
    fn start(name: &'static str) -> Server {
        let mut child = Command::new(std::env::current_exe().expect("this binary"))
            .env(ROLE, name)
            .stdout(Stdio::piped())
            .spawn()
            .expect("the server process starts");
        let mut line = String::new();
        io::BufRead::read_line(
            &mut io::BufReader::new(child.stdout.take().expect("its stdout")),
            &mut line,
        )
        .expect("the server prints its address");
        let addr = line.trim().parse().expect("an address");
        Server { name, child, addr }
    }

    /// User plus system CPU time of the process so far.
    fn cpu(&self) -> Duration {
        let stat = std::fs::read_to_string(format!("/proc/{}/stat", self.child.id()))
            .expect("the server's /proc stat");
        // Fields after the command name, which is in parentheses.
        let fields: Vec<&str> = stat
            .rsplit_once(')')
            .expect("a stat line")
            .1
            .split_whitespace()
            .collect();
        let ticks: u64 =
            fields[11].parse::<u64>().expect("utime") + fields[12].parse::<u64>().expect("stime");
        // USER_HZ is 100 on every Linux the bench runs on.
        Duration::from_millis(ticks * 10)
    }

    /// The resident set of the process, in KiB.
    fn rss_kib(&self) -> u64 {
        self.status_kib("VmRSS:")
    }

    /// The anonymous part of the resident set (heap and stacks, not the
    /// binary's pages), in KiB.
    fn anon_kib(&self) -> u64 {
        self.status_kib("RssAnon:")
    }

    fn status_kib(&self, field: &str) -> u64 {
        std::fs::read_to_string(format!("/proc/{}/status", self.child.id()))
            .expect("the server's /proc status")
            .lines()
            .find_map(|line| {
                line.strip_prefix(field)?
                    .trim()
                    .trim_end_matches(" kB")
                    .parse()
                    .ok()
            })
            .expect("a memory figure")
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A client socket that asks for quick ACKs again after every read.
struct QuickAck {
    stream: TcpStream,
    on: bool,
}

impl AsyncRead for QuickAck {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let read = Pin::new(&mut self.stream).poll_read(cx, buf);
        if self.on && read.is_ready() {
            let _ = socket2::SockRef::from(&self.stream).set_tcp_quickack(true);
        }
        read
    }
}

impl AsyncWrite for QuickAck {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.stream).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_shutdown(cx)
    }
}

/// The `n`th call a client makes: the two tools in turn.
fn call(n: u64) -> (String, &'static str) {
    if n.is_multiple_of(2) {
        (
            format!(
                r#"{{"jsonrpc":"2.0","id":{n},"method":"tools/call","params":{{"name":"greet","arguments":{{"name":"Ada"}}}}}}"#
            ),
            "Hello, Ada!",
        )
    } else {
        (
            format!(
                r#"{{"jsonrpc":"2.0","id":{n},"method":"tools/call","params":{{"name":"add","arguments":{{"a":2,"b":40}}}}}}"#
            ),
            "42",
        )
    }
}

/// One kept-alive connection to `addr`.
async fn connect(
    addr: SocketAddr,
    quickack: bool,
) -> hyper::client::conn::http1::SendRequest<Body> {
    let stream = TcpStream::connect(addr).await.expect("a connection");
    stream.set_nodelay(true).expect("TCP_NODELAY");
    let stream = QuickAck {
        stream,
        on: quickack,
    };
    let (sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .expect("an HTTP/1 handshake");
    tokio::spawn(connection);
    sender
}

/// Sends call `n` and reads the whole reply; gives its content type.
async fn one_call(
    sender: &mut hyper::client::conn::http1::SendRequest<Body>,
    addr: SocketAddr,
    n: u64,
) -> String {
    let (body, expected) = call(n);
    let request = hyper::Request::post("/mcp")
        .header("host", addr.to_string())
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2025-06-18")
        .body(Body::from(body))
        .expect("a request");
    sender.ready().await.expect("the connection is ready");
    let response = sender.send_request(request).await.expect("a reply");
    let status = response.status();
    let kind = response
        .headers()
        .get("content-type")
        .and_then(|kind| kind.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    let bytes = axum::body::to_bytes(Body::new(response.into_body()), usize::MAX)
        .await
        .expect("the reply's body");
    assert!(
        status == 200
            && bytes
                .windows(expected.len())
                .any(|w| w == expected.as_bytes()),
        "{status}: {}",
        String::from_utf8_lossy(&bytes)
    );
    kind
}

/// One run's figures.
#[derive(Debug, Clone, Copy)]
struct Run {
    per_second: f64,
    p50: Duration,
    p99: Duration,
    cpu_per_call: Duration,
}

/// `clients` closed-loop clients against `server` for `length`.
fn run(
    runtime: &tokio::runtime::Runtime,
    server: &Server,
    clients: usize,
    quickack: bool,
    length: Duration,
) -> Run {
    let addr = server.addr;
    let mut senders: Vec<_> = runtime.block_on(async {
        let mut senders = Vec::new();
        for _ in 0..clients {
            senders.push(connect(addr, quickack).await);
        }
        // Warm every connection up.
        for (n, sender) in senders.iter_mut().enumerate() {
            one_call(sender, addr, n as u64).await;
        }
        senders
    });
    let cpu_before = server.cpu();
    let started = Instant::now();
    let latencies: Vec<Vec<Duration>> = runtime.block_on(async {
        let tasks: Vec<_> = senders
            .drain(..)
            .map(|mut sender| {
                tokio::spawn(async move {
                    let mut took = Vec::new();
                    let mut n = 0;
                    while started.elapsed() < length {
                        let sent = Instant::now();
                        one_call(&mut sender, addr, n).await;
                        took.push(sent.elapsed());
                        n += 1;
                    }
                    took
                })
            })
            .collect();
        let mut latencies = Vec::new();
        for task in tasks {
            latencies.push(task.await.expect("a client runs"));
        }
        latencies
    });
    let wall = started.elapsed();
    let cpu = server.cpu().saturating_sub(cpu_before);
    let mut all: Vec<Duration> = latencies.into_iter().flatten().collect();
    all.sort_unstable();
    let calls = all.len().max(1);
    Run {
        per_second: calls as f64 / wall.as_secs_f64(),
        p50: all[calls / 2],
        p99: all[(calls * 99 / 100).min(calls - 1)],
        cpu_per_call: cpu / calls as u32,
    }
}

/// One figure of a run.
type Pick = fn(&Run) -> Duration;

fn median_by(runs: &[Run], key: impl Fn(&Run) -> f64) -> f64 {
    let mut values: Vec<f64> = runs.iter().map(key).collect();
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

/// The median over the rounds of `figure(dsh) / figure(rmcp)`, each
/// round's two runs taken together (`dsh[i]` and `rmcp[i]` ran back to
/// back).
fn paired_ratio(dsh: &[Run], rmcp: &[Run], figure: impl Fn(&Run) -> f64) -> f64 {
    let mut ratios: Vec<f64> = dsh
        .iter()
        .zip(rmcp)
        .map(|(dsh, rmcp)| figure(dsh) / figure(rmcp))
        .collect();
    ratios.sort_by(f64::total_cmp);
    ratios[ratios.len() / 2]
}

fn env_or<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .and_then(|value| value.parse().ok())
        .unwrap_or(default)
}

/// What one idle session costs dsh's server: the growth of its resident
/// set over `sessions` sessions opened (and left idle), per session.
fn session_cost(runtime: &tokio::runtime::Runtime, sessions: u64) -> f64 {
    let server = Server::start("dsh-sessions");
    let addr = server.addr;
    let before = runtime.block_on(async {
        let mut sender = connect(addr, false).await;
        // Open and drop a few first, so the figure leaves out what the
        // first session starts once.
        for _ in 0..16 {
            initialize(&mut sender, addr).await;
        }
        server.rss_kib()
    });
    runtime.block_on(async {
        let mut sender = connect(addr, false).await;
        for _ in 0..sessions {
            initialize(&mut sender, addr).await;
        }
    });
    let after = server.rss_kib();
    after.saturating_sub(before) as f64 / sessions as f64
}

/// Opens a session (and leaves it).
async fn initialize(sender: &mut hyper::client::conn::http1::SendRequest<Body>, addr: SocketAddr) {
    let request = hyper::Request::post("/mcp")
        .header("host", addr.to_string())
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(Body::from(
            r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"0"}}}"#,
        ))
        .expect("a request");
    sender.ready().await.expect("the connection is ready");
    let response = sender.send_request(request).await.expect("a reply");
    assert_eq!(response.status(), 200);
    assert!(response.headers().contains_key("mcp-session-id"));
    axum::body::to_bytes(Body::new(response.into_body()), usize::MAX)
        .await
        .expect("the reply's body");
}

fn compare() {
    let length = Duration::from_secs_f64(env_or("DSH_HTTP_BENCH_SECONDS", 1.5));
    let rounds: usize = env_or("DSH_HTTP_BENCH_ROUNDS", 5);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime");
    let servers = [Server::start("dsh"), Server::start("rmcp")];
    let mut idle = Vec::new();
    for server in &servers {
        let fresh = server.rss_kib();
        let kind = runtime.block_on(async {
            let mut sender = connect(server.addr, false).await;
            let mut kind = String::new();
            for n in 0..10 {
                kind = one_call(&mut sender, server.addr, n).await;
            }
            kind
        });
        idle.push((server.rss_kib(), server.anon_kib()));
        println!(
            "{}: replies {kind}; RSS {fresh} KiB at start, {} KiB after 10 calls; pid {}",
            server.name,
            server.rss_kib(),
            server.child.id()
        );
    }

    let mib = |kib: u64| kib as f64 / 1024.0;
    let idle_line = || {
        println!(
            "\nidle RSS: dsh {:.1} MiB, rmcp {:.1} MiB (dsh - rmcp = {:+.1} MiB); of which anonymous: dsh {:.1} MiB, rmcp {:.1} MiB ({:+.1} MiB), the rest the binary's pages each touched",
            mib(idle[0].0),
            mib(idle[1].0),
            mib(idle[0].0) - mib(idle[1].0),
            mib(idle[0].1),
            mib(idle[1].1),
            mib(idle[0].1) - mib(idle[1].1),
        );
    };
    if std::env::var_os("DSH_HTTP_BENCH_PAGES").is_some() {
        let [dsh, rmcp] = &servers;
        pages::report((dsh.child.id(), dsh.name), (rmcp.child.id(), rmcp.name));
    }
    if rounds == 0 {
        // Only the idle figures: no load runs, no sessions.
        idle_line();
        return;
    }

    let concurrency = std::env::var("DSH_HTTP_BENCH_CLIENTS").unwrap_or_else(|_| "1,16,64".into());
    let cells: Vec<(usize, bool)> = concurrency
        .split(',')
        .map(|clients| {
            clients
                .trim()
                .parse::<usize>()
                .expect("DSH_HTTP_BENCH_CLIENTS is a list of numbers, like 1,16,64")
        })
        .flat_map(|clients| [(clients, false), (clients, true)])
        .collect();
    // runs[cell][server]
    let mut runs = vec![[Vec::new(), Vec::new()]; cells.len()];
    for round in 0..rounds {
        for (cell, &(clients, quickack)) in cells.iter().enumerate() {
            // Alternate which server goes first.
            let order = if (round + cell).is_multiple_of(2) {
                [0, 1]
            } else {
                [1, 0]
            };
            for side in order {
                let figures = run(&runtime, &servers[side], clients, quickack, length);
                runs[cell][side].push(figures);
            }
        }
    }

    println!(
        "\n{rounds} rounds of {length:?} per cell, medians; ratios are dsh/rmcp, each the median of the rounds' own ratios (throughput above 1 and the rest below 1 favour dsh; the throughput ratio is held to >= 0.9 as a regression guard)\n"
    );
    println!(
        "{:>4} {:>8} | {:>9} {:>9} {:>6} | {:>8} {:>8} {:>5} | {:>8} {:>8} {:>5} | {:>9} {:>9} {:>5}",
        "conc",
        "quickack",
        "dsh req/s",
        "rmcp",
        "ratio",
        "dsh p50",
        "rmcp",
        "ratio",
        "dsh p99",
        "rmcp",
        "ratio",
        "dsh CPU/r",
        "rmcp",
        "ratio"
    );
    for (cell, &(clients, quickack)) in cells.iter().enumerate() {
        let [dsh, rmcp] = &runs[cell];
        let rate = |runs: &[Run]| median_by(runs, |run| run.per_second);
        let micros =
            |runs: &[Run], pick: Pick| median_by(runs, |run| pick(run).as_secs_f64() * 1e6);
        let p50: Pick = |run| run.p50;
        let p99: Pick = |run| run.p99;
        let cpu: Pick = |run| run.cpu_per_call;
        let rate_ratio = paired_ratio(dsh, rmcp, |run| run.per_second);
        let ratio = |pick: Pick| paired_ratio(dsh, rmcp, |run| pick(run).as_secs_f64());
        println!(
            "{clients:>4} {:>8} | {:>9.0} {:>9.0} {:>6.2} | {:>6.0}µs {:>6.0}µs {:>5.2} | {:>6.0}µs {:>6.0}µs {:>5.2} | {:>7.1}µs {:>7.1}µs {:>5.2}",
            if quickack { "on" } else { "off" },
            rate(dsh),
            rate(rmcp),
            rate_ratio,
            micros(dsh, p50),
            micros(rmcp, p50),
            ratio(p50),
            micros(dsh, p99),
            micros(rmcp, p99),
            ratio(p99),
            micros(dsh, cpu),
            micros(rmcp, cpu),
            ratio(cpu),
        );
    }
    // Within the default per-client cap, all from one address.
    let sessions = 1000;
    println!(
        "an idle session of dsh's server costs {:.1} KiB (resident set growth over {sessions} sessions)",
        session_cost(&runtime, sessions)
    );
    idle_line();
}
