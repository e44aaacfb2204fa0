//! The values a call carries and produces, the lowest layer: what the model
//! sees ([`content`]) and a person sees ([`card`]) of a result, the result
//! itself ([`result`]), the events and their wire form ([`event`]), schemas
//! and their limits ([`schema`]), the names a definition uses ([`names`]),
//! who calls ([`principal`]), the ids of calls (`id`) and the paths a call
//! names ([`path`]), and the names dsh-kit writes into MCP
//! ([`wire_keys`]). None of them knows of a tool, a registry or a front
//! end.

pub mod card;
pub(crate) mod content;
pub mod event;
pub(crate) mod id;
pub(crate) mod names;
pub mod path;
pub(crate) mod principal;
pub(crate) mod result;
pub(crate) mod schema;
pub mod wire_keys;
