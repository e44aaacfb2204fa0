//! MCP, on [`rmcp`]: serve a [`Registry`](crate::Registry) to any MCP client,
//! and bring the tools of other MCP servers into a registry.
//!
//! Needs the `mcp` cargo feature.
//!
//! ```no_run
//! use dsh_kit::mcp::McpServer;
//! use dsh_kit::prelude::*;
//! use dsh_kit::Registry;
//!
//! /// Greet someone by name.
//! #[tool(read_only)]
//! async fn greet(
//!     /// The name to greet
//!     name: String,
//! ) -> String {
//!     format!("Hello, {name}!")
//! }
//!
//! #[tokio::main]
//! async fn main() -> Result<(), dsh_kit::mcp::ServeError> {
//!     let registry = Registry::new();
//!     registry.register::<greet>().unwrap();
//!     McpServer::new(registry).serve_stdio().await
//! }
//! ```
//!
//! - [`McpServer`] serves a registry over stdio, over streamable HTTP on a
//!   loopback address (or on any, as an OAuth 2.1 resource server: see
//!   [`auth`]), as an axum router to mount in an app of one's own
//!   ([`McpServer::router`]), or over any rmcp transport. `tools/list` is the
//!   registry's [MCP export](crate::export::Format::Mcp); `tools/call` runs the
//!   full pipeline. See its docs for how each part of the protocol maps.
//! - Beside its tools, a server serves resources ([`McpServer::resource`]:
//!   [`StaticResource`], [`ResourceTemplate`], any [`ResourceProvider`]) and
//!   prompts ([`McpServer::prompt`]); the MCP Apps card views of tools that
//!   present a card are one resource provider among them. The registry's
//!   [skills](crate::skill) are served as the Skills extension
//!   (`io.modelcontextprotocol/skills`): `skills/list`, `skills/get`, and
//!   their files as resources.
//! - A tool reaches the client of its call through [`Exec`](crate::Exec):
//!   log messages, elicitation (a form, or a URL the user is sent to),
//!   sampling (see [`crate::tool::client`]).
//! - An argument marked `#[dsh(header = "Region")]` is exported with
//!   `x-mcp-header`: a 2026-07-28 client sends it as an `Mcp-Param-Region`
//!   header too, and the HTTP server answers a call whose header contradicts
//!   its body, or lacks it, with a 400 and a JSON-RPC error naming the header
//!   and both values. A proxied tool keeps its server's annotations.
//! - Long-running tools run as MCP tasks, kept in a [`TaskStore`] (in memory,
//!   or a [`FileTaskStore`] that replicas share); [`McpServer::stateless`]
//!   serves HTTP with no sessions, for replicas behind a load balancer.
//! - What sessions hear (`list_changed`, resource updates, task status)
//!   goes through an [`EventBus`], in-process by default. With the `redis`
//!   feature, `mcp::redis` shares tasks, the bus and 2025-11-25 sessions among
//!   replicas on any number of machines, behind a load balancer that need
//!   not be sticky (`McpServer::redis`).
//! - [`McpProxy`] connects to another MCP server (a child process's stdio, or
//!   streamable HTTP, `https://` over rustls) and registers its tools as
//!   [dynamic tools](crate::DynamicTool) that forward each call there. When
//!   the server drops, its tools turn `unavailable` until the proxy reaches
//!   it again ([`Backoff`]); the re-read list is diffed ([`ProxyEvent`]).
//!   The server's skills are served again by the registry.
//! - Every list result carries the 2026-07-28 cache hints; `tools/list` has
//!   a version ([`LIST_VERSION_META_KEY`]) and marks each tool that is not
//!   `available` with its status ([`STATUS_META_KEY`]).

mod apps;
#[cfg(feature = "oauth")]
pub mod auth;
mod content;
mod pins;
#[cfg(feature = "proxy")]
mod proxy;
mod request_state;
mod server;
mod session;
mod stores;
mod tasks;
mod wire;

/// The reconnection policy of [`McpProxy`] and the Redis stores, also at
/// the crate root.
pub use crate::Backoff;
pub use pins::{ContractPins, TOOL_CONTRACT_CHANGED};
#[cfg(feature = "proxy")]
pub use proxy::{
    ConnectError, DEFAULT_HEARTBEAT, McpProxy, McpProxyBuilder, ProxyEvent, TOOL_SKIPPED, TlsError,
    ToolListDiff,
};
pub use server::McpServer;
pub use server::http::{
    DEFAULT_BODY_READ_TIMEOUT, DEFAULT_HEADER_READ_TIMEOUT, DEFAULT_KEEP_ALIVE_TIMEOUT,
    DEFAULT_MAX_BODY_BYTES, DEFAULT_MAX_SESSIONS, DEFAULT_MAX_SESSIONS_PER_CLIENT,
    DEFAULT_SESSION_IDLE_TIMEOUT, DEFAULT_UNUSED_SESSION_TIMEOUT,
};
pub use server::http::{HttpOptions, McpHttpServer, ServeError};
pub use server::offers::cache::LIST_VERSION_META_KEY;
pub use server::offers::prompts::Prompt;
pub use server::offers::resources::{
    ReadResource, ResourceProvider, ResourceTemplate, ResourceUpdates, StaticResource,
    TemplateParams,
};
pub use server::offers::status::{STATUS_DESCRIPTION_META_KEY, STATUS_META_KEY};
pub use stores::bus::{BusEvent, EventBus, LocalEventBus};
pub use stores::outage::STORE_UNAVAILABLE;
#[cfg(feature = "redis")]
pub use stores::redis;
pub use tasks::store::{
    FileTaskStore, TaskOutcome, TaskOwner, TaskRecord, TaskStore, TaskStoreError,
};
pub use tasks::{
    DEFAULT_MAX_RUNNING_TASKS, DEFAULT_TASK_POLL_INTERVAL, DEFAULT_TASK_TTL, MemoryTaskStore,
};
pub use wire::{CONTRACT_META_KEY, MCP_APPS_EXTENSION, TASK_SUPPORT_META_KEY};

/// The rmcp crate this module is built on, for its transports and types.
pub use rmcp;
