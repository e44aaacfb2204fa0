//! [`init`]: the OTLP/HTTP exporters of spans and metrics, installed as
//! the process's `tracing` subscriber, or [`layers`] for a host's own.

use std::fmt;

use opentelemetry::trace::TracerProvider as _;
use opentelemetry_otlp::{MetricExporter, Protocol, SpanExporter, WithExportConfig};
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::metrics::{PeriodicReader, SdkMeterProvider};
use opentelemetry_sdk::trace::SdkTracerProvider;
use tracing_subscriber::Layer;
use tracing_subscriber::layer::SubscriberExt;

use super::MetricsLayer;

/// The instrumentation scope of dsh-kit's spans and metrics.
const SCOPE: &str = "dsh-kit";

/// Why [`init`] installed nothing.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum OtelError {
    /// The OTLP exporter could not be built (a bad endpoint, say).
    #[error("the OTLP exporter could not be built: {0}")]
    Exporter(#[from] opentelemetry_otlp::ExporterBuildError),
    /// The process already has a `tracing` subscriber: add [`layers`] to it.
    #[error(
        "the process already has a tracing subscriber: add `dsh_kit::otel::layers` to it instead"
    )]
    SubscriberTaken,
}

/// The trace and meter providers [`init`] installed: dropped, they export
/// what they still hold and stop.
#[must_use = "dropping the guard stops the export"]
pub struct OtelGuard {
    tracer: SdkTracerProvider,
    meter: SdkMeterProvider,
}

impl OtelGuard {
    /// The tracer provider, to add spans of the host's own.
    pub fn tracer_provider(&self) -> &SdkTracerProvider {
        &self.tracer
    }

    /// The meter provider, to add metrics of the host's own.
    pub fn meter_provider(&self) -> &SdkMeterProvider {
        &self.meter
    }
}

impl fmt::Debug for OtelGuard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OtelGuard").finish_non_exhaustive()
    }
}

impl Drop for OtelGuard {
    fn drop(&mut self) {
        // Each exports what it holds; an endpoint that is gone by now
        // loses it, and there is no one left to tell.
        let _ = self.tracer.shutdown();
        let _ = self.meter.shutdown();
    }
}

/// Exports the calls' spans and metrics over OTLP/HTTP (protobuf) to the
/// endpoint of the standard variables (`OTEL_EXPORTER_OTLP_ENDPOINT`,
/// `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`, `…_METRICS_ENDPOINT`,
/// `…_HEADERS`, `…_TIMEOUT`; `OTEL_SERVICE_NAME` names the service), as the
/// process's `tracing` subscriber, and its providers and W3C trace-context
/// propagator as OpenTelemetry's global ones. Export runs on threads of its
/// own; drop the guard to flush it before the process exits.
///
/// # Errors
///
/// [`OtelError::SubscriberTaken`] when the process already has a `tracing`
/// subscriber, [`OtelError::Exporter`] when an exporter cannot be built.
pub fn init() -> Result<OtelGuard, OtelError> {
    let resource = Resource::builder().build();
    let spans = SpanExporter::builder()
        .with_http()
        .with_protocol(Protocol::HttpBinary)
        .build()?;
    let tracer = SdkTracerProvider::builder()
        .with_batch_exporter(spans)
        .with_resource(resource.clone())
        .build();
    let metrics = MetricExporter::builder()
        .with_http()
        .with_protocol(Protocol::HttpBinary)
        .build()?;
    let meter = SdkMeterProvider::builder()
        .with_reader(PeriodicReader::builder(metrics).build())
        .with_resource(resource)
        .build();
    let guard = OtelGuard {
        tracer: tracer.clone(),
        meter: meter.clone(),
    };
    let subscriber = tracing_subscriber::registry().with(layers(&tracer, &meter));
    tracing::subscriber::set_global_default(subscriber).map_err(|_| OtelError::SubscriberTaken)?;
    opentelemetry::global::set_tracer_provider(tracer);
    opentelemetry::global::set_meter_provider(meter);
    // For the host's own requests: the W3C context the MCP requests carry.
    opentelemetry::global::set_text_map_propagator(
        opentelemetry_sdk::propagation::TraceContextPropagator::new(),
    );
    Ok(guard)
}

/// The layers [`init`] installs, for a host that builds its own
/// subscriber: the bridge of the spans to `tracer`'s OpenTelemetry spans,
/// and the [`MetricsLayer`] on `meter`.
///
/// The spans of the `rmcp` crate beneath dsh-kit (a connection's serve
/// loop, a session, a transport worker) are not exported: rmcp starts them
/// in tasks of its own, outside any request's trace, so each would arrive
/// as a root trace of its own, lasting as long as its connection. Every
/// MCP request already has dsh-kit's span, by the conventions.
///
/// ```
/// use opentelemetry_sdk::metrics::SdkMeterProvider;
/// use opentelemetry_sdk::trace::SdkTracerProvider;
/// use tracing_subscriber::layer::SubscriberExt;
///
/// let tracer = SdkTracerProvider::builder().build();
/// let meter = SdkMeterProvider::builder().build();
/// let subscriber = tracing_subscriber::registry().with(dsh_kit::otel::layers(&tracer, &meter));
/// # drop(subscriber);
/// ```
pub fn layers<S>(tracer: &SdkTracerProvider, meter: &SdkMeterProvider) -> impl Layer<S>
where
    S: tracing::Subscriber + for<'span> tracing_subscriber::registry::LookupSpan<'span>,
{
    use opentelemetry::metrics::MeterProvider as _;
    tracing_opentelemetry::layer()
        .with_tracer(tracer.tracer(SCOPE))
        .with_filter(tracing_subscriber::filter::filter_fn(exported))
        .and_then(MetricsLayer::new(&meter.meter(SCOPE)))
}

/// Whether the spans and events of `metadata`'s place are exported: all
/// but rmcp's.
fn exported(metadata: &tracing::Metadata<'_>) -> bool {
    let target = metadata.target();
    !(target == "rmcp" || target.starts_with("rmcp::"))
}
