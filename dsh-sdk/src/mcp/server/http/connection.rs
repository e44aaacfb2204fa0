//! Keeping HTTP/1 connections honest with their clients: hyper times a
//! connection waiting for its next request with its header read timeout;
//! [`Activity`] splits the two, so an idle kept-alive connection stays open
//! longer than clients keep theirs (a client that closes first never races
//! the server's close), while a request's headers still must arrive
//! promptly once they start. The connection's socket, [`Watched`], keeps
//! the time: a read that waits for bytes is where either deadline can run
//! out, so no task or branch of its own watches the connection.

use std::io;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll, ready};
use std::time::Duration;

use axum::response::Response;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::time::{Instant, Sleep};

use crate::mcp::server::http::body;

/// How long a connection waits: for a request's headers once they start,
/// and for a next request at all.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Timeouts {
    pub(crate) header_read: Duration,
    pub(crate) keep_alive: Duration,
}

/// What one connection is doing, for its timeouts.
///
/// Nothing re-arms the connection's timer when the connection changes
/// phase: a request costs no timer. The timer looks at the phase at least
/// every header read timeout instead, which is soon enough for both
/// deadlines (see [`Activity::next_look`]).
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

    /// Whether the connection's timer ran out at `now`, and if not, when to
    /// look again: `keep_alive` after its last answer with no byte since,
    /// or `header_read` after a request's first byte with its headers not
    /// yet in.
    ///
    /// The next look is at the deadline, and at least every `header_read`
    /// (the shorter timeout of the two, as hosts set them). That is soon
    /// enough for both: a request whose first byte came at `t` is seen by
    /// `t + header_read` at the latest, its deadline; and a connection idle
    /// since `t` is seen idle again by `t + keep_alive`, when it is closed,
    /// as its phase only ever moves its deadline later, never closer, but
    /// for a first byte. `None` for the next look: never again (a timeout
    /// too long to name an instant).
    fn next_look(&self, now: Instant, timeouts: Timeouts) -> Result<Option<Instant>, Expired> {
        let (deadline, expired) = match self.phase() {
            Phase::Idle(since) => (since.checked_add(timeouts.keep_alive), Expired::Idle),
            Phase::Head(since) => (since.checked_add(timeouts.header_read), Expired::Head),
            Phase::Busy(_) => (None, Expired::Idle),
        };
        if let Some(deadline) = deadline
            && deadline <= now
        {
            return Err(expired);
        }
        let next = now.checked_add(look_every(timeouts));
        Ok(match (deadline, next) {
            (Some(deadline), Some(next)) => Some(deadline.min(next)),
            (Some(at), None) | (None, Some(at)) => Some(at),
            (None, None) => None,
        })
    }
}

/// How often a connection's timer looks at its phase at least: every
/// header read timeout, and not more often than every millisecond.
fn look_every(timeouts: Timeouts) -> Duration {
    timeouts
        .keep_alive
        .min(timeouts.header_read)
        .max(Duration::from_millis(1))
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

/// What a read on a [`Watched`] socket says when the connection's headers
/// did not arrive within the header read timeout; hyper ends the
/// connection with it.
#[derive(Debug, thiserror::Error)]
#[error("a request's headers did not arrive within the header read timeout")]
pub(crate) struct HeadersLate;

pin_project_lite::pin_project! {
    /// A connection's socket that tells its [`Activity`] when bytes arrive,
    /// and keeps its timeouts: a read waiting for bytes past the keep-alive
    /// timeout reads the end (hyper closes an idle connection that ends),
    /// and one past the header read timeout fails with [`HeadersLate`].
    pub(crate) struct Watched<S> {
        #[pin]
        io: S,
        activity: Arc<Activity>,
        timeouts: Timeouts,
        // Looked at only by a read that waits; once it fired, the next
        // wait asks the activity when to look again. Boxed: hyper takes
        // only a socket that can move.
        timer: Pin<Box<Sleep>>,
    }
}

impl<S> Watched<S> {
    pub(crate) fn new(io: S, activity: Arc<Activity>, timeouts: Timeouts) -> Self {
        Watched {
            io,
            activity,
            timeouts,
            // Fired already: the first wait sets it.
            timer: Box::pin(tokio::time::sleep_until(Instant::now())),
        }
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
        if let Poll::Ready(read) = this.io.poll_read(cx, buf) {
            if buf.filled().len() > before {
                this.activity.read();
            }
            return Poll::Ready(read);
        }
        // Waiting for bytes: where a timeout can run out.
        loop {
            ready!(this.timer.as_mut().poll(cx));
            match this.activity.next_look(Instant::now(), *this.timeouts) {
                // The end: hyper closes a connection idle between requests.
                Err(Expired::Idle) => return Poll::Ready(Ok(())),
                Err(Expired::Head) => {
                    return Poll::Ready(Err(io::Error::new(io::ErrorKind::TimedOut, HeadersLate)));
                }
                Ok(Some(at)) => this.timer.as_mut().reset(at),
                // No instant to name: only bytes wake the read.
                Ok(None) => return Poll::Pending,
            }
        }
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
    use tokio::io::{AsyncReadExt, AsyncWriteExt, DuplexStream};

    const KEEP_ALIVE: Duration = Duration::from_secs(30);

    /// The server's side of a connection, watched, and the client's.
    fn connection(
        keep_alive: Duration,
        header_read: Duration,
    ) -> (Watched<DuplexStream>, Arc<Activity>, DuplexStream) {
        let (server, client) = tokio::io::duplex(64);
        let activity = Activity::new();
        let timeouts = Timeouts {
            header_read,
            keep_alive,
        };
        let watched = Watched::new(server, Arc::clone(&activity), timeouts);
        (watched, activity, client)
    }

    /// A request's first byte, coming while the connection waits toward the
    /// (much later) keep-alive deadline, is timed by the header read
    /// timeout from that byte on.
    #[tokio::test]
    async fn a_request_started_while_idle_is_timed_by_the_header_read_timeout() {
        let header_read = Duration::from_millis(200);
        let (mut server, _activity, mut client) = connection(KEEP_ALIVE, header_read);
        let started = Instant::now();
        let first_byte = async {
            tokio::time::sleep(Duration::from_millis(100)).await;
            client.write_all(b"P").await.unwrap();
            client
        };
        let mut buf = [0; 8];
        let (read, _client) = tokio::join!(server.read(&mut buf), first_byte);
        assert_eq!(read.unwrap(), 1);
        let late = server
            .read(&mut buf)
            .await
            .expect_err("the headers are late");
        assert_eq!(late.kind(), io::ErrorKind::TimedOut);
        assert!(
            late.get_ref()
                .is_some_and(|inner| inner.is::<HeadersLate>())
        );
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
    /// reads the end when idle for the keep-alive timeout.
    #[tokio::test]
    async fn a_busy_connection_runs_out_only_once_idle() {
        let keep_alive = Duration::from_millis(100);
        let header_read = Duration::from_millis(50);
        let (mut server, activity, _client) = connection(keep_alive, header_read);
        let answering = activity.begin();
        let mut buf = [0; 8];
        let waited = tokio::time::timeout(Duration::from_millis(400), server.read(&mut buf)).await;
        assert!(waited.is_err(), "a busy connection ran out: {waited:?}");
        drop(answering);
        let idle_since = Instant::now();
        let read = tokio::time::timeout(Duration::from_secs(10), server.read(&mut buf))
            .await
            .expect("an idle connection runs out");
        assert_eq!(read.unwrap(), 0, "the end is read");
        assert!(idle_since.elapsed() >= keep_alive);
    }

    /// A header read timeout of zero fails a started request at once, and
    /// leaves an idle connection to its keep-alive timeout.
    #[tokio::test]
    async fn a_zero_header_read_timeout_closes_a_started_request_at_once() {
        let (mut server, _activity, mut client) = connection(KEEP_ALIVE, Duration::ZERO);
        let mut buf = [0; 8];
        let idle = tokio::time::timeout(Duration::from_millis(100), server.read(&mut buf)).await;
        assert!(idle.is_err(), "an idle connection ran out: {idle:?}");
        client.write_all(b"P").await.unwrap();
        assert_eq!(server.read(&mut buf).await.unwrap(), 1);
        let late = tokio::time::timeout(Duration::from_secs(10), server.read(&mut buf))
            .await
            .expect("a started request runs out");
        assert_eq!(late.unwrap_err().kind(), io::ErrorKind::TimedOut);
    }

    /// Bytes that arrive are read whatever the timers say: a read that
    /// waited past a look of the timer still gets them.
    #[tokio::test]
    async fn bytes_are_read_across_the_timer_looking() {
        let (mut server, _activity, mut client) =
            connection(Duration::from_secs(5), Duration::from_millis(20));
        let later = async {
            // Several looks of the timer pass while idle.
            tokio::time::sleep(Duration::from_millis(120)).await;
            client.write_all(b"GET").await.unwrap();
            client
        };
        let mut buf = [0; 8];
        let (read, _client) = tokio::join!(server.read(&mut buf), later);
        assert_eq!(&buf[..read.unwrap()], b"GET");
    }
}
