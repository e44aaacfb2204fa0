//! The shape of an HTTP reply: `application/json` when the request's answer
//! is one message, `text/event-stream` only when the server sends something
//! before it (progress, a log message, a request to the client).
//!
//! rmcp answers a request on a session with an event stream in every case.
//! [`json_if_whole`] waits for the stream's first message: when it is the
//! request's result (or error), that message alone is the reply, as JSON;
//! otherwise the stream goes out as it came, the part already read first.

use std::borrow::Cow;
use std::pin::Pin;
use std::task::{Context, Poll};

use axum::body::{Body, Bytes, HttpBody};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::Response;
use futures_util::StreamExt;
use hyper::body::{Frame, SizeHint};

use crate::mcp::server::http::admission::Active;

/// Whether a request body is an `initialize` request (a body that is not
/// JSON is not: rmcp refuses it).
pub(crate) fn is_initialize(body: &[u8]) -> bool {
    #[derive(serde::Deserialize)]
    struct Method<'a> {
        #[serde(borrow, default)]
        method: Option<Cow<'a, str>>,
    }
    serde_json::from_slice::<Method<'_>>(body)
        .is_ok_and(|message| message.method.as_deref() == Some("initialize"))
}

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

/// `response` as a JSON reply when it is an event stream whose first
/// message ends it; otherwise `response` itself. A JSON reply that refuses
/// the request for want of the shared store
/// ([`STORE_UNAVAILABLE`](crate::mcp::STORE_UNAVAILABLE)) gets `503`
/// and `Retry-After`.
pub(crate) async fn json_if_whole(response: Response) -> Response {
    json_shaped(response).await.0
}

/// [`json_if_whole`], saying what it made of the reply.
pub(crate) async fn json_shaped(response: Response) -> (Response, Shape) {
    let is_stream = response.status() == StatusCode::OK
        && response
            .headers()
            .get(header::CONTENT_TYPE)
            .is_some_and(|kind| kind.as_bytes().starts_with(b"text/event-stream"));
    if !is_stream {
        return (response, Shape::AsIs);
    }
    let mut first_id: Option<String> = None;
    let (mut parts, mut body) = response.into_parts();
    let mut read: Vec<u8> = Vec::new();
    let mut scanned = 0;
    loop {
        // Each complete event read so far, from where the last scan ended.
        while let Some(end) = find(&read[scanned..], b"\n\n") {
            let event = &read[scanned..scanned + end];
            scanned += end + 2;
            if first_id.is_none() {
                first_id = id_of(event);
            }
            let Some(data) = data_of(event) else {
                continue;
            };
            if !is_terminal(data) {
                return (streamed(parts, read, body), Shape::Streamed(first_id));
            }
            let retry_after = crate::mcp::stores::outage::retry_after_of(data);
            let data = Bytes::copy_from_slice(data);
            parts.headers.remove(header::CACHE_CONTROL);
            parts.headers.remove("x-accel-buffering");
            parts.headers.insert(
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/json"),
            );
            let mut response = Response::from_parts(parts, Body::from(data));
            if let Some(retry_after) = retry_after {
                response = crate::mcp::stores::outage::as_unavailable(response, retry_after);
            }
            return (response, Shape::Whole(first_id));
        }
        if read.len() > MAX_FIRST_EVENT {
            return (streamed(parts, read, body), Shape::Streamed(first_id));
        }
        match std::future::poll_fn(|cx| Pin::new(&mut body).poll_frame(cx)).await {
            Some(Ok(frame)) => {
                if let Ok(data) = frame.into_data() {
                    read.extend_from_slice(&data);
                }
            }
            // The stream ended, or broke, before a whole message: pass on
            // what there is.
            Some(Err(_)) | None => {
                return (
                    streamed(parts, read, Body::empty()),
                    Shape::Streamed(first_id),
                );
            }
        }
    }
}

/// The largest JSON reply read whole to see whether it refuses the request
/// for want of the shared store; such a refusal is small.
const MAX_REFUSAL: u64 = 64 * 1024;

/// `response`, a JSON reply, with `503` and `Retry-After` when it refuses
/// the request for want of the shared store
/// ([`STORE_UNAVAILABLE`](crate::mcp::STORE_UNAVAILABLE)).
pub(crate) async fn unavailable_if_refused(response: Response) -> Response {
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
    let retry_after = crate::mcp::stores::outage::retry_after_of(&bytes);
    let response = Response::from_parts(parts, Body::from(bytes));
    match retry_after {
        Some(retry_after) => crate::mcp::stores::outage::as_unavailable(response, retry_after),
        None => response,
    }
}

/// The most bytes read looking for a stream's first event id.
const MAX_FIRST_ID_SCAN: usize = 64 * 1024;

/// `response`, an event stream, as it was, telling `seen` the id of its
/// first event as that event goes by (nothing waits for it).
pub(crate) fn on_first_event_id(
    response: Response,
    seen: impl FnOnce(&str) + Send + 'static,
) -> Response {
    let (parts, body) = response.into_parts();
    let mut seen = Some(seen);
    let mut head: Vec<u8> = Vec::new();
    let stream = body.into_data_stream().map(move |chunk| {
        if let (true, Ok(data)) = (seen.is_some(), &chunk) {
            head.extend_from_slice(data);
            if let Some(end) = find(&head, b"\n\n") {
                if let (Some(seen), Some(id)) = (seen.take(), id_of(&head[..end])) {
                    seen(&id);
                }
                head = Vec::new();
            } else if head.len() > MAX_FIRST_ID_SCAN {
                seen = None;
                head = Vec::new();
            }
        }
        chunk
    });
    Response::from_parts(parts, Body::from_stream(stream))
}

/// The `id:` of one event, if it has one.
fn id_of(event: &[u8]) -> Option<String> {
    event.split(|&byte| byte == b'\n').find_map(|line| {
        let id = line.strip_prefix(b"id:")?;
        let id = id.strip_prefix(b" ").unwrap_or(id);
        std::str::from_utf8(id)
            .ok()
            .filter(|id| !id.is_empty())
            .map(str::to_owned)
    })
}

/// The data of one event, `None` when it has none (a priming event, a
/// keep-alive comment). rmcp writes each message on one `data:` line.
fn data_of(event: &[u8]) -> Option<&[u8]> {
    event.split(|&byte| byte == b'\n').find_map(|line| {
        let data = line.strip_prefix(b"data:")?;
        let data = data.strip_prefix(b" ").unwrap_or(data);
        (!data.is_empty()).then_some(data)
    })
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack
        .windows(needle.len())
        .position(|window| window == needle)
}

/// The stream as it came: `read` first, then the rest of `body`.
fn streamed(parts: axum::http::response::Parts, read: Vec<u8>, body: Body) -> Response {
    let first = futures_util::stream::once(async move { Ok::<_, axum::Error>(Bytes::from(read)) });
    let body = Body::from_stream(first.chain(body.into_data_stream()));
    Response::from_parts(parts, body)
}

pin_project_lite::pin_project! {
    /// A reply's body that keeps its request's session active until it ends.
    struct UntilDone {
        #[pin]
        body: Body,
        active: Active,
    }
}

/// `body`, with `active` dropped when it ends (or is dropped).
pub(crate) fn until_done(body: Body, active: Active) -> Body {
    Body::new(UntilDone { body, active })
}

impl HttpBody for UntilDone {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, axum::Error>>> {
        self.project().body.poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn initialize_is_told_from_other_requests() {
        assert!(is_initialize(
            br#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}"#
        ));
        assert!(is_initialize(
            br#"{"params":{"a":[1,{"b":2}]}, "method" : "initialize","id":1,"jsonrpc":"2.0"}"#
        ));
        assert!(!is_initialize(
            br#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#
        ));
        assert!(!is_initialize(b"not json"));
    }

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
