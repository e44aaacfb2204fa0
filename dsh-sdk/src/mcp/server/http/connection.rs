//! Keeping HTTP/1 connections honest with their clients.
//!
//! A response sent before its request's body was read leaves the rest of
//! the body on the socket; hyper then closes the connection after the
//! response without saying so, and a client that keeps connections alive
//! (httpx, so the official Python SDK) sends its next request on it and
//! fails with "server disconnected". [`whole_request`] reads what is left
//! (bounded) or says `Connection: close`.
//!
//! hyper times a connection waiting for its next request with its header
//! read timeout; [`Activity`] splits the two, so an idle kept-alive
//! connection stays open longer than clients keep theirs (a client that
//! closes first never races the server's close), while a request's headers
//! still must arrive promptly once they start.

use std::io;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::{Body, Bytes, HttpBody};
use axum::extract::{Request, State};
use axum::http::{HeaderValue, header};
use axum::middleware::Next;
use axum::response::Response;
use hyper::body::{Frame, SizeHint};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::time::Instant;

use crate::mcp::server::http::body;

/// How long the rest of a body answered early is read before the
/// connection is closed instead: 2 seconds.
const DRAIN_TIMEOUT: Duration = Duration::from_secs(2);

/// Reads what the router left of each request's body once it answered: up
/// to `max_body_bytes` within [`DRAIN_TIMEOUT`]; past either, or when the
/// body is still held elsewhere, the response says `Connection: close`.
pub(crate) async fn whole_request(
    State(max_body_bytes): State<usize>,
    request: Request,
    next: Next,
) -> Response {
    let left = Arc::new(Mutex::new(Left::Reading));
    let request = request.map(|body| {
        Body::new(Tracked {
            body: Some(body),
            left: Arc::clone(&left),
        })
    });
    let mut response = next.run(request).await;
    let state = std::mem::replace(
        &mut *left.lock().unwrap_or_else(PoisonError::into_inner),
        Left::Ended,
    );
    let drained = match state {
        Left::Ended => true,
        Left::Reading => false,
        Left::Dropped(body) => drain(body, max_body_bytes).await,
    };
    if !drained {
        response
            .headers_mut()
            .insert(header::CONNECTION, HeaderValue::from_static("close"));
    }
    response
}

/// Reads `body` to its end, if it ends within `max_bytes` and [`DRAIN_TIMEOUT`].
async fn drain(body: Body, max_bytes: usize) -> bool {
    let read = axum::body::to_bytes(body, max_bytes);
    matches!(tokio::time::timeout(DRAIN_TIMEOUT, read).await, Ok(Ok(_)))
}

/// Where a request's body is once its response is ready.
enum Left {
    /// Still held by the router (a stream reading it, say).
    Reading,
    /// Read to its end.
    Ended,
    /// Dropped unread: what is left of it.
    Dropped(Body),
}

/// A request body that, dropped before its end, hands what is left back.
struct Tracked {
    body: Option<Body>,
    left: Arc<Mutex<Left>>,
}

impl Tracked {
    fn ended(&mut self) {
        self.body = None;
        *self.left.lock().unwrap_or_else(PoisonError::into_inner) = Left::Ended;
    }
}

impl HttpBody for Tracked {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, axum::Error>>> {
        let Some(body) = self.body.as_mut() else {
            return Poll::Ready(None);
        };
        let polled = Pin::new(body).poll_frame(cx);
        if matches!(polled, Poll::Ready(None) | Poll::Ready(Some(Err(_)))) {
            self.ended();
        }
        polled
    }

    fn is_end_stream(&self) -> bool {
        self.body.as_ref().is_none_or(HttpBody::is_end_stream)
    }

    fn size_hint(&self) -> SizeHint {
        self.body
            .as_ref()
            .map_or_else(|| SizeHint::with_exact(0), HttpBody::size_hint)
    }
}

impl Drop for Tracked {
    fn drop(&mut self) {
        let Some(body) = self.body.take() else {
            return;
        };
        let left = if body.is_end_stream() {
            Left::Ended
        } else {
            Left::Dropped(body)
        };
        *self.left.lock().unwrap_or_else(PoisonError::into_inner) = left;
    }
}

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
