//! Timing in alternating batches, shared by the benches that compare runs
//! side by side: each side timed in turn, so all see the same machine.

use std::time::{Duration, Instant};

/// How many batches each side runs.
pub const BATCHES: usize = 31;
/// How many calls one batch makes.
pub const BATCH: usize = 2_000;

/// The time `BATCH` calls of `call` take.
pub async fn time_batch<F, Fut>(call: F) -> Duration
where
    F: Fn() -> Fut,
    Fut: Future<Output = ()>,
{
    let started = Instant::now();
    for _ in 0..BATCH {
        call().await;
    }
    started.elapsed()
}

/// The median of `samples`.
pub fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

/// Nanoseconds per call of a batch.
pub fn per_call(batch: Duration) -> f64 {
    batch.as_nanos() as f64 / BATCH as f64
}
