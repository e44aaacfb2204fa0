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

/// What kind of JSON `value` is, as a message says it: `null`, `a
/// boolean`, `a number`, `a string`, `an array`, `an object`.
pub(crate) fn json_kind(value: &serde_json::Value) -> &'static str {
    use serde_json::Value;
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}
