//! What goes on the wire for a tool and a call: the MCP definition of a
//! listed tool, the result of a finished call, and the `requestState` of a
//! call that needs input.

use rmcp::ErrorData;
use rmcp::model::{CallToolResult, ContentBlock as McpBlock, MetaObject, Tool};
use serde_json::Value;

use crate::export::META_FAILURE;
use crate::registry::Registry;
use crate::value::result::ToolResult;

use super::apps;
use super::content::to_mcp;

/// The `_meta` key of a listed tool's [contract hash](crate::export::digest).
pub use crate::value::wire_keys::META_CONTRACT as CONTRACT_META_KEY;

/// The `_meta` key of a listed tool's task support (`optional` or
/// `required`; MCP 2025-11-25's `execution.taskSupport`), left out for a
/// tool whose calls never run as tasks.
pub use crate::value::wire_keys::META_TASK_SUPPORT as TASK_SUPPORT_META_KEY;

/// The dialect of every schema dsh makes.
const JSON_SCHEMA_2020_12: &str = "https://json-schema.org/draft/2020-12/schema";

/// An MCP tool definition from its [`Format::Mcp`](crate::export::Format::Mcp) export, its input schema
/// declaring its dialect: MCP clients from before 2025-11-25 assumed
/// draft-07, and the `$defs` and `$ref`s of a dsh schema are 2020-12's.
///
/// Its `_meta` carries the definition's contract hash under
/// [`CONTRACT_META_KEY`], for a client to pin.
pub(super) fn mcp_tool(mut exported: Value) -> Result<Tool, ErrorData> {
    let hash = crate::export::digest::contract_hash(&exported);
    if let Value::Object(tool) = &mut exported {
        // rmcp's `Tool` follows the tasks extension, which has no
        // `execution`: the 2025-11-25 field travels in `_meta`.
        let tasks = tool
            .remove("execution")
            .and_then(|mut execution| execution.get_mut("taskSupport").map(Value::take));
        let meta = tool
            .entry("_meta")
            .or_insert_with(|| Value::Object(serde_json::Map::new()));
        if let Value::Object(meta) = meta {
            meta.insert(CONTRACT_META_KEY.to_owned(), Value::String(hash));
            if let Some(tasks) = tasks {
                meta.insert(TASK_SUPPORT_META_KEY.to_owned(), tasks);
            }
        }
    }
    if let Some(Value::Object(input)) = exported.get_mut("inputSchema") {
        input
            .entry("$schema")
            .or_insert_with(|| Value::from(JSON_SCHEMA_2020_12));
    }
    serde_json::from_value(exported).map_err(|error| {
        ErrorData::internal_error(
            format!("a tool definition does not fit MCP's `Tool`: {error}"),
            None,
        )
    })
}

/// What the client gets for a call's result.
///
/// `object_output_only`: the client's protocol predates 2026-07-28, where
/// `structuredContent` must be an object. `render_only`: the tool's
/// [`ToolDef::render_only`](crate::ToolDef::render_only).
fn call_tool_result(
    result: ToolResult,
    object_output_only: bool,
    render_only: bool,
) -> CallToolResult {
    let mut content: Vec<McpBlock> = result.content().iter().map(to_mcp).collect();
    let says_nothing = content.iter().all(|block| {
        block
            .as_text()
            .is_some_and(|text| text.text.trim().is_empty())
    });
    if says_nothing {
        content = vec![McpBlock::text(format!(
            "`{}` finished with no output",
            result.tool_name
        ))];
    }
    if result.is_error() {
        let mut call = CallToolResult::error(content);
        // Typed, for clients that switch on why the call failed.
        if let Some(failure) = &result.failure
            && let Ok(failure) = serde_json::to_value(failure)
        {
            let mut meta = serde_json::Map::new();
            meta.insert(META_FAILURE.to_owned(), failure);
            call.meta = Some(MetaObject(meta));
        }
        return call;
    }
    let structured = result
        .value
        .filter(|value| !object_output_only || value.is_object());
    // Clients that read only `content` still get the value: when a custom
    // render's text does not already carry it, its JSON follows the render's
    // blocks, as MCP recommends, unless the tool says its render is all.
    if let Some(value) = &structured
        && !render_only
        && !carries(&content, value)
    {
        content.push(McpBlock::text(value.to_string()));
    }
    let mut call = CallToolResult::success(content);
    call.structured_content = structured;
    call
}

/// The `requestState` of a call that needs input: the tool and its
/// arguments, hashed, so a retry is checked to be the same call.
pub(super) fn request_state(tool: &str, args: &Value) -> String {
    use sha2::{Digest, Sha256};
    let mut hash = Sha256::new();
    hash.update(tool.as_bytes());
    hash.update([0]);
    hash.update(args.to_string().as_bytes());
    let digest = hash.finalize();
    let hex: String = digest[..16]
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect();
    format!("dsh1:{hex}")
}

/// What the client gets for a call's result, with the card a presenting
/// tool's MCP Apps view draws.
pub(super) fn complete(
    registry: &Registry,
    tool: &str,
    result: ToolResult,
    object_output_only: bool,
) -> CallToolResult {
    let info = registry.get(tool);
    // The card view of a tool that presents one draws the card from `_meta`.
    let card = match result.card() {
        Some(card) if info.as_ref().is_some_and(|tool| tool.presents()) => Some(card.clone()),
        _ => None,
    };
    let render_only = info.is_some_and(|tool| tool.definition().render_only());
    let mut call = call_tool_result(result, object_output_only, render_only);
    if let Some(card) = card {
        apps::attach_card(&mut call, &card);
    }
    call
}

/// Whether the text of `content` is `value` already: its JSON, or the string itself.
fn carries(content: &[McpBlock], value: &Value) -> bool {
    let text: Vec<&str> = content
        .iter()
        .filter_map(|block| block.as_text().map(|text| text.text.as_str()))
        .collect();
    let text = text.join("\n");
    let json = value.to_string();
    text == json || value.as_str() == Some(text.as_str())
}
