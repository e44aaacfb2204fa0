//! The full pipeline against its floor, measured in the same run.
//!
//! - floor: the direct fn call plus `serde_json::from_value` of the args and
//!   `to_value` of the output, the least any tool runtime must do;
//! - pipeline: `registry.call` with every stage on: resolve, input schema,
//!   serde, `validate_input`, rules, a gate, a guard, the layer stack
//!   (metrics, retry, timeout), the output gate, a post-execute hook, render,
//!   present, the finalize check, and a subscriber.
//!
//! - pipeline_bare: the same stages with nothing hooked in.
//!
//! Run with `cargo bench -p dsh-sdk --bench pipeline`; the ratio of
//! `pipeline` to `floor` is what to watch.

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use dsh_sdk::permission::{Decision, PlanMode, Rule};
use dsh_sdk::post_execute::PostOutcome;
use dsh_sdk::prelude::*;

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

fn bench(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .expect("a tokio runtime");
    let args = json!({ "name": "Ada" });

    let registry = Registry::builder()
        .timeout(Duration::from_secs(30))
        .rule(Rule::allow("greet"))
        .gate(|_: &dsh_sdk::permission::CallInfo<'_>| Decision::Allow)
        .guard(PlanMode)
        .post_execute(|_: &dsh_sdk::post_execute::PostCall<'_>| PostOutcome::pass())
        .build();
    registry.register::<greet>().expect("greet registers");
    let _subscription = registry.subscribe(|event| {
        black_box(event);
    });

    let bare = Registry::new();
    bare.register::<greet>().expect("greet registers");

    let mut group = c.benchmark_group("greet");
    group.bench_function("floor", |b| {
        b.to_async(&runtime).iter(|| async {
            let parsed: GreetArgs = serde_json::from_value(black_box(args.clone())).unwrap();
            let output = greet(parsed).await;
            black_box(serde_json::to_value(output).unwrap())
        });
    });
    group.bench_function("pipeline", |b| {
        b.to_async(&runtime).iter(|| async {
            let result = registry.call("greet", black_box(args.clone())).await;
            assert!(!result.is_error);
            black_box(result)
        });
    });
    // The same stages with nothing hooked in: no rules, gates, guards,
    // post-execute hooks or subscribers. The gap to `pipeline` is what the
    // hooks and the events cost.
    group.bench_function("pipeline_bare", |b| {
        b.to_async(&runtime).iter(|| async {
            let result = bare.call("greet", black_box(args.clone())).await;
            assert!(!result.is_error);
            black_box(result)
        });
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
