//! The client half, for a proxy calling a protected server: discovery from
//! the server's `401` (RFC 9728), then the client credentials grant at the
//! authorization server it names, for that resource (RFC 8707).

use std::fmt;

use serde::Deserialize;

use super::fetch::{self, FetchError, MAX_DOCUMENT_BYTES, form_encoded};

/// A client's own credentials at an authorization server, for the client
/// credentials grant ([`McpProxyBuilder::client_credentials`]).
///
/// [`McpProxyBuilder::client_credentials`]: crate::mcp::McpProxyBuilder::client_credentials
#[derive(Clone)]
pub struct ClientCredentials {
    pub(crate) client_id: String,
    pub(crate) client_secret: String,
    pub(crate) scopes: Vec<String>,
    pub(crate) issuer: Option<String>,
}

impl ClientCredentials {
    /// The client `client_id` with `client_secret` (sent as HTTP Basic,
    /// `client_secret_basic`).
    pub fn new(client_id: impl Into<String>, client_secret: impl Into<String>) -> Self {
        ClientCredentials {
            client_id: client_id.into(),
            client_secret: client_secret.into(),
            scopes: Vec::new(),
            issuer: None,
        }
    }

    /// Asks for these scopes (none asked: the authorization server's default).
    pub fn scopes(mut self, scopes: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.scopes.extend(scopes.into_iter().map(Into::into));
        self
    }

    /// Only gets tokens from `issuer`, the authorization server the
    /// credentials belong to: a server that names another one is not sent them.
    pub fn issuer(mut self, issuer: impl Into<String>) -> Self {
        self.issuer = Some(issuer.into());
        self
    }
}

impl fmt::Debug for ClientCredentials {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ClientCredentials")
            .field("client_id", &self.client_id)
            .field("scopes", &self.scopes)
            .field("issuer", &self.issuer)
            .finish_non_exhaustive()
    }
}

/// Why a proxy could not get a token for a protected server.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum ClientFlowError {
    /// The server did not answer `401` with a `resource_metadata` to follow.
    #[error(
        "the server did not ask for a token with a `resource_metadata` (it answered HTTP {status})"
    )]
    NoChallenge {
        /// What the server answered.
        status: u16,
    },
    /// The server's metadata names no authorization server.
    #[error("the server's protected resource metadata names no authorization server")]
    NoAuthorizationServer,
    /// The server names authorization servers, and not the one the
    /// credentials belong to.
    #[error("the server does not name `{0}`, the authorization server the credentials belong to")]
    OtherIssuer(String),
    /// A document could not be read.
    #[error(transparent)]
    Fetch(#[from] FetchError),
    /// The authorization server gave no access token.
    #[error("the authorization server gave no access token")]
    NoToken,
}

#[derive(Deserialize)]
struct ResourceMetadata {
    resource: Option<String>,
    #[serde(default)]
    authorization_servers: Vec<String>,
}

#[derive(Deserialize)]
struct TokenAnswer {
    access_token: Option<String>,
}

/// The `resource_metadata` parameter of a `WWW-Authenticate: Bearer` challenge.
fn resource_metadata(challenge: &str) -> Option<String> {
    let at = challenge.find("resource_metadata=")? + "resource_metadata=".len();
    let rest = &challenge[at..];
    let value = match rest.strip_prefix('"') {
        Some(quoted) => &quoted[..quoted.find('"')?],
        None => rest.split([',', ' ']).next()?,
    };
    Some(value.to_owned())
}

/// An access token for the MCP server at `url`: its `401` names its
/// metadata, which names its resource URI and authorization server, whose
/// metadata names its token endpoint, where the client credentials grant
/// is run for that resource.
pub(crate) async fn client_credentials_token(
    http: &reqwest::Client,
    url: &str,
    credentials: &ClientCredentials,
) -> Result<String, ClientFlowError> {
    let unreachable = |error: reqwest::Error| {
        ClientFlowError::Fetch(FetchError::Unreachable {
            url: url.to_owned(),
            reason: fetch::chain(&error.without_url()),
        })
    };
    let probe = http
        .post(url)
        .timeout(fetch::FETCH_TIMEOUT)
        .header(
            reqwest::header::ACCEPT,
            "application/json, text/event-stream",
        )
        .json(&serde_json::json!({ "jsonrpc": "2.0", "id": 0, "method": "ping" }))
        .send()
        .await
        .map_err(unreachable)?;
    let status = probe.status().as_u16();
    let metadata_url = probe
        .headers()
        .get(reqwest::header::WWW_AUTHENTICATE)
        .and_then(|value| value.to_str().ok())
        .and_then(resource_metadata)
        .filter(|_| status == 401)
        .ok_or(ClientFlowError::NoChallenge { status })?;
    let metadata: ResourceMetadata =
        fetch::json(http.get(&metadata_url), &metadata_url, MAX_DOCUMENT_BYTES).await?;
    let issuer = match &credentials.issuer {
        Some(issuer) if metadata.authorization_servers.contains(issuer) => issuer.clone(),
        Some(issuer) => return Err(ClientFlowError::OtherIssuer(issuer.clone())),
        None => metadata
            .authorization_servers
            .first()
            .cloned()
            .ok_or(ClientFlowError::NoAuthorizationServer)?,
    };
    let server = fetch::server_metadata(http, &issuer).await?;
    let token_endpoint = server.endpoint(&server.token_endpoint, "token_endpoint")?;
    let resource = metadata.resource.unwrap_or_else(|| url.to_owned());
    let scope = credentials.scopes.join(" ");
    let mut form = vec![
        ("grant_type", "client_credentials"),
        ("resource", &resource),
    ];
    if !scope.is_empty() {
        form.push(("scope", &scope));
    }
    let request = http
        .post(&token_endpoint)
        .basic_auth(
            form_encoded(&credentials.client_id),
            Some(form_encoded(&credentials.client_secret)),
        )
        .form(&form);
    let answer: TokenAnswer = fetch::json(request, &token_endpoint, MAX_DOCUMENT_BYTES).await?;
    answer.access_token.ok_or(ClientFlowError::NoToken)
}

#[cfg(test)]
mod tests {
    use super::resource_metadata;
    use crate::mcp::auth::fetch::form_encoded;

    #[test]
    fn client_credentials_are_form_encoded_before_basic_auth() {
        assert_eq!(form_encoded("a b:c%d~é"), "a+b%3Ac%25d%7E%C3%A9");
        assert_eq!(form_encoded("agent-secret_1.x"), "agent-secret_1.x");
    }

    #[test]
    fn the_metadata_url_is_read_from_a_challenge() {
        assert_eq!(
            resource_metadata(
                r#"Bearer error="invalid_token", resource_metadata="https://a/.well-known/x""#
            )
            .as_deref(),
            Some("https://a/.well-known/x")
        );
        assert_eq!(
            resource_metadata("Bearer resource_metadata=https://a/m, scope=x").as_deref(),
            Some("https://a/m")
        );
        assert_eq!(resource_metadata("Bearer realm=\"x\""), None);
    }
}
