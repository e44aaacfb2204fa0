//! The `tracing` span of one call, by OpenTelemetry's GenAI conventions
//! ([`crate::otel::semconv`]): `execute_tool {gen_ai.tool.name}`, kind internal,
//! the stages' events inside it. Made only when a subscriber records it:
//! with none, a call pays one check of a cached flag.

use std::fmt;

use serde_json::Value;
use tracing::field::Empty;

use crate::otel::semconv::PAYLOAD_ATTRIBUTE_LIMIT;
use crate::tool::Entry;
use crate::value::result::ToolResult;

/// What stands for a secret argument in a traced payload.
const REDACTED: &str = "[redacted]";

/// The span of the call of `name` with id `invocation_id`, under the
/// current span; [`tracing::Span::none`] when no subscriber records it.
pub(super) fn call_span(name: &str, invocation_id: uuid::Uuid) -> tracing::Span {
    tracing::info_span!(
        "execute_tool",
        "otel.name" = %SpanName(name),
        "otel.kind" = "internal",
        "otel.status_code" = Empty,
        "otel.status_description" = Empty,
        "gen_ai.operation.name" = crate::otel::semconv::EXECUTE_TOOL,
        "gen_ai.tool.name" = name,
        "gen_ai.tool.call.id" = %invocation_id,
        "gen_ai.tool.type" = "function",
        "gen_ai.tool.description" = Empty,
        "gen_ai.tool.call.arguments" = Empty,
        "gen_ai.tool.call.result" = Empty,
        "error.type" = Empty,
    )
}

/// Records the arguments `args` of a call of `entry` on `span` (opted in
/// with [`trace_payloads`](crate::RegistryBuilder::trace_payloads)): as
/// JSON, cut to [`PAYLOAD_ATTRIBUTE_LIMIT`] bytes, every property its input
/// schema marks secret (`writeOnly: true`, or `format: "password"`)
/// replaced with `[redacted]`.
pub(super) fn arguments(span: &tracing::Span, entry: &Entry, args: &Value) {
    if span.is_disabled() {
        return;
    }
    let schema = &entry.input.schema;
    let shown = redacted(args, schema, schema, 0);
    span.record(
        "gen_ai.tool.call.arguments",
        cut(shown.to_string()).as_str(),
    );
}

/// Records the text of `result` on `span`, cut to [`PAYLOAD_ATTRIBUTE_LIMIT`] bytes.
pub(super) fn result(span: &tracing::Span, result: &ToolResult) {
    if span.is_disabled() {
        return;
    }
    span.record("gen_ai.tool.call.result", cut(result.text()).as_str());
}

/// `value` with each property `schema` marks secret redacted, to the depth
/// a schema can be followed (local `$ref`s resolved against `root`).
fn redacted(value: &Value, schema: &Value, root: &Value, depth: usize) -> Value {
    const MAX_DEPTH: usize = 32;
    let schema = resolve(schema, root);
    if is_secret(schema) {
        return Value::String(REDACTED.to_owned());
    }
    match value {
        Value::Object(object) if depth < MAX_DEPTH => {
            let properties = schema.get("properties");
            Value::Object(
                object
                    .iter()
                    .map(|(key, value)| {
                        let shown = match properties.and_then(|properties| properties.get(key)) {
                            Some(property) => redacted(value, property, root, depth + 1),
                            None => value.clone(),
                        };
                        (key.clone(), shown)
                    })
                    .collect(),
            )
        }
        Value::Array(items) if depth < MAX_DEPTH => match schema.get("items") {
            Some(item) => Value::Array(
                items
                    .iter()
                    .map(|value| redacted(value, item, root, depth + 1))
                    .collect(),
            ),
            None => value.clone(),
        },
        _ => value.clone(),
    }
}

/// `schema`, or what its local `$ref` points at.
fn resolve<'a>(schema: &'a Value, root: &'a Value) -> &'a Value {
    schema
        .get("$ref")
        .and_then(Value::as_str)
        .and_then(|reference| reference.strip_prefix('#'))
        .and_then(|pointer| root.pointer(pointer))
        .unwrap_or(schema)
}

/// Whether `schema` marks its value secret.
fn is_secret(schema: &Value) -> bool {
    schema.get("writeOnly") == Some(&Value::Bool(true))
        || schema.get("format").and_then(Value::as_str) == Some("password")
}

/// `text` cut to [`PAYLOAD_ATTRIBUTE_LIMIT`] bytes at a character boundary,
/// ending with `…` when cut.
fn cut(mut text: String) -> String {
    if text.len() > PAYLOAD_ATTRIBUTE_LIMIT {
        let mut end = PAYLOAD_ATTRIBUTE_LIMIT;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        text.truncate(end);
        text.push('…');
    }
    text
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
        write!(f, "{} {}", crate::otel::semconv::EXECUTE_TOOL, self.0)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::otel::semconv::{GEN_AI_TOOL_CALL_ARGUMENTS, GEN_AI_TOOL_CALL_RESULT};

    #[test]
    fn secret_arguments_are_redacted_wherever_the_schema_marks_them() {
        let schema = json!({
            "type": "object",
            "properties": {
                "user": { "type": "string" },
                "password": { "type": "string", "format": "password" },
                "auth": { "$ref": "#/$defs/Auth" },
                "keys": { "type": "array", "items": { "type": "string", "writeOnly": true } },
            },
            "$defs": {
                "Auth": { "type": "object", "properties": { "token": { "type": "string", "writeOnly": true } } }
            }
        });
        let args = json!({
            "user": "ada",
            "password": "hunter2",
            "auth": { "token": "t0k3n", "scheme": "bearer" },
            "keys": ["k1", "k2"],
        });
        let shown = redacted(&args, &schema, &schema, 0);
        assert_eq!(
            shown,
            json!({
                "user": "ada",
                "password": "[redacted]",
                "auth": { "token": "[redacted]", "scheme": "bearer" },
                "keys": ["[redacted]", "[redacted]"],
            })
        );
    }

    #[test]
    fn long_payloads_are_cut_at_a_character_boundary() {
        let text = "é".repeat(PAYLOAD_ATTRIBUTE_LIMIT);
        let cut = cut(text);
        assert!(cut.len() <= PAYLOAD_ATTRIBUTE_LIMIT + '…'.len_utf8());
        assert!(cut.ends_with('…'));
        assert_eq!(super::cut("short".to_owned()), "short");
    }

    /// The values recorded for the payload fields of every span.
    #[derive(Clone, Default)]
    struct Payloads(std::sync::Arc<std::sync::Mutex<Vec<(String, String)>>>);

    impl tracing::field::Visit for Payloads {
        fn record_str(&mut self, field: &tracing::field::Field, value: &str) {
            if field.name().starts_with("gen_ai.tool.call.")
                && field.name() != "gen_ai.tool.call.id"
            {
                let mut seen = self.0.lock().unwrap();
                seen.push((field.name().to_owned(), value.to_owned()));
            }
        }

        fn record_debug(&mut self, _: &tracing::field::Field, _: &dyn std::fmt::Debug) {}
    }

    impl<S: tracing::Subscriber> tracing_subscriber::Layer<S> for Payloads {
        fn on_record(
            &self,
            _: &tracing::span::Id,
            values: &tracing::span::Record<'_>,
            _: tracing_subscriber::layer::Context<'_, S>,
        ) {
            values.record(&mut self.clone());
        }
    }

    async fn payloads_of(registry: &crate::Registry) -> Vec<(String, String)> {
        use tracing::instrument::WithSubscriber;
        use tracing_subscriber::layer::SubscriberExt;
        let payloads = Payloads::default();
        let subscriber = tracing_subscriber::registry().with(payloads.clone());
        let args = json!({ "user": "ada", "password": "hunter2" });
        let result = registry
            .call("login", args)
            .with_subscriber(subscriber)
            .await;
        assert!(!result.is_error(), "{}", result.text());
        payloads.0.lock().unwrap().clone()
    }

    #[tokio::test]
    async fn payloads_are_on_the_span_only_when_the_host_opts_in_and_never_a_secret() {
        let login = || {
            crate::DynamicTool::new(
                crate::ToolDef::builder_owned("login".to_owned(), "Log in.".to_owned()).build(),
                json!({
                    "type": "object",
                    "properties": {
                        "user": { "type": "string" },
                        "password": { "type": "string", "writeOnly": true }
                    }
                }),
                |_, _| async move { Ok(json!("welcome")) },
            )
        };
        let quiet = crate::Registry::new();
        quiet.register_dynamic(login()).expect("login registers");
        assert_eq!(payloads_of(&quiet).await, Vec::new());

        let told = crate::Registry::builder().trace_payloads(true).build();
        told.register_dynamic(login()).expect("login registers");
        let seen = payloads_of(&told).await;
        let arguments = &seen
            .iter()
            .find(|(key, _)| key == GEN_AI_TOOL_CALL_ARGUMENTS)
            .expect("the arguments")
            .1;
        let arguments: Value = serde_json::from_str(arguments).expect("JSON");
        assert_eq!(
            arguments,
            json!({ "user": "ada", "password": "[redacted]" })
        );
        assert!(
            seen.iter()
                .any(|(key, value)| key == GEN_AI_TOOL_CALL_RESULT && value.contains("welcome")),
            "{seen:?}"
        );
        assert!(!seen.iter().any(|(_, value)| value.contains("hunter2")));
    }
}
