//! W3C trace context (`traceparent`, `tracestate`) and baggage in an MCP
//! request's `_meta`, the way the MCP specification carries them.

use std::sync::LazyLock;

use opentelemetry::Context;
use opentelemetry::propagation::{
    Extractor, Injector, TextMapCompositePropagator, TextMapPropagator,
};
use opentelemetry_sdk::propagation::{BaggagePropagator, TraceContextPropagator};
use serde_json::{Map, Value};

/// The longest value read from `_meta` for a key of the trace context;
/// a longer one is ignored, as W3C Trace Context lets a receiver do.
const MAX_VALUE_LEN: usize = 8192;

/// W3C trace context, then baggage: the MCP specification's choice,
/// whatever global propagator the process set.
static PROPAGATOR: LazyLock<TextMapCompositePropagator> = LazyLock::new(|| {
    TextMapCompositePropagator::new(vec![
        Box::new(TraceContextPropagator::new()),
        Box::new(BaggagePropagator::new()),
    ])
});

/// The trace context an MCP request's `_meta` carries, as the parent of
/// the spans that answer it; the current context when it carries none or
/// a malformed one.
///
/// ```
/// use opentelemetry::trace::TraceContextExt;
///
/// let meta = serde_json::json!({
///     "traceparent": "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
/// });
/// let context = dsh_kit::otel::extract(meta.as_object().unwrap());
/// assert_eq!(
///     context.span().span_context().trace_id().to_string(),
///     "0af7651916cd43dd8448eb211c80319c"
/// );
/// ```
pub fn extract(meta: &Map<String, Value>) -> Context {
    PROPAGATOR.extract(&Meta(meta))
}

/// Writes `context` into an MCP request's `_meta`: `traceparent`, and
/// `tracestate` and `baggage` when they have entries.
pub fn inject(context: &Context, meta: &mut Map<String, Value>) {
    PROPAGATOR.inject_context(context, &mut MetaMut(meta));
}

/// `_meta`, read.
struct Meta<'a>(&'a Map<String, Value>);

impl Extractor for Meta<'_> {
    fn get(&self, key: &str) -> Option<&str> {
        self.0
            .get(key)
            .and_then(Value::as_str)
            .filter(|value| value.len() <= MAX_VALUE_LEN)
    }

    fn keys(&self) -> Vec<&str> {
        self.0.keys().map(String::as_str).collect()
    }
}

/// `_meta`, written.
struct MetaMut<'a>(&'a mut Map<String, Value>);

impl Injector for MetaMut<'_> {
    fn set(&mut self, key: &str, value: String) {
        self.0.insert(key.to_owned(), Value::String(value));
    }
}

#[cfg(test)]
mod tests {
    use opentelemetry::trace::TraceContextExt;
    use serde_json::json;

    use super::*;

    #[test]
    fn a_context_read_from_meta_is_written_back_the_same() {
        let sent = json!({
            "traceparent": "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
            "tracestate": "vendor=opaque",
        });
        let context = extract(sent.as_object().expect("an object"));
        assert!(context.span().span_context().is_remote());
        let mut written = Map::new();
        inject(&context, &mut written);
        assert_eq!(written.get("traceparent"), sent.get("traceparent"));
        assert_eq!(written.get("tracestate"), sent.get("tracestate"));
    }

    #[test]
    fn malformed_or_oversized_context_is_ignored() {
        for traceparent in [
            json!("00-not-a-trace-01"),
            json!(42),
            json!(format!(
                "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01{}",
                " ".repeat(MAX_VALUE_LEN)
            )),
        ] {
            let meta = json!({ "traceparent": traceparent });
            let context = extract(meta.as_object().expect("an object"));
            assert!(!context.span().span_context().is_valid(), "{meta}");
        }
    }
}
