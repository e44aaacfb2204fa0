//! Three tools over streamable HTTP, with rmcp alone; the same tools as
//! `../dsh`, for the cold build bench.

use std::sync::Arc;

use rmcp::handler::server::wrapper::Parameters;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use schemars::JsonSchema;
use serde::Deserialize;

#[derive(Deserialize, JsonSchema)]
struct TextArgs {
    /// The text
    text: String,
}

#[derive(Deserialize, JsonSchema)]
struct AppendArgs {
    /// The file's path
    path: String,
    /// The line to append
    line: String,
}

#[derive(Clone)]
struct Tools;

#[rmcp::tool_router]
impl Tools {
    #[rmcp::tool(description = "Count the words of a text.", annotations(read_only_hint = true))]
    async fn count_words(&self, Parameters(args): Parameters<TextArgs>) -> String {
        format!("{} words", args.text.split_whitespace().count())
    }

    #[rmcp::tool(description = "Say a text in capitals.", annotations(read_only_hint = true))]
    async fn shout(&self, Parameters(args): Parameters<TextArgs>) -> String {
        args.text.to_uppercase()
    }

    #[rmcp::tool(description = "Append a line to a text file, made if missing.", annotations(destructive_hint = true))]
    async fn append_line(&self, Parameters(args): Parameters<AppendArgs>) -> Result<String, String> {
        use std::io::Write;
        let mut file = std::fs::File::options()
            .create(true)
            .append(true)
            .open(&args.path)
            .map_err(|error| error.to_string())?;
        writeln!(file, "{}", args.line).map_err(|error| error.to_string())?;
        Ok(format!("appended a line to `{}`", args.path))
    }
}

#[rmcp::tool_handler]
impl rmcp::ServerHandler for Tools {}

#[tokio::main]
async fn main() {
    let service = StreamableHttpService::new(
        || Ok(Tools),
        Arc::new(LocalSessionManager::default()),
        StreamableHttpServerConfig::default(),
    );
    let router = axum::Router::new().nest_service("/mcp", service);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:8931").await.unwrap();
    println!("http://{}/mcp", listener.local_addr().unwrap());
    axum::serve(listener, router).await.unwrap();
}
