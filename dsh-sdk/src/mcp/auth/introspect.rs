//! [`IntrospectionAuthenticator`]: opaque tokens, asked of the authorization
//! server (RFC 7662).

use std::fmt;

use serde_json::{Map, Value};

use super::fetch::{self, MAX_DOCUMENT_BYTES, form_encoded};
use super::{Authenticating, Authenticator, TokenError, principal_from_claims};

/// Checks opaque access tokens by asking the authorization server's
/// introspection endpoint (RFC 7662), as a client of its own
/// (`client_secret_basic`). A token is taken when the answer says `active`,
/// has not expired, and, when it names an audience, names this resource.
///
/// ```
/// use dsh_kit::mcp::auth::IntrospectionAuthenticator;
///
/// let tokens = IntrospectionAuthenticator::new(
///     "https://auth.example.com/token/introspection",
///     "https://mcp.example.com/mcp",
/// )
/// .client("mcp-server", "its secret");
/// ```
pub struct IntrospectionAuthenticator {
    endpoint: String,
    resource: String,
    client: Option<(String, String)>,
    http: reqwest::Client,
}

impl IntrospectionAuthenticator {
    /// Asks `endpoint` about each token, for the resource `resource`.
    pub fn new(endpoint: impl Into<String>, resource: impl Into<String>) -> Self {
        IntrospectionAuthenticator {
            endpoint: endpoint.into(),
            resource: resource.into(),
            client: None,
            http: reqwest::Client::new(),
        }
    }

    /// Authenticates to the endpoint as the client `id` with `secret`.
    pub fn client(mut self, id: impl Into<String>, secret: impl Into<String>) -> Self {
        self.client = Some((id.into(), secret.into()));
        self
    }

    /// The HTTP client the endpoint is asked with.
    pub fn http_client(mut self, http: reqwest::Client) -> Self {
        self.http = http;
        self
    }

    async fn check(&self, token: &str) -> Result<Map<String, Value>, TokenError> {
        let mut request = self
            .http
            .post(&self.endpoint)
            .form(&[("token", token), ("token_type_hint", "access_token")]);
        if let Some((id, secret)) = &self.client {
            request = request.basic_auth(form_encoded(id), Some(form_encoded(secret)));
        }
        let answer: Map<String, Value> = fetch::json(request, &self.endpoint, MAX_DOCUMENT_BYTES)
            .await
            .map_err(TokenError::Unavailable)?;
        if answer.get("active") != Some(&Value::Bool(true)) {
            return Err(TokenError::Inactive);
        }
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |since| since.as_secs());
        if answer
            .get("exp")
            .and_then(Value::as_u64)
            .is_some_and(|exp| exp < now)
        {
            return Err(TokenError::Expired);
        }
        if answer
            .get("nbf")
            .and_then(Value::as_u64)
            .is_some_and(|nbf| nbf > now)
        {
            return Err(TokenError::NotYetValid);
        }
        let for_us = match answer.get("aud") {
            None => true,
            Some(Value::String(aud)) => *aud == self.resource,
            Some(Value::Array(auds)) => auds.iter().any(|aud| aud.as_str() == Some(&self.resource)),
            Some(_) => false,
        };
        if !for_us {
            return Err(TokenError::Audience);
        }
        Ok(answer)
    }
}

impl Authenticator for IntrospectionAuthenticator {
    fn authenticate<'a>(&'a self, token: &'a str) -> Authenticating<'a> {
        Box::pin(async move {
            let mut claims = self.check(token).await?;
            claims.remove("active");
            claims.remove("token_type");
            principal_from_claims(claims)
        })
    }
}

impl fmt::Debug for IntrospectionAuthenticator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("IntrospectionAuthenticator")
            .field("endpoint", &self.endpoint)
            .field("resource", &self.resource)
            .finish_non_exhaustive()
    }
}
