//! Which MCP server a command works on, and the connection to it: a command
//! started with its standard input and output as the transport, or a
//! streamable HTTP URL, reached through [`McpProxy`] so that its tools are
//! tools of a local [`Registry`].

use std::path::Path;

use clap::Args;
use dsh_kit::Registry;
use dsh_kit::mcp::rmcp::transport::StreamableHttpClientTransport;
use dsh_kit::mcp::rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use dsh_kit::mcp::{Backoff, McpProxy};

use crate::error::CliError;
use crate::ui::{Spinner, note, warn};

/// The MCP server to work on: exactly one of `--url`, `--stdio` or a
/// command after `--`.
#[derive(Args, Clone, Debug, Default)]
pub struct ServerArgs {
    /// The server's streamable HTTP endpoint: `http://127.0.0.1:8931/mcp`, or `https://…`.
    #[arg(long, value_name = "URL", conflicts_with_all = ["stdio", "command"])]
    pub url: Option<String>,

    /// A bearer token sent with every request to `--url` (`Authorization:
    /// Bearer …`); from `DSH_BEARER` when not given, to keep it out of the
    /// shell's history.
    #[arg(long, value_name = "TOKEN", env = "DSH_BEARER", hide_env_values = true)]
    pub bearer: Option<String>,

    /// The server's command line, split as a shell would: `--stdio "cargo run --example mcp_server"`.
    #[arg(long, value_name = "COMMAND", conflicts_with = "command")]
    pub stdio: Option<String>,

    /// The server's command and its arguments, after `--`: `-- cargo run --example mcp_server`.
    #[arg(last = true, value_name = "COMMAND")]
    pub command: Vec<String>,
}

/// Where a server is, once the arguments are read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Server {
    /// Started as a child process speaking MCP on its standard input and output.
    Stdio {
        /// The program.
        program: String,
        /// Its arguments.
        args: Vec<String>,
    },
    /// Reached over streamable HTTP.
    Http {
        /// The endpoint.
        url: String,
        /// The bearer token, if any.
        bearer: Option<String>,
    },
}

impl ServerArgs {
    /// The server named, or `None` when none was.
    pub fn server(&self) -> Result<Option<Server>, CliError> {
        if let Some(url) = &self.url {
            if !(url.starts_with("http://") || url.starts_with("https://")) {
                return Err(CliError::BadUrl { url: url.clone() });
            }
            return Ok(Some(Server::Http {
                url: url.clone(),
                bearer: self.bearer.clone(),
            }));
        }
        let words = match &self.stdio {
            Some(line) => {
                shlex::split(line).ok_or_else(|| CliError::BadCommandLine { line: line.clone() })?
            }
            None => self.command.clone(),
        };
        let mut words = words.into_iter();
        Ok(words.next().map(|program| Server::Stdio {
            program,
            args: words.collect(),
        }))
    }

    /// The server named, or an error saying how to name one.
    pub fn required(&self) -> Result<Server, CliError> {
        self.server()?.ok_or(CliError::NoServer)
    }
}

impl Server {
    /// A short name for messages and diagnostics: the program's file name,
    /// or the URL's host.
    pub fn name(&self) -> String {
        match self {
            Server::Stdio { program, .. } => Path::new(program).file_name().map_or_else(
                || program.clone(),
                |name| name.to_string_lossy().into_owned(),
            ),
            Server::Http { url, .. } => url
                .split("://")
                .nth(1)
                .and_then(|rest| rest.split('/').next())
                .unwrap_or(url)
                .to_owned(),
        }
    }

    /// How the server is reached, for a person.
    pub fn describe(&self) -> String {
        match self {
            Server::Stdio { program, args } => {
                let mut line = vec![program.as_str()];
                line.extend(args.iter().map(String::as_str));
                format!(
                    "`{}`",
                    shlex::try_join(line.iter().copied()).unwrap_or_else(|_| line.join(" "))
                )
            }
            Server::Http { url, .. } => url.clone(),
        }
    }

    /// A fresh command that starts this server (a stdio server only).
    pub fn command(&self) -> Option<tokio::process::Command> {
        let Server::Stdio { program, args } = self else {
            return None;
        };
        let mut command = tokio::process::Command::new(program);
        command.args(args);
        Some(command)
    }

    /// Connects to the server and registers its tools in `registry`, with
    /// a spinner while it starts; a one-off connection that does not
    /// reconnect. Says which tools the server listed that were left out.
    pub async fn connect(&self, registry: &Registry) -> Result<McpProxy, CliError> {
        let spinner = Spinner::start(match self {
            Server::Stdio { .. } => format!("starting {}", self.describe()),
            Server::Http { .. } => format!("connecting to {}", self.describe()),
        });
        let builder = McpProxy::builder(self.name())
            .heartbeat(None)
            .reconnect(Backoff::never());
        let connected = match self {
            Server::Stdio { .. } => {
                let command = self.command().ok_or(CliError::NoServer)?;
                builder.stdio(registry, command).await
            }
            Server::Http { url, bearer: None } => builder.http(registry, url).await,
            Server::Http {
                url,
                bearer: Some(token),
            } => {
                let client = reqwest::Client::builder()
                    .build()
                    .map_err(|error| CliError::HttpClient(error.to_string()))?;
                let config = StreamableHttpClientTransportConfig::with_uri(url.as_str())
                    .auth_header(token.clone());
                let transport = StreamableHttpClientTransport::with_client(client, config);
                builder.connect(registry, transport).await
            }
        };
        spinner.finish();
        let proxy = connected.map_err(|source| CliError::Connect {
            server: self.describe(),
            hint: self.hint(),
            source,
        })?;
        for diagnostic in proxy.diagnostics() {
            warn(format_args!(
                "{} left out: {}",
                diagnostic.tool_name.as_deref().unwrap_or("a tool"),
                diagnostic.message
            ));
        }
        note(format_args!(
            "{} lists {} tool{}",
            self.describe(),
            proxy.tools().len(),
            if proxy.tools().len() == 1 { "" } else { "s" }
        ));
        Ok(proxy)
    }

    /// What to check when the server cannot be reached.
    fn hint(&self) -> &'static str {
        match self {
            Server::Stdio { .. } => {
                "check that the command runs by itself and speaks MCP on its standard output (and nothing else there)"
            }
            Server::Http { .. } => {
                "check that the server is up and the URL ends in its MCP endpoint (often `/mcp`); a server that wants a token needs `--bearer TOKEN`"
            }
        }
    }
}
