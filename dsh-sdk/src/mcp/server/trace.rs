//! The span of each MCP request the server answers, by OpenTelemetry's MCP
//! conventions ([`crate::otel::semconv`]): `{mcp.method.name} {target}`, kind
//! server, a child of the trace context the request's `_meta` carries.
//! Its attributes are read only when a subscriber records it.

use std::fmt;
use std::future::Future;

use axum::http::request::Parts;
use rmcp::model::{CallToolResponse, Extensions, ProtocolVersion};
use rmcp::service::{NotificationContext, RequestContext};
use rmcp::{ErrorData, RoleServer};
use serde_json::{Map, Value};
use tracing::Instrument;
use tracing::field::Empty;

use crate::otel::semconv;

/// Runs `answer`, the answer to the request `context` belongs to, inside
/// its span: method `method` on `target`.
pub(super) async fn traced<T>(
    method: &'static str,
    target: Option<&str>,
    context: &RequestContext<RoleServer>,
    answer: impl Future<Output = Result<T, ErrorData>>,
) -> Result<T, ErrorData> {
    let span = request_span(method, target, context);
    traced_in(span, answer, |_| false).await
}

/// The span of a `tools/call` of `name`; [`traced_call`] runs the answer in it.
pub(super) fn call_span(name: &str, context: &RequestContext<RoleServer>) -> tracing::Span {
    request_span("tools/call", Some(name), context)
}

/// Runs `answer` to a `tools/call` inside `span` (its [`call_span`]): a
/// result with `isError` fails as `tool_error`.
pub(super) async fn traced_call(
    span: tracing::Span,
    answer: impl Future<Output = Result<CallToolResponse, ErrorData>>,
) -> Result<CallToolResponse, ErrorData> {
    let is_tool_error = |response: &CallToolResponse| matches!(response, CallToolResponse::Complete(result) if result.is_error == Some(true));
    traced_in(span, answer, is_tool_error).await
}

/// `answer` run inside `span`, which records how it ended: an answer for
/// which `is_tool_error` holds as `tool_error`, an error by its JSON-RPC code.
async fn traced_in<T>(
    span: tracing::Span,
    answer: impl Future<Output = Result<T, ErrorData>>,
    is_tool_error: impl FnOnce(&T) -> bool,
) -> Result<T, ErrorData> {
    let answered = answer.instrument(span.clone()).await;
    if !span.is_disabled() {
        let error = match &answered {
            Ok(answer) if is_tool_error(answer) => Some(semconv::TOOL_ERROR.to_owned()),
            Ok(_) => None,
            Err(error) => {
                span.record("rpc.response.status_code", error.code.0);
                Some(error.code.0.to_string())
            }
        };
        if let Some(error) = error {
            span.record("error.type", error.as_str());
            span.record("otel.status_code", "error");
        }
    }
    answered
}

/// The span of one request; [`tracing::Span::none`] when no subscriber
/// records it.
fn request_span(
    method: &'static str,
    target: Option<&str>,
    context: &RequestContext<RoleServer>,
) -> tracing::Span {
    let span = new_span(method, target);
    if span.is_disabled() {
        return span;
    }
    span.record("jsonrpc.request.id", tracing::field::display(&context.id));
    describe(
        &span,
        method,
        context.protocol_version(),
        &context.extensions,
        &context.meta,
    );
    span
}

/// The span of the server's handling of the notification `method` that
/// `context` belongs to: `{method}`, kind server, a child of the trace
/// context its `_meta` carries.
pub(super) fn notification_span(
    method: &'static str,
    context: &NotificationContext<RoleServer>,
) -> tracing::Span {
    let span = new_span(method, None);
    if !span.is_disabled() {
        let protocol = context
            .peer
            .peer_info()
            .map(|info| info.protocol_version.clone());
        describe(&span, method, protocol, &context.extensions, &context.meta);
    }
    span
}

/// A span of the server's, its attributes declared and left empty.
fn new_span(method: &'static str, target: Option<&str>) -> tracing::Span {
    tracing::info_span!(
        "mcp.server",
        "otel.name" = %SpanName(method, target),
        "otel.kind" = "server",
        "otel.status_code" = Empty,
        "mcp.method.name" = method,
        "mcp.protocol.version" = Empty,
        "mcp.session.id" = Empty,
        "jsonrpc.request.id" = Empty,
        "network.transport" = Empty,
        "network.protocol.name" = Empty,
        "network.protocol.version" = Empty,
        "gen_ai.operation.name" = Empty,
        "gen_ai.tool.name" = target,
        "error.type" = Empty,
        "rpc.response.status_code" = Empty,
    )
}

/// Records what the message of `method` says of its session, transport and
/// trace on `span`.
fn describe(
    span: &tracing::Span,
    method: &str,
    protocol: Option<ProtocolVersion>,
    extensions: &Extensions,
    meta: &Map<String, Value>,
) {
    if let Some(version) = protocol {
        span.record("mcp.protocol.version", version.as_str());
    }
    let parts = extensions.get::<Parts>();
    span.record(
        "network.transport",
        if parts.is_some() { "tcp" } else { "pipe" },
    );
    if let Some(parts) = parts {
        span.record("network.protocol.name", "http");
        if let Some(version) = http_version(parts.version) {
            span.record("network.protocol.version", version);
        }
    }
    let session = parts
        .and_then(|parts| parts.headers.get("mcp-session-id"))
        .and_then(|id| id.to_str().ok());
    if let Some(session) = session {
        span.record("mcp.session.id", session);
    }
    if method == "tools/call" {
        span.record("gen_ai.operation.name", semconv::EXECUTE_TOOL);
    }
    #[cfg(feature = "otel")]
    if meta.contains_key("traceparent") {
        use tracing_opentelemetry::OpenTelemetrySpanExt as _;
        // A subscriber without the OpenTelemetry bridge has no parent to set.
        let _ = span.set_parent(crate::otel::extract(meta));
    }
    #[cfg(not(feature = "otel"))]
    let _ = meta;
}

/// The HTTP version as OpenTelemetry writes it (`network.protocol.version`).
fn http_version(version: axum::http::Version) -> Option<&'static str> {
    match version {
        axum::http::Version::HTTP_10 => Some("1.0"),
        axum::http::Version::HTTP_11 => Some("1.1"),
        axum::http::Version::HTTP_2 => Some("2"),
        axum::http::Version::HTTP_3 => Some("3"),
        _ => None,
    }
}

/// `{method} {target}`, or the method alone.
struct SpanName<'a>(&'static str, Option<&'a str>);

impl fmt::Display for SpanName<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.1 {
            Some(target) => write!(f, "{} {target}", self.0),
            None => f.write_str(self.0),
        }
    }
}
