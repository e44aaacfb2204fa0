//! Batches: safe calls run together and the others alone, in order; on a
//! multi-threaded runtime, busy calls spread over the worker threads,
//! waiting calls all wait together, results keep the calls' order, and a
//! batch dropped half-way still records each call it started; a run of safe
//! calls runs the tools the pool held when it started.

use std::collections::HashSet;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::ThreadId;
use std::time::{Duration, Instant};

use dsh_kit::event::Event;
use dsh_kit::prelude::*;
use dsh_kit::{Registry, ToolResult};
use dsh_kit::{Status, ToolCall};

/// The threads `spin` ran on.
static THREADS: Mutex<Vec<ThreadId>> = Mutex::new(Vec::new());

/// Keeps its thread busy until a call of it has run on another thread as
/// well (or for half a second at most), then gives its label back.
#[tool(read_only, concurrency_safe)]
async fn spin(
    /// Given back
    label: String,
) -> String {
    let this = std::thread::current().id();
    THREADS.lock().unwrap().push(this);
    let started = Instant::now();
    let elsewhere = || THREADS.lock().unwrap().iter().any(|other| *other != this);
    while !elsewhere() && started.elapsed() < Duration::from_millis(500) {
        std::hint::spin_loop();
    }
    label
}

/// Gives its number back at once.
#[tool(read_only, concurrency_safe)]
async fn quick(
    /// Given back
    number: u32,
) -> u32 {
    number
}

/// Waits, then says so.
#[tool(read_only, concurrency_safe)]
async fn wait(
    /// Milliseconds
    millis: u64,
) -> String {
    tokio::time::sleep(Duration::from_millis(millis)).await;
    "waited".into()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn busy_calls_of_a_batch_spread_over_the_worker_threads_in_order() {
    let registry = Registry::new();
    registry.register::<spin>().unwrap();
    let mut calls: Vec<ToolCall> = (0..24)
        .map(|index| ToolCall::new("spin", json!({ "label": format!("call {index}") })))
        .collect();
    // A call that fails takes its place among the others.
    calls.insert(5, ToolCall::new("nope", json!({})));
    let results = registry.call_batch(calls).await;

    let mut expected: Vec<String> = (0..24).map(|index| format!("call {index}")).collect();
    expected.insert(5, "no tool named `nope`".to_owned());
    let texts: Vec<String> = results.iter().map(ToolResult::text).collect();
    assert_eq!(texts, expected);
    let group = results[0].parallel_group_id;
    assert!(group.is_some());
    assert!(
        results
            .iter()
            .all(|result| result.parallel_group_id == group)
    );
    let threads: HashSet<ThreadId> = THREADS.lock().unwrap().iter().copied().collect();
    assert!(
        threads.len() >= 2,
        "24 calls that each keep a core busy ran on one thread"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_batch_is_not_held_up_by_worker_threads_that_are_busy() {
    let registry = Registry::new();
    registry.register::<quick>().unwrap();
    // Both worker threads blocked for a while: the batch's own task, here,
    // runs what no helper could start.
    let (started, mut blocked) = tokio::sync::mpsc::channel(2);
    let blockers: Vec<_> = (0..2)
        .map(|_| {
            let started = started.clone();
            tokio::spawn(async move {
                let _ = started.send(()).await;
                std::thread::sleep(Duration::from_secs(3));
            })
        })
        .collect();
    for _ in 0..2 {
        blocked.recv().await;
    }
    let calls = (0..10)
        .map(|index| ToolCall::new("quick", json!({ "number": index })))
        .collect();
    let begun = Instant::now();
    let results = registry.call_batch(calls).await;
    let elapsed = begun.elapsed();
    let numbers: Vec<String> = results.iter().map(ToolResult::text).collect();
    let expected: Vec<String> = (0..10).map(|index| index.to_string()).collect();
    assert_eq!(numbers, expected);
    assert!(
        elapsed < Duration::from_secs(2),
        "ten quick calls took {elapsed:?}: the batch waited for a busy worker thread"
    );
    for blocker in blockers {
        blocker.await.unwrap();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn waiting_calls_of_a_batch_all_wait_together() {
    let registry = Registry::new();
    registry.register::<wait>().unwrap();
    let calls = (0..40)
        .map(|_| ToolCall::new("wait", json!({ "millis": 100 })))
        .collect();
    let started = Instant::now();
    let results = registry.call_batch(calls).await;
    let elapsed = started.elapsed();
    assert!(results.iter().all(|result| result.text() == "waited"));
    assert!(
        elapsed < Duration::from_secs(2),
        "forty calls waiting 100 ms each took {elapsed:?}: they waited one after another"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_batch_dropped_half_way_records_each_call_it_started_as_cancelled() {
    let registry = Registry::new();
    registry.register::<wait>().unwrap();
    let results: Arc<Mutex<Vec<Arc<ToolResult>>>> = Arc::default();
    let seen = Arc::clone(&results);
    let _subscription = registry.subscribe(move |event: &Event| {
        if let Event::Result(result) = event {
            seen.lock().unwrap().push(Arc::clone(result));
        }
    });
    let calls = (0..6)
        .map(|_| ToolCall::new("wait", json!({ "millis": 60_000 })))
        .collect();
    let batch = registry.call_batch(calls);
    assert!(
        tokio::time::timeout(Duration::from_millis(300), batch)
            .await
            .is_err(),
        "calls of a minute finished"
    );
    // A helper's calls are dropped once its aborted task is: soon after.
    let deadline = Instant::now() + Duration::from_secs(5);
    while results.lock().unwrap().len() < 6 && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let results = results.lock().unwrap();
    assert_eq!(results.len(), 6, "each started call has its result");
    assert!(
        results
            .iter()
            .all(|result| result.status() == Status::Cancelled),
        "{results:?}"
    );
}

static RUNNING: AtomicUsize = AtomicUsize::new(0);
static MAX_RUNNING: AtomicUsize = AtomicUsize::new(0);

/// Sleeps 50 ms, counting how many calls overlap.
#[tool]
async fn exclusive(
    /// A label
    label: String,
) -> String {
    let now = RUNNING.fetch_add(1, Ordering::SeqCst) + 1;
    MAX_RUNNING.fetch_max(now, Ordering::SeqCst);
    tokio::time::sleep(Duration::from_millis(50)).await;
    RUNNING.fetch_sub(1, Ordering::SeqCst);
    label
}

#[tokio::test]
async fn a_batch_runs_safe_calls_together_and_unsafe_ones_alone_in_order() {
    let registry = Registry::new();
    registry.register::<wait>().unwrap();
    registry.register::<exclusive>().unwrap();

    let started = Instant::now();
    let calls = (0..5)
        .map(|_| ToolCall::new("wait", json!({ "millis": 40 })))
        .collect();
    let results = registry.call_batch(calls).await;
    let elapsed = started.elapsed();
    assert!(results.iter().all(|r| r.text() == "waited"));
    assert!(
        elapsed < Duration::from_millis(40 * 5),
        "five 40 ms calls took {elapsed:?}: they did not run in parallel"
    );
    let group = results[0].parallel_group_id.unwrap();
    assert!(results.iter().all(|r| r.parallel_group_id == Some(group)));

    let calls = vec![
        ToolCall::new("exclusive", json!({ "label": "a" })),
        ToolCall::new("wait", json!({ "millis": 10 })),
        ToolCall::new("exclusive", json!({ "label": "b" })),
        ToolCall::new("exclusive", json!({ "label": "c" })),
        ToolCall::new("nope", json!({})),
    ];
    let results = registry.call_batch(calls).await;
    let texts: Vec<String> = results.iter().map(|r| r.text()).collect();
    assert_eq!(texts, ["a", "waited", "b", "c", "no tool named `nope`"]);
    assert_eq!(
        MAX_RUNNING.load(Ordering::SeqCst),
        1,
        "unsafe calls overlapped"
    );
}

/// The handle of the tool `retire` unregisters.
type Retiring = Arc<Mutex<Option<dsh_kit::ToolHandle>>>;

/// Unregisters the tool whose handle the state holds.
#[tool(concurrency_safe)]
async fn retire(exec: &Exec) -> Result<String, ToolError> {
    let handle = exec.state::<Retiring>()?.lock().unwrap().take();
    Ok(handle.is_some_and(|handle| handle.unregister()).to_string())
}

#[tokio::test]
async fn a_run_of_safe_calls_runs_the_tools_there_were_when_it_started() {
    let retiring = Retiring::default();
    let registry = Registry::builder().state(Arc::clone(&retiring)).build();
    registry.register::<retire>().unwrap();
    *retiring.lock().unwrap() = Some(registry.register::<quick>().unwrap());
    // `retire` runs first and takes `quick` out of the pool; the run's
    // other call still runs it, as the run found it.
    let calls = vec![
        ToolCall::new("retire", json!({})),
        ToolCall::new("quick", json!({ "number": 7 })),
    ];
    let texts: Vec<String> = registry
        .call_batch(calls)
        .await
        .iter()
        .map(ToolResult::text)
        .collect();
    assert_eq!(texts, ["true", "7"]);
    // A later batch finds it gone.
    let results = registry
        .call_batch(vec![ToolCall::new("quick", json!({ "number": 7 }))])
        .await;
    assert!(results[0].is_error(), "{}", results[0].text());
}
