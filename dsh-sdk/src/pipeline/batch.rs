//! Batches: the calls of one model turn, the concurrency-safe ones at once.

use std::sync::Arc;

use futures_util::future::join_all;
use tokio::runtime::{Handle, RuntimeFlavor};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;
use uuid::Uuid;

use super::{Stop, ToolCall};
use crate::registry::Registry;
use crate::result::ToolResult;

impl Registry {
    /// Calls the tools of one model turn. Runs of consecutive
    /// concurrency-safe calls run in parallel; every other call runs alone,
    /// in request order. Results come back in request order, sharing one
    /// `parallel_group_id`.
    pub async fn call_batch(&self, calls: Vec<ToolCall>) -> Vec<ToolResult> {
        self.call_batch_with(calls, CancellationToken::new()).await
    }

    /// [`call_batch`](Self::call_batch), cancelling every call still running
    /// when `cancel` is cancelled.
    pub async fn call_batch_with(
        &self,
        calls: Vec<ToolCall>,
        cancel: CancellationToken,
    ) -> Vec<ToolResult> {
        let group = Uuid::new_v4();
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
        for call in calls {
            let safe = self
                .entry(&call.name)
                .is_none_or(|entry| entry.def.is_concurrency_safe());
            if safe {
                parallel.push(call);
                continue;
            }
            results.extend(self.call_parallel(std::mem::take(&mut parallel)).await);
            results.push(self.call_with(call).await);
        }
        results.extend(self.call_parallel(parallel).await);
        results
    }

    /// Runs concurrency-safe calls at once. On a multi-threaded tokio
    /// runtime they are cut into as many runs as it has worker threads: the
    /// first runs on this task, each other one on a task of its own, so they
    /// spread over its threads; otherwise they are polled together on this
    /// task. A task per run rather than
    /// per call: a call takes about as long as spawning a task, and every
    /// spawn goes through the runtime's shared queue.
    async fn call_parallel(&self, calls: Vec<ToolCall>) -> Vec<ToolResult> {
        let workers = Handle::try_current()
            .ok()
            .filter(|runtime| runtime.runtime_flavor() == RuntimeFlavor::MultiThread)
            .map(|runtime| (runtime.metrics().num_workers(), runtime));
        let Some((workers, runtime)) =
            workers.filter(|(workers, _)| *workers > 1 && calls.len() > 1)
        else {
            return join_all(calls.into_iter().map(|call| self.call_with(call))).await;
        };
        let per_task = calls.len().div_ceil(workers);
        let mut calls = calls.into_iter().peekable();
        // The first run stays on this task, which would otherwise only wait.
        let here: Vec<ToolCall> = calls.by_ref().take(per_task).collect();
        let mut tasks: Vec<Task> = Vec::with_capacity(workers);
        while calls.peek().is_some() {
            let run: Vec<ToolCall> = calls.by_ref().take(per_task).collect();
            let shown = run
                .iter()
                .map(|call| {
                    (
                        call.name.clone(),
                        (call.invocation_id, call.parallel_group_id),
                    )
                })
                .collect();
            let registry = self.clone();
            let running = runtime.spawn(async move {
                join_all(run.into_iter().map(|call| registry.call_with(call))).await
            });
            tasks.push(Task { running, shown });
        }
        let mut results = join_all(here.into_iter().map(|call| self.call_with(call))).await;
        results.reserve(tasks.iter().map(|task| task.shown.len()).sum());
        for mut task in tasks {
            match (&mut task.running).await {
                Ok(run) => results.extend(run),
                // A call contains its own panics; a task that failed all the
                // same gives each of its calls the result of a call that
                // panicked.
                Err(error) => results.extend(task.shown.iter().map(|(name, ids)| {
                    super::stopped(name, *ids, |tool| Stop::CallPanicked {
                        tool,
                        message: error.to_string(),
                    })
                })),
            }
        }
        results
    }
}

/// One spawned run of calls, aborted when dropped: a batch dropped before
/// it finished drops its calls, as a batch polled in place would.
struct Task {
    running: JoinHandle<Vec<ToolResult>>,
    /// Each call's name and ids, for the results of a task that failed.
    shown: Vec<(Arc<str>, CallIds)>,
}

/// A call's invocation id and batch.
type CallIds = (Uuid, Option<Uuid>);

impl Drop for Task {
    fn drop(&mut self) {
        self.running.abort();
    }
}
