//! Batches: the calls of one model turn, the concurrency-safe ones at once.
//!
//! On a multi-threaded tokio runtime, a run of concurrency-safe calls is
//! shared out as it goes rather than cut up front: the batch's own task and
//! a helper task per other worker thread each take the next call not yet
//! started whenever all of theirs are waiting, so a tool that keeps a core
//! busy spreads over the cores, calls that wait on I/O all wait together,
//! and a batch of calls shorter than a thread's wake-up is not held up by a
//! helper that has yet to wake: the batch's task takes what nobody else did.

use std::future::poll_fn;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll};

use futures_util::future::join_all;
use futures_util::stream::{FuturesUnordered, StreamExt};
use futures_util::task::AtomicWaker;
use tokio::runtime::{Handle, RuntimeFlavor};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;
use uuid::Uuid;

use super::Pipeline;
use super::{CallName, Resolved, Stop, ToolCall};
use crate::value::id::new_id;
use crate::value::result::ToolResult;

impl Pipeline {
    /// Calls the tools of one model turn ([`Registry::call_batch`](crate::Registry::call_batch)),
    /// cancelling every call still running when `cancel` is cancelled.
    pub(crate) async fn call_batch(
        self: &Arc<Self>,
        calls: Vec<ToolCall>,
        cancel: CancellationToken,
    ) -> Vec<ToolResult> {
        let group = new_id();
        let calls: Vec<ToolCall> = calls
            .into_iter()
            .map(|mut call| {
                call.parallel_group_id = Some(group);
                // Every call watches the batch's token; its tool's own token,
                // made only if the tool asks for one, is the batch's child.
                // No child is made up front: making and dropping one locks
                // the batch's token, which every call of the batch shares.
                call.batch_cancel = Some(cancel.clone());
                call
            })
            .collect();
        let mut results = Vec::with_capacity(calls.len());
        let mut parallel: Vec<ToolCall> = Vec::new();
        for mut call in calls {
            let entry = self.pool.entry(&call.name);
            // A name no tool has may run beside others: its call only fails.
            if entry
                .as_ref()
                .is_none_or(|entry| entry.def.concurrency_safe())
            {
                // Looked up here, once: the calls of a run start together,
                // and none of them takes the registry's lock again.
                call.resolved = entry.map(Resolved);
                parallel.push(call);
                continue;
            }
            results.extend(self.call_parallel(std::mem::take(&mut parallel)).await);
            // Alone and in order: looked up when its turn comes, after the
            // calls before it.
            results.push(self.call_with(call).await);
        }
        results.extend(self.call_parallel(parallel).await);
        results
    }

    /// Runs concurrency-safe calls at once: shared out between this task
    /// and a helper task per other worker thread on a multi-threaded tokio
    /// runtime (see the module's docs), polled together on this task
    /// otherwise.
    async fn call_parallel(self: &Arc<Self>, calls: Vec<ToolCall>) -> Vec<ToolResult> {
        let runtime = Handle::try_current()
            .ok()
            .filter(|runtime| runtime.runtime_flavor() == RuntimeFlavor::MultiThread);
        let helpers = runtime.as_ref().map_or(0, |runtime| {
            let workers = runtime.metrics().num_workers();
            workers.saturating_sub(1).min(calls.len().saturating_sub(1))
        });
        let Some(runtime) = runtime.filter(|_| helpers > 0) else {
            return join_all(calls.into_iter().map(|call| self.call_with(call))).await;
        };
        let run = Arc::new(Run::new(calls));
        let mut helpers: Vec<Helper> = (0..helpers)
            .map(|index| {
                let pipeline = Arc::clone(self);
                let shared = Arc::clone(&run);
                let taker = index + 1;
                let running = runtime.spawn(async move {
                    let mut mine = FuturesUnordered::new();
                    poll_fn(|cx| shared.work(&pipeline, taker, &mut mine, cx)).await;
                });
                Helper {
                    taker,
                    running: Some(running),
                }
            })
            .collect();
        let mut mine = FuturesUnordered::new();
        poll_fn(|cx| {
            // The batch's own calls wake this task as they progress; the
            // helpers, as they finish theirs.
            let _ = run.work(self, 0, &mut mine, cx);
            run.gathered(&mut helpers, cx)
        })
        .await;
        drop(mine);
        // Every call finished: a helper still running has nothing left.
        drop(helpers);
        run.results()
    }
}

/// A call of a run, with its place in the run.
type Started<'a> = Pin<Box<dyn Future<Output = (usize, ToolResult)> + Send + 'a>>;

/// One run of concurrency-safe calls, shared by the tasks that run them.
struct Run {
    /// Each call, until a task takes it, and its result.
    slots: Vec<Mutex<Slot>>,
    /// The place of the next call nobody took yet.
    next: AtomicUsize,
    /// How many calls have their result.
    finished: AtomicUsize,
    /// The batch's own task, woken as a helper finishes a call.
    gatherer: AtomicWaker,
}

/// One call of a run.
struct Slot {
    /// The call, until a task takes it.
    call: Option<ToolCall>,
    /// The call's name and ids, for its result should the task that took
    /// it stop before it finished.
    shown: (CallName, CallIds),
    /// The task that took it: 0 for the batch's own, n for helper n.
    taker: usize,
    result: Option<ToolResult>,
}

impl Run {
    fn new(calls: Vec<ToolCall>) -> Self {
        let slots = calls
            .into_iter()
            .map(|call| {
                Mutex::new(Slot {
                    shown: (
                        call.name.clone(),
                        (call.invocation_id, call.parallel_group_id),
                    ),
                    call: Some(call),
                    taker: 0,
                    result: None,
                })
            })
            .collect();
        Run {
            slots,
            next: AtomicUsize::new(0),
            finished: AtomicUsize::new(0),
            gatherer: AtomicWaker::new(),
        }
    }

    /// Runs calls for the task `taker`: polls the ones it took, and takes
    /// the next one not yet started whenever they all wait. Ready once it
    /// has none left and there is none to take.
    fn work<'a>(
        &self,
        pipeline: &'a Pipeline,
        taker: usize,
        mine: &mut FuturesUnordered<Started<'a>>,
        cx: &mut Context<'_>,
    ) -> Poll<()> {
        loop {
            while let Poll::Ready(Some((index, result))) = mine.poll_next_unpin(cx) {
                self.finish(index, result, taker);
            }
            let Some((index, call)) = self.take(taker) else {
                break;
            };
            let call = pipeline.call_with(call);
            mine.push(Box::pin(async move { (index, call.await) }));
        }
        if mine.is_empty() {
            Poll::Ready(())
        } else {
            Poll::Pending
        }
    }

    /// The next call nobody took yet, marked as `taker`'s.
    fn take(&self, taker: usize) -> Option<(usize, ToolCall)> {
        // Read first: once every call is taken, tasks that look again
        // write nothing the others read.
        if self.next.load(Ordering::Relaxed) >= self.slots.len() {
            return None;
        }
        let index = self.next.fetch_add(1, Ordering::Relaxed);
        let mut slot = lock(self.slots.get(index)?);
        slot.taker = taker;
        Some((index, slot.call.take()?))
    }

    /// Records the result of call `index`, and wakes the batch's task when
    /// a helper finished it.
    fn finish(&self, index: usize, result: ToolResult, taker: usize) {
        if let Some(slot) = self.slots.get(index) {
            lock(slot).result = Some(result);
        }
        self.finished.fetch_add(1, Ordering::AcqRel);
        if taker != 0 {
            self.gatherer.wake();
        }
    }

    fn all_finished(&self) -> bool {
        self.finished.load(Ordering::Acquire) >= self.slots.len()
    }

    /// Ready once every call has its result. A helper that stopped before
    /// its calls finished (its task aborted, the runtime shut down) gives
    /// each of them the result of a call that panicked.
    fn gathered(&self, helpers: &mut [Helper], cx: &mut Context<'_>) -> Poll<()> {
        if self.all_finished() {
            return Poll::Ready(());
        }
        self.gatherer.register(cx.waker());
        for helper in helpers.iter_mut() {
            let Some(running) = &mut helper.running else {
                continue;
            };
            if let Poll::Ready(ended) = Pin::new(running).poll(cx) {
                helper.running = None;
                if let Err(error) = ended {
                    self.fail_taken_by(helper.taker, &error);
                }
            }
        }
        if self.all_finished() {
            Poll::Ready(())
        } else {
            Poll::Pending
        }
    }

    /// Gives each call `taker` took and did not finish the result of a
    /// call that panicked, with `error`.
    fn fail_taken_by(&self, taker: usize, error: &tokio::task::JoinError) {
        for slot in &self.slots {
            let mut slot = lock(slot);
            if slot.taker == taker && slot.call.is_none() && slot.result.is_none() {
                slot.result = Some(failed(&slot.shown, error.to_string()));
                self.finished.fetch_add(1, Ordering::AcqRel);
            }
        }
    }

    /// Every result, in the calls' order, taken out.
    fn results(&self) -> Vec<ToolResult> {
        (self.slots.iter())
            .map(|slot| {
                let mut slot = lock(slot);
                let result = slot.result.take();
                // Never without one once gathered; said plainly if it were.
                result.unwrap_or_else(|| failed(&slot.shown, "the call was never run".to_owned()))
            })
            .collect()
    }
}

/// The result of the call `shown`, whose task stopped with `message`.
fn failed((name, ids): &(CallName, CallIds), message: String) -> ToolResult {
    super::stopped(name, *ids, |tool| Stop::CallPanicked { tool, message })
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A helper task of a run, aborted when dropped unfinished: a batch
/// dropped before it finished drops its calls, as a batch polled in place
/// would.
struct Helper {
    /// Its number among the run's tasks.
    taker: usize,
    /// Until it ended.
    running: Option<JoinHandle<()>>,
}

impl Drop for Helper {
    fn drop(&mut self) {
        if let Some(running) = &self.running {
            running.abort();
        }
    }
}

/// A call's invocation id and batch.
type CallIds = (Uuid, Option<Uuid>);
