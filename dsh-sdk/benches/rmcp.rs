//! A trivial tool called in process through our full pipeline, against the
//! same tool through rmcp's own `#[tool]` router, in the same run.
//!
//! - `dsh_pipeline`: `registry.call("greet", args)` on a plain registry:
//!   resolve, input schema validation, serde, `validate_input`, the default
//!   permission decision, the layer stack (metrics, retry, timeout), the
//!   output schema gate, render, present, the finalize check; a
//!   [`ToolResult`](dsh_kit::ToolResult) with its value, whose content and
//!   generic card are made when read.
//! - `rmcp_router`: what rmcp's `#[tool_handler]` runs for a `tools/call`: a
//!   `RequestContext` and a `ToolCallContext`, then `ToolRouter::call`: the
//!   name looked up, the arguments deserialized (no schema validation), the
//!   method called, its `String` turned into a `CallToolResult`.
//!
//! Neither goes through a transport. After criterion's own report, the two
//! are timed again in alternating batches, and the medians and their ratio
//! are printed: what our contract (validation both ways, the events, the
//! card) costs over rmcp's bare dispatch.
//!
//! Run with `cargo bench -p dsh-kit --features mcp --bench rmcp`.

#[path = "common/timing.rs"]
mod timing;

use std::hint::black_box;
use timing::{BATCH, BATCHES, median, per_call, time_batch};

use criterion::{Criterion, criterion_group, criterion_main};

use dsh_kit::Registry;
use dsh_kit::prelude::*;
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::tool::ToolCallContext;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolRequestParams, CallToolResponse, NumberOrString};
use rmcp::service::{RequestContext, RunningService};
use rmcp::{Peer, RoleClient, RoleServer, ServerHandler, ServiceExt};
use serde_json::{Map, Value};

/// The arguments, shared by both sides.
#[derive(Deserialize, JsonSchema)]
struct GreetArgs {
    /// The name to greet
    name: String,
}

/// Greet someone by name.
#[tool(read_only, concurrency_safe)]
async fn greet(args: GreetArgs) -> String {
    format!("Hello, {}!", args.name)
}

/// The same tool, written for rmcp.
#[derive(Clone)]
struct RmcpGreeter {
    tool_router: ToolRouter<Self>,
}

#[rmcp::tool_router]
impl RmcpGreeter {
    /// Greet someone by name.
    #[rmcp::tool(description = "Greet someone by name.")]
    async fn greet(&self, Parameters(args): Parameters<GreetArgs>) -> String {
        format!("Hello, {}!", args.name)
    }
}

#[rmcp::tool_handler]
impl ServerHandler for RmcpGreeter {}

/// Both ends of an rmcp session, kept open while the bench runs.
type Session = (
    RunningService<RoleServer, RmcpGreeter>,
    RunningService<RoleClient, ()>,
);

/// An rmcp server-side peer, which every `RequestContext` needs: one real
/// session over an in-memory pipe, made once.
async fn server_peer(greeter: RmcpGreeter) -> (Peer<RoleServer>, Session) {
    let (server_io, client_io) = tokio::io::duplex(64 * 1024);
    let serving = tokio::spawn(async move { greeter.serve(server_io).await });
    let client = ().serve(client_io).await.expect("the rmcp client connects");
    let server = serving
        .await
        .expect("the rmcp server task runs")
        .expect("the rmcp server starts");
    (server.peer().clone(), (server, client))
}

fn bench(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime");
    let args = json!({ "name": "Ada" });
    let Value::Object(rmcp_args) = args.clone() else {
        unreachable!("the arguments are an object")
    };

    let registry = Registry::new();
    registry.register::<greet>().expect("greet registers");
    let greeter = RmcpGreeter {
        tool_router: RmcpGreeter::tool_router(),
    };
    let (peer, _session) = runtime.block_on(server_peer(greeter.clone()));

    let dsh = || async {
        let result = registry.call("greet", black_box(args.clone())).await;
        debug_assert!(!result.is_error());
        black_box(result);
    };
    let rmcp = || async {
        black_box(rmcp_call(&greeter, &peer, black_box(rmcp_args.clone())).await);
    };

    // Both answer the same.
    runtime.block_on(async {
        let ours = registry.call("greet", args.clone()).await;
        assert_eq!(ours.text(), "Hello, Ada!");
        let CallToolResponse::Complete(theirs) =
            rmcp_call(&greeter, &peer, rmcp_args.clone()).await
        else {
            panic!("rmcp's router did not complete the call")
        };
        assert_eq!(theirs.content[0].as_text().unwrap().text, "Hello, Ada!");
    });

    let mut group = c.benchmark_group("greet_in_process");
    group.bench_function("dsh_pipeline", |b| b.to_async(&runtime).iter(dsh));
    group.bench_function("rmcp_router", |b| b.to_async(&runtime).iter(rmcp));
    group.finish();

    // Medians of alternating batches, so both sides see the same machine.
    let (mut ours, mut theirs) = (Vec::new(), Vec::new());
    runtime.block_on(async {
        for _ in 0..BATCHES {
            ours.push(time_batch(dsh).await);
            theirs.push(time_batch(rmcp).await);
        }
    });
    let (ours, theirs) = (median(ours), median(theirs));
    println!(
        "\ngreet in process, median of {BATCHES} alternating batches of {BATCH} calls:\n  \
         dsh pipeline: {:>8.0} ns/call\n  rmcp router:   {:>8.0} ns/call\n  ratio dsh/rmcp: {:.2} (guard <= 1.15)",
        per_call(ours),
        per_call(theirs),
        ours.as_secs_f64() / theirs.as_secs_f64()
    );
}

/// One `tools/call` through rmcp's router, as its `#[tool_handler]` makes it.
async fn rmcp_call(
    greeter: &RmcpGreeter,
    peer: &Peer<RoleServer>,
    args: Map<String, Value>,
) -> CallToolResponse {
    let context = RequestContext::new(NumberOrString::Number(1), peer.clone());
    let params = CallToolRequestParams::new("greet").with_arguments(args);
    greeter
        .tool_router
        .call(ToolCallContext::new(greeter, params, context))
        .await
        .expect("rmcp's router calls greet")
}

criterion_group!(benches, bench);
criterion_main!(benches);
