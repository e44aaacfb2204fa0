//! Three tools over streamable HTTP, with dsh-kit; the same tools as
//! `../rmcp`, for the cold build bench.

use dsh_kit::Registry;
use dsh_kit::mcp::McpServer;
use dsh_kit::permission::Rule;
use dsh_kit::prelude::*;

/// Count the words of a text.
#[tool(read_only, concurrency_safe)]
async fn count_words(
    /// The text whose words to count
    text: String,
) -> String {
    format!("{} words", text.split_whitespace().count())
}

/// Say a text in capitals.
#[tool(read_only, concurrency_safe)]
async fn shout(
    /// The text to shout
    text: String,
) -> String {
    text.to_uppercase()
}

/// Append a line to a text file, made if missing.
#[tool(destructive)]
async fn append_line(
    /// The file's path
    path: String,
    /// The line to append
    line: String,
) -> Result<String, ToolError> {
    use std::io::Write;
    let mut file = std::fs::File::options()
        .create(true)
        .append(true)
        .open(&path)
        .map_err(|error| ToolError::new(error.to_string()))?;
    writeln!(file, "{line}").map_err(|error| ToolError::new(error.to_string()))?;
    Ok(format!("appended a line to `{path}`"))
}

#[tokio::main]
async fn main() {
    let registry = Registry::builder()
        .rule(Rule::allow("append_line"))
        .build();
    registry.register::<count_words>().unwrap();
    registry.register::<shout>().unwrap();
    registry.register::<append_line>().unwrap();
    let server = McpServer::new(registry)
        .serve_http("127.0.0.1:8931".parse().unwrap())
        .await
        .unwrap();
    println!("{}", server.url());
    server.wait().await.unwrap();
}
