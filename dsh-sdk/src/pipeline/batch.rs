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
                // A child token is cancelled with the batch; a call with a
                // token of its own watches both.
                match &call.cancel {
                    None => call.cancel = Some(cancel.child_token()),
                    Some(_) => call.batch_cancel = Some(cancel.clone()),
                }
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

    /// Runs concurrency-safe calls at once: each a task of its own on a
    /// multi-threaded tokio runtime, so they spread over its threads;
    /// otherwise polled together on this task.
    async fn call_parallel(&self, calls: Vec<ToolCall>) -> Vec<ToolResult> {
        let runtime = Handle::try_current()
            .ok()
            .filter(|runtime| runtime.runtime_flavor() == RuntimeFlavor::MultiThread);
        let Some(runtime) = runtime.filter(|_| calls.len() > 1) else {
            return join_all(calls.into_iter().map(|call| self.call_with(call))).await;
        };
        let tasks: Vec<Task> = calls
            .into_iter()
            .map(|call| {
                let name = call.name.clone();
                let ids = (call.invocation_id, call.parallel_group_id);
                let registry = self.clone();
                let running = runtime.spawn(async move { registry.call_with(call).await });
                Task { running, name, ids }
            })
            .collect();
        let mut results = Vec::with_capacity(tasks.len());
        for mut task in tasks {
            let result = match (&mut task.running).await {
                Ok(result) => result,
                // A call contains its own panics; a task that failed all the
                // same gets the result of a call that panicked.
                Err(error) => super::stopped(&task.name, task.ids, |tool| Stop::CallPanicked {
                    tool,
                    message: error.to_string(),
                }),
            };
            results.push(result);
        }
        results
    }
}

/// One spawned call, aborted when dropped: a batch dropped before it
/// finished drops its calls, as a batch polled in place would.
struct Task {
    running: JoinHandle<ToolResult>,
    name: Arc<str>,
    ids: (Uuid, Option<Uuid>),
}

impl Drop for Task {
    fn drop(&mut self) {
        self.running.abort();
    }
}
