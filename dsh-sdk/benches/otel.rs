//! What the calls' spans cost, against the floor, measured in the same run.
//!
//! - `floor`: the direct fn call plus `serde_json::from_value` of the args
//!   and `to_value` of the output;
//! - `pipeline_bare`: `registry.call` with no `tracing` subscriber: the
//!   `execute_tool` span is not made, and the call must cost what it did
//!   before calls had spans (`pipeline` bench's `bare/floor` ratio);
//! - `pipeline_traced`: the same call with `dsh_kit::otel::layers` as the
//!   subscriber, over an SDK tracer and meter that export nowhere: the
//!   price of every span and histogram point made and ended.
//!
//! After criterion's report, the three are timed again in alternating
//! batches, and the medians and their ratios are printed.
//!
//! Run with `cargo bench -p dsh-kit --features otel --bench otel --
//! --warm-up-time 1 --measurement-time 2`.

#[path = "common/timing.rs"]
mod timing;

use std::hint::black_box;

use timing::{BATCH, BATCHES, median, per_call, time_batch};

use criterion::{Criterion, criterion_group, criterion_main};
use opentelemetry_sdk::metrics::SdkMeterProvider;
use opentelemetry_sdk::trace::SdkTracerProvider;
use tracing_subscriber::layer::SubscriberExt;

use dsh_kit::Registry;
use dsh_kit::prelude::*;

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

/// The floor: deserialize, call, serialize.
async fn floor(args: &serde_json::Value) -> serde_json::Value {
    let parsed: GreetArgs = serde_json::from_value(black_box(args.clone())).unwrap();
    let output = greet(parsed).await;
    serde_json::to_value(output).unwrap()
}

fn bench(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .expect("a tokio runtime");
    let args = json!({ "name": "Ada" });
    let registry = Registry::new();
    registry.register::<greet>().expect("greet registers");

    let tracer = SdkTracerProvider::builder().build();
    let meter = SdkMeterProvider::builder().build();
    let subscriber = std::sync::Arc::new(
        tracing_subscriber::registry().with(dsh_kit::otel::layers(&tracer, &meter)),
    );
    let traced = || tracing::subscriber::set_default(std::sync::Arc::clone(&subscriber));

    let floor_call = || async {
        black_box(floor(&args).await);
    };
    let bare_call = || async {
        let result = registry.call("greet", black_box(args.clone())).await;
        debug_assert!(!result.is_error());
        black_box(result);
    };
    runtime.block_on(async {
        assert_eq!(
            registry.call("greet", args.clone()).await.text(),
            "Hello, Ada!"
        );
    });

    let mut group = c.benchmark_group("greet");
    group.bench_function("floor", |b| b.to_async(&runtime).iter(floor_call));
    group.bench_function("pipeline_bare", |b| b.to_async(&runtime).iter(bare_call));
    group.bench_function("pipeline_traced", |b| {
        let _traced = traced();
        b.to_async(&runtime).iter(bare_call)
    });
    group.finish();

    // Medians of alternating batches, so all three see the same machine.
    let mut samples = [Vec::new(), Vec::new(), Vec::new()];
    runtime.block_on(async {
        for _ in 0..BATCHES {
            samples[0].push(time_batch(floor_call).await);
            samples[1].push(time_batch(bare_call).await);
            let traced = traced();
            samples[2].push(time_batch(bare_call).await);
            drop(traced);
        }
    });
    let [floor, bare, traced] = samples.map(|batch| per_call(median(batch)));
    println!("\ngreet, median of {BATCHES} alternating batches of {BATCH} calls:");
    println!("  floor:           {floor:>8.0} ns/call");
    println!("  pipeline_bare:   {bare:>8.0} ns/call (no subscriber)");
    println!("  pipeline_traced: {traced:>8.0} ns/call (OpenTelemetry layers)");
    println!(
        "ratio bare/floor: {:.2} (as the pipeline bench's, with no spans)",
        bare / floor
    );
    println!("ratio traced/bare: {:.2}", traced / bare);
}

criterion_group!(benches, bench);
criterion_main!(benches);
