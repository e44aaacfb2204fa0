//! MCP Apps: a tool that presents its own card gets an HTML view of it, a
//! `ui://` resource linked from the tool's `_meta`, so hosts that support the
//! extension show the card beside the call. Hosts that do not still get
//! `content` and `structuredContent`.
//!
//! The view is [`card_app_html`]: the card renderer and a bridge. The host
//! sends it the call's result (`ui/notifications/tool-result`); the card
//! travels in the result's `_meta` under [`CARD_META_KEY`], which is also
//! how a proxy ([`McpProxy`](super::McpProxy)) gets a dsh server's own card
//! ([`read_card`]).

use rmcp::ErrorData;
use rmcp::model::{CallToolResult, MetaObject, Resource, ResourceContents, Tool};
#[cfg(feature = "proxy")]
use serde::Deserialize;
use serde_json::{Value, json};

use crate::registry::{CallerView, Registry};
use crate::tool::ToolInfo;
use crate::value::card::Card;
use crate::value::card::web::{CARD_META_KEY, MCP_APP_MIME_TYPE, card_app_html};
#[cfg(feature = "proxy")]
use crate::value::schema::limits::{Exceeded, check};
use crate::value::wire_keys::{
    APPS_DEPRECATED_RESOURCE_URI, APPS_RESOURCE_URI, APPS_UI, CARD_VIEW_URI_PREFIX,
};

use crate::mcp::server::offers::resources::{ReadResource, ResourceProvider};

/// Where the card view of `tool` is served.
const URI_PREFIX: &str = CARD_VIEW_URI_PREFIX;

/// The `ui://` address of the card view of `tool`.
pub(super) fn card_uri(tool: &str) -> String {
    format!("{URI_PREFIX}{tool}")
}

/// Whether `uri` is the card view of a tool hidden from `caller`: such a
/// view is neither listed to it nor read for it, as its address names the
/// tool.
pub(super) fn hides_card(caller: &CallerView, uri: &str) -> bool {
    uri.strip_prefix(URI_PREFIX)
        .is_some_and(|name| caller.get(name).is_none())
}

/// The error of a card view address no tool presents at.
pub(super) fn no_card(uri: &str) -> ErrorData {
    ErrorData::resource_not_found(
        format!(
            "no resource at `{uri}`: card views are at `{URI_PREFIX}TOOL` for the tools that present a card"
        ),
        Some(json!({ "uri": uri })),
    )
}

/// Links `tool` to its card view when it presents its own card:
/// `_meta.ui.resourceUri`, as MCP Apps specifies, and its deprecated flat
/// `_meta["ui/resourceUri"]`, which hosts still read
/// ([`APPS_DEPRECATED_RESOURCE_URI`]).
pub(super) fn link_card_view(registry: &Registry, mut tool: Tool) -> Tool {
    if !registry.get(&tool.name).is_some_and(|info| info.presents()) {
        return tool;
    }
    let uri = card_uri(&tool.name);
    let meta = tool.meta.get_or_insert_with(MetaObject::new);
    meta.0
        .insert(APPS_UI.to_owned(), json!({ APPS_RESOURCE_URI: uri }));
    meta.0
        .insert(APPS_DEPRECATED_RESOURCE_URI.to_owned(), Value::String(uri));
    tool
}

#[cfg(feature = "proxy")]
/// Whether a tool's `_meta`, as a server listed it, links a dsh card view
/// ([`link_card_view`]): the tool presents its own card there, and its
/// results carry it.
pub(super) fn links_card_view(meta: Option<&MetaObject>) -> bool {
    meta.and_then(|meta| meta.0.get(APPS_UI))
        .and_then(|ui| ui.get(APPS_RESOURCE_URI))
        .and_then(Value::as_str)
        .is_some_and(|uri| uri.starts_with(URI_PREFIX))
}

/// Puts the card of a call in its result's `_meta`, for the view to draw.
pub(super) fn attach_card(result: &mut CallToolResult, card: &Card) {
    let Ok(card) = serde_json::to_value(card) else {
        return;
    };
    result
        .meta
        .get_or_insert_with(MetaObject::new)
        .0
        .insert(CARD_META_KEY.to_owned(), card);
}

#[cfg(feature = "proxy")]
/// Why a card a server sent with a call result is not shown.
#[derive(Debug, thiserror::Error)]
pub(super) enum CardRefused {
    /// Nested too deep, or too large as JSON.
    #[error("it is {}", .0.describe())]
    Exceeded(Exceeded),
    /// Not one of the card types.
    #[error("it is not a card: {0}")]
    Malformed(serde_json::Error),
}

#[cfg(feature = "proxy")]
/// The card a server put in a call result's `_meta` under
/// [`CARD_META_KEY`] (as [`attach_card`] does), checked: at most
/// `max_depth` levels deep and `max_bytes` as compact JSON, measured before
/// it is read, then one of the [`Card`] types. `Ok(None)` when the result
/// carries none.
pub(super) fn read_card(
    meta: Option<&MetaObject>,
    max_depth: usize,
    max_bytes: usize,
) -> Result<Option<Card>, CardRefused> {
    let Some(card) = meta.and_then(|meta| meta.0.get(CARD_META_KEY)) else {
        return Ok(None);
    };
    check(card, max_depth, max_bytes).map_err(CardRefused::Exceeded)?;
    Card::deserialize(card)
        .map(Some)
        .map_err(CardRefused::Malformed)
}

/// The card views of a registry's tools, one resource provider among a
/// server's: one view per tool that presents its own card, in pool order.
pub(super) struct CardViews(pub(super) Registry);

impl ResourceProvider for CardViews {
    fn resources(&self) -> Vec<Resource> {
        self.0
            .host()
            .visible_tools()
            .iter()
            .filter(|tool| tool.presents())
            .map(resource)
            .collect()
    }

    fn read<'a>(&'a self, uri: &'a str) -> ReadResource<'a> {
        Box::pin(std::future::ready(read(&self.0, uri)))
    }
}

fn resource(tool: &ToolInfo) -> Resource {
    Resource::new(card_uri(tool.name()), format!("{} card", tool.name()))
        .with_title(format!("The card of `{}`", tool.name()))
        .with_description(format!(
            "Shows the result of a `{}` call as a card.",
            tool.name()
        ))
        .with_mime_type(MCP_APP_MIME_TYPE)
}

/// The card view at `uri`: `None` when `uri` is not a card view's address,
/// an error naming the address when it is one but no tool presents there.
fn read(registry: &Registry, uri: &str) -> Option<Result<Vec<ResourceContents>, ErrorData>> {
    let name = uri.strip_prefix(URI_PREFIX)?;
    let tool = registry
        .get(name)
        .filter(|tool| tool.presents() && card_uri(tool.name()) == uri);
    let Some(_) = tool else {
        return Some(Err(no_card(uri)));
    };
    Some(Ok(vec![ResourceContents::TextResourceContents {
        uri: uri.to_owned(),
        mime_type: Some(MCP_APP_MIME_TYPE.to_owned()),
        text: card_app_html(),
        meta: None,
    }]))
}
