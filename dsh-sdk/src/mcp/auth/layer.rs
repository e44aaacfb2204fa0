//! The resource server in front of the MCP endpoint: bearer tokens checked
//! (`401`), limits per principal (`429`), the scopes of a `tools/call`
//! (`403`), and the protected resource metadata route.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use futures_util::StreamExt;
use governor::clock::{Clock, DefaultClock};
use governor::{DefaultKeyedRateLimiter, Quota};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use serde_json::{Value, json};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use crate::registry::Registry;
use crate::value::principal::Principal;

use super::{ResourceServer, TokenError};

/// Where refusals are logged.
const LOG_TARGET: &str = "dsh_kit::mcp::auth";

/// How many principals' limits are kept before the idle ones are dropped.
const TRACKED_PRINCIPALS: usize = 4096;

/// How many sessions' owners are kept before those of closed sessions are dropped.
const TRACKED_SESSIONS: usize = 4096;

/// The header of an MCP session's id.
const SESSION_HEADER: &str = "mcp-session-id";

/// The resource server, with the registry whose tools' scopes it checks and
/// the state of its limits.
pub(crate) struct Protection {
    server: ResourceServer,
    registry: Registry,
    rates: DefaultKeyedRateLimiter<String>,
    clock: DefaultClock,
    running: Mutex<HashMap<String, Arc<Semaphore>>>,
    /// The principal (its limit key) that started each session: a session
    /// is served to no one else, whatever token they bring.
    owners: Mutex<HashMap<String, String>>,
    sessions: Arc<LocalSessionManager>,
}

impl Protection {
    pub(crate) fn new(
        server: ResourceServer,
        registry: Registry,
        sessions: Arc<LocalSessionManager>,
    ) -> Self {
        let quota = Quota::per_second(server.limits.per_second).allow_burst(server.limits.burst);
        Protection {
            server,
            registry,
            rates: DefaultKeyedRateLimiter::keyed(quota),
            clock: DefaultClock::default(),
            running: Mutex::default(),
            owners: Mutex::default(),
            sessions,
        }
    }

    /// Whether `session` was started by a principal other than `key`.
    fn foreign(&self, session: &str, key: &str) -> bool {
        let owners = self.owners.lock().unwrap_or_else(PoisonError::into_inner);
        owners.get(session).is_some_and(|owner| owner != key)
    }

    /// Records that `key` started `session`, first forgetting the owners of
    /// closed sessions when there are many.
    async fn own(&self, session: &str, key: &str) {
        let full = self
            .owners
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .len()
            >= TRACKED_SESSIONS;
        if full {
            let open: std::collections::HashSet<String> = self
                .sessions
                .sessions
                .read()
                .await
                .keys()
                .map(|id| id.to_string())
                .collect();
            self.owners
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .retain(|session, _| open.contains(session));
        }
        self.owners
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(session.to_owned(), key.to_owned());
    }

    pub(crate) fn server(&self) -> &ResourceServer {
        &self.server
    }

    /// The metadata route's answer.
    pub(crate) fn metadata(&self) -> Response {
        (
            [(
                header::CACHE_CONTROL,
                HeaderValue::from_static("max-age=300"),
            )],
            axum::Json(self.server.metadata(&self.registry)),
        )
            .into_response()
    }

    /// `WWW-Authenticate` for a request with no token or a bad one; `503`
    /// when the authorization server could not be asked.
    fn unauthorized(&self, refused: Option<&TokenError>) -> Response {
        let mut challenge = format!(
            "Bearer resource_metadata=\"{}\"",
            self.server.metadata_url()
        );
        let body = match refused {
            None => {
                json!({ "error": "invalid_request", "error_description": "no bearer token: send `Authorization: Bearer <token>`" })
            }
            Some(refused @ TokenError::Unavailable(_)) => {
                return (
                    StatusCode::SERVICE_UNAVAILABLE,
                    [(header::RETRY_AFTER, HeaderValue::from_static("5"))],
                    axum::Json(json!({ "error": "temporarily_unavailable", "error_description": quotable(&refused.to_string()) })),
                )
                    .into_response();
            }
            Some(refused) => {
                let description = quotable(&refused.to_string());
                challenge.push_str(&format!(
                    ", error=\"invalid_token\", error_description=\"{description}\""
                ));
                json!({ "error": "invalid_token", "error_description": description })
            }
        };
        challenged(StatusCode::UNAUTHORIZED, challenge, body)
    }

    /// `403 insufficient_scope`: `needed` are every scope the request needs.
    fn forbidden(&self, needed: &[String], what: &str) -> Response {
        let scope = quotable(&needed.join(" "));
        let description = quotable(&format!("{what} needs the scopes `{scope}`"));
        let challenge = format!(
            "Bearer error=\"insufficient_scope\", scope=\"{scope}\", resource_metadata=\"{}\", error_description=\"{description}\"",
            self.server.metadata_url()
        );
        challenged(
            StatusCode::FORBIDDEN,
            challenge,
            json!({ "error": "insufficient_scope", "scope": scope, "error_description": description }),
        )
    }

    /// A slot for one more running request of `key`, or `None` at its cap.
    fn admit(&self, key: &str) -> Option<OwnedSemaphorePermit> {
        let mut running = self.running.lock().unwrap_or_else(PoisonError::into_inner);
        if running.len() >= TRACKED_PRINCIPALS {
            // Principals with nothing running hold no state worth keeping.
            running.retain(|_, slots| {
                Arc::strong_count(slots) > 1
                    || slots.available_permits() < self.server.limits.max_concurrent
            });
        }
        let slots = running
            .entry(key.to_owned())
            .or_insert_with(|| Arc::new(Semaphore::new(self.server.limits.max_concurrent)));
        Arc::clone(slots).try_acquire_owned().ok()
    }
}

/// A response with `WWW-Authenticate` and a JSON body.
fn challenged(status: StatusCode, challenge: String, body: Value) -> Response {
    let challenge = HeaderValue::from_str(&challenge)
        .unwrap_or_else(|_| HeaderValue::from_static("Bearer error=\"invalid_token\""));
    (
        status,
        [(header::WWW_AUTHENTICATE, challenge)],
        axum::Json(body),
    )
        .into_response()
}

/// `text` as it may stand inside a quoted auth-param: printable ASCII, no
/// `"` or `\`.
fn quotable(text: &str) -> String {
    text.chars()
        .map(|c| match c {
            '"' | '\\' => '\'',
            ' '..='~' => c,
            _ => '?',
        })
        .collect()
}

/// Why a request's `Authorization` header gives no token to check.
enum NoToken {
    Missing,
    Refused(TokenError),
}

/// The bearer token of `headers`.
fn bearer(headers: &HeaderMap, limit: usize) -> Result<&str, NoToken> {
    let mut values = headers.get_all(header::AUTHORIZATION).iter();
    let Some(value) = values.next() else {
        return Err(NoToken::Missing);
    };
    if values.next().is_some() {
        return Err(NoToken::Refused(TokenError::Malformed(
            "more than one `Authorization` header".into(),
        )));
    }
    if value.len() > limit + "Bearer ".len() {
        return Err(NoToken::Refused(TokenError::TooLarge {
            bytes: value.len().saturating_sub("Bearer ".len()),
            limit,
        }));
    }
    let value = value
        .to_str()
        .map_err(|_| NoToken::Refused(TokenError::Malformed("the header is not ASCII".into())))?;
    let (scheme, token) = value.split_once(' ').unwrap_or((value, ""));
    if !scheme.eq_ignore_ascii_case("bearer") {
        // Another scheme: as if no bearer token was given.
        return Err(NoToken::Missing);
    }
    let token = token.trim();
    let b64token = !token.is_empty()
        && token
            .trim_end_matches('=')
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-._~+/".contains(&b));
    if !b64token {
        return Err(NoToken::Refused(TokenError::Malformed(
            "the bearer token has characters a token cannot have".into(),
        )));
    }
    Ok(token)
}

/// Checks the bearer token, applies the principal's limits, and puts the
/// principal in the request's extensions (`Arc<Principal>`) for the MCP
/// handler to read.
pub(crate) async fn authenticate(
    State(protection): State<Arc<Protection>>,
    mut request: Request,
    next: Next,
) -> Response {
    let server = &protection.server;
    let principal = match bearer(request.headers(), server.max_token_bytes) {
        Err(NoToken::Missing) => {
            tracing::warn!(target: LOG_TARGET, method = %request.method(), "refused an MCP request: no bearer token");
            return protection.unauthorized(None);
        }
        Err(NoToken::Refused(refused)) => {
            tracing::warn!(target: LOG_TARGET, reason = %refused, "refused an MCP request: bad bearer token");
            return protection.unauthorized(Some(&refused));
        }
        Ok(token) => match server.authenticator.authenticate(token).await {
            Ok(principal) => principal,
            Err(refused) => {
                tracing::warn!(target: LOG_TARGET, reason = %refused, "refused an MCP request: bad bearer token");
                return protection.unauthorized(Some(&refused));
            }
        },
    };
    let missing: Vec<String> = server
        .required_scopes
        .iter()
        .filter(|scope| !principal.has_scope(scope))
        .cloned()
        .collect();
    if !missing.is_empty() {
        tracing::warn!(target: LOG_TARGET, subject = principal.subject(), missing = %missing.join(" "), "refused an MCP request: a scope every request needs is missing");
        return protection.forbidden(&server.required_scopes, "every request to this server");
    }
    let key = limit_key(&principal);
    if protection.rates.len() >= TRACKED_PRINCIPALS {
        protection.rates.retain_recent();
    }
    if let Err(not_until) = protection.rates.check_key(&key) {
        let wait = not_until.wait_time_from(protection.clock.now());
        tracing::warn!(target: LOG_TARGET, subject = principal.subject(), "refused an MCP request: over the principal's request rate");
        return too_many(
            wait.as_secs() + 1,
            "this principal is over its request rate",
        );
    }
    let permit = if request.method() == Method::POST {
        match protection.admit(&key) {
            Some(permit) => Some(permit),
            None => {
                tracing::warn!(target: LOG_TARGET, subject = principal.subject(), "refused an MCP request: the principal has too many requests running");
                return too_many(1, "this principal has too many requests running at once");
            }
        }
    } else {
        None
    };
    let session = request
        .headers()
        .get(SESSION_HEADER)
        .and_then(|value| value.to_str().ok())
        .map(str::to_owned);
    if session
        .as_deref()
        .is_some_and(|session| protection.foreign(session, &key))
    {
        tracing::warn!(target: LOG_TARGET, subject = principal.subject(), "refused an MCP request: the session belongs to another principal");
        // As for a session that does not exist: nothing about it is told.
        return (
            StatusCode::NOT_FOUND,
            axum::Json(json!({ "error": "not_found", "error_description": "no such session" })),
        )
            .into_response();
    }
    request.extensions_mut().insert(Arc::new(principal));
    let response = next.run(request).await;
    if session.is_none()
        && let Some(started) = response
            .headers()
            .get(SESSION_HEADER)
            .and_then(|value| value.to_str().ok())
    {
        protection.own(started, &key).await;
    }
    match permit {
        None => response,
        // A call's answer may stream: it runs until its body ends.
        Some(permit) => response.map(|body| {
            Body::from_stream(body.into_data_stream().map(move |chunk| {
                let _running = &permit;
                chunk
            }))
        }),
    }
}

/// The key a principal's limits are kept under.
fn limit_key(principal: &Principal) -> String {
    format!(
        "{}\u{0}{}\u{0}{}",
        principal.issuer().unwrap_or_default(),
        principal.client_id().unwrap_or_default(),
        principal.subject()
    )
}

fn too_many(retry_after_secs: u64, message: &str) -> Response {
    (
        StatusCode::TOO_MANY_REQUESTS,
        [(header::RETRY_AFTER, HeaderValue::from(retry_after_secs))],
        axum::Json(json!({ "error": "too_many_requests", "error_description": message })),
    )
        .into_response()
}

/// Refuses a `tools/call` of a tool whose scopes the principal lacks, with
/// `403 insufficient_scope` naming them. Runs after the body was read
/// within its limits.
pub(crate) async fn scopes(
    State(protection): State<Arc<Protection>>,
    request: Request,
    next: Next,
) -> Response {
    let principal = request.extensions().get::<Arc<Principal>>().cloned();
    let (Some(principal), true) = (principal, request.method() == Method::POST) else {
        return next.run(request).await;
    };
    let (parts, body) = request.into_parts();
    // The body layer in front read the whole body already: this takes it back.
    let Ok(bytes) = axum::body::to_bytes(body, usize::MAX).await else {
        return StatusCode::BAD_REQUEST.into_response();
    };
    if let Some((tool, needed)) = lacking(&protection.registry, &bytes, &principal) {
        tracing::warn!(target: LOG_TARGET, subject = principal.subject(), tool = %tool, "refused an MCP request: a scope the tool needs is missing");
        return protection.forbidden(&needed, &format!("calling `{tool}`"));
    }
    next.run(Request::from_parts(parts, Body::from(bytes)))
        .await
}

/// The first tool a `tools/call` in `body` names whose scopes `principal`
/// lacks, and every scope it needs.
fn lacking(
    registry: &Registry,
    body: &[u8],
    principal: &Principal,
) -> Option<(String, Vec<String>)> {
    let message: Value = serde_json::from_slice(body).ok()?;
    let messages = match message {
        Value::Array(messages) => messages,
        message => vec![message],
    };
    messages.iter().find_map(|message| {
        if message.get("method").and_then(Value::as_str) != Some("tools/call") {
            return None;
        }
        let name = message.pointer("/params/name").and_then(Value::as_str)?;
        let tool = registry.get(name)?;
        let needed: Vec<String> = tool.definition().scopes().map(str::to_owned).collect();
        needed
            .iter()
            .any(|scope| !principal.has_scope(scope))
            .then(|| (name.to_owned(), needed))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_auth_param_never_breaks_out_of_its_quotes() {
        assert_eq!(quotable("a \"b\" \\ é\n"), "a 'b' ' ??");
    }

    #[test]
    fn only_a_bearer_token_of_token_characters_is_taken() {
        let mut headers = HeaderMap::new();
        assert!(matches!(bearer(&headers, 100), Err(NoToken::Missing)));
        headers.insert(
            header::AUTHORIZATION,
            HeaderValue::from_static("Basic YTpi"),
        );
        assert!(matches!(bearer(&headers, 100), Err(NoToken::Missing)));
        headers.insert(
            header::AUTHORIZATION,
            HeaderValue::from_static("bearer abc.def-_~+/=="),
        );
        assert!(matches!(bearer(&headers, 100), Ok("abc.def-_~+/==")));
        headers.insert(
            header::AUTHORIZATION,
            HeaderValue::from_static("Bearer a,b"),
        );
        assert!(matches!(
            bearer(&headers, 100),
            Err(NoToken::Refused(TokenError::Malformed(_)))
        ));
        headers.insert(
            header::AUTHORIZATION,
            HeaderValue::from_static("Bearer abcdefgh"),
        );
        assert!(matches!(
            bearer(&headers, 4),
            Err(NoToken::Refused(TokenError::TooLarge { .. }))
        ));
    }
}
