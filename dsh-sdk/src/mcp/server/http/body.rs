//! The bodies of the HTTP transport: a request's, read whole within the
//! body read timeout and the size limit before any layer behind looks at
//! it; and a response's that holds a guard until it ends.

use std::convert::Infallible;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::{Body, Bytes, HttpBody};
use axum::extract::Request;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use futures_util::future::BoxFuture;
use hyper::body::{Frame, SizeHint};

/// How much of a request's body is read, and for how long.
#[derive(Debug, Clone, Copy)]
pub(crate) struct BodyLimits {
    /// The largest body taken; a larger one gets `413`.
    pub(crate) max_bytes: usize,
    /// How long the body may take to arrive; a late one gets `408`.
    pub(crate) read_timeout: Duration,
}

/// The body of `request`, which [`ReadWhole`] in front read whole, taken
/// back for a layer behind to look at: the bytes, and the request with the
/// same bytes as its body. It copies nothing, and waits for nothing.
pub(crate) async fn taken_back(request: Request) -> Result<(Request, Bytes), axum::Error> {
    let (parts, body) = request.into_parts();
    let bytes = axum::body::to_bytes(body, usize::MAX).await?;
    Ok((Request::from_parts(parts, Body::from(bytes.clone())), bytes))
}

/// Reads each request's whole body within its [`BodyLimits`], the one
/// place the body size limit is enforced: a larger body gets `413`, a late
/// one `408`, and either closes the connection. A tower layer of its own
/// (not `from_fn`): every request passes it, and it boxes nothing but its
/// future.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ReadWholeLayer(pub(crate) BodyLimits);

impl<S> tower::Layer<S> for ReadWholeLayer {
    type Service = ReadWhole<S>;

    fn layer(&self, inner: S) -> ReadWhole<S> {
        ReadWhole {
            inner,
            limits: self.0,
        }
    }
}

/// The service [`ReadWholeLayer`] makes.
#[derive(Debug, Clone)]
pub(crate) struct ReadWhole<S> {
    inner: S,
    limits: BodyLimits,
}

impl<S> tower::Service<Request> for ReadWhole<S>
where
    S: tower::Service<Request, Response = Response, Error = Infallible> + Clone + Send + 'static,
    S::Future: Send + 'static,
{
    type Response = Response;
    type Error = Infallible;
    type Future = BoxFuture<'static, Result<Response, Infallible>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request) -> Self::Future {
        // The service made ready is the one called; a clone stays behind.
        let clone = self.inner.clone();
        let inner = std::mem::replace(&mut self.inner, clone);
        Box::pin(read_whole(self.limits, request, inner))
    }
}

/// Reads `request`'s body whole within `limits`, then hands it to `inner`.
async fn read_whole<S>(
    limits: BodyLimits,
    request: Request,
    mut inner: S,
) -> Result<Response, Infallible>
where
    S: tower::Service<Request, Response = Response, Error = Infallible>,
{
    let (parts, body) = request.into_parts();
    let read = axum::body::to_bytes(body, limits.max_bytes);
    let bytes = match tokio::time::timeout(limits.read_timeout, read).await {
        Ok(Ok(bytes)) => bytes,
        Ok(Err(_)) => {
            return Ok(closing(
                StatusCode::PAYLOAD_TOO_LARGE,
                format!(
                    "the request body is larger than {} bytes, or broke off",
                    limits.max_bytes
                ),
            ));
        }
        Err(_) => {
            return Ok(closing(
                StatusCode::REQUEST_TIMEOUT,
                format!(
                    "the request body did not arrive within {} ms",
                    limits.read_timeout.as_millis()
                ),
            ));
        }
    };
    inner
        .call(Request::from_parts(parts, Body::from(bytes)))
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
