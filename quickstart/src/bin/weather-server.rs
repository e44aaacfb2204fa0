//! The `weather` tool over MCP on stdio: `cargo run -p dsh-kit-quickstart
//! --bin weather-server`, then point an MCP host at it.

use dsh_kit::Registry;
use dsh_kit::mcp::McpServer;
use dsh_kit_quickstart::weather;

#[tokio::main]
async fn main() -> dsh_kit::anyhow::Result<()> {
    let registry = Registry::new();
    registry.register::<weather>()?;
    McpServer::new(registry)
        .named("weather", env!("CARGO_PKG_VERSION"))
        .serve_stdio()
        .await?;
    Ok(())
}
