//! The examples' tests, in one test binary so the suite links once: the
//! example tools, their cards and contracts, the MCP server driven by real
//! clients, what the model of each real MCP host is handed (`hosts`), a protected server against a real authorization server,
//! replicas behind nginx (sharing a directory, or Redis), and the browser (`browser/`), with the
//! helpers they share (`common/`).

mod common;

mod agent;
mod browser;
mod cards;
mod contracts;
mod examples;
mod export;
mod hosts;
mod mcp;
mod mcp_client_features;
mod mcp_proxy;
mod mcp_tool_features;
mod newcomer;
mod oauth;
mod purity;
mod redis;
mod replay;
mod replicas;
mod standalone;
mod telemetry;
mod tools;
