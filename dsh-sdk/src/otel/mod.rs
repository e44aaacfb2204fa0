//! OpenTelemetry: the names of the conventions dsh-kit traces by
//! ([`semconv`], always there), and the export of the calls' spans and
//! metrics (feature `otel`).
//!
//! ```no_run
//! # async fn run() -> Result<(), dsh_kit::otel::OtelError> {
//! // Spans and metrics to the OTLP/HTTP endpoint of the standard
//! // `OTEL_EXPORTER_OTLP_*` variables (`http://localhost:4318` by default),
//! // flushed when the guard is dropped.
//! let _telemetry = dsh_kit::otel::init()?;
//! # Ok(()) }
//! ```
//!
//! Every call already makes its `execute_tool` span and the MCP server its
//! span per request, by the conventions of [`semconv`];
//! [`init`] installs, as the process's `tracing` subscriber, the bridge
//! that turns them into OpenTelemetry spans and the [`MetricsLayer`] that
//! records their durations, both exported over OTLP/HTTP (protobuf). A
//! host with a subscriber of its own adds [`layers`] to it instead.
//!
//! Trace context crosses processes in MCP requests' `_meta`, as W3C
//! `traceparent`, `tracestate` and `baggage` ([`extract`], [`inject`]):
//! the MCP server continues the trace a request carries, and a proxy
//! passes the current one on with every request it forwards.

pub mod semconv;

#[cfg(feature = "otel")]
mod export;
#[cfg(feature = "otel")]
mod metrics;
#[cfg(feature = "otel")]
mod propagate;

#[cfg(feature = "otel")]
pub use export::{OtelError, OtelGuard, init, layers};
#[cfg(feature = "otel")]
pub use metrics::MetricsLayer;
#[cfg(feature = "otel")]
pub use propagate::{extract, inject};
