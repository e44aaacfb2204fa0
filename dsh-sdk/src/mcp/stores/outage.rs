//! What the HTTP layer and a store shared by replicas (Redis) tell each
//! other about one request: the session it is on, and whether the store
//! was unreachable while it was served; the JSON-RPC error and `503` a
//! client gets then; and what the HTTP layer asks of the shared sessions
//! (end one everywhere, bind a stream to its session, hear sessions ended
//! elsewhere).

use std::cell::Cell;
use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::Response;
use futures_util::future::BoxFuture;
use rmcp::model::{ErrorCode, ErrorData};
use serde_json::{Value, json};
use tokio::sync::broadcast;

/// The JSON-RPC error code of a request refused because a store the
/// server shares with its replicas did not answer in time: `-32003`. Its
/// `data` holds `retryAfterSeconds`; over HTTP it comes with status `503`
/// and a `Retry-After` header.
pub const STORE_UNAVAILABLE: ErrorCode = ErrorCode(-32003);

tokio::task_local! {
    static SCOPE: Scope;
}

/// One request as its stores see it.
struct Scope {
    #[cfg_attr(
        not(feature = "redis"),
        expect(dead_code, reason = "read by the Redis stores")
    )]
    session: Option<String>,
    /// When a store that was unreachable asks the client to retry.
    unavailable: Cell<Option<Duration>>,
}

/// Runs `served` (a request reaching rmcp) on `session`; answers its output
/// and, when a store could not be reached meanwhile, when to retry.
pub(crate) async fn within<F: Future>(
    session: Option<String>,
    served: F,
) -> (F::Output, Option<Duration>) {
    let scope = Scope {
        session,
        unavailable: Cell::new(None),
    };
    SCOPE
        .scope(scope, async {
            let output = served.await;
            let unavailable = SCOPE.with(|scope| scope.unavailable.get());
            (output, unavailable)
        })
        .await
}

/// The session of the request being served on this task, if any.
#[cfg(feature = "redis")]
pub(crate) fn session() -> Option<String> {
    SCOPE.try_with(|scope| scope.session.clone()).ok().flatten()
}

/// Tells the request being served on this task, if any, that a store did
/// not answer: it is refused with `503` and `Retry-After: retry_after`.
#[cfg(feature = "redis")]
pub(crate) fn note_unavailable(retry_after: Duration) {
    let _ = SCOPE.try_with(|scope| scope.unavailable.set(Some(retry_after)));
}

/// Whole seconds for `Retry-After`, at least 1.
fn seconds(retry_after: Duration) -> u64 {
    retry_after.as_secs_f64().ceil().max(1.0) as u64
}

/// The JSON-RPC error of a request refused for want of the shared store.
pub(crate) fn unavailable_error(message: String, retry_after: Duration) -> ErrorData {
    ErrorData::new(
        STORE_UNAVAILABLE,
        message,
        Some(json!({ "retryAfterSeconds": seconds(retry_after) })),
    )
}

/// When a JSON-RPC message (a reply's whole body) is a refusal for want
/// of the shared store, when to retry.
pub(crate) fn retry_after_of(message: &[u8]) -> Option<Duration> {
    #[derive(serde::Deserialize)]
    struct Message {
        error: Option<Error>,
    }
    #[derive(serde::Deserialize)]
    struct Error {
        code: i64,
        data: Option<Value>,
    }
    // Most replies are no such refusal: told without parsing them. A reply
    // is JSON, so text; one that is not is no refusal either.
    let code = STORE_UNAVAILABLE.0.to_string();
    if !std::str::from_utf8(message).is_ok_and(|text| text.contains(code.as_str())) {
        return None;
    }
    let error = serde_json::from_slice::<Message>(message).ok()?.error?;
    if error.code != i64::from(STORE_UNAVAILABLE.0) {
        return None;
    }
    let seconds = error
        .data
        .as_ref()
        .and_then(|data| data.get("retryAfterSeconds"))
        .and_then(Value::as_u64)
        .unwrap_or(1);
    Some(Duration::from_secs(seconds.clamp(1, 3600)))
}

/// `503`, `Retry-After`, and the JSON-RPC error answering request `id`
/// (`null` when it had none, or could not be read).
pub(crate) fn unavailable_response(id: Value, message: String, retry_after: Duration) -> Response {
    let error = unavailable_error(message, retry_after);
    let body = json!({ "jsonrpc": "2.0", "id": id, "error": error });
    let mut response = Response::new(Body::from(body.to_string()));
    *response.status_mut() = StatusCode::SERVICE_UNAVAILABLE;
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    headers.insert(header::RETRY_AFTER, HeaderValue::from(seconds(retry_after)));
    response
}

/// `response`, a whole JSON-RPC reply, as `503` with `Retry-After`.
pub(crate) fn as_unavailable(mut response: Response, retry_after: Duration) -> Response {
    *response.status_mut() = StatusCode::SERVICE_UNAVAILABLE;
    response
        .headers_mut()
        .insert(header::RETRY_AFTER, HeaderValue::from(seconds(retry_after)));
    response
}

/// The id of a JSON-RPC request body, `null` when it has none.
pub(crate) fn request_id(body: &[u8]) -> Value {
    #[derive(serde::Deserialize)]
    struct Request {
        id: Option<Value>,
    }
    serde_json::from_slice::<Request>(body)
        .ok()
        .and_then(|request| request.id)
        .filter(|id| id.is_string() || id.is_number())
        .unwrap_or(Value::Null)
}

/// What a replica hears of sessions ended elsewhere.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(
    not(feature = "redis"),
    expect(dead_code, reason = "told by the Redis subscriber")
)]
pub(crate) enum Ended {
    /// Session `0` was ended (deleted) on some replica.
    Session(String),
    /// What was ended meanwhile may have been missed (the channel
    /// reconnected): check every session held here.
    Resync,
}

/// Sessions shared by replicas, as the HTTP layer uses them beyond rmcp's
/// session and event stores.
pub(crate) trait SharedSessions: std::fmt::Debug + Send + Sync + 'static {
    /// Ends session `id` on every replica: gone from the store with its
    /// stream events, and announced. `Err` holds when to retry, when the
    /// store did not answer.
    fn end<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<(), Duration>>;

    /// Which of `ids` the store still holds. `Err` when it did not answer.
    fn alive<'a>(&'a self, ids: &'a [String]) -> BoxFuture<'a, Result<Vec<bool>, Duration>>;

    /// Session `id` was used: the store keeps it (and its streams) its time
    /// to live from now. In the background, and at most every so often.
    fn touch(&self, id: &str);

    /// The sessions ended on other replicas, as they are heard.
    fn endings(&self) -> broadcast::Receiver<Ended>;

    /// The stream whose first event is `event_id` went out as a stream on
    /// `session`: its events are kept, for a client to resume from.
    fn keep_stream(&self, event_id: &str, session: &str);

    /// The stream whose first event is `event_id` went out as one JSON
    /// reply: nothing can resume it, its events are dropped.
    fn drop_stream(&self, event_id: &str);
}

/// A shared handle on the sessions of the replicas.
pub(crate) type Shared = Arc<dyn SharedSessions>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refusal_for_want_of_the_store_is_told_from_other_errors() {
        let refusal = json!({
            "jsonrpc": "2.0", "id": 3,
            "error": unavailable_error("down".to_owned(), Duration::from_millis(2500)),
        });
        assert_eq!(
            retry_after_of(refusal.to_string().as_bytes()),
            Some(Duration::from_secs(3))
        );
        let other = br#"{"jsonrpc":"2.0","id":3,"error":{"code":-32603,"message":"x"}}"#;
        assert_eq!(retry_after_of(other), None);
        assert_eq!(
            retry_after_of(br#"{"jsonrpc":"2.0","id":3,"result":{}}"#),
            None
        );
        assert_eq!(retry_after_of(b"not json"), None);
    }

    #[test]
    fn a_request_id_is_read_or_null() {
        assert_eq!(request_id(br#"{"id":"a","method":"x"}"#), json!("a"));
        assert_eq!(request_id(br#"{"id":7,"method":"x"}"#), json!(7));
        assert_eq!(request_id(br#"{"id":{"no":1}}"#), Value::Null);
        assert_eq!(request_id(b"[1,2]"), Value::Null);
    }

    #[cfg(feature = "redis")]
    #[tokio::test]
    async fn the_session_and_an_outage_are_told_within_a_request_only() {
        assert_eq!(session(), None);
        note_unavailable(Duration::from_secs(5));
        let (seen, unavailable) = within(Some("s1".to_owned()), async {
            let seen = session();
            note_unavailable(Duration::from_secs(2));
            seen
        })
        .await;
        assert_eq!(seen.as_deref(), Some("s1"));
        assert_eq!(unavailable, Some(Duration::from_secs(2)));
        let ((), unavailable) = within(None, async {}).await;
        assert_eq!(unavailable, None);
    }

    #[tokio::test]
    async fn a_refusal_is_503_with_retry_after_and_a_json_rpc_error() {
        let response = unavailable_response(json!(9), "down".to_owned(), Duration::from_millis(10));
        assert_eq!(response.status(), StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(response.headers()[header::RETRY_AFTER], "1");
        assert_eq!(response.headers()[header::CONTENT_TYPE], "application/json");
        let body = axum::body::to_bytes(response.into_body(), usize::MAX)
            .await
            .unwrap();
        let body: Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(body["id"], 9);
        assert_eq!(body["error"]["code"], STORE_UNAVAILABLE.0);
        assert_eq!(body["error"]["data"]["retryAfterSeconds"], 1);
    }
}
