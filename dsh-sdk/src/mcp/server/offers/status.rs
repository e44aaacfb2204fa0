//! Each tool's [status](crate::catalog) in `tools/list`, so an MCP client
//! sees what the catalog says: a proxied tool whose server went away is
//! listed `unavailable`, with why.

use rmcp::model::{MetaObject, Tool};
use serde_json::Value;

use crate::Registry;
use crate::value::event::rawp::ToolStatus;

/// The `_meta` key of a listed tool's status (`"unavailable"`,
/// `"degraded"`), present only when the tool is not `available`; the reason
/// is under [`STATUS_DESCRIPTION_META_KEY`]. A call of an `unavailable` tool
/// is refused at once with that reason.
pub use crate::value::wire_keys::META_STATUS as STATUS_META_KEY;

/// The `_meta` key of why a listed tool has its status.
pub use crate::value::wire_keys::META_STATUS_DESCRIPTION as STATUS_DESCRIPTION_META_KEY;

/// Marks each of `tools` that is not `available` with its status.
pub(crate) fn marked(registry: &Registry, mut tools: Vec<Tool>) -> Vec<Tool> {
    let catalog = registry.catalog();
    let unusual: Vec<_> = catalog
        .tools
        .into_iter()
        .filter(|entry| entry.status != ToolStatus::Available)
        .collect();
    if unusual.is_empty() {
        return tools;
    }
    for tool in &mut tools {
        let Some(entry) = unusual.iter().find(|entry| *entry.name == *tool.name) else {
            continue;
        };
        let meta = tool.meta.get_or_insert_with(MetaObject::default);
        meta.0.insert(
            STATUS_META_KEY.to_owned(),
            serde_json::to_value(entry.status).unwrap_or(Value::Null),
        );
        if let Some(description) = &entry.status_description {
            meta.0.insert(
                STATUS_DESCRIPTION_META_KEY.to_owned(),
                Value::String(description.clone()),
            );
        }
    }
    tools
}
