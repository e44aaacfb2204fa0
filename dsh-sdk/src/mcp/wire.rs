//! What goes on the wire for a tool and a call: the MCP definition of a
//! listed tool, the result of a finished call, and the `requestState` of a
//! call that needs input.
//!
//! A result's shape is the tool's [`ResultShape`] (else the server's), which
//! says where the render and the value go and why: hosts hand their models
//! `content` or `structuredContent`, never `_meta`, and MCP requires
//! `structuredContent` only under a declared `outputSchema`. So a tool
//! whose results carry no `structuredContent` lists no `outputSchema`, a
//! typed failure's kind and data follow its message in `content`, and the
//! card goes in `_meta` only to a client that draws it.

use rmcp::model::{
    CallToolResult, ClientCapabilities, ContentBlock as McpBlock, MetaObject, ProtocolVersion, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer};
use serde_json::Value;

use crate::export::META_FAILURE;
use crate::registry::Registry;
use crate::tool::{ResultShape, ToolInfo};
use crate::value::result::ToolResult;
use crate::value::wire_keys::VALUES_EXTENSION;

use super::apps;
use super::content::to_mcp;

/// The `_meta` key of a listed tool's [contract hash](crate::export::digest).
pub use crate::value::wire_keys::META_CONTRACT as CONTRACT_META_KEY;

/// The `_meta` key of a listed tool's task support (`optional` or
/// `required`; MCP 2025-11-25's `execution.taskSupport`), left out for a
/// tool whose calls never run as tasks.
pub use crate::value::wire_keys::META_TASK_SUPPORT as TASK_SUPPORT_META_KEY;

/// The extension a client declares to show MCP Apps views
/// (`capabilities.extensions`), and so the cards a result carries for them.
pub const MCP_APPS_EXTENSION: &str = "io.modelcontextprotocol/ui";

/// The dialect of every schema dsh makes.
const JSON_SCHEMA_2020_12: &str = "https://json-schema.org/draft/2020-12/schema";

/// An MCP tool definition from its [`Format::Mcp`](crate::export::Format::Mcp) export, its input schema
/// declaring its dialect: MCP clients from before 2025-11-25 assumed
/// draft-07, and the `$defs` and `$ref`s of a dsh schema are 2020-12's.
///
/// Its `_meta` carries the definition's contract hash under
/// [`CONTRACT_META_KEY`], for a client to pin: the hash of the whole
/// definition, as the Rust API, `dsh inspect` and `dsh lock` give it.
/// `structured`: whether the tool's results carry `structuredContent`
/// ([`structures`]); a tool whose results do not lists no `outputSchema`,
/// as MCP asks that results conform to a declared one, and its hash still
/// names the output it is made to return (a client declaring
/// [`VALUES_EXTENSION`] is listed every `outputSchema` its protocol allows,
/// only object ones before 2026-07-28, and can check the hash of those).
pub(super) fn mcp_tool(mut exported: Value, structured: bool) -> Result<Tool, ErrorData> {
    let hash = crate::export::digest::contract_hash(&exported);
    if !structured && let Value::Object(tool) = &mut exported {
        tool.remove("outputSchema");
    }
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

/// Whether the results of `tool` carry `structuredContent` under a declared
/// `outputSchema`, with `shape` the server's [`ResultShape`]: a tool that
/// shows the model its value always does; a rendering tool as its own shape,
/// or else the server's, says.
pub(super) fn structures(tool: &ToolInfo, shape: ResultShape) -> bool {
    !tool.renders() || effective_shape(tool, shape).structures_renders()
}

/// The shape of `tool`'s results: its own, or else the server's.
fn effective_shape(tool: &ToolInfo, shape: ResultShape) -> ResultShape {
    tool.definition().result_shape().unwrap_or(shape)
}

/// What the client gets for a call's result.
///
/// `object_output_only`: the client's protocol predates 2026-07-28, where
/// `structuredContent` must be an object. `shape`: the tool's
/// [`ResultShape`]; `renders`: whether the tool renders its own content.
fn call_tool_result(
    result: ToolResult,
    object_output_only: bool,
    shape: ResultShape,
    renders: bool,
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
        // The model reads `content` alone: the failure's kind and data go
        // there too, beside the message.
        if let Some(line) = result
            .failure
            .as_ref()
            .and_then(|failure| failure.summary())
        {
            content.push(McpBlock::text(line));
        }
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
    let mut structured = result
        .value
        .filter(|value| !object_output_only || value.is_object());
    if let Some(value) = &structured
        && !carries(&content, value)
    {
        match shape {
            // A rendering tool declares no `outputSchema` in this shape,
            // so the render is all, and every host's model reads it.
            ResultShape::Render if renders => structured = None,
            ResultShape::Render | ResultShape::Structured => {}
            // Clients that read only `content` still get the value, as
            // MCP's backwards-compatible shape has it.
            ResultShape::RenderAndJson => content.push(McpBlock::text(value.to_string())),
        }
    }
    let mut call = CallToolResult::success(content);
    call.structured_content = structured;
    call
}

/// What a client is, for the shape of a call's result.
#[derive(Clone, Copy, Debug)]
pub(super) struct Reader {
    /// The client's protocol predates 2026-07-28, where `structuredContent`
    /// must be an object.
    pub(super) object_output_only: bool,
    /// The client declared MCP Apps (the `io.modelcontextprotocol/ui`
    /// extension), so a card view may draw the result's card.
    pub(super) draws_cards: bool,
    /// The server's [`ResultShape`], for tools that chose none.
    pub(super) shape: ResultShape,
    /// The client declared [`VALUES_EXTENSION`]: it gets every value in
    /// `structuredContent`, beside the render, whatever the shape.
    pub(super) takes_values: bool,
}

impl Reader {
    /// What a client on `protocol` with `capabilities` is, for a server
    /// whose results have `shape` unless a tool chose its own.
    pub(super) fn of(
        protocol: Option<&ProtocolVersion>,
        capabilities: Option<&ClientCapabilities>,
        shape: ResultShape,
    ) -> Reader {
        Reader {
            object_output_only: protocol
                .is_none_or(|version| version.as_str() < ProtocolVersion::V_2026_07_28.as_str()),
            draws_cards: declared(capabilities, MCP_APPS_EXTENSION),
            shape,
            takes_values: declared(capabilities, VALUES_EXTENSION),
        }
    }
}

/// Whether the client of `context` declared `extension` in its
/// `capabilities.extensions`.
pub(super) fn declares(context: &RequestContext<RoleServer>, extension: &str) -> bool {
    declared(context.client_capabilities().as_ref(), extension)
}

/// Whether `capabilities` declare `extension` in their `extensions`.
fn declared(capabilities: Option<&ClientCapabilities>, extension: &str) -> bool {
    capabilities.is_some_and(|capabilities| {
        capabilities
            .extensions
            .as_ref()
            .is_some_and(|extensions| extensions.contains_key(extension))
    })
}

/// What the client gets for a call's result, with the card a presenting
/// tool's MCP Apps view draws when the client draws cards: a client that
/// does not gets no card, which would show a host that hands `_meta` to its
/// model the value a further time.
pub(super) fn complete(
    registry: &Registry,
    tool: &str,
    result: ToolResult,
    reader: Reader,
) -> CallToolResult {
    let info = registry.get(tool);
    // The card view of a tool that presents one draws the card from `_meta`;
    // for any other reader the card is never made.
    let card = if reader.draws_cards && info.as_ref().is_some_and(|tool| tool.presents()) {
        result.card().cloned()
    } else {
        None
    };
    let (shape, renders) = info.map_or((reader.shape, false), |tool| {
        (effective_shape(&tool, reader.shape), tool.renders())
    });
    let shape = if reader.takes_values {
        ResultShape::Structured
    } else {
        shape
    };
    let mut call = call_tool_result(result, reader.object_output_only, shape, renders);
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
