//! Contract hashes: a stable content hash of each tool's definition, so a
//! host can pin what it approved and notice when a tool changes under it.
//!
//! A tool's **contract** is what a call of it takes, does and returns, as
//! its [MCP definition](crate::export::Format::Mcp) says it:
//!
//! - `name`, `title`, `description` (the description as the model reads
//!   it, with the sentence naming the declared failures);
//! - `inputSchema` and `outputSchema`;
//! - `annotations` (read-only, destructive, idempotent, open-world, title);
//! - the failure schema, `_meta["dsh/failureSchema"]`
//!   ([`META_FAILURE_SCHEMA`]): the failures a call can end in.
//!
//! Nothing else counts: not the rest of `_meta` (the version, the scopes a
//! caller needs, the hash itself, the task support, the status, a card
//! view's address), not `icons`, not `execution`. A root `$schema` naming
//! JSON Schema 2020-12, MCP's default dialect, is left out of either schema:
//! declaring the default does not change what a schema accepts, and a
//! server declares it on the wire for older clients.
//!
//! [`contract`] takes those parts of a definition, and [`contract_hash`]
//! hashes them as canonical JSON (object keys sorted, no whitespace) with
//! SHA-256: `sha256:` and 64 hex digits. Everything that shows a hash goes
//! through them: the `_meta["dsh/contract"]` of a served tool, a proxy's
//! pins, `dsh inspect`, `dsh lock`, the catalog, and [`tool_hash`] in Rust.
//! The same definition gives the same hash on any machine, whatever the
//! order it was built in, and whether it is read from a registry or from a
//! server's `tools/list`.
//!
//! ```
//! use dsh_kit::export::digest::{canonical_json, contract_hash};
//! use serde_json::json;
//!
//! assert_eq!(canonical_json(&json!({ "b": [1, { "d": 2, "c": 3 }], "a": "x" })),
//!            r#"{"a":"x","b":[1,{"c":3,"d":2}]}"#);
//! assert_eq!(
//!     contract_hash(&json!({ "name": "t", "description": "d" })),
//!     contract_hash(&json!({ "description": "d", "name": "t", "_meta": { "dsh/version": "2" } })),
//! );
//! ```

use std::fmt::Write as _;

use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::tool::ToolInfo;
use crate::value::wire_keys::META_FAILURE_SCHEMA;

/// The top-level keys of a tool definition that are its contract; the
/// failure schema, in `_meta`, is the one other part.
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

/// The schema keys whose root `$schema` is left out when it is MCP's default.
const SCHEMA_KEYS: [&str; 2] = ["inputSchema", "outputSchema"];

/// JSON Schema 2020-12, the dialect MCP assumes where a schema names none.
const DEFAULT_DIALECT: &str = "https://json-schema.org/draft/2020-12/schema";

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

/// The contract of an MCP tool definition (an exported dsh tool, or a tool
/// another MCP server lists), as a definition of its own: its
/// [contract keys](self), the failure schema in its `_meta`, and nothing
/// else. Taking the contract of a contract gives it back unchanged.
///
/// ```
/// use dsh_kit::export::digest::contract;
/// use serde_json::json;
///
/// let listed = json!({
///     "name": "t", "description": "d",
///     "inputSchema": { "$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object" },
///     "icons": [], "execution": { "taskSupport": "optional" },
///     "_meta": { "dsh/version": "2", "dsh/failureSchema": { "type": "object" } },
/// });
/// assert_eq!(contract(&listed), json!({
///     "name": "t", "description": "d",
///     "inputSchema": { "type": "object" },
///     "_meta": { "dsh/failureSchema": { "type": "object" } },
/// }));
/// assert_eq!(contract(&contract(&listed)), contract(&listed));
/// ```
pub fn contract(definition: &Value) -> Value {
    let mut contract = serde_json::Map::new();
    let Value::Object(definition) = definition else {
        return Value::Object(contract);
    };
    for key in CONTRACT_KEYS {
        if let Some(value) = definition.get(key) {
            let mut value = value.clone();
            if SCHEMA_KEYS.contains(&key)
                && let Value::Object(schema) = &mut value
                && schema.get("$schema").and_then(Value::as_str) == Some(DEFAULT_DIALECT)
            {
                schema.remove("$schema");
            }
            contract.insert(key.to_owned(), value);
        }
    }
    if let Some(failure) = definition
        .get("_meta")
        .and_then(|meta| meta.get(META_FAILURE_SCHEMA))
    {
        let mut meta = serde_json::Map::new();
        meta.insert(META_FAILURE_SCHEMA.to_owned(), failure.clone());
        contract.insert("_meta".to_owned(), Value::Object(meta));
    }
    Value::Object(contract)
}

/// The contract hash of an MCP tool definition (an exported dsh tool, or a
/// tool another MCP server lists): SHA-256 of the canonical JSON of its
/// [`contract`], as `sha256:HEX`.
pub fn contract_hash(definition: &Value) -> String {
    canonical_hash(&contract(definition))
}

/// The contract hash of a registered tool: [`contract_hash`] of its MCP
/// export, what a host pins to notice the tool changing, and what a server
/// serving it lists in its `_meta["dsh/contract"]`.
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
    fn the_failure_schema_is_part_of_the_contract_and_the_rest_of_meta_is_not() {
        let base = json!({ "name": "t", "description": "d",
            "_meta": { "dsh/failureSchema": { "enum": ["Gone"] }, "dsh/version": "1" } });
        let mut failures = base.clone();
        failures["_meta"]["dsh/failureSchema"] = json!({ "enum": ["Gone", "Locked"] });
        assert_ne!(contract_hash(&base), contract_hash(&failures));
        let mut elsewhere = base.clone();
        elsewhere["_meta"]["dsh/version"] = json!("2");
        elsewhere["_meta"]["dsh/contract"] = json!("sha256:00");
        elsewhere["icons"] = json!([{ "src": "data:," }]);
        assert_eq!(contract_hash(&base), contract_hash(&elsewhere));
    }

    #[test]
    fn declaring_the_default_dialect_is_the_same_contract_and_another_is_not() {
        let bare = json!({ "name": "t", "inputSchema": { "type": "object" } });
        let mut declared = bare.clone();
        declared["inputSchema"]["$schema"] = json!(DEFAULT_DIALECT);
        assert_eq!(contract_hash(&bare), contract_hash(&declared));
        let mut draft7 = bare.clone();
        draft7["inputSchema"]["$schema"] = json!("http://json-schema.org/draft-07/schema#");
        assert_ne!(contract_hash(&bare), contract_hash(&draft7));
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
