//! The MCP server a registry is served as, and MCP servers' tools brought
//! into a registry.

mod http;
mod offers;
mod pins;
mod proxy;
mod server;
mod sessions;
mod tasks;
