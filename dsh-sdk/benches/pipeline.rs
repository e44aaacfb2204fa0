//! The full pipeline against its floor, measured in the same run.
//!
//! - `floor`: the direct fn call plus `serde_json::from_value` of the args
//!   and `to_value` of the output, the least any tool runtime must do;
//! - `floor_validated`: the floor plus the tool's compiled input and output
//!   schemas checked (`jsonschema`'s `is_valid`), the least a runtime that
//!   validates both ways must do;
//! - `pipeline_bare`: `registry.call` on a registry with nothing hooked in;
//! - `pipeline`: `registry.call` with every hook on: rules, a gate, a guard,
//!   a timeout, a post-execute hook and a subscriber.
//!
//! After criterion's report, the four are timed again in alternating
//! batches, and the medians and their ratios are printed, with the
//! regression guards they are held to (no worse than);
//! then a batch of 100 concurrency-safe calls on one worker thread against
//! as many as the machine has, of `greet` (on both registries) and of
//! `checksum`, a tool that keeps a core busy for some microseconds.
//!
//! Run with `cargo bench -p dsh-kit --bench pipeline -- --warm-up-time 1
//! --measurement-time 2`.
//!
//! For a profile, `DSH_PIPELINE_BENCH_PROBE` set to `floor`, `validated`,
//! `bare` or `hooked` makes 20,000 calls of that kind and nothing else, and
//! `none` makes none, which measures what the start-up costs, to take off:
//! run the bench binary under `valgrind --tool=callgrind` (or `cachegrind`)
//! with each, and divide the difference by 20,000.

#[path = "common/timing.rs"]
mod timing;

use std::hint::black_box;
use std::time::{Duration, Instant};

use timing::{BATCH, BATCHES, median, per_call, time_batch};

/// Names the kind of call a profiling run makes, instead of the benchmark.
const PROBE: &str = "DSH_PIPELINE_BENCH_PROBE";

/// How many calls a profiling run makes.
const PROBE_CALLS: usize = 20_000;

use criterion::{Criterion, criterion_group, criterion_main};

use dsh_kit::permission::{Decision, PlanMode, Rule};
use dsh_kit::post_execute::PostOutcome;
use dsh_kit::prelude::*;
use dsh_kit::{Registry, ToolCall};

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

/// Mixes a number for a while: a tool that keeps a core busy for some
/// microseconds, as real tool work does.
#[tool(read_only, concurrency_safe)]
async fn checksum(
    /// How many rounds to mix
    rounds: u32,
) -> u64 {
    let mut mixed = 0x9E37_79B9_7F4A_7C15_u64;
    for round in 0..rounds {
        mixed = mixed.rotate_left(5) ^ mixed.wrapping_mul(0x0100_0000_01B3) ^ u64::from(round);
    }
    mixed
}

/// The floor: deserialize, call, serialize.
async fn floor(args: &serde_json::Value) -> serde_json::Value {
    let parsed: GreetArgs = serde_json::from_value(black_box(args.clone())).unwrap();
    let output = greet(parsed).await;
    serde_json::to_value(output).unwrap()
}

/// Both compiled schemas of a registered tool.
struct Validators {
    input: jsonschema::Validator,
    output: jsonschema::Validator,
}

impl Validators {
    fn of(registry: &Registry, name: &str) -> Self {
        let tool = registry.get(name).expect("the tool is registered");
        let compile = |schema| {
            jsonschema::draft202012::options()
                .should_validate_formats(true)
                .build(schema)
                .expect("the schema compiles")
        };
        Validators {
            input: compile(tool.input_schema()),
            output: compile(tool.output_schema()),
        }
    }

    /// The floor with both schemas checked.
    async fn floor(&self, args: &serde_json::Value) -> serde_json::Value {
        assert!(self.input.is_valid(black_box(args)));
        let value = floor(args).await;
        assert!(self.output.is_valid(&value));
        value
    }
}

fn bench(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .expect("a tokio runtime");
    let args = json!({ "name": "Ada" });

    let hooked = Registry::builder()
        .timeout(Duration::from_secs(30))
        .rule(Rule::allow("greet"))
        .gate(|_: &dsh_kit::permission::CallInfo<'_>| Decision::Allow)
        .guard(PlanMode)
        .post_execute(|_: &dsh_kit::post_execute::PostCall<'_>| PostOutcome::pass())
        .build();
    hooked.register::<greet>().expect("greet registers");
    let _subscription = hooked.subscribe(|event| {
        black_box(event);
    });

    let bare = Registry::new();
    bare.register::<greet>().expect("greet registers");
    let validators = Validators::of(&bare, "greet");

    let floor_call = || async {
        black_box(floor(&args).await);
    };
    let validated_call = || async {
        black_box(validators.floor(&args).await);
    };
    let bare_call = || async {
        let result = bare.call("greet", black_box(args.clone())).await;
        debug_assert!(!result.is_error());
        black_box(result);
    };
    let hooked_call = || async {
        let result = hooked.call("greet", black_box(args.clone())).await;
        debug_assert!(!result.is_error());
        black_box(result);
    };
    runtime.block_on(async {
        assert_eq!(bare.call("greet", args.clone()).await.text(), "Hello, Ada!");
        assert_eq!(
            hooked.call("greet", args.clone()).await.text(),
            "Hello, Ada!"
        );
    });

    if let Ok(kind) = std::env::var(PROBE) {
        let kinds = ["floor", "validated", "bare", "hooked", "none"];
        assert!(
            kinds.contains(&kind.as_str()),
            "{PROBE}={kind}: expected one of {kinds:?}"
        );
        runtime.block_on(async {
            for _ in 0..PROBE_CALLS {
                match kind.as_str() {
                    "floor" => floor_call().await,
                    "validated" => validated_call().await,
                    "bare" => bare_call().await,
                    "hooked" => hooked_call().await,
                    _ => {}
                }
            }
        });
        return;
    }

    let mut group = c.benchmark_group("greet");
    group.bench_function("floor", |b| b.to_async(&runtime).iter(floor_call));
    group.bench_function("floor_validated", |b| {
        b.to_async(&runtime).iter(validated_call)
    });
    group.bench_function("pipeline_bare", |b| b.to_async(&runtime).iter(bare_call));
    group.bench_function("pipeline", |b| b.to_async(&runtime).iter(hooked_call));
    group.finish();

    // Medians of alternating batches, so all four see the same machine.
    let mut samples = [Vec::new(), Vec::new(), Vec::new(), Vec::new()];
    runtime.block_on(async {
        for _ in 0..BATCHES {
            samples[0].push(time_batch(floor_call).await);
            samples[1].push(time_batch(validated_call).await);
            samples[2].push(time_batch(bare_call).await);
            samples[3].push(time_batch(hooked_call).await);
        }
    });
    let [floor, validated, bare_ns, hooked_ns] = samples.map(|batch| per_call(median(batch)));
    println!("\ngreet, median of {BATCHES} alternating batches of {BATCH} calls:");
    println!("  floor:           {floor:>8.0} ns/call");
    println!("  floor_validated: {validated:>8.0} ns/call");
    println!("  pipeline_bare:   {bare_ns:>8.0} ns/call");
    println!("  pipeline (hooks):{hooked_ns:>8.0} ns/call");
    println!("ratio bare/floor: {:.2} (guard <= 5.2)", bare_ns / floor);
    println!("ratio bare/floor_validated: {:.2}", bare_ns / validated);
    println!(
        "ratio hooked/floor: {:.2} (guard <= 8.3)",
        hooked_ns / floor
    );

    batch_scaling(&bare, "greet", &args, "");
    batch_scaling(&hooked, "greet", &args, ", every hook on");
    bare.register::<checksum>().expect("checksum registers");
    batch_scaling(&bare, "checksum", &json!({ "rounds": 20_000 }), "");
}

/// A batch of 100 concurrency-safe calls of `tool` on one worker thread,
/// then on as many as the machine has: the speed-up is what the batch gains
/// from cores. A call of `greet` takes less than waking a worker thread, so
/// its batch gains little; one of `checksum` keeps a core busy for some
/// microseconds, as real tool work does.
fn batch_scaling(registry: &Registry, tool: &str, args: &serde_json::Value, hooks: &str) {
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    let time_on = |workers: usize| {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(workers)
            .enable_time()
            .build()
            .expect("a tokio runtime");
        let batch = || {
            (0..100)
                .map(|_| ToolCall::new(tool.to_owned(), args.clone()))
                .collect::<Vec<_>>()
        };
        let mut samples = Vec::new();
        runtime.block_on(async {
            for _ in 0..BATCHES {
                let calls = batch();
                let started = Instant::now();
                let results = registry.call_batch(calls).await;
                samples.push(started.elapsed());
                assert!(results.iter().all(|result| !result.is_error()));
            }
        });
        median(samples).as_secs_f64() * 1e6
    };
    let one = time_on(1);
    let all = time_on(cores);
    println!(
        "batch of 100 `{tool}` calls{hooks}: {one:.0} µs on 1 worker, {all:.0} µs on {cores} workers; speed-up {:.2} on {cores} cores",
        one / all
    );
}

criterion_group!(benches, bench);
criterion_main!(benches);
