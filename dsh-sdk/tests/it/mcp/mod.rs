//! The MCP server a registry is served as, and MCP servers' tools brought
//! into a registry.

mod auth;
mod cards;
mod http;
mod offers;
mod paths;
mod pins;
mod proxy;
mod redis;
mod rounds;
mod server;
mod sessions;
mod shape;
mod skills;
mod tasks;
