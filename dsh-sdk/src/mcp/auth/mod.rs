//! The MCP HTTP server as an OAuth 2.1 resource server (MCP Authorization,
//! RFC 9728, RFC 8707), and the client half a proxy needs (with `proxy`).
//!
//! Needs the `oauth` cargo feature.
//!
//! A [`ResourceServer`] given to [`McpServer::resource_server`] makes every
//! request to the MCP endpoint present `Authorization: Bearer <token>`. The
//! token is checked by an [`Authenticator`]: a [`JwtAuthenticator`] (JWT
//! access tokens signed by the authorization server's keys, found through
//! its metadata), an [`IntrospectionAuthenticator`] (opaque tokens, RFC
//! 7662), or the host's own. The [`Principal`] it vouches for reaches the
//! call (`Exec::principal`).
//!
//! - No token, or a bad one: `401` with `WWW-Authenticate: Bearer
//!   resource_metadata="…"` (and `error="invalid_token"` when a token was
//!   given), so a client discovers the authorization server.
//! - A `tools/call` of a tool whose [scopes](crate::tool::ToolDef::scopes)
//!   the token lacks: `403` with `error="insufficient_scope"` and the
//!   `scope` needed, for the client to step up.
//! - Too many requests from one principal: `429` with `Retry-After`; too
//!   many of its calls at once: `429` too ([`PrincipalLimits`]).
//! - `/.well-known/oauth-protected-resource` plus the resource's path serves
//!   the protected resource metadata (RFC 9728).
//! - A session is served only to the principal that started it: another
//!   principal's token with its `Mcp-Session-Id` gets the `404` of a session
//!   that does not exist.
//! - The authorization server cannot be reached to check a token: `503`
//!   with `Retry-After`.
//!
//! Every refusal is logged (`tracing`, target `dsh_kit::mcp::auth`) with its
//! reason, never with the token.
//!
//! [`McpServer::resource_server`]: crate::mcp::McpServer::resource_server
//! [`Principal`]: crate::Principal

#[cfg(feature = "proxy")]
mod client;
mod fetch;
mod introspect;
mod jwks;
mod jwt;
pub(crate) mod layer;
mod resource;

#[cfg(feature = "proxy")]
pub use client::{ClientCredentials, ClientFlowError};
pub use fetch::FetchError;
pub use introspect::IntrospectionAuthenticator;
pub use jwt::{DEFAULT_ALGORITHMS, DEFAULT_JWKS_REFRESH, DEFAULT_LEEWAY, JwtAuthenticator};
pub use resource::{
    DEFAULT_MAX_CONCURRENT_CALLS, DEFAULT_MAX_TOKEN_BYTES, DEFAULT_RATE_BURST,
    DEFAULT_RATE_PER_SECOND, PrincipalLimits, ResourceServer,
};

#[cfg(feature = "proxy")]
pub(crate) use client::client_credentials_token;
pub(crate) use resource::METADATA_PATH;

use std::future::Future;
use std::pin::Pin;

use serde_json::{Map, Value};

use crate::value::principal::Principal;

/// What [`Authenticator::authenticate`] returns.
pub type Authenticating<'a> =
    Pin<Box<dyn Future<Output = Result<Principal, TokenError>> + Send + 'a>>;

/// Checks a bearer token and says who it names. Implement it to check
/// tokens your own way (an API key table, a session store); the crate ships
/// [`JwtAuthenticator`] and [`IntrospectionAuthenticator`].
///
/// ```
/// use dsh_kit::Principal;
/// use dsh_kit::mcp::auth::{Authenticating, Authenticator, TokenError};
///
/// struct ApiKeys;
///
/// impl Authenticator for ApiKeys {
///     fn authenticate<'a>(&'a self, token: &'a str) -> Authenticating<'a> {
///         Box::pin(async move {
///             match token {
///                 "k-ada" => Ok(Principal::new("ada").with_scopes(["notes:write"])),
///                 _ => Err(TokenError::Inactive),
///             }
///         })
///     }
/// }
/// ```
pub trait Authenticator: Send + Sync + 'static {
    /// The principal `token` names, or why it is refused. `token` is at most
    /// the resource server's [`max_token_bytes`](ResourceServer::max_token_bytes).
    fn authenticate<'a>(&'a self, token: &'a str) -> Authenticating<'a>;
}

/// Why a bearer token was refused: each is a `401` with
/// `error="invalid_token"`, except [`Unavailable`](Self::Unavailable), a
/// `503`. The messages never hold the token.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum TokenError {
    /// The token is not a JWT: not three base64url parts, or a part that is
    /// not JSON.
    #[error("the token is malformed: {0}")]
    Malformed(String),
    /// The token is longer than allowed.
    #[error("the token is {bytes} bytes long, more than the {limit} allowed")]
    TooLarge {
        /// Its length.
        bytes: usize,
        /// The limit.
        limit: usize,
    },
    /// The token's signing algorithm is not one allowed (`none`, an HMAC).
    #[error("the token is signed with `{0}`, which is not an allowed algorithm")]
    Algorithm(String),
    /// No key of the authorization server has the token's `kid`.
    #[error("no signing key of the authorization server has the id {0:?}")]
    UnknownKey(Option<String>),
    /// The signature does not verify.
    #[error("the token's signature does not verify")]
    Signature,
    /// The token was issued by another issuer.
    #[error("the token was not issued by the expected issuer")]
    Issuer,
    /// The token is for another resource (`aud`).
    #[error("the token is not meant for this resource (its `aud` does not name it)")]
    Audience,
    /// The token expired.
    #[error("the token expired")]
    Expired,
    /// The token is not valid yet (`nbf`).
    #[error("the token is not valid yet")]
    NotYetValid,
    /// The token is not an access token: not typed `at+jwt` (RFC 9068), or
    /// an OpenID Connect ID token.
    #[error("the token is not an access token: {0}")]
    NotAnAccessToken(String),
    /// A claim that is required is missing or has the wrong type.
    #[error("the token's claim `{0}` is missing or not of the right type")]
    Claim(String),
    /// The authorization server says the token is not active (introspection),
    /// or the host's authenticator does not know it.
    #[error("the token is not active")]
    Inactive,
    /// The authorization server could not be asked.
    #[error("the authorization server cannot be reached to check the token: {0}")]
    Unavailable(FetchError),
}

/// Claims the [`Principal`] holds in its own fields, left out of its other claims.
const REGISTERED: [&str; 11] = [
    "iss",
    "sub",
    "aud",
    "exp",
    "nbf",
    "iat",
    "jti",
    "scope",
    "scp",
    "client_id",
    "azp",
];

/// The principal a validated token's claims name: `sub` (or the client, for
/// a token a client got for itself), `client_id` or `azp`, `iss`, `scope`
/// (space-separated) or `scp` (a list), and the other claims.
pub(crate) fn principal_from_claims(claims: Map<String, Value>) -> Result<Principal, TokenError> {
    let text = |name: &str| claims.get(name).and_then(Value::as_str).map(str::to_owned);
    let client_id = text("client_id").or_else(|| text("azp"));
    let subject = text("sub")
        .or_else(|| client_id.clone())
        .ok_or_else(|| TokenError::Claim("sub".into()))?;
    let mut scopes: Vec<String> = Vec::new();
    match claims.get("scope") {
        Some(Value::String(scope)) => scopes.extend(scope.split_whitespace().map(str::to_owned)),
        Some(_) => return Err(TokenError::Claim("scope".into())),
        None => {}
    }
    match claims.get("scp") {
        Some(Value::String(scp)) => scopes.extend(scp.split_whitespace().map(str::to_owned)),
        Some(Value::Array(scp)) => {
            for scope in scp {
                let scope = scope
                    .as_str()
                    .ok_or_else(|| TokenError::Claim("scp".into()))?;
                scopes.push(scope.to_owned());
            }
        }
        Some(_) => return Err(TokenError::Claim("scp".into())),
        None => {}
    }
    let mut principal = Principal::new(subject).with_scopes(scopes);
    if let Some(client_id) = client_id {
        principal = principal.with_client_id(client_id);
    }
    if let Some(issuer) = text("iss") {
        principal = principal.with_issuer(issuer);
    }
    let others = claims
        .into_iter()
        .filter(|(name, _)| !REGISTERED.contains(&name.as_str()))
        .collect();
    Ok(principal.with_claims(others))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn claims(value: Value) -> Map<String, Value> {
        value.as_object().unwrap().clone()
    }

    #[test]
    fn a_principal_from_claims_keeps_who_what_and_the_rest() {
        let principal = principal_from_claims(claims(json!({
            "sub": "ada", "azp": "notes-app", "iss": "https://as",
            "scope": "notes:read notes:write", "exp": 1, "tenant": "t1"
        })))
        .unwrap();
        assert_eq!(principal.subject(), "ada");
        assert_eq!(principal.client_id(), Some("notes-app"));
        assert_eq!(principal.issuer(), Some("https://as"));
        assert!(principal.has_scope("notes:write"));
        assert_eq!(principal.claims().keys().collect::<Vec<_>>(), ["tenant"]);
    }

    #[test]
    fn a_client_token_names_the_client_and_scp_lists_count() {
        let principal =
            principal_from_claims(claims(json!({ "client_id": "bot", "scp": ["a", "b"] })))
                .unwrap();
        assert_eq!(principal.subject(), "bot");
        assert!(principal.has_scope("a") && principal.has_scope("b"));
    }

    #[test]
    fn no_subject_or_a_scope_of_the_wrong_type_is_refused() {
        assert!(matches!(
            principal_from_claims(claims(json!({ "scope": "a" }))),
            Err(TokenError::Claim(claim)) if claim == "sub"
        ));
        assert!(matches!(
            principal_from_claims(claims(json!({ "sub": "a", "scope": 3 }))),
            Err(TokenError::Claim(claim)) if claim == "scope"
        ));
    }
}
