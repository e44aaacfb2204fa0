//! Contract hashes: a stable content hash of each tool's definition, so a
//! host can pin what it approved and notice when a tool changes under it.
//!
//! The contract is the tool's [MCP export](crate::export::Format::Mcp) —
//! name, title, description, input and output schemas, annotations — as
//! canonical JSON (object keys sorted, no whitespace), hashed with SHA-256:
//! `sha256:` and 64 hex digits. The same definition gives the same hash on
//! any machine, whatever the order it was built in.
//!
//! ```
//! use dsh_kit::export::digest::{canonical_json, contract_hash};
//! use serde_json::json;
//!
//! assert_eq!(canonical_json(&json!({ "b": [1, { "d": 2, "c": 3 }], "a": "x" })),
//!            r#"{"a":"x","b":[1,{"c":3,"d":2}]}"#);
//! assert_eq!(
//!     contract_hash(&json!({ "name": "t", "description": "d" })),
//!     contract_hash(&json!({ "description": "d", "name": "t" })),
//! );
//! ```

use std::fmt::Write as _;

use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::tool::ToolInfo;

/// The keys of a tool definition that make its contract.
///
/// The scopes a tool needs (`_meta`'s `dsh/scopes`) are not among them: they
/// say who may call the tool, which this server decides and enforces, not
/// what a call does, which is what a pin holds a tool to. Granting a tool
/// to more or fewer callers leaves every pin and approval of it standing,
/// every caller that sees the tool reads the same hash, and a tool another
/// MCP server lists, which has no dsh scopes, hashes by the same keys.
const CONTRACT_KEYS: [&str; 6] = [
    "name",
    "title",
    "description",
    "inputSchema",
    "outputSchema",
    "annotations",
];

/// `value` as canonical JSON: object keys sorted by their bytes, no
/// whitespace, numbers and strings as serde_json writes them.
pub fn canonical_json(value: &Value) -> String {
    let mut out = String::new();
    write_canonical(value, &mut out);
    out
}

fn write_canonical(value: &Value, out: &mut String) {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            out.push('{');
            for (i, key) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String(key.clone()).to_string());
                out.push(':');
                write_canonical(&map[key], out);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_canonical(item, out);
            }
            out.push(']');
        }
        scalar => out.push_str(&scalar.to_string()),
    }
}

/// The contract hash of an MCP tool definition (an exported dsh tool, or a
/// tool another MCP server lists): SHA-256 of the canonical JSON of its
/// contract keys, as `sha256:HEX`. Other keys (`_meta`, `icons`, …) do not
/// count.
pub fn contract_hash(definition: &Value) -> String {
    let mut contract = serde_json::Map::new();
    if let Value::Object(definition) = definition {
        for key in CONTRACT_KEYS {
            if let Some(value) = definition.get(key) {
                contract.insert(key.to_owned(), value.clone());
            }
        }
    }
    canonical_hash(&Value::Object(contract))
}

/// The contract hash of a registered tool: [`contract_hash`] of its MCP
/// export, what a host pins to notice the tool changing.
///
/// ```
/// use dsh_kit::prelude::*;
/// use dsh_kit::Registry;
/// use dsh_kit::export::digest::tool_hash;
///
/// /// Greet someone by name.
/// #[tool]
/// async fn greet(
///     /// The name to greet
///     name: String,
/// ) -> String {
///     format!("Hello, {name}!")
/// }
///
/// let registry = Registry::new();
/// registry.register::<greet>().unwrap().keep();
/// let hash = tool_hash(&registry.get("greet").unwrap());
/// assert!(hash.starts_with("sha256:"));
/// ```
pub fn tool_hash(tool: &ToolInfo) -> String {
    contract_hash(&super::export_tool(tool, super::Format::Mcp))
}

/// SHA-256 of the canonical JSON of `value`, as `sha256:HEX`.
pub(crate) fn canonical_hash(value: &Value) -> String {
    let digest = Sha256::digest(canonical_json(value).as_bytes());
    let mut hash = String::with_capacity(7 + 64);
    hash.push_str("sha256:");
    for byte in digest {
        let _ = write!(hash, "{byte:02x}");
    }
    hash
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_hash_is_sha256_of_the_canonical_contract() {
        // `printf '{"description":"d","name":"t"}' | sha256sum`
        assert_eq!(
            contract_hash(&json!({ "name": "t", "description": "d", "_meta": { "x": 1 } })),
            "sha256:b9f15ebfa8bc28bcffb5a46b5a868e0d86c2664f18a2661e6573f8172e1ec05f"
        );
    }

    #[test]
    fn any_change_to_the_contract_changes_the_hash() {
        let base = json!({ "name": "t", "description": "d", "inputSchema": { "type": "object" } });
        let mut changed = base.clone();
        changed["inputSchema"]["properties"] = json!({ "x": { "type": "string" } });
        assert_ne!(contract_hash(&base), contract_hash(&changed));
        let mut described = base.clone();
        described["description"] = json!("d, but now it also deletes files");
        assert_ne!(contract_hash(&base), contract_hash(&described));
    }
}
