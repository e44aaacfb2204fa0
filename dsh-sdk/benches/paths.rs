//! What resolving a path argument costs: the same call with its path as a
//! `ToolPath` (resolved against a root before the call is decided) and as a
//! plain `String` (passed through), timed in alternating batches in one run.
//!
//! - `string`: `registry.call` of a tool whose `path` is a `String`;
//! - `tool_path`: the same with a `ToolPath`, the file existing three
//!   directories under the root;
//! - `tool_path_dotted`: the same spelt `a/./b/../b/c/file.txt`, so the
//!   argument is rewritten.
//!
//! Run with `cargo bench -p dsh-kit --bench paths -- --warm-up-time 1
//! --measurement-time 2`.

#[path = "common/timing.rs"]
mod timing;

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use timing::{BATCH, BATCHES, median, per_call, time_batch};

use dsh_kit::prelude::*;
use dsh_kit::{Registry, ToolPath};

/// The length of a path, as text.
#[tool(read_only)]
async fn as_string(
    /// The path
    path: String,
) -> usize {
    path.len()
}

/// The length of a path, resolved.
#[tool(read_only)]
async fn as_path(
    /// The path
    path: ToolPath,
) -> usize {
    path.as_os_str().len()
}

fn bench(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .expect("a tokio runtime");
    let dir = tempfile::tempdir().expect("a temporary directory");
    let root = dir.path().canonicalize().expect("the directory resolves");
    std::fs::create_dir_all(root.join("a/b/c")).expect("the directories are made");
    std::fs::write(root.join("a/b/c/file.txt"), "x").expect("the file is written");
    let registry = Registry::builder().path_root(&root).build();
    registry
        .register::<as_string>()
        .expect("as_string registers");
    registry.register::<as_path>().expect("as_path registers");
    let plain = json!({ "path": "a/b/c/file.txt" });
    let dotted = json!({ "path": "a/./b/../b/c/file.txt" });
    let resolved = root.join("a/b/c/file.txt").as_os_str().len();

    let string_call = || async {
        black_box(registry.call("as_string", black_box(plain.clone())).await);
    };
    let path_call = || async {
        black_box(registry.call("as_path", black_box(plain.clone())).await);
    };
    let dotted_call = || async {
        black_box(registry.call("as_path", black_box(dotted.clone())).await);
    };
    runtime.block_on(async {
        let result = registry.call("as_path", dotted.clone()).await;
        assert_eq!(result.value, Some(json!(resolved)), "{}", result.text());
    });

    let mut group = c.benchmark_group("paths");
    group.bench_function("string", |b| b.to_async(&runtime).iter(string_call));
    group.bench_function("tool_path", |b| b.to_async(&runtime).iter(path_call));
    group.bench_function("tool_path_dotted", |b| {
        b.to_async(&runtime).iter(dotted_call)
    });
    group.finish();

    let mut samples = [Vec::new(), Vec::new(), Vec::new()];
    runtime.block_on(async {
        for _ in 0..BATCHES {
            samples[0].push(time_batch(string_call).await);
            samples[1].push(time_batch(path_call).await);
            samples[2].push(time_batch(dotted_call).await);
        }
    });
    let [string, path, dotted] = samples.map(|batch| per_call(median(batch)));
    println!("\npaths, median of {BATCHES} alternating batches of {BATCH} calls:");
    println!("  string:           {string:>8.0} ns/call");
    println!("  tool_path:        {path:>8.0} ns/call");
    println!("  tool_path_dotted: {dotted:>8.0} ns/call");
    println!("ratio tool_path/string: {:.2}", path / string);
    println!("ratio tool_path_dotted/string: {:.2}", dotted / string);
}

criterion_group!(benches, bench);
criterion_main!(benches);
