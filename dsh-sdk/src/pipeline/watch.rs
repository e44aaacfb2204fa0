//! [`Watch`]: the tokens that cancel a call from outside (the host's own
//! for the call, and its batch's), watched while the call runs.
//!
//! The tokens are read before the call is polled, so a cancelled call ends
//! at once; a waiter on them is set only once the call has had to wait.
//! Setting one locks the token, and every call of a batch shares the
//! batch's: a call that finishes on its first poll, as most do, never
//! takes that lock.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use tokio_util::sync::CancellationToken;

use super::call::ToolCall;

/// The tokens one call watches, and its waiter once it has one.
pub(super) struct Watch {
    own: Option<CancellationToken>,
    batch: Option<CancellationToken>,
    /// Resolves when either token is cancelled; set on the first wait.
    waiting: Option<Pin<Box<dyn Future<Output = ()> + Send>>>,
}

impl Watch {
    /// The tokens of `call`, if anything outside can cancel it. Boxed: a
    /// call nobody can cancel does not carry their space.
    pub(super) fn of(call: &ToolCall) -> Option<Box<Watch>> {
        if call.cancel.is_none() && call.batch_cancel.is_none() {
            return None;
        }
        Some(Box::new(Watch {
            own: call.cancel.clone(),
            batch: call.batch_cancel.clone(),
            waiting: None,
        }))
    }

    /// Whether the call is cancelled now. A cancelled batch cancels the
    /// call's own token too, for whoever else holds it.
    pub(super) fn cancelled(&self) -> bool {
        if self
            .own
            .as_ref()
            .is_some_and(CancellationToken::is_cancelled)
        {
            return true;
        }
        if !self
            .batch
            .as_ref()
            .is_some_and(CancellationToken::is_cancelled)
        {
            return false;
        }
        if let Some(own) = &self.own {
            own.cancel();
        }
        true
    }

    /// Ready once the call is cancelled; pending, with the task woken on a
    /// cancellation, otherwise.
    pub(super) fn poll_cancelled(&mut self, cx: &mut Context<'_>) -> Poll<()> {
        if self.cancelled() {
            return Poll::Ready(());
        }
        let waiting = self.waiting.get_or_insert_with(|| {
            let (own, batch) = (self.own.clone(), self.batch.clone());
            Box::pin(async move {
                tokio::select! {
                    () = until_cancelled(own.as_ref()) => {}
                    () = until_cancelled(batch.as_ref()) => {}
                }
            })
        });
        std::task::ready!(waiting.as_mut().poll(cx));
        self.cancelled();
        Poll::Ready(())
    }
}

/// Resolves when `token` is cancelled; never without one.
async fn until_cancelled(token: Option<&CancellationToken>) {
    match token {
        Some(token) => token.cancelled().await,
        None => std::future::pending().await,
    }
}
