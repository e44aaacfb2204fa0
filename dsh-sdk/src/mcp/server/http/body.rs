//! The bodies of the HTTP transport: a request's, read whole within the
//! body read timeout and the size limit before any layer behind looks at
//! it; and a response's that holds a guard until it ends.

use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::{Body, Bytes, HttpBody};
use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use hyper::body::{Frame, SizeHint};

/// How much of a request's body is read, and for how long.
#[derive(Debug, Clone, Copy)]
pub(crate) struct BodyLimits {
    /// The largest body taken; a larger one gets `413`.
    pub(crate) max_bytes: usize,
    /// How long the body may take to arrive; a late one gets `408`.
    pub(crate) read_timeout: Duration,
}

/// A request's body, read whole by [`read_whole`]: in the request's
/// extensions for the layers behind it to look at (the request's body is
/// the same bytes).
#[derive(Debug, Clone)]
pub(crate) struct WholeBody(pub(crate) Bytes);

/// Reads each request's whole body within `limits`, the one place the body
/// size limit is enforced: a larger body gets `413`, a late one `408`, and
/// either closes the connection.
pub(crate) async fn read_whole(
    State(limits): State<BodyLimits>,
    request: Request,
    next: Next,
) -> Response {
    let (mut parts, body) = request.into_parts();
    let read = axum::body::to_bytes(body, limits.max_bytes);
    let bytes = match tokio::time::timeout(limits.read_timeout, read).await {
        Ok(Ok(bytes)) => bytes,
        Ok(Err(_)) => {
            return closing(
                StatusCode::PAYLOAD_TOO_LARGE,
                format!(
                    "the request body is larger than {} bytes, or broke off",
                    limits.max_bytes
                ),
            );
        }
        Err(_) => {
            return closing(
                StatusCode::REQUEST_TIMEOUT,
                format!(
                    "the request body did not arrive within {} ms",
                    limits.read_timeout.as_millis()
                ),
            );
        }
    };
    parts.extensions.insert(WholeBody(bytes.clone()));
    next.run(Request::from_parts(parts, Body::from(bytes)))
        .await
}

/// An error response that closes the connection: what is left of the
/// request was never read.
fn closing(status: StatusCode, message: String) -> Response {
    (
        status,
        [(header::CONNECTION, HeaderValue::from_static("close"))],
        message,
    )
        .into_response()
}

pin_project_lite::pin_project! {
    /// A response body that holds a guard until it ends, or is dropped.
    struct Holding<G> {
        #[pin]
        body: Body,
        guard: Option<G>,
    }
}

/// `body`, with `guard` dropped when it ends (or is dropped).
pub(crate) fn holding<G: Send + 'static>(body: Body, guard: G) -> Body {
    Body::new(Holding {
        body,
        guard: Some(guard),
    })
}

impl<G> HttpBody for Holding<G> {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, axum::Error>>> {
        let this = self.project();
        let polled = this.body.poll_frame(cx);
        if matches!(polled, Poll::Ready(None)) {
            this.guard.take();
        }
        polled
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}
