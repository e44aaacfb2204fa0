//! Code mode against calling tools one at a time, on one multi-step task:
//! of 20 files, report the one with the most words.
//!
//! - `direct`: 21 calls through `registry.call` (list, then read each),
//!   every result's content reaching the model, the counting done outside;
//! - `program`: one `run_code` call whose program makes the same 21 calls
//!   in the sandbox and returns only the answer.
//!
//! Besides criterion's wall times, it prints the characters of tool
//! results that reach the model each way (what a model reads, and pays
//! for, in its next turns), before the timings.
//!
//! Run with `cargo bench -p dsh-kit --features code --bench code`.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use dsh_kit::Registry;
use dsh_kit::code::{self, Limits, RUN_CODE};
use dsh_kit::prelude::*;

const FILES: usize = 20;

/// A text of a few hundred words, a different count for each file.
fn text_of(index: usize) -> String {
    const WORDS: [&str; 6] = ["tool", "model", "schema", "call", "value", "program"];
    let count = 150 + (index * 71) % 300;
    (0..count)
        .map(|word| WORDS[(word + index) % WORDS.len()])
        .collect::<Vec<_>>()
        .join(" ")
}

/// List the files.
#[tool(read_only)]
async fn list_files() -> Vec<String> {
    (0..FILES).map(|index| format!("{index:02}.txt")).collect()
}

/// Read a file as text.
#[tool(read_only)]
async fn read_file(
    /// The file, as `list_files` names it
    path: String,
) -> String {
    let index = path
        .strip_suffix(".txt")
        .and_then(|number| number.parse().ok())
        .unwrap_or(0);
    text_of(index)
}

const PROGRAM: &str = r#"
let largest = { path: "", words: -1 };
for (const path of tools.list_files({}).value) {
  const words = tools.read_file({ path }).value.split(" ").length;
  if (words > largest.words) largest = { path, words };
}
return largest;
"#;

/// The direct way: the answer, and the characters of results the model read.
async fn direct(registry: &Registry) -> (String, usize) {
    let listed = registry.call("list_files", json!({})).await;
    let mut seen = listed.text().len();
    let mut largest = (String::new(), 0);
    let paths = listed.value.unwrap_or_default();
    for path in paths.as_array().into_iter().flatten() {
        let read = registry.call("read_file", json!({ "path": path })).await;
        let text = read.text();
        seen += text.len();
        let words = text.split(' ').count();
        if words > largest.1 {
            largest = (path.as_str().unwrap_or_default().to_owned(), words);
        }
    }
    (largest.0, seen)
}

/// The program's way: the answer, and the characters of results the model read.
async fn program(registry: &Registry) -> (String, usize) {
    let ran = registry.call(RUN_CODE, json!({ "code": PROGRAM })).await;
    let text = ran.text();
    let path = ran
        .value
        .as_ref()
        .map(|value| value["result"]["path"].clone());
    (
        path.and_then(|path| path.as_str().map(str::to_owned))
            .unwrap_or_default(),
        text.len(),
    )
}

fn bench(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .expect("a tokio runtime");
    let registry = Registry::new();
    registry.register::<list_files>().expect("registers").keep();
    registry.register::<read_file>().expect("registers").keep();
    let tool = code::tool(registry.host(), Limits::default());
    registry.register_dynamic(tool).expect("registers").keep();

    let (direct_answer, direct_chars) = runtime.block_on(direct(&registry));
    let (program_answer, program_chars) = runtime.block_on(program(&registry));
    assert_eq!(
        direct_answer, program_answer,
        "both ways find the same file"
    );
    println!(
        "characters of tool results reaching the model: direct {direct_chars} in {} results, program {program_chars} in 1 ({:.1}x fewer)",
        FILES + 1,
        direct_chars as f64 / program_chars.max(1) as f64
    );

    let mut group = c.benchmark_group("largest_of_20_files");
    group.bench_function("direct", |b| {
        b.iter(|| black_box(runtime.block_on(direct(&registry))));
    });
    group.bench_function("program", |b| {
        b.iter(|| black_box(runtime.block_on(program(&registry))));
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
