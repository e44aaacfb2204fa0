//! The session layer of the HTTP transport: admits an `initialize` by the
//! session rules ([`admission`](super::admission)), and keeps each
//! session's use and activity up to date while its requests are answered.
//! It marks each reply it handles with how [`reply::shape`] is to treat it.

use std::borrow::Cow;
use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::mcp::server::http::admission::{ClientKey, Refusal, Sessions};
use crate::mcp::server::http::body;
use crate::mcp::server::http::reply::{self, Shaping};
use crate::mcp::stores::outage;

/// The header that names a request's session.
const SESSION_ID: &str = "mcp-session-id";

/// When a refused client should try again: active sessions are calls in
/// progress, which finish within seconds.
const RETRY_AFTER_SECONDS: &str = "2";

/// What the session layer keeps.
pub(crate) struct Gate {
    /// The open sessions.
    pub(crate) sessions: Arc<Sessions>,
    /// The sessions shared with other replicas (Redis), if they are.
    pub(crate) shared: Option<outage::Shared>,
}

/// Admits an `initialize` by the session rules, and counts a request on a
/// session active until its reply's body ends; any other request (no
/// session, not an `initialize`) passes through unmarked.
pub(crate) async fn sessions(
    State(gate): State<Arc<Gate>>,
    request: Request,
    next: Next,
) -> Response {
    let Ok((request, body)) = body::taken_back(request).await else {
        return StatusCode::BAD_REQUEST.into_response();
    };
    let session = request
        .headers()
        .get(SESSION_ID)
        .and_then(|id| id.to_str().ok())
        .map(str::to_owned);
    if let Some(id) = session {
        return on_session(&gate, &id, request, &body, next).await;
    }
    if request.method() != Method::POST || !is_initialize(&body) {
        return next.run(request).await;
    }
    let sessions = &gate.sessions;
    let client = ClientKey::of(request.extensions());
    let slot = match sessions.admit(client).await {
        Ok(slot) => slot,
        Err(refusal) => return reply::marked(refused(refusal, sessions), Shaping::AsIs),
    };
    let request_id = outage::request_id(&body);
    let (response, unavailable) = outage::within(None, next.run(request)).await;
    let opened = session_of(&response);
    if let Some(retry_after) = unavailable {
        // The session store did not take the session: no replica but this
        // one would know it. Closed, and the client told to retry.
        if let Some(id) = &opened {
            sessions.end(id).await;
        }
        drop(slot);
        let response = outage::unavailable_response(
            request_id,
            "the session could not be stored for the server's other replicas: the shared store did not answer; retry shortly".to_owned(),
            retry_after,
        );
        return reply::marked(response, Shaping::AsIs);
    }
    if let Some(id) = &opened {
        slot.opened(id);
    }
    reply::marked(response, Shaping::Opened)
}

/// The session a response names, if any.
fn session_of(response: &Response) -> Option<String> {
    response
        .headers()
        .get(SESSION_ID)
        .and_then(|id| id.to_str().ok())
        .map(str::to_owned)
}

/// A request on session `id`: counted active until its reply's body ends.
/// With sessions shared by replicas, a `DELETE` ends the session on every
/// replica first, and a request whose answer needed the shared store, which
/// did not answer, gets `503` with `Retry-After`.
async fn on_session(gate: &Gate, id: &str, request: Request, body: &[u8], next: Next) -> Response {
    let (sessions, shared) = (&gate.sessions, gate.shared.as_ref());
    let method = request.method().clone();
    let client = ClientKey::of(request.extensions());
    if method == Method::DELETE
        && let Some(shared) = shared
        && let Err(retry_after) = shared.end(id).await
    {
        let response = outage::unavailable_response(
            serde_json::Value::Null,
            "the session could not be ended on the server's other replicas: the shared store did not answer; retry shortly".to_owned(),
            retry_after,
        );
        return reply::marked(response, Shaping::AsIs);
    }
    let active = sessions.begin(id);
    let (response, unavailable) = outage::within(Some(id.to_owned()), next.run(request)).await;
    if let Some(retry_after) = unavailable
        && response.status().is_server_error()
    {
        let response = outage::unavailable_response(
            outage::request_id(body),
            "the session is held by the shared store, which did not answer; retry shortly"
                .to_owned(),
            retry_after,
        );
        return reply::marked(response, Shaping::AsIs);
    }
    if response.status() == StatusCode::NOT_FOUND || method == Method::DELETE {
        sessions.forget(id);
        // The session is gone once this returns: `204`, which clients read
        // as done (rmcp answers `202`, which the Python SDK reports as a
        // failed termination).
        if method == Method::DELETE && response.status() == StatusCode::ACCEPTED {
            return reply::marked(StatusCode::NO_CONTENT.into_response(), Shaping::AsIs);
        }
        return reply::marked(response, Shaping::AsIs);
    }
    if let Some(shared) = shared
        && response.status().is_success()
    {
        shared.touch(id);
    }
    if active.is_none() && response.status().is_success() {
        // Restored from the session store: another replica opened it.
        sessions.adopt(id, client);
    }
    let Some(mut active) = active else {
        return reply::marked(response, Shaping::AsIs);
    };
    // A notification or a response from the client is answered `202`.
    if response.status() != StatusCode::ACCEPTED {
        active.used();
    }
    let shaping = if method == Method::POST {
        Shaping::Session(Arc::from(id))
    } else {
        Shaping::AsIs
    };
    let response = response.map(|body| body::holding(body, active));
    reply::marked(response, shaping)
}

/// The answer to an `initialize` refused: `503` when the server is full of
/// active sessions, `429` when the client is; either says when to retry.
fn refused(refusal: Refusal, sessions: &Sessions) -> Response {
    let limits = sessions.limits();
    let (status, message) = match refusal {
        Refusal::ServerFull { open } => (
            StatusCode::SERVICE_UNAVAILABLE,
            format!(
                "too many MCP sessions: all {open} open sessions are active (the limit is {}); retry shortly",
                limits.max_sessions
            ),
        ),
        Refusal::ClientFull { open } => (
            StatusCode::TOO_MANY_REQUESTS,
            format!(
                "too many MCP sessions for this client: all {open} of its sessions are active (the limit per client is {}); close one (DELETE with its `Mcp-Session-Id`) or retry shortly",
                limits.max_per_client
            ),
        ),
    };
    (
        status,
        [(
            header::RETRY_AFTER,
            HeaderValue::from_static(RETRY_AFTER_SECONDS),
        )],
        message,
    )
        .into_response()
}

/// Whether a request body is an `initialize` request (a body that is not
/// JSON is not: rmcp refuses it).
fn is_initialize(body: &[u8]) -> bool {
    #[derive(serde::Deserialize)]
    struct Method<'a> {
        #[serde(borrow, default)]
        method: Option<Cow<'a, str>>,
    }
    serde_json::from_slice::<Method<'_>>(body)
        .is_ok_and(|message| message.method.as_deref() == Some("initialize"))
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
}
