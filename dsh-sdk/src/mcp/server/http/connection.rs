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
        // Not more often than every millisecond, whatever the timeouts.
        let look = keep_alive.min(header_read).max(Duration::from_millis(1));
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

#[cfg(test)]
mod tests {
    use super::*;

    const KEEP_ALIVE: Duration = Duration::from_secs(30);

    /// A request's first byte, coming while the timer sleeps toward the
    /// (much later) keep-alive deadline, is timed by the header read
    /// timeout from that byte on.
    #[tokio::test]
    async fn a_request_started_while_idle_is_timed_by_the_header_read_timeout() {
        let activity = Activity::new();
        let header_read = Duration::from_millis(200);
        let started = Instant::now();
        let expired = activity.expired(KEEP_ALIVE, header_read);
        let first_byte = async {
            tokio::time::sleep(Duration::from_millis(100)).await;
            activity.read();
            std::future::pending::<()>().await;
        };
        let expired = tokio::select! {
            expired = expired => expired,
            () = first_byte => unreachable!("it never ends"),
        };
        assert_eq!(expired, Expired::Head);
        let after = started.elapsed();
        assert!(
            after >= Duration::from_millis(300),
            "closed {after:?} after start"
        );
        assert!(
            after < KEEP_ALIVE,
            "closed at the keep-alive deadline, {after:?}"
        );
    }

    /// A connection answering a request never runs out; once answered, it
    /// is closed when idle for the keep-alive timeout.
    #[tokio::test]
    async fn a_busy_connection_runs_out_only_once_idle() {
        let activity = Activity::new();
        let keep_alive = Duration::from_millis(100);
        let header_read = Duration::from_millis(50);
        let answering = activity.begin();
        let waited = tokio::time::timeout(
            Duration::from_millis(400),
            activity.expired(keep_alive, header_read),
        )
        .await;
        assert!(waited.is_err(), "a busy connection ran out: {waited:?}");
        drop(answering);
        let idle_since = Instant::now();
        let expired = tokio::time::timeout(
            Duration::from_secs(10),
            activity.expired(keep_alive, header_read),
        )
        .await
        .expect("an idle connection runs out");
        assert_eq!(expired, Expired::Idle);
        assert!(idle_since.elapsed() >= keep_alive);
    }

    /// A header read timeout of zero closes a connection whose request
    /// started, and leaves an idle one to its keep-alive timeout.
    #[tokio::test]
    async fn a_zero_header_read_timeout_closes_a_started_request_at_once() {
        let activity = Activity::new();
        let idle = tokio::time::timeout(
            Duration::from_millis(100),
            activity.expired(KEEP_ALIVE, Duration::ZERO),
        )
        .await;
        assert!(idle.is_err(), "an idle connection ran out: {idle:?}");
        activity.read();
        let expired = tokio::time::timeout(
            Duration::from_secs(10),
            activity.expired(KEEP_ALIVE, Duration::ZERO),
        )
        .await
        .expect("a started request runs out");
        assert_eq!(expired, Expired::Head);
    }
}
