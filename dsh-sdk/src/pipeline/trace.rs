//! The `tracing` span of one call, by OpenTelemetry's GenAI conventions
//! ([`crate::semconv`]): `execute_tool {gen_ai.tool.name}`, kind internal,
//! the stages' events inside it. Made only when a subscriber records it:
//! with none, a call pays one check of a cached flag.

use std::fmt;

use tracing::field::Empty;

use crate::result::ToolResult;
use crate::tool::Entry;

/// The span of the call of `name` with id `invocation_id`, under the
/// current span; [`tracing::Span::none`] when no subscriber records it.
pub(super) fn call_span(name: &str, invocation_id: uuid::Uuid) -> tracing::Span {
    tracing::info_span!(
        "execute_tool",
        "otel.name" = %SpanName(name),
        "otel.kind" = "internal",
        "otel.status_code" = Empty,
        "otel.status_description" = Empty,
        "gen_ai.operation.name" = crate::semconv::EXECUTE_TOOL,
        "gen_ai.tool.name" = name,
        "gen_ai.tool.call.id" = %invocation_id,
        "gen_ai.tool.type" = "function",
        "gen_ai.tool.description" = Empty,
        "error.type" = Empty,
    )
}

/// Records on `span` what is known once the tool is: its own name (the
/// call may have named an alias) and its description.
pub(super) fn resolved(span: &tracing::Span, entry: &Entry) {
    if span.is_disabled() {
        return;
    }
    span.record("gen_ai.tool.name", entry.def.name());
    span.record("gen_ai.tool.description", entry.def.description());
}

/// Records on `span` how the call ended: on a failure, its cause as
/// `error.type` and the status `error`.
pub(super) fn ended(span: &tracing::Span, result: &ToolResult) {
    if span.is_disabled() {
        return;
    }
    if let Some(failure) = &result.failure {
        span.record("error.type", failure.cause.name());
        span.record("otel.status_code", "error");
        span.record("otel.status_description", failure.cause.name());
    }
}

/// `execute_tool {name}`, written only when a subscriber reads it.
struct SpanName<'a>(&'a str);

impl fmt::Display for SpanName<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", crate::semconv::EXECUTE_TOOL, self.0)
    }
}
