//! The `dsh` command line, run as a user runs it: every subcommand against
//! the example MCP server over stdio and streamable HTTP, and against session
//! logs it recorded; `dsh web` in headless Chromium; `dsh dev` rebuilding a
//! scratch tool server while a client stays connected. One test binary, so
//! the suite links once.

mod common;

mod browser;
mod call;
mod contract;
mod dev;
mod inspect;
mod lock;
mod replay;
