//! A proxied tool: the local tool made from a remote one, and each of its
//! calls forwarded to its server.

use std::sync::Arc;

use serde::Deserialize;
use serde_json::Value;

use rmcp::model::{
    CallToolRequestParams, CancelledNotificationParam, ClientRequest, Request, RequestId,
    ServerResult, Tool,
};
use rmcp::service::PeerRequestOptions;
use rmcp::{Peer, RoleClient};

use crate::tool::Exec;
use crate::tool::{DynamicTool, Executed, Remote, ToolDef, ToolError};
use crate::value::card::Card;
use crate::value::content::{ContentBlock, joined_text, render_default};
use crate::value::names::Category;
use crate::value::schema::limits::check;
use crate::value::wire_keys::APPS_UI;

use super::super::apps::{links_card_view, read_card};
use super::super::content::from_mcp;
use super::gone::{root_cause, unreachable};
use super::link::Link;
use super::progress::Reporting;

/// One remote tool's call, forwarded.
#[derive(Clone)]
pub(super) struct Forward {
    pub(super) link: Arc<Link>,
    pub(super) remote: String,
    /// Whether the tool declares an output schema, so its value is the
    /// `structuredContent`.
    pub(super) structured: bool,
}

impl Forward {
    /// The call, inside its client span by OpenTelemetry's MCP conventions
    /// (`tools/call {tool}`, kind client), whose trace context the request
    /// carries in `_meta` to the server.
    pub(super) async fn call(self, args: Value, exec: Exec) -> Result<Executed, ToolError> {
        // Named as `semconv::MCP_CLIENT_SPAN` (the macro takes a literal).
        let span = tracing::info_span!(
            "mcp.client",
            "otel.name" = %format_args!("tools/call {}", self.remote),
            "otel.kind" = "client",
            "otel.status_code" = tracing::field::Empty,
            "mcp.method.name" = "tools/call",
            "gen_ai.operation.name" = crate::otel::semconv::EXECUTE_TOOL,
            "gen_ai.tool.name" = self.remote.as_str(),
            "server.address" = self.link.server.as_str(),
            "error.type" = tracing::field::Empty,
        );
        let forwarded =
            tracing::Instrument::instrument(self.forward(args, exec, &span), span.clone()).await;
        if forwarded.is_err() && !span.is_disabled() {
            span.record("error.type", crate::otel::semconv::TOOL_ERROR);
            span.record("otel.status_code", "error");
        }
        forwarded
    }

    async fn forward(
        self,
        args: Value,
        exec: Exec,
        span: &tracing::Span,
    ) -> Result<Executed, ToolError> {
        let server = &self.link.server;
        let remote = &self.remote;
        if let Some(reason) = self.link.gone() {
            return Err(ToolError::new(format!(
                "the MCP server `{server}` is gone: {reason}"
            )));
        }
        let Value::Object(arguments) = args else {
            return Err(ToolError::new("internal: the arguments are not an object"));
        };
        let failed = |error: rmcp::ServiceError| {
            if let Some(reason) = unreachable(&error) {
                self.link.mark_gone(reason);
            }
            ToolError::new(match self.link.gone() {
                Some(reason) => format!("the MCP server `{server}` is gone: {reason}"),
                None => format!(
                    "the MCP server `{server}` could not run `{remote}`: {}",
                    root_cause(&error)
                ),
            })
        };
        let params = traced(
            CallToolRequestParams::new(remote.clone()).with_arguments(arguments),
            span,
        );
        let peer = &self.link.peer();
        let handle = peer
            .send_request_with_option(
                ClientRequest::CallToolRequest(Request::new(params)),
                PeerRequestOptions::no_options(),
            )
            .await
            .map_err(failed)?;
        // rmcp gives every request a progress token of its own.
        let _reporting =
            Reporting::start(&self.link.progress, handle.progress_token.clone(), &exec);
        // Dropped before the answer (the call cancelled, or timed out here):
        // the server is told to stop.
        let abandon = Abandon {
            peer: peer.clone(),
            request: Some(handle.id.clone()),
        };
        let response = tokio::select! {
            response = handle.await_response() => response,
            () = exec.cancellation().cancelled() => {
                return Err(ToolError::new(format!("the call of `{remote}` was cancelled")));
            }
        };
        abandon.disarm();
        // rmcp hands each notification to a task of its own: give those that
        // came before the answer a turn to reach the call while it still runs.
        tokio::task::yield_now().await;
        let result = match response.map_err(failed)? {
            ServerResult::CallToolResult(result) => result,
            other => {
                return Err(ToolError::new(format!(
                    "the MCP server `{server}` answered a call of `{remote}` with something else than a tool result: {other:?}"
                )));
            }
        };
        let blocks: Vec<ContentBlock> = result.content.iter().map(from_mcp).collect();
        if result.is_error == Some(true) {
            // A dsh server's typed failure: the tool's kind and value carry over.
            let failure = result
                .meta
                .as_ref()
                .and_then(|meta| meta.0.get(crate::export::META_FAILURE))
                .and_then(|failure| {
                    serde_json::from_value::<crate::value::result::Failure>(failure.clone()).ok()
                });
            // A dsh server ends the content with the failure's summary
            // line for the model; this pipeline writes it again from the
            // failure carried over, so it is not kept in the message too.
            let summary = failure
                .as_ref()
                .and_then(crate::value::result::Failure::summary);
            let message: Vec<ContentBlock> = match summary {
                Some(summary) => blocks
                    .iter()
                    .filter(|block| block.as_text() != Some(summary.as_str()))
                    .cloned()
                    .collect(),
                None => blocks.clone(),
            };
            let text = joined_text(&message);
            // A dsh server says which tool failed before the tool's own
            // message, as this pipeline does again for the error returned
            // here: the message is said once, the local way.
            let own_prefix = format!("`{remote}` failed: ");
            let text = match &failure {
                Some(failure) if failure.cause == crate::value::result::Cause::Tool => text
                    .strip_prefix(&own_prefix)
                    .map(str::to_owned)
                    .unwrap_or(text),
                _ => text,
            };
            let mut error = ToolError::new(if text.is_empty() {
                format!("`{remote}` on the MCP server `{server}` failed and said nothing more")
            } else {
                text
            });
            if let Some(failure) = failure {
                if let Some(kind) = failure.kind {
                    error = error.with_kind(kind);
                }
                if let Some(data) = failure.data {
                    error = error.with_data(data);
                }
            }
            return Err(error);
        }
        let mut shown = Remote::default();
        let value = if self.structured {
            // A server that declares an output schema must send
            // `structuredContent`; older ones put the JSON in a text block.
            // A value read from the one text block there is has no other
            // rendering to keep: that block is its JSON.
            let (value, read_from_text) = match result.structured_content {
                Some(value) => (Some(value), false),
                None => (
                    blocks
                        .first()
                        .and_then(ContentBlock::as_text)
                        .and_then(|text| serde_json::from_str(text).ok()),
                    true,
                ),
            };
            let Some(value) = value else {
                return Err(ToolError::new(format!(
                    "`{remote}` on the MCP server `{server}` declares an output schema but sent no structured content"
                )));
            };
            if !(read_from_text && blocks.len() == 1) {
                shown.content = self.shown_content(blocks, &value);
            }
            value
        } else {
            serde_json::to_value(blocks).map_err(|error| {
                ToolError::new(format!("the content could not be kept: {error}"))
            })?
        };
        shown.card = self.shown_card(result.meta.as_ref()).map(Arc::new);
        Ok(Executed::shown_remotely(value, shown))
    }

    /// What the server rendered a structured `value` as, for the model to
    /// see in place of the value's default rendering: its blocks, unless
    /// they are only the value's JSON again (which the default rendering
    /// gives anyway), or over the registry's output limits (then, with a
    /// warning, the model sees the value's default rendering).
    fn shown_content(&self, blocks: Vec<ContentBlock>, value: &Value) -> Option<Vec<ContentBlock>> {
        let only_json = matches!(
            &blocks[..],
            [block] if block.as_text().and_then(|text| serde_json::from_str::<Value>(text).ok()).as_ref() == Some(value)
        );
        if blocks.is_empty() || only_json {
            return None;
        }
        let limits = self.link.registry.pipeline().config.limits;
        let shown = serde_json::to_value(&blocks).unwrap_or_default();
        match check(&shown, limits.max_output_depth, limits.max_output_bytes) {
            Ok(()) => Some(blocks),
            Err(exceeded) => {
                tracing::warn!(
                    server = %self.link.server,
                    tool = %self.remote,
                    "the content the MCP server `{}` sent with a result of `{}` is {}: the value's JSON shows in its place",
                    self.link.server,
                    self.remote,
                    exceeded.describe(),
                );
                None
            }
        }
    }

    /// The card a dsh server presented the value with (its result's
    /// `_meta`, under [`CARD_META_KEY`](crate::value::card::web::CARD_META_KEY)),
    /// for the pipeline to record with the value and show in place of the
    /// generic card. The card is checked first against the registry's
    /// output limits and the card types: one that breaks either is left
    /// out, with a warning, and the generic card shows.
    fn shown_card(&self, meta: Option<&rmcp::model::MetaObject>) -> Option<Card> {
        let limits = self.link.registry.pipeline().config.limits;
        match read_card(meta, limits.max_output_depth, limits.max_output_bytes) {
            Ok(card) => card,
            Err(error) => {
                tracing::warn!(
                    server = %self.link.server,
                    tool = %self.remote,
                    "the card the MCP server `{}` sent with a result of `{}` is not shown, the generic card is: {error}",
                    self.link.server,
                    self.remote,
                );
                None
            }
        }
    }
}

/// `params` with the trace context of `span` in their `_meta`, when the
/// OpenTelemetry bridge records it.
#[cfg(feature = "otel")]
fn traced(mut params: CallToolRequestParams, span: &tracing::Span) -> CallToolRequestParams {
    use tracing_opentelemetry::OpenTelemetrySpanExt as _;
    if span.is_disabled() {
        return params;
    }
    let mut meta = params.meta.take().unwrap_or_default();
    crate::otel::inject(&span.context(), &mut meta);
    params.meta = (!meta.is_empty()).then_some(meta);
    params
}

/// `params` as they are: without the `otel` feature there is no context
/// to carry.
#[cfg(not(feature = "otel"))]
fn traced(params: CallToolRequestParams, _span: &tracing::Span) -> CallToolRequestParams {
    params
}

/// Tells the server to stop a call this side no longer waits for.
pub(super) struct Abandon {
    peer: Peer<RoleClient>,
    request: Option<RequestId>,
}

impl Abandon {
    fn disarm(mut self) {
        self.request = None;
    }
}

impl Drop for Abandon {
    fn drop(&mut self) {
        let Some(request) = self.request.take() else {
            return;
        };
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let peer = self.peer.clone();
        runtime.spawn(async move {
            let reason = "the caller cancelled the call".to_owned();
            let _ = peer
                .notify_cancelled(CancelledNotificationParam::new(Some(request), Some(reason)))
                .await;
        });
    }
}

/// The dynamic tool `name` that forwards each call to the remote `tool`.
pub(super) fn forwarding_tool(link: &Arc<Link>, name: &str, tool: &Tool) -> DynamicTool {
    let annotations = tool.annotations.clone().unwrap_or_default();
    let read_only = annotations.read_only_hint == Some(true);
    let mut def = ToolDef::builder_owned(name, tool.description.as_deref().unwrap_or_default())
        .category(Category::Mcp)
        .read_only(read_only)
        .concurrency_safe(read_only)
        .destructive(!read_only && annotations.destructive_hint == Some(true))
        .idempotent(annotations.idempotent_hint == Some(true));
    if let Some(open_world) = annotations.open_world_hint {
        def = def.open_world(open_world);
    }
    if let Some(title) = tool.title.clone().or(annotations.title) {
        def = def.with_title(title);
    }
    // What a dsh server says of its tools beyond MCP's fields.
    let meta = tool.meta.as_ref().map(|meta| &meta.0);
    if let Some(version) = meta
        .and_then(|meta| meta.get(crate::export::META_VERSION))
        .and_then(Value::as_str)
    {
        def = def.with_version(version);
    }
    let failure_schema = meta
        .and_then(|meta| meta.get(crate::export::META_FAILURE_SCHEMA))
        .cloned();
    if let Some(own) = meta.and_then(own_meta) {
        def = def.with_meta(own);
    }
    let forward = Forward {
        link: Arc::clone(link),
        remote: tool.name.to_string(),
        structured: tool.output_schema.is_some(),
    };
    let mut dynamic = DynamicTool::shown_remotely(
        def.build(),
        Value::Object((*tool.input_schema).clone()),
        move |args, exec| forward.clone().call(args, exec),
    );
    if let Some(schema) = failure_schema {
        dynamic = dynamic.failure_schema(schema);
    }
    if links_card_view(tool.meta.as_ref()) {
        dynamic = dynamic.presents_remotely();
    }
    match &tool.output_schema {
        Some(schema) => dynamic.output_schema(Value::Object((**schema).clone())),
        None => dynamic.render(|_args, value| {
            Vec::<ContentBlock>::deserialize(value).unwrap_or_else(|_| render_default(value))
        }),
    }
}

/// The most a remote tool's own `_meta` may hold, as JSON, to be kept.
const MAX_OWN_META_BYTES: usize = 16 * 1024;

/// The entries of a remote tool's `_meta` that are the tool's own: those
/// whose keys dsh-kit takes (not `dsh/`, which it reads itself, nor a
/// reserved prefix), less the MCP Apps view links (`ui`, `ui/…`), which
/// name the remote server's resources. `None` when none is left, or when
/// they are too large to carry.
fn own_meta(meta: &serde_json::Map<String, Value>) -> Option<serde_json::Map<String, Value>> {
    let own: serde_json::Map<String, Value> = meta
        .iter()
        .filter(|(key, _)| {
            crate::value::names::meta_key_problem(key).is_none()
                && key.as_str() != APPS_UI
                && !key
                    .strip_prefix(APPS_UI)
                    .is_some_and(|rest| rest.starts_with('/'))
        })
        .map(|(key, value)| (key.clone(), value.clone()))
        .collect();
    let size = serde_json::to_vec(&own).map_or(usize::MAX, |json| json.len());
    (!own.is_empty() && size <= MAX_OWN_META_BYTES).then_some(own)
}
