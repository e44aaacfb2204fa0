//! The shape of an HTTP reply: `application/json` when the request's answer
//! is one message, `text/event-stream` only when the server sends something
//! before it (progress, a log message, a request to the client).
//!
//! rmcp answers a request on a session with an event stream in every case.
//! [`json_if_whole`] waits for the stream's first message: when it is the
//! request's result (or error), that message alone is the reply, as JSON;
//! otherwise the stream goes out as it came, the part already read first.
//! [`shape`] is the layer that does it, told by the session layer which
//! replies are on a session.

use std::collections::VecDeque;
use std::convert::Infallible;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};

use axum::body::{Body, Bytes, HttpBody};
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::Response;
use futures_util::{FutureExt, StreamExt};
use sse_stream::{ByteStreamBody, Sse, SseStream};

use crate::mcp::stores::outage;

/// Whether a JSON-RPC message is a response or an error, the last message
/// of a request's stream (a request or a notification has a `method`).
fn is_terminal(message: &[u8]) -> bool {
    #[derive(serde::Deserialize)]
    struct Kind {
        method: Option<serde::de::IgnoredAny>,
    }
    serde_json::from_slice::<Kind>(message).is_ok_and(|kind| kind.method.is_none())
}

/// The largest stream prefix read while waiting for the first message; a
/// longer event goes out as a stream.
const MAX_FIRST_EVENT: usize = 64 * 1024 * 1024;

/// What became of a reply: one JSON message, or a stream, and the id of
/// its first event (an SSE `id:`), when it had one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Shape {
    /// Not an event stream to begin with.
    AsIs,
    /// Sent as one JSON message: nothing can resume it.
    Whole(Option<String>),
    /// Sent as an event stream.
    Streamed(Option<String>),
}

/// How [`shape`] treats a reply: set on it by the session layer
/// ([`gate`](super::gate)); a reply with none is on no session.
#[derive(Debug, Clone)]
pub(crate) enum Shaping {
    /// Left as it is.
    AsIs,
    /// The reply to an `initialize` that opened a session: JSON when one
    /// message.
    Opened,
    /// The reply to a `POST` on this session: JSON when one message, and
    /// with sessions shared by replicas, its stream kept for the session
    /// (to resume on any replica) or dropped (a JSON reply resumes nothing).
    Session(Arc<str>),
}

/// `response`, marked with how [`shape`] is to treat it.
pub(crate) fn marked(mut response: Response, shaping: Shaping) -> Response {
    response.extensions_mut().insert(shaping);
    response
}

/// Shapes each reply by its [`Shaping`]: `application/json` when a stream
/// carries one message that ends it, `503` with `Retry-After` when a reply
/// refuses the request for want of the shared store (`shared`, when
/// sessions are shared by replicas).
pub(crate) async fn shape(
    State(shared): State<Option<outage::Shared>>,
    request: Request,
    next: Next,
) -> Response {
    let mut response = next.run(request).await;
    match response.extensions_mut().remove::<Shaping>() {
        None => stateless(shared.as_ref(), response).await,
        Some(Shaping::AsIs) => response,
        Some(Shaping::Opened) => json_if_whole(response).await,
        Some(Shaping::Session(id)) => {
            let (response, shape) = json_shaped(response).await;
            if let Some(shared) = &shared {
                match shape {
                    Shape::Whole(Some(first)) => shared.drop_stream(&first),
                    Shape::Streamed(Some(first)) => shared.keep_stream(&first, &id),
                    _ => {}
                }
            }
            response
        }
    }
}

/// The reply to a request on no session: `503` with `Retry-After` when it
/// refuses the request for want of the shared store. A stream it is goes
/// unkept: with no session, nothing resumes it.
async fn stateless(shared: Option<&outage::Shared>, response: Response) -> Response {
    match shared {
        _ if !is_event_stream(response.headers()) => unavailable_if_refused(response).await,
        Some(shared) => {
            let shared = Arc::clone(shared);
            on_first_event_id(response, move |first| shared.drop_stream(first))
        }
        None => response,
    }
}

/// Whether a reply is an event stream.
fn is_event_stream(headers: &HeaderMap) -> bool {
    headers
        .get(header::CONTENT_TYPE)
        .is_some_and(|kind| kind.as_bytes().starts_with(b"text/event-stream"))
}

/// `response` as a JSON reply when it is an event stream whose first
/// message ends it; otherwise `response` itself. A JSON reply that refuses
/// the request for want of the shared store
/// ([`STORE_UNAVAILABLE`](crate::mcp::STORE_UNAVAILABLE)) gets `503`
/// and `Retry-After`.
async fn json_if_whole(response: Response) -> Response {
    json_shaped(response).await.0
}

/// [`json_if_whole`], saying what it made of the reply.
async fn json_shaped(response: Response) -> (Response, Shape) {
    if response.status() != StatusCode::OK || !is_event_stream(response.headers()) {
        return (response, Shape::AsIs);
    }
    let mut first_id: Option<String> = None;
    let (mut parts, mut body) = response.into_parts();
    let mut events = Events::default();
    let mut read: Vec<u8> = Vec::new();
    loop {
        if read.len() > MAX_FIRST_EVENT {
            return (streamed(parts, read, body), Shape::Streamed(first_id));
        }
        let chunk = match std::future::poll_fn(|cx| Pin::new(&mut body).poll_frame(cx)).await {
            Some(Ok(frame)) => match frame.into_data() {
                Ok(chunk) => chunk,
                Err(_) => continue,
            },
            // The stream ended, or broke, before a whole message: pass on
            // what there is.
            Some(Err(_)) | None => {
                return (
                    streamed(parts, read, Body::empty()),
                    Shape::Streamed(first_id),
                );
            }
        };
        read.extend_from_slice(&chunk);
        events.feed(chunk);
        // Each complete event read so far.
        while let Some(event) = events.next() {
            // Not an event stream rmcp writes: passed on as it came.
            let Ok(event) = event else {
                return (streamed(parts, read, body), Shape::Streamed(first_id));
            };
            if first_id.is_none() {
                first_id = event.id.filter(|id| !id.is_empty());
            }
            // A priming event, or one with no message.
            let Some(data) = event.data.filter(|data| !data.is_empty()) else {
                continue;
            };
            if !is_terminal(data.as_bytes()) {
                return (streamed(parts, read, body), Shape::Streamed(first_id));
            }
            let retry_after = outage::retry_after_of(data.as_bytes());
            parts.headers.remove(header::CACHE_CONTROL);
            parts.headers.remove("x-accel-buffering");
            parts.headers.insert(
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/json"),
            );
            let mut response = Response::from_parts(parts, Body::from(data));
            if let Some(retry_after) = retry_after {
                response = outage::as_unavailable(response, retry_after);
            }
            return (response, Shape::Whole(first_id));
        }
    }
}

/// An event stream parsed as it is read, by `sse-stream`: the chunks fed
/// in come out as the events they complete. It holds what an event not yet
/// complete has so far; the caller bounds how much it feeds.
#[derive(Default)]
struct Events {
    fed: Arc<Mutex<VecDeque<Bytes>>>,
    parsed: Option<SseStream<ByteStreamBody<Fed, Bytes>>>,
}

/// The chunks fed to [`Events`], as the byte stream its parser reads: none
/// waiting is not the end of the stream, only nothing to parse yet.
struct Fed(Arc<Mutex<VecDeque<Bytes>>>);

impl futures_util::Stream for Fed {
    type Item = Result<Bytes, Infallible>;

    fn poll_next(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        // `Events::next` polls once and never waits, so no waker is kept.
        match self
            .0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .pop_front()
        {
            Some(chunk) => Poll::Ready(Some(Ok(chunk))),
            None => Poll::Pending,
        }
    }
}

impl Events {
    /// Hands the parser the stream's next chunk.
    fn feed(&mut self, chunk: Bytes) {
        self.fed
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push_back(chunk);
    }

    /// The next event the chunks fed so far complete, if any; an error
    /// when they are not an event stream.
    fn next(&mut self) -> Option<Result<Sse, sse_stream::Error>> {
        let fed = &self.fed;
        let parsed = self
            .parsed
            .get_or_insert_with(|| SseStream::from_bytes_stream(Fed(Arc::clone(fed))));
        parsed.next().now_or_never().flatten()
    }
}

/// The largest JSON reply read whole to see whether it refuses the request
/// for want of the shared store; such a refusal is small.
const MAX_REFUSAL: u64 = 64 * 1024;

/// `response`, a JSON reply, with `503` and `Retry-After` when it refuses
/// the request for want of the shared store
/// ([`STORE_UNAVAILABLE`](crate::mcp::STORE_UNAVAILABLE)).
async fn unavailable_if_refused(response: Response) -> Response {
    let small_json = response.status() == StatusCode::OK
        && response
            .headers()
            .get(header::CONTENT_TYPE)
            .is_some_and(|kind| kind.as_bytes().starts_with(b"application/json"))
        && response
            .body()
            .size_hint()
            .exact()
            .is_some_and(|size| size <= MAX_REFUSAL);
    if !small_json {
        return response;
    }
    let (parts, body) = response.into_parts();
    let Ok(bytes) =
        axum::body::to_bytes(body, usize::try_from(MAX_REFUSAL).unwrap_or(usize::MAX)).await
    else {
        return Response::from_parts(parts, Body::empty());
    };
    let retry_after = outage::retry_after_of(&bytes);
    let response = Response::from_parts(parts, Body::from(bytes));
    match retry_after {
        Some(retry_after) => outage::as_unavailable(response, retry_after),
        None => response,
    }
}

/// The most bytes read looking for a stream's first event id.
const MAX_FIRST_ID_SCAN: usize = 64 * 1024;

/// `response`, an event stream, as it was, telling `seen` the id of its
/// first event as that event goes by (nothing waits for it).
fn on_first_event_id(response: Response, seen: impl FnOnce(&str) + Send + 'static) -> Response {
    let (parts, body) = response.into_parts();
    let mut seen = Some(seen);
    let mut events = Some(Events::default());
    let mut scanned = 0;
    let stream = body.into_data_stream().map(move |chunk| {
        if let (Some(parser), Ok(data)) = (events.as_mut(), &chunk) {
            scanned += data.len();
            parser.feed(data.clone());
            if let Some(first) = parser.next() {
                if let (Some(seen), Ok(Sse { id: Some(id), .. })) = (seen.take(), first)
                    && !id.is_empty()
                {
                    seen(&id);
                }
                events = None;
            } else if scanned > MAX_FIRST_ID_SCAN {
                events = None;
            }
        }
        chunk
    });
    Response::from_parts(parts, Body::from_stream(stream))
}

/// The stream as it came: `read` first, then the rest of `body`.
fn streamed(parts: axum::http::response::Parts, read: Vec<u8>, body: Body) -> Response {
    let first = futures_util::stream::once(async move { Ok::<_, axum::Error>(Bytes::from(read)) });
    let body = Body::from_stream(first.chain(body.into_data_stream()));
    Response::from_parts(parts, body)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_and_errors_end_a_stream_and_the_rest_do_not() {
        assert!(is_terminal(br#"{"jsonrpc":"2.0","id":1,"result":{}}"#));
        assert!(is_terminal(
            br#"{"jsonrpc":"2.0","id":1,"error":{"code":-1,"message":"x"}}"#
        ));
        assert!(!is_terminal(
            br#"{"jsonrpc":"2.0","method":"notifications/progress","params":{}}"#
        ));
        assert!(!is_terminal(
            br#"{"jsonrpc":"2.0","id":7,"method":"elicitation/create","params":{}}"#
        ));
    }

    fn sse(events: &'static str) -> Response {
        Response::builder()
            .header(header::CONTENT_TYPE, "text/event-stream")
            .body(Body::from(events))
            .unwrap()
    }

    async fn text(response: Response) -> String {
        let bytes = axum::body::to_bytes(response.into_body(), usize::MAX)
            .await
            .unwrap();
        String::from_utf8(bytes.to_vec()).unwrap()
    }

    #[tokio::test]
    async fn a_stream_of_one_result_becomes_json() {
        let reply = json_if_whole(sse(
            "data: \nid: 0\nretry: 3000\n\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\nid: 1\n\n",
        ))
        .await;
        assert_eq!(reply.headers()[header::CONTENT_TYPE], "application/json");
        assert_eq!(text(reply).await, r#"{"jsonrpc":"2.0","id":1,"result":{}}"#);
    }

    /// An event stream that arrives `size` bytes at a time.
    fn sse_in_pieces(events: &'static str, size: usize) -> Response {
        let pieces = events
            .as_bytes()
            .chunks(size)
            .map(|piece| Ok::<_, Infallible>(Bytes::from_static(piece)));
        Response::builder()
            .header(header::CONTENT_TYPE, "text/event-stream")
            .body(Body::from_stream(futures_util::stream::iter(pieces)))
            .unwrap()
    }

    #[tokio::test]
    async fn events_split_across_reads_are_read_whole() {
        let events = "id: 0\r\nretry: 3000\r\n\r\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"n\":1}}\r\nid: 1\r\n\r\n";
        for size in [1, 2, 3, 7, 64] {
            let (reply, shape) = json_shaped(sse_in_pieces(events, size)).await;
            assert_eq!(shape, Shape::Whole(Some("0".to_owned())), "{size}");
            assert_eq!(
                text(reply).await,
                r#"{"jsonrpc":"2.0","id":1,"result":{"n":1}}"#,
                "{size}"
            );
        }
    }

    #[tokio::test]
    async fn a_stream_that_ends_before_a_message_or_is_no_event_stream_goes_out_as_it_came() {
        let cut = "id: 4\n\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,";
        let (reply, shape) = json_shaped(sse_in_pieces(cut, 5)).await;
        assert_eq!(shape, Shape::Streamed(Some("4".to_owned())));
        assert_eq!(reply.headers()[header::CONTENT_TYPE], "text/event-stream");
        assert_eq!(text(reply).await, cut);
        let garbled = "no colon here\n\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n";
        let (reply, shape) = json_shaped(sse_in_pieces(garbled, 4)).await;
        assert_eq!(shape, Shape::Streamed(None));
        assert_eq!(text(reply).await, garbled);
    }

    #[tokio::test]
    async fn a_stream_that_notifies_first_stays_a_stream() {
        let events = "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{}}\n\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n";
        let reply = json_if_whole(sse(events)).await;
        assert_eq!(reply.headers()[header::CONTENT_TYPE], "text/event-stream");
        assert_eq!(text(reply).await, events);
    }

    #[tokio::test]
    async fn the_shape_of_a_reply_names_its_first_event() {
        let (_, shape) = json_shaped(sse(
            "id: 7:a\nretry: 3000\n\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\nid: 8:a\n\n",
        ))
        .await;
        assert_eq!(shape, Shape::Whole(Some("7:a".to_owned())));
        let (_, shape) = json_shaped(sse(
            "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{}}\nid: 3:b\n\n",
        ))
        .await;
        assert_eq!(shape, Shape::Streamed(Some("3:b".to_owned())));
        let plain = Response::new(Body::from("{}"));
        assert_eq!(json_shaped(plain).await.1, Shape::AsIs);
    }

    #[tokio::test]
    async fn a_refusal_for_want_of_the_shared_store_is_503_with_retry_after() {
        let (reply, _) = json_shaped(sse(
            "data: {\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":-32003,\"message\":\"down\",\"data\":{\"retryAfterSeconds\":4}}}\nid: 1:a\n\n",
        ))
        .await;
        assert_eq!(reply.status(), StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(reply.headers()[header::RETRY_AFTER], "4");
        let json = Response::builder()
            .header(header::CONTENT_TYPE, "application/json")
            .body(Body::from(
                r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32003,"message":"down"}}"#,
            ))
            .unwrap();
        let reply = unavailable_if_refused(json).await;
        assert_eq!(reply.status(), StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(reply.headers()[header::RETRY_AFTER], "1");
        let other = Response::builder()
            .header(header::CONTENT_TYPE, "application/json")
            .body(Body::from(r#"{"jsonrpc":"2.0","id":1,"result":{}}"#))
            .unwrap();
        let reply = unavailable_if_refused(other).await;
        assert_eq!(reply.status(), StatusCode::OK);
        assert_eq!(text(reply).await, r#"{"jsonrpc":"2.0","id":1,"result":{}}"#);
    }

    #[tokio::test]
    async fn the_first_event_id_is_told_as_the_stream_goes_by() {
        let (sender, receiver) = std::sync::mpsc::channel();
        let events = "id: 5:x\nretry: 10\n\ndata: {}\nid: 6:x\n\n";
        let reply = on_first_event_id(sse(events), move |id| sender.send(id.to_owned()).unwrap());
        assert!(receiver.try_recv().is_err(), "nothing read yet");
        assert_eq!(text(reply).await, events);
        assert_eq!(receiver.try_recv().unwrap(), "5:x");
        assert!(receiver.try_recv().is_err(), "told once");
    }
}
