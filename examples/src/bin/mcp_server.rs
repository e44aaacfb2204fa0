//! The `mcp_server` example (`examples/mcp_server.rs`) as a binary, so that
//! `cargo test` builds it before the MCP integration tests, which find it as
//! `CARGO_BIN_EXE_dsh-mcp-server`.

#[path = "../../mcp_server.rs"]
mod example;

fn main() -> std::process::ExitCode {
    example::main()
}
