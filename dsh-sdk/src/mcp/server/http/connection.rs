//! Keeping HTTP/1 connections honest with their clients: hyper times a
//! connection waiting for its next request with its header read timeout;
//! [`Activity`] splits the two, so an idle kept-alive connection stays open
//! longer than clients keep theirs (a client that closes first never races
//! the server's close), while a request's headers still must arrive
//! promptly once they start.

use std::io;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::response::Response;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::time::Instant;

use crate::mcp::server::http::body;

/// What one connection is doing, for its timeouts.
///
/// Nothing wakes the connection's timer when the connection changes phase:
/// a request costs no wake-up and no timer re-armed. The timer looks at
/// the phase at least every header read timeout instead, which is soon
/// enough for both deadlines (see [`Activity::expired`]).
#[derive(Debug)]
pub(crate) struct Activity {
    phase: Mutex<Phase>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Waiting for a request, since then, no byte of it arrived yet.
    Idle(Instant),
    /// A request's first bytes arrived then; its headers are awaited.
    Head(Instant),
    /// This many requests are being answered.
    Busy(usize),
}

/// Why a connection's timer ran out.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Expired {
    /// No request came within the keep-alive timeout: close it gracefully.
    Idle,
    /// A request's headers did not arrive within the header read timeout.
    Head,
}

impl Activity {
    pub(crate) fn new() -> Arc<Self> {
        Arc::new(Activity {
            phase: Mutex::new(Phase::Idle(Instant::now())),
        })
    }

    fn update(&self, change: impl FnOnce(Phase) -> Phase) {
        let mut phase = self.phase.lock().unwrap_or_else(PoisonError::into_inner);
        *phase = change(*phase);
    }

    fn phase(&self) -> Phase {
        *self.phase.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Bytes arrived on the connection.
    fn read(&self) {
        self.update(|phase| match phase {
            Phase::Idle(_) => Phase::Head(Instant::now()),
            other => other,
        });
    }

    /// A request's headers arrived; it is being answered until the
    /// returned guard drops (with its response's body).
    pub(crate) fn begin(self: &Arc<Self>) -> Answering {
        self.update(|phase| match phase {
            Phase::Busy(requests) => Phase::Busy(requests + 1),
            Phase::Idle(_) | Phase::Head(_) => Phase::Busy(1),
        });
        Answering(Arc::clone(self))
    }

    /// Waits until the connection's timer runs out: `keep_alive` after its
    /// last answer with no byte since, or `header_read` after a request's
    /// first byte with its headers not yet in.
    ///
    /// Unwoken by the connection, it looks at the phase at its deadline,
    /// and at least every `header_read` (the shorter timeout of the two,
    /// as hosts set them). That is soon enough for both: a request whose
    /// first byte came at `t` is seen by `t + header_read` at the latest,
    /// its deadline; and a connection idle since `t` is seen idle again
    /// by `t + keep_alive`, when it is closed, as its phase only ever moves
    /// its deadline later, never closer, but for a first byte.
    pub(crate) async fn expired(&self, keep_alive: Duration, header_read: Duration) -> Expired {
        let look = keep_alive.min(header_read);
        loop {
            let now = Instant::now();
            let (deadline, expired) = match self.phase() {
                Phase::Idle(since) => (since.checked_add(keep_alive), Expired::Idle),
                Phase::Head(since) => (since.checked_add(header_read), Expired::Head),
                Phase::Busy(_) => (None, Expired::Idle),
            };
            if let Some(deadline) = deadline
                && deadline <= now
            {
                return expired;
            }
            // A timeout too long to name an instant never runs out, but
            // the phase is still looked at again.
            let next = now.checked_add(look);
            let wake = match (deadline, next) {
                (Some(deadline), Some(next)) => deadline.min(next),
                (Some(at), None) | (None, Some(at)) => at,
                (None, None) => return std::future::pending().await,
            };
            tokio::time::sleep_until(wake).await;
        }
    }
}

/// A request being answered; dropped when its response's body is done.
#[derive(Debug)]
pub(crate) struct Answering(Arc<Activity>);

impl Drop for Answering {
    fn drop(&mut self) {
        self.0.update(|phase| match phase {
            Phase::Busy(requests) if requests > 1 => Phase::Busy(requests - 1),
            _ => Phase::Idle(Instant::now()),
        });
    }
}

pin_project_lite::pin_project! {
    /// A connection's socket that tells its [`Activity`] when bytes arrive.
    pub(crate) struct Watched<S> {
        #[pin]
        io: S,
        activity: Arc<Activity>,
    }
}

impl<S> Watched<S> {
    pub(crate) fn new(io: S, activity: Arc<Activity>) -> Self {
        Watched { io, activity }
    }
}

impl<S: AsyncRead> AsyncRead for Watched<S> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.project();
        let before = buf.filled().len();
        let polled = this.io.poll_read(cx, buf);
        if buf.filled().len() > before {
            this.activity.read();
        }
        polled
    }
}

impl<S: AsyncWrite> AsyncWrite for Watched<S> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        self.project().io.poll_write(cx, buf)
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.project().io.poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.project().io.poll_shutdown(cx)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        self.project().io.poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.io.is_write_vectored()
    }
}

/// `response`, its request counted as being answered until its body ends.
pub(crate) fn answering(response: Response, answering: Answering) -> Response {
    response.map(|body| body::holding(body, answering))
}
