//! A protected MCP server, mounted in an axum app of its own: an OAuth 2.1
//! resource server taking JWT access tokens from one authorization server,
//! with a tool that reads its caller.
//!
//! ```sh
//! cargo run --example mcp_oauth -- \
//!     --issuer https://auth.example.com \
//!     --resource https://mcp.example.com/mcp \
//!     --listen 127.0.0.1:8932
//! ```
//!
//! - `--issuer URL`: the authorization server (its metadata, at
//!   `/.well-known/oauth-authorization-server` or
//!   `/.well-known/openid-configuration`, names its keys).
//! - `--resource URL`: this server's resource URI as clients write it, the
//!   `aud` its tokens must carry: behind a reverse proxy, the public
//!   `https://` URL. MCP is served at its path, the protected resource
//!   metadata at `/.well-known/oauth-protected-resource` plus that path,
//!   and its host is an allowed `Host`.
//! - `--listen ADDR`: the address to listen on (`127.0.0.1:8932` unless
//!   given); any address, since every request must bring a token.
//!
//! Prints the resource URI on its first line. `GET /health` answers `ok`
//! without a token: the app's own route, beside the MCP one.

use std::net::SocketAddr;
use std::process::ExitCode;

use dsh_kit::mcp::auth::ResourceServer;
use dsh_kit::mcp::{HttpOptions, McpServer};
use dsh_kit::prelude::*;
use dsh_kit::{DynamicTool, Registry};

/// Say who is calling: the subject, client and scopes of the access token.
#[tool(read_only)]
async fn whoami(exec: &Exec) -> String {
    let caller = exec.principal();
    let scopes: Vec<&str> = caller.scopes().collect();
    format!(
        "{} (client {}), scopes: {}",
        caller.subject(),
        caller.client_id().unwrap_or("unknown"),
        scopes.join(" ")
    )
}

/// A tool only callers with `notes:write` see called: others get `403
/// insufficient_scope`, naming the scope to ask for.
fn write_note() -> DynamicTool {
    DynamicTool::new(
        ToolDef::builder_owned("write_note", "Write a note.")
            .with_scopes(["notes:write"])
            .build(),
        json!({ "type": "object", "properties": { "text": { "type": "string" } }, "required": ["text"] }),
        |args, exec| async move {
            Ok(json!(format!(
                "{} wrote: {}",
                exec.principal().subject(),
                args["text"].as_str().unwrap_or_default()
            )))
        },
    )
}

struct Options {
    issuer: String,
    resource: String,
    listen: SocketAddr,
}

fn parse(mut args: impl Iterator<Item = String>) -> Result<Options, String> {
    let (mut issuer, mut resource) = (None, None);
    let mut listen: SocketAddr = ([127, 0, 0, 1], 8932).into();
    while let Some(arg) = args.next() {
        let mut value = || args.next().ok_or(format!("{arg} needs a value"));
        match arg.as_str() {
            "--issuer" => issuer = Some(value()?),
            "--resource" => resource = Some(value()?),
            "--listen" => {
                listen = value()?
                    .parse()
                    .map_err(|error| format!("--listen: {error}"))?;
            }
            other => return Err(format!("unknown argument `{other}`")),
        }
    }
    Ok(Options {
        issuer: issuer.ok_or("--issuer is required")?,
        resource: resource.ok_or("--resource is required")?,
        listen,
    })
}

/// `mcp.example.com` and `/mcp` of `https://mcp.example.com/mcp`.
fn host_and_path(url: &str) -> (&str, &str) {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    match rest.find('/') {
        Some(at) => rest.split_at(at),
        None => (rest, "/"),
    }
}

#[tokio::main]
async fn main() -> ExitCode {
    dsh_kit_examples::logging::log_to_stderr();
    let options = match parse(std::env::args().skip(1)) {
        Ok(options) => options,
        Err(message) => {
            eprintln!(
                "mcp_oauth: {message}\nusage: mcp_oauth --issuer URL --resource URL [--listen ADDR]"
            );
            return ExitCode::from(2);
        }
    };
    let registry = Registry::new();
    registry
        .register::<whoami>()
        .expect("whoami registers")
        .keep();
    registry
        .register_dynamic(write_note())
        .expect("write_note registers")
        .keep();
    let (host, path) = host_and_path(&options.resource);
    let protected = ResourceServer::jwt(&options.resource, &options.issuer)
        .scopes_supported(["notes:read"])
        .resource_name("dsh-kit notes");
    let app = axum::Router::new()
        .route("/health", axum::routing::get(|| async { "ok" }))
        .merge(
            McpServer::new(registry)
                .http(HttpOptions::default().allowed_hosts([host]))
                .resource_server(protected)
                .router(path),
        );
    let listener = match tokio::net::TcpListener::bind(options.listen).await {
        Ok(listener) => listener,
        Err(error) => {
            eprintln!("mcp_oauth: cannot listen on {}: {error}", options.listen);
            return ExitCode::FAILURE;
        }
    };
    println!("{}", options.resource);
    if let Err(error) = axum::serve(listener, app).await {
        eprintln!("mcp_oauth: {error}");
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}
