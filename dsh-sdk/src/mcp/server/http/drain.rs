//! The rest of a body answered early.
//!
//! A response sent before its request's body was read leaves the rest of
//! the body on the socket; hyper then closes the connection after the
//! response without saying so, and a client that keeps connections alive
//! (httpx, so the official Python SDK) sends its next request on it and
//! fails with "server disconnected". [`whole_request`] reads what is left
//! (bounded) or says `Connection: close`. It stands in front of what may
//! answer before the body is read (authentication, the metadata route);
//! the body layer ([`body`](super::body)) reads every other body whole
//! first.

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
