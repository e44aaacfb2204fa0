//! [`MetricsLayer`]: the conventions' duration histograms, and the count
//! of refused calls, measured from the spans dsh-kit makes.

use std::time::Instant;

use opentelemetry::KeyValue;
use opentelemetry::metrics::{Counter, Histogram, Meter};
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing_subscriber::layer::Context;
use tracing_subscriber::registry::LookupSpan;

use crate::otel::semconv;

/// A `tracing` layer that times the `execute_tool` span of every call, the
/// MCP server's span of every request and a proxy's span of every call it
/// forwards, and records, on `meter`:
///
/// - [`gen_ai.execute_tool.duration`](semconv::GEN_AI_EXECUTE_TOOL_DURATION),
///   seconds, by `gen_ai.operation.name`, `gen_ai.tool.name` and
///   `error.type`, in the buckets the GenAI conventions advise;
/// - [`mcp.server.operation.duration`](semconv::MCP_SERVER_OPERATION_DURATION),
///   seconds, by `mcp.method.name`, `gen_ai.tool.name`, `error.type`,
///   `mcp.protocol.version` and `network.transport`, in the MCP
///   conventions' buckets;
/// - [`mcp.client.operation.duration`](semconv::MCP_CLIENT_OPERATION_DURATION),
///   seconds, by `mcp.method.name`, `gen_ai.tool.name` (the remote tool's
///   name) and `error.type`, in the same buckets;
/// - [`dsh.tool.refusals`](semconv::DSH_TOOL_REFUSALS), the calls refused
///   before their tool ran, by `gen_ai.tool.name` and `error.type` (the
///   [`Cause`](crate::Cause): `invalid_arguments`, `denied`, …).
#[derive(Clone, Debug)]
pub struct MetricsLayer {
    tool_duration: Histogram<f64>,
    mcp_duration: Histogram<f64>,
    client_duration: Histogram<f64>,
    refusals: Counter<u64>,
}

impl MetricsLayer {
    /// The layer, its instruments made on `meter`.
    pub fn new(meter: &Meter) -> Self {
        MetricsLayer {
            tool_duration: meter
                .f64_histogram(semconv::GEN_AI_EXECUTE_TOOL_DURATION)
                .with_unit("s")
                .with_description("Duration of tool execution operations.")
                .with_boundaries(semconv::GEN_AI_DURATION_BUCKETS.to_vec())
                .build(),
            mcp_duration: meter
                .f64_histogram(semconv::MCP_SERVER_OPERATION_DURATION)
                .with_unit("s")
                .with_description("MCP request duration as observed on the server.")
                .with_boundaries(semconv::MCP_DURATION_BUCKETS.to_vec())
                .build(),
            client_duration: meter
                .f64_histogram(semconv::MCP_CLIENT_OPERATION_DURATION)
                .with_unit("s")
                .with_description("MCP request duration as observed on the sender.")
                .with_boundaries(semconv::MCP_DURATION_BUCKETS.to_vec())
                .build(),
            refusals: meter
                .u64_counter(semconv::DSH_TOOL_REFUSALS)
                .with_unit("{call}")
                .with_description("Tool calls refused before their tool ran, by cause.")
                .build(),
        }
    }
}

/// Which measured span a span is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Measured {
    Call,
    McpRequest,
    /// A request a proxy sends.
    McpClientRequest,
}

impl Measured {
    fn of(metadata: &tracing::Metadata<'_>) -> Option<Self> {
        if !metadata.target().starts_with("dsh_kit") {
            return None;
        }
        match metadata.name() {
            semconv::EXECUTE_TOOL_SPAN => Some(Measured::Call),
            semconv::MCP_SERVER_SPAN => Some(Measured::McpRequest),
            semconv::MCP_CLIENT_SPAN => Some(Measured::McpClientRequest),
            _ => None,
        }
    }

    /// The attributes the metric of this span carries.
    fn keys(self) -> &'static [&'static str] {
        match self {
            Measured::Call => &[
                semconv::GEN_AI_OPERATION_NAME,
                semconv::GEN_AI_TOOL_NAME,
                semconv::ERROR_TYPE,
            ],
            Measured::McpRequest => &[
                semconv::MCP_METHOD_NAME,
                semconv::GEN_AI_TOOL_NAME,
                semconv::ERROR_TYPE,
                semconv::MCP_PROTOCOL_VERSION,
                semconv::NETWORK_TRANSPORT,
            ],
            Measured::McpClientRequest => &[
                semconv::MCP_METHOD_NAME,
                semconv::GEN_AI_TOOL_NAME,
                semconv::ERROR_TYPE,
            ],
        }
    }
}

/// A measured span while it is open: when it began, and the values of
/// its metric's attributes so far.
struct Timing {
    measured: Measured,
    started: Instant,
    attributes: Vec<(&'static str, String)>,
}

impl Visit for Timing {
    fn record_str(&mut self, field: &Field, value: &str) {
        self.set(field, value.to_owned());
    }

    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        if self.wants(field).is_some() {
            self.set(field, format!("{value:?}"));
        }
    }
}

impl Timing {
    fn wants(&self, field: &Field) -> Option<&'static str> {
        self.measured
            .keys()
            .iter()
            .copied()
            .find(|key| *key == field.name())
    }

    fn set(&mut self, field: &Field, value: String) {
        let Some(key) = self.wants(field) else {
            return;
        };
        match self.attributes.iter_mut().find(|(name, _)| *name == key) {
            Some((_, old)) => *old = value,
            None => self.attributes.push((key, value)),
        }
    }

    fn get(&self, key: &str) -> Option<&str> {
        self.attributes
            .iter()
            .find(|(name, _)| *name == key)
            .map(|(_, value)| value.as_str())
    }
}

impl<S> tracing_subscriber::Layer<S> for MetricsLayer
where
    S: tracing::Subscriber + for<'span> LookupSpan<'span>,
{
    fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, ctx: Context<'_, S>) {
        let Some(measured) = Measured::of(attrs.metadata()) else {
            return;
        };
        let Some(span) = ctx.span(id) else {
            return;
        };
        let mut timing = Timing {
            measured,
            started: Instant::now(),
            attributes: Vec::with_capacity(measured.keys().len()),
        };
        attrs.record(&mut timing);
        span.extensions_mut().insert(timing);
    }

    fn on_record(&self, id: &Id, values: &Record<'_>, ctx: Context<'_, S>) {
        if let Some(span) = ctx.span(id)
            && let Some(timing) = span.extensions_mut().get_mut::<Timing>()
        {
            values.record(timing);
        }
    }

    fn on_close(&self, id: Id, ctx: Context<'_, S>) {
        let Some(span) = ctx.span(&id) else {
            return;
        };
        let Some(timing) = span.extensions_mut().remove::<Timing>() else {
            return;
        };
        let seconds = timing.started.elapsed().as_secs_f64();
        let attributes: Vec<KeyValue> = timing
            .attributes
            .iter()
            .map(|(key, value)| KeyValue::new(*key, value.clone()))
            .collect();
        match timing.measured {
            Measured::Call => {
                self.tool_duration.record(seconds, &attributes);
                let refused = timing.get(semconv::ERROR_TYPE).is_some_and(is_refusal);
                if refused {
                    let by: Vec<KeyValue> = attributes
                        .into_iter()
                        .filter(|attribute| {
                            attribute.key.as_str() != semconv::GEN_AI_OPERATION_NAME
                        })
                        .collect();
                    self.refusals.add(1, &by);
                }
            }
            Measured::McpRequest => self.mcp_duration.record(seconds, &attributes),
            Measured::McpClientRequest => self.client_duration.record(seconds, &attributes),
        }
    }
}

/// Whether a call's `error.type` says it was refused before its tool ran.
fn is_refusal(error_type: &str) -> bool {
    serde_json::from_value::<crate::Cause>(serde_json::Value::String(error_type.to_owned()))
        .is_ok_and(crate::Cause::is_refusal)
}
