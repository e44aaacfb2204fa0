//! [`PageApprover`]: approvals answered by a person in the playground page.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use futures_util::future::BoxFuture;
use serde::Serialize;
use serde_json::Value;
use tokio::sync::{oneshot, watch};
use uuid::Uuid;

use crate::permission::{Approval, ApprovalRequest, Approver};
use crate::value::principal::Caller;

/// How long a call waits for an answer by default.
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(300);

/// An [`Approver`] that parks each call that asks until someone answers in
/// the playground page, or rejects it when no one has within its timeout.
///
/// Build the registry with it, and give the same approver to the
/// [`Playground`](super::Playground), which shows the waiting calls:
///
/// ```
/// use dsh_kit::playground::PageApprover;
/// use dsh_kit::Registry;
/// use std::time::Duration;
///
/// let approver = PageApprover::with_timeout(Duration::from_secs(60));
/// let registry = Registry::builder().approver(approver.clone()).build();
/// assert!(approver.pending().is_empty());
/// # drop(registry);
/// ```
#[derive(Clone)]
pub struct PageApprover {
    inner: Arc<Inner>,
}

struct Inner {
    pending: Mutex<BTreeMap<u64, Parked>>,
    next_id: AtomicU64,
    timeout: Duration,
    /// Bumped whenever a call starts or stops waiting.
    changed: watch::Sender<u64>,
}

struct Parked {
    request: PendingApproval,
    answer: oneshot::Sender<Approval>,
}

/// A call waiting for an answer, as the page shows it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PendingApproval {
    /// What [`PageApprover::answer`] takes.
    pub id: u64,
    /// The call's id.
    pub invocation_id: Uuid,
    /// The tool's canonical name.
    pub tool: String,
    /// The arguments the call would run with.
    pub args: Value,
    /// The question.
    pub prompt: String,
    /// Who asks, without the token's claims; `None` for the host.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub principal: Option<Caller>,
}

impl PageApprover {
    /// An approver whose calls wait up to five minutes for an answer.
    pub fn new() -> Self {
        PageApprover::with_timeout(DEFAULT_TIMEOUT)
    }

    /// An approver whose calls wait up to `timeout` for an answer before
    /// they are rejected.
    pub fn with_timeout(timeout: Duration) -> Self {
        PageApprover {
            inner: Arc::new(Inner {
                pending: Mutex::default(),
                next_id: AtomicU64::new(1),
                timeout,
                changed: watch::Sender::new(0),
            }),
        }
    }

    /// The calls waiting for an answer, oldest first.
    pub fn pending(&self) -> Vec<PendingApproval> {
        self.lock()
            .values()
            .map(|parked| parked.request.clone())
            .collect()
    }

    /// Answers the waiting call `id`; `false` when no call waits under that
    /// id (answered already, or timed out).
    pub fn answer(&self, id: u64, approval: Approval) -> bool {
        let parked = self.lock().remove(&id);
        let Some(parked) = parked else {
            return false;
        };
        self.bump();
        parked.answer.send(approval).is_ok()
    }

    /// A receiver marked changed whenever a call starts or stops waiting.
    pub(crate) fn watch(&self) -> watch::Receiver<u64> {
        self.inner.changed.subscribe()
    }

    fn lock(&self) -> MutexGuard<'_, BTreeMap<u64, Parked>> {
        self.inner
            .pending
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    fn bump(&self) {
        self.inner.changed.send_modify(|count| *count += 1);
    }
}

impl Default for PageApprover {
    fn default() -> Self {
        PageApprover::new()
    }
}

impl fmt::Debug for PageApprover {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PageApprover")
            .field("timeout", &self.inner.timeout)
            .field("pending", &self.lock().len())
            .finish()
    }
}

/// Takes a call off the waiting list however its wait ends (answered,
/// timed out, or the call dropped).
struct Unpark<'a> {
    approver: &'a PageApprover,
    id: u64,
}

impl Drop for Unpark<'_> {
    fn drop(&mut self) {
        if self.approver.lock().remove(&self.id).is_some() {
            self.approver.bump();
        }
    }
}

impl Approver for PageApprover {
    fn approve<'a>(&'a self, request: ApprovalRequest<'a>) -> BoxFuture<'a, Approval> {
        Box::pin(async move {
            let id = self.inner.next_id.fetch_add(1, Ordering::Relaxed);
            let (answer, answered) = oneshot::channel();
            let parked = Parked {
                request: PendingApproval {
                    id,
                    invocation_id: request.invocation_id,
                    tool: request.tool.to_owned(),
                    args: request.args.clone(),
                    prompt: request.prompt.to_owned(),
                    principal: Caller::of(request.principal),
                },
                answer,
            };
            self.lock().insert(id, parked);
            let _unpark = Unpark { approver: self, id };
            self.bump();
            let timeout = self.inner.timeout;
            match tokio::time::timeout(timeout, answered).await {
                Ok(Ok(approval)) => approval,
                Ok(Err(_)) => Approval::Reject {
                    reason: "the playground stopped before anyone answered".to_owned(),
                },
                Err(_) => Approval::Reject {
                    reason: format!("no one answered in the playground within {timeout:?}"),
                },
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures_util::FutureExt;
    use serde_json::json;

    fn request<'a>(args: &'a Value) -> ApprovalRequest<'a> {
        ApprovalRequest {
            tool: "bash",
            args,
            prompt: "`bash` may destroy data: allow it?",
            invocation_id: Uuid::nil(),
            principal: crate::value::principal::Principal::shared_host(),
            // A test's context lives as long as the test process.
            exec: Box::leak(Box::new(crate::Exec::new("bash"))),
        }
    }

    #[tokio::test]
    async fn a_parked_call_waits_for_its_answer() {
        let approver = PageApprover::new();
        let args = json!({ "command": "ls" });
        let mut waiting = approver.approve(request(&args));
        assert!((&mut waiting).now_or_never().is_none());
        let pending = approver.pending();
        assert_eq!(pending.len(), 1);
        assert_eq!(pending[0].tool, "bash");
        assert_eq!(pending[0].args, args);
        assert!(approver.answer(pending[0].id, Approval::Approve));
        assert_eq!(waiting.await, Approval::Approve);
        assert!(approver.pending().is_empty());
        assert!(!approver.answer(pending[0].id, Approval::Approve));
    }

    #[tokio::test]
    async fn no_answer_in_time_rejects() {
        let approver = PageApprover::with_timeout(Duration::from_millis(20));
        let args = json!({});
        let Approval::Reject { reason } = approver.approve(request(&args)).await else {
            panic!("a call no one answered ran");
        };
        assert_eq!(reason, "no one answered in the playground within 20ms");
        assert!(approver.pending().is_empty());
    }

    #[tokio::test]
    async fn a_dropped_call_stops_waiting() {
        let approver = PageApprover::new();
        let args = json!({});
        let mut waiting = approver.approve(request(&args));
        assert!((&mut waiting).now_or_never().is_none());
        assert_eq!(approver.pending().len(), 1);
        drop(waiting);
        assert!(approver.pending().is_empty());
    }
}
