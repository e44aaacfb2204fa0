//! OpenTelemetry: the `mcp_server` example with `--otel` exports its spans
//! over OTLP/HTTP to a receiver this test runs on 127.0.0.1 (decoding the
//! collector's own protobuf messages), while the official MCP Python SDK
//! calls its tools with a W3C `traceparent` in `_meta`. The spans must
//! follow OpenTelemetry's MCP and GenAI conventions and continue the
//! caller's trace, across a proxy too.
#![cfg(unix)]

use std::collections::HashMap;
use std::path::Path;
use std::process::{Child, Command};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::body::Bytes;
use axum::extract::State;
use axum::routing::post;
use opentelemetry_proto::tonic::collector::metrics::v1::ExportMetricsServiceRequest;
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::any_value::Value as AnyValue;
use opentelemetry_proto::tonic::trace::v1::Span;
use opentelemetry_proto::tonic::trace::v1::span::SpanKind;
use prost::Message;
use serde_json::Value;

use crate::common::{python, run, spawn_server};

const SERVER: &str = env!("CARGO_BIN_EXE_dsh-mcp-server");
/// The longest the spans of a call may take to arrive.
const ARRIVAL: Duration = Duration::from_secs(20);

/// What the receiver got: every span, and every metrics export.
#[derive(Clone, Default)]
struct Received {
    spans: Arc<Mutex<Vec<Span>>>,
    metrics: Arc<Mutex<Vec<ExportMetricsServiceRequest>>>,
}

/// An OTLP/HTTP receiver (protobuf) on 127.0.0.1, on a runtime of its own.
struct Receiver {
    url: String,
    received: Received,
    _runtime: tokio::runtime::Runtime,
}

impl Receiver {
    fn start() -> Self {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .expect("a runtime");
        let received = Received::default();
        let app = axum::Router::new()
            .route("/v1/traces", post(traces))
            .route("/v1/metrics", post(metrics))
            .with_state(received.clone());
        let listener = runtime
            .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
            .expect("a port on 127.0.0.1");
        let url = format!("http://{}", listener.local_addr().expect("an address"));
        runtime.spawn(async move { axum::serve(listener, app).await });
        Receiver {
            url,
            received,
            _runtime: runtime,
        }
    }

    /// The spans of trace `trace_id` once `done` holds of them, or a failure
    /// that shows what came.
    fn spans_of(&self, trace_id: &str, done: impl Fn(&[Span]) -> bool) -> Vec<Span> {
        let deadline = Instant::now() + ARRIVAL;
        loop {
            let spans: Vec<Span> = self
                .received
                .spans
                .lock()
                .unwrap()
                .iter()
                .filter(|span| hex(&span.trace_id) == trace_id)
                .cloned()
                .collect();
            if done(&spans) {
                return spans;
            }
            assert!(
                Instant::now() < deadline,
                "the spans of trace {trace_id} did not all arrive in {ARRIVAL:?}; got: {:#?}",
                spans.iter().map(|span| &span.name).collect::<Vec<_>>()
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Every data of the metric `name` exported so far, in order.
    fn metric_data(
        &self,
        name: &str,
    ) -> Vec<opentelemetry_proto::tonic::metrics::v1::metric::Data> {
        let exports = self.received.metrics.lock().unwrap();
        (exports.iter())
            .flat_map(|export| &export.resource_metrics)
            .flat_map(|resource| &resource.scope_metrics)
            .flat_map(|scope| &scope.metrics)
            .filter(|metric| metric.name == name)
            .filter_map(|metric| metric.data.clone())
            .collect()
    }

    /// The data points' attribute sets of the histogram `name` exported so far.
    fn histogram(&self, name: &str) -> Vec<(HashMap<String, String>, u64, Vec<f64>)> {
        use opentelemetry_proto::tonic::metrics::v1::metric::Data;
        let mut points = Vec::new();
        for data in self.metric_data(name) {
            if let Data::Histogram(histogram) = data {
                for point in histogram.data_points {
                    let attributes = attributes_of(&point.attributes);
                    points.push((attributes, point.count, point.explicit_bounds));
                }
            }
        }
        points
    }

    /// The latest value of the counter `name` for each attribute set.
    fn counter(&self, name: &str) -> Vec<(HashMap<String, String>, i64)> {
        use opentelemetry_proto::tonic::metrics::v1::metric::Data;
        use opentelemetry_proto::tonic::metrics::v1::number_data_point::Value as Number;
        let mut points = Vec::new();
        for data in self.metric_data(name) {
            if let Data::Sum(sum) = data {
                for point in sum.data_points {
                    let value = match point.value {
                        Some(Number::AsInt(n)) => n,
                        _ => 0,
                    };
                    points.push((attributes_of(&point.attributes), value));
                }
            }
        }
        points
    }
}

/// A data point's attributes, as strings.
fn attributes_of(
    attributes: &[opentelemetry_proto::tonic::common::v1::KeyValue],
) -> HashMap<String, String> {
    (attributes.iter())
        .map(|kv| (kv.key.clone(), string(kv.value.as_ref())))
        .collect()
}

async fn traces(State(received): State<Received>, body: Bytes) -> Vec<u8> {
    let request = ExportTraceServiceRequest::decode(body).expect("an OTLP trace export");
    let spans = request
        .resource_spans
        .into_iter()
        .flat_map(|resource| resource.scope_spans)
        .flat_map(|scope| scope.spans);
    received.spans.lock().unwrap().extend(spans);
    Vec::new()
}

async fn metrics(State(received): State<Received>, body: Bytes) -> Vec<u8> {
    let request = ExportMetricsServiceRequest::decode(body).expect("an OTLP metrics export");
    received.metrics.lock().unwrap().push(request);
    Vec::new()
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
}

fn string(value: Option<&opentelemetry_proto::tonic::common::v1::AnyValue>) -> String {
    match value.and_then(|value| value.value.as_ref()) {
        Some(AnyValue::StringValue(text)) => text.clone(),
        Some(AnyValue::IntValue(n)) => n.to_string(),
        Some(AnyValue::BoolValue(b)) => b.to_string(),
        Some(AnyValue::DoubleValue(d)) => d.to_string(),
        _ => String::new(),
    }
}

/// A span's attribute `key`, as text.
fn attribute(span: &Span, key: &str) -> Option<String> {
    span.attributes
        .iter()
        .find(|kv| kv.key == key)
        .map(|kv| string(kv.value.as_ref()))
}

/// The one span named `name`.
fn named<'a>(spans: &'a [Span], name: &str) -> &'a Span {
    let found: Vec<&Span> = spans.iter().filter(|span| span.name == name).collect();
    assert_eq!(
        found.len(),
        1,
        "expected one span `{name}` among {:?}",
        spans.iter().map(|span| &span.name).collect::<Vec<_>>()
    );
    found[0]
}

/// Whether `span` is `ancestor` or lies within it.
fn descends(spans: &[Span], span: &Span, ancestor: &Span) -> bool {
    let mut at = span;
    for _ in 0..spans.len() + 1 {
        if at.span_id == ancestor.span_id {
            return true;
        }
        match spans
            .iter()
            .find(|parent| parent.span_id == at.parent_span_id)
        {
            Some(parent) => at = parent,
            None => return false,
        }
    }
    false
}

/// The example server with `--otel`, exporting to `receiver`.
struct Server {
    child: Child,
    url: String,
}

impl Server {
    fn start(receiver: &Receiver, extra: &[&str]) -> Self {
        let mut command = Command::new(SERVER);
        command
            .args(["--http", "127.0.0.1:0", "--otel"])
            .args(extra)
            .env("OTEL_EXPORTER_OTLP_ENDPOINT", &receiver.url)
            .env("OTEL_SERVICE_NAME", "dsh-kit-examples")
            // Exported every 100 ms, so the test waits little.
            .env("OTEL_BSP_SCHEDULE_DELAY", "100")
            .env("OTEL_METRIC_EXPORT_INTERVAL", "200");
        let (child, url) = spawn_server(command, Duration::from_secs(30));
        Server { child, url }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Runs `otel_client.py` against `url`: the calls, each with
/// `traceparent` in `_meta`; the JSON lines it printed.
fn call(url: &str, traceparent: &str, legacy: bool, calls: &[&str]) -> Vec<Value> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/otel_client.py");
    let mut command = Command::new(python());
    command
        .arg(&script)
        .args(["--url", url, "--traceparent", traceparent]);
    if legacy {
        command.arg("--legacy");
    }
    command.args(calls);
    let ran = run(command, Duration::from_secs(90));
    assert!(ran.success, "otel_client.py failed:\n{}", ran.text);
    ran.text
        .lines()
        .filter_map(|line| serde_json::from_str(line).ok())
        .collect()
}

/// A new W3C trace: its id, the caller's span id, and the `traceparent`.
fn new_trace() -> (String, String, String) {
    let random = || {
        use std::hash::{BuildHasher, RandomState};
        RandomState::new().hash_one(Instant::now())
    };
    let trace = format!("{:016x}{:016x}", random(), random());
    let parent = format!("{:016x}", random());
    let traceparent = format!("00-{trace}-{parent}-01");
    (trace, parent, traceparent)
}

const CALLS: [&str; 4] = [
    r#"greet={"name": "Ada"}"#,
    // Nothing listens on port 1: the tool's own error.
    r#"fetch={"url": "http://127.0.0.1:1/"}"#,
    r#"read_file={"path": 4}"#,
    r#"bash={"command": "echo hi"}"#,
];

/// Each call: its tool, the `error.type` of its MCP span, of its
/// `execute_tool` span.
const EXPECTED: [(&str, Option<&str>, Option<&str>); 4] = [
    ("greet", None, None),
    ("fetch", Some("tool_error"), Some("tool")),
    ("read_file", Some("tool_error"), Some("invalid_arguments")),
    ("bash", Some("tool_error"), Some("denied")),
];

#[test]
fn calls_with_a_traceparent_continue_the_trace_in_spans_by_the_conventions() {
    let receiver = Receiver::start();
    let server = Server::start(&receiver, &[]);
    // A 2025-11-25 session, then the 2026-07-28 stateless protocol.
    for legacy in [true, false] {
        let (trace, caller, traceparent) = new_trace();
        let printed = call(&server.url, &traceparent, legacy, &CALLS);
        let protocol = printed
            .iter()
            .find_map(|line| line.get("protocol").and_then(Value::as_str))
            .expect("the client printed its protocol version")
            .to_owned();
        assert_eq!(
            protocol.as_str() < "2026-07-28",
            legacy,
            "protocol {protocol}"
        );
        let spans = receiver.spans_of(&trace, |spans| {
            EXPECTED.iter().all(|(tool, ..)| {
                spans
                    .iter()
                    .any(|span| span.name == format!("execute_tool {tool}"))
            }) && spans
                .iter()
                .filter(|span| span.kind == SpanKind::Server as i32)
                .count()
                >= 4
        });
        for (tool, mcp_error, call_error) in EXPECTED {
            let server_span = named(&spans, &format!("tools/call {tool}"));
            assert_eq!(server_span.kind, SpanKind::Server as i32, "{tool}");
            assert_eq!(
                hex(&server_span.parent_span_id),
                caller,
                "{tool}: its parent is the caller's span"
            );
            for (key, value) in [
                ("mcp.method.name", Some("tools/call")),
                ("gen_ai.tool.name", Some(tool)),
                ("gen_ai.operation.name", Some("execute_tool")),
                ("network.transport", Some("tcp")),
                ("network.protocol.name", Some("http")),
                ("network.protocol.version", Some("1.1")),
                ("mcp.protocol.version", Some(protocol.as_str())),
                ("error.type", mcp_error),
            ] {
                assert_eq!(
                    attribute(server_span, key).as_deref(),
                    value,
                    "{tool}: {key}"
                );
            }
            assert!(
                attribute(server_span, "jsonrpc.request.id").is_some(),
                "{tool}"
            );
            assert_eq!(
                attribute(server_span, "mcp.session.id").is_some(),
                legacy,
                "{tool}: a session id only in a session"
            );

            let call_span = named(&spans, &format!("execute_tool {tool}"));
            assert_eq!(call_span.kind, SpanKind::Internal as i32, "{tool}");
            assert_eq!(
                call_span.parent_span_id, server_span.span_id,
                "{tool}: a child of the MCP span"
            );
            for (key, value) in [
                ("gen_ai.operation.name", Some("execute_tool")),
                ("gen_ai.tool.name", Some(tool)),
                ("gen_ai.tool.type", Some("function")),
                ("error.type", call_error),
            ] {
                assert_eq!(attribute(call_span, key).as_deref(), value, "{tool}: {key}");
            }
            let id = attribute(call_span, "gen_ai.tool.call.id").expect("a call id");
            assert_eq!(id.len(), 36, "{tool}: call id {id}, a UUID");
            let description = attribute(call_span, "gen_ai.tool.description").unwrap_or_default();
            assert!(!description.is_empty(), "{tool}: a description");
            let status = call_span.status.as_ref().map_or(0, |status| status.code);
            // 2 is ERROR in OTLP's status codes.
            assert_eq!(status == 2, call_error.is_some(), "{tool}: status {status}");
        }
        // The stages a person debugging needs, as events of the call's span.
        let invalid = named(&spans, "execute_tool read_file");
        let stopped = invalid
            .events
            .iter()
            .find(|event| event.name == "call stopped")
            .expect("the invalid call tells why it stopped");
        let violation = stopped
            .attributes
            .iter()
            .find(|kv| kv.key == "dsh.violation")
            .map(|kv| string(kv.value.as_ref()));
        assert_eq!(
            violation.as_deref(),
            Some(r#"/path: 4 is not of type "string""#)
        );
        let denied = named(&spans, "execute_tool bash");
        assert!(
            denied
                .events
                .iter()
                .any(|event| event.name == "permission decided"),
            "{:?}",
            denied.events
        );
    }

    // The duration histograms, by the conventions' attributes and buckets.
    // (Waiting for them also gives the spans of the first session, whose
    // client has gone, time to arrive.)
    let deadline = Instant::now() + ARRIVAL;
    loop {
        let tools = receiver.histogram("gen_ai.execute_tool.duration");
        let requests = receiver.histogram("mcp.server.operation.duration");
        // Cumulative: a later export counts both sessions' calls.
        let greet = tools
            .iter()
            .filter(|(attributes, ..)| {
                attributes.get("gen_ai.tool.name").map(String::as_str) == Some("greet")
            })
            .max_by_key(|(_, count, _)| *count)
            .filter(|(_, count, _)| *count >= 2);
        let denied = tools.iter().find(|(attributes, ..)| {
            attributes.get("error.type").map(String::as_str) == Some("denied")
        });
        let call = requests.iter().find(|(attributes, ..)| {
            attributes.get("mcp.method.name").map(String::as_str) == Some("tools/call")
        });
        // Two sessions each refused `read_file` (invalid arguments) and `bash` (denied).
        let refusals = receiver.counter("dsh.tool.refusals");
        let refused = |cause: &str| {
            refusals
                .iter()
                .filter(|(attributes, _)| {
                    attributes.get("error.type").map(String::as_str) == Some(cause)
                })
                .map(|(_, count)| *count)
                .max()
                .unwrap_or(0)
        };
        let counted = refused("invalid_arguments") == 2 && refused("denied") == 2;
        if let (Some(greet), Some(denied), Some(call), true) = (greet, denied, call, counted) {
            assert_eq!(greet.2.first(), Some(&0.01));
            assert_eq!(greet.2.last(), Some(&81.92));
            assert_eq!(
                denied.0.get("gen_ai.tool.name").map(String::as_str),
                Some("bash")
            );
            assert_eq!(call.2.last(), Some(&300.0));
            assert_eq!(refused("tool"), 0, "a tool's own error is no refusal");
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the metrics did not arrive: {tools:?} {requests:?} {refusals:?}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    // No span of rmcp's own, which it starts outside every request's trace
    // and so would arrive as a root trace per connection.
    let spans = receiver.received.spans.lock().unwrap().clone();
    let foreign: Vec<&str> = spans
        .iter()
        .map(|span| span.name.as_str())
        .filter(|name| {
            ["serve_inner", "streamable_http_session", "transport_worker"].contains(name)
        })
        .collect();
    assert!(
        foreign.is_empty(),
        "rmcp's spans were exported: {foreign:?}"
    );
}

#[test]
fn a_call_through_a_proxy_is_one_trace() {
    let receiver = Receiver::start();
    let upstream = Server::start(&receiver, &[]);
    let proxy = Server::start(&receiver, &["--proxy", &upstream.url]);
    let (trace, caller, traceparent) = new_trace();
    let printed = call(
        &proxy.url,
        &traceparent,
        false,
        &[r#"remote_greet={"name": "Ada"}"#],
    );
    assert!(
        printed.iter().any(|line| line["text"] == "Hello, Ada!"),
        "{printed:?}"
    );
    // The proxy's MCP span and call, its client span, then the upstream
    // server's MCP span and call: one trace.
    let spans = receiver.spans_of(&trace, |spans| {
        spans.iter().any(|span| span.name == "execute_tool greet")
            && spans
                .iter()
                .any(|span| span.name == "tools/call greet" && span.kind == SpanKind::Server as i32)
    });
    let entry = named(&spans, "tools/call remote_greet");
    assert_eq!(hex(&entry.parent_span_id), caller);
    let proxied = named(&spans, "execute_tool remote_greet");
    assert_eq!(proxied.parent_span_id, entry.span_id);
    let client: Vec<&Span> = spans
        .iter()
        .filter(|span| span.kind == SpanKind::Client as i32)
        .collect();
    assert_eq!(client.len(), 1, "one client span");
    assert_eq!(client[0].name, "tools/call greet");
    assert!(
        descends(&spans, client[0], proxied),
        "the client span is within the proxied call's"
    );
    let upstream_span = spans
        .iter()
        .find(|span| span.name == "tools/call greet" && span.kind == SpanKind::Server as i32)
        .expect("the upstream server's span");
    assert_eq!(upstream_span.parent_span_id, client[0].span_id);
    let greet = named(&spans, "execute_tool greet");
    assert_eq!(greet.parent_span_id, upstream_span.span_id);
    // No span of these calls began a trace of its own.
    let all = receiver.received.spans.lock().unwrap();
    let strays: Vec<&String> = all
        .iter()
        .filter(|span| span.name.ends_with("greet") && hex(&span.trace_id) != trace)
        .map(|span| &span.name)
        .collect();
    assert!(strays.is_empty(), "spans outside the trace: {strays:?}");
    drop(all);

    // The proxy times the request it sent, by the MCP conventions.
    let deadline = Instant::now() + ARRIVAL;
    loop {
        let sent = receiver.histogram("mcp.client.operation.duration");
        let forwarded = sent.iter().find(|(attributes, count, _)| {
            attributes.get("mcp.method.name").map(String::as_str) == Some("tools/call")
                && attributes.get("gen_ai.tool.name").map(String::as_str) == Some("greet")
                && *count >= 1
        });
        if let Some((attributes, _, buckets)) = forwarded {
            assert_eq!(attributes.get("error.type"), None, "{attributes:?}");
            assert_eq!(buckets.first(), Some(&0.01));
            assert_eq!(buckets.last(), Some(&300.0));
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the proxy's client histogram did not arrive: {sent:?}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}
