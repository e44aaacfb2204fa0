//! Who makes an MCP request: the [`Principal`] the layer that authenticated
//! the HTTP request put in its extensions, else the host.
//!
//! rmcp's streamable HTTP server hands each request's
//! [`http::request::Parts`](axum::http::request::Parts) to the handler in
//! [`RequestContext::extensions`]; an authenticating layer in front of the
//! server inserts an `Arc<Principal>` into those parts' extensions. A request
//! that carries none (stdio, or HTTP with no authenticator) is the host's.

use std::sync::Arc;

use axum::http::request::Parts;
use rmcp::RoleServer;
use rmcp::service::RequestContext;

use crate::mcp::tasks::store::TaskOwner;
use crate::value::principal::Principal;

/// The principal making the request `context` belongs to.
pub(super) fn principal(context: &RequestContext<RoleServer>) -> Arc<Principal> {
    principal_of(&context.extensions)
}

/// The principal making the request or notification whose extensions are
/// `extensions`.
pub(super) fn principal_of(extensions: &rmcp::model::Extensions) -> Arc<Principal> {
    extensions
        .get::<Parts>()
        .and_then(|parts| parts.extensions.get::<Arc<Principal>>())
        .unwrap_or_else(|| Principal::shared_host())
        .clone()
}

/// Who owns the tasks the request or notification whose extensions are
/// `extensions` starts or reads: its principal, or, for the host, its
/// session ([`TaskOwner::of_session`]).
pub(super) fn task_owner(extensions: &rmcp::model::Extensions) -> TaskOwner {
    TaskOwner::of_session(&principal_of(extensions), session_id(extensions).as_deref())
}

/// The longest session id read from a request.
const MAX_SESSION_ID: usize = 256;

/// The HTTP session (`Mcp-Session-Id`) a request or notification came on,
/// if any.
pub(super) fn session_id(extensions: &rmcp::model::Extensions) -> Option<String> {
    let id = extensions
        .get::<Parts>()?
        .headers
        .get("mcp-session-id")?
        .to_str()
        .ok()?;
    (id.len() <= MAX_SESSION_ID).then(|| id.to_owned())
}
