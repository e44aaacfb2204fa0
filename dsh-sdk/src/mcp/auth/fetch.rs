//! Reading an authorization server: JSON documents of bounded size, and its
//! metadata (RFC 8414, or OpenID Connect Discovery) found from its issuer.

use serde::Deserialize;
use serde::de::DeserializeOwned;

/// The largest JSON document read from an authorization server: 256 KiB.
pub(crate) const MAX_DOCUMENT_BYTES: usize = 256 * 1024;

/// How long one request to an authorization server may take.
pub(crate) const FETCH_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

/// Why a document could not be read from an authorization server. Never
/// holds a token or a secret.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum FetchError {
    /// The server could not be reached, or broke off.
    #[error("cannot reach {url}: {reason}")]
    Unreachable {
        /// The URL asked.
        url: String,
        /// What the HTTP client said.
        reason: String,
    },
    /// The server answered with an error status.
    #[error("{url} answered HTTP {status}")]
    Status {
        /// The URL asked.
        url: String,
        /// The status.
        status: u16,
    },
    /// The answer was larger than the limit.
    #[error("{url} answered more than {limit} bytes")]
    TooLarge {
        /// The URL asked.
        url: String,
        /// The limit, in bytes.
        limit: usize,
    },
    /// The answer was not the JSON document expected.
    #[error("{url} answered a document that cannot be read: {reason}")]
    Malformed {
        /// The URL asked.
        url: String,
        /// What was wrong with it.
        reason: String,
    },
    /// The metadata found names another issuer than the one configured
    /// (RFC 8414 section 3.3: such metadata must not be used).
    #[error("the metadata of `{expected}` names the issuer `{found}`")]
    IssuerMismatch {
        /// The issuer configured.
        expected: String,
        /// The issuer the metadata names.
        found: String,
    },
    /// The metadata lacks an endpoint that is needed.
    #[error("the metadata of `{issuer}` has no `{field}`")]
    MissingEndpoint {
        /// The issuer.
        issuer: String,
        /// The field missing (`jwks_uri`, `token_endpoint`, …).
        field: &'static str,
    },
}

/// Sends `request` and reads its JSON answer, at most `limit` bytes.
pub(crate) async fn json<T: DeserializeOwned>(
    request: reqwest::RequestBuilder,
    url: &str,
    limit: usize,
) -> Result<T, FetchError> {
    let unreachable = |error: reqwest::Error| FetchError::Unreachable {
        url: url.to_owned(),
        reason: chain(&error.without_url()),
    };
    let mut response = request
        .timeout(FETCH_TIMEOUT)
        .header(reqwest::header::ACCEPT, "application/json")
        .send()
        .await
        .map_err(unreachable)?;
    let status = response.status();
    let mut body = Vec::new();
    while let Some(chunk) = response.chunk().await.map_err(unreachable)? {
        if body.len() + chunk.len() > limit {
            return Err(FetchError::TooLarge {
                url: url.to_owned(),
                limit,
            });
        }
        body.extend_from_slice(&chunk);
    }
    if !status.is_success() {
        return Err(FetchError::Status {
            url: url.to_owned(),
            status: status.as_u16(),
        });
    }
    serde_json::from_slice(&body).map_err(|error| FetchError::Malformed {
        url: url.to_owned(),
        reason: error.to_string(),
    })
}

/// An error and its sources, one after another: reqwest's own message
/// ("error sending request") says little without them.
pub(crate) fn chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

/// The fields of an authorization server's metadata this crate uses.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct ServerMetadata {
    pub(crate) issuer: String,
    #[serde(default)]
    pub(crate) jwks_uri: Option<String>,
    /// Read by the client credentials grant of a proxy.
    #[cfg(feature = "proxy")]
    #[serde(default)]
    pub(crate) token_endpoint: Option<String>,
}

impl ServerMetadata {
    /// The endpoint `field` gives, or why there is none.
    pub(crate) fn endpoint(
        &self,
        value: &Option<String>,
        field: &'static str,
    ) -> Result<String, FetchError> {
        value.clone().ok_or_else(|| FetchError::MissingEndpoint {
            issuer: self.issuer.clone(),
            field,
        })
    }
}

/// The metadata of the authorization server `issuer`: RFC 8414's
/// `/.well-known/oauth-authorization-server` (inserted before the issuer's
/// path), then OpenID Connect Discovery's `/.well-known/openid-configuration`
/// (after it). Its `issuer` must be `issuer` exactly.
pub(crate) async fn server_metadata(
    http: &reqwest::Client,
    issuer: &str,
) -> Result<ServerMetadata, FetchError> {
    let (origin, path) = split_origin(issuer);
    let path = path.trim_end_matches('/');
    let candidates = [
        format!("{origin}/.well-known/oauth-authorization-server{path}"),
        format!("{origin}{path}/.well-known/openid-configuration"),
    ];
    let mut last = None;
    for url in candidates {
        match json::<ServerMetadata>(http.get(&url), &url, MAX_DOCUMENT_BYTES).await {
            Ok(metadata) if metadata.issuer == issuer => return Ok(metadata),
            Ok(metadata) => {
                return Err(FetchError::IssuerMismatch {
                    expected: issuer.to_owned(),
                    found: metadata.issuer,
                });
            }
            Err(error) => last = Some(error),
        }
    }
    Err(last.expect("two candidates were tried"))
}

/// `https://host:port` and `/path` of an absolute URL (the path empty when
/// there is none).
pub(crate) fn split_origin(url: &str) -> (&str, &str) {
    let after_scheme = url.find("://").map_or(0, |at| at + 3);
    match url[after_scheme..].find('/') {
        Some(at) => url.split_at(after_scheme + at),
        None => (url, ""),
    }
}

/// `text` form-urlencoded, as `client_secret_basic` wants the client id and
/// secret before they are joined (RFC 6749 section 2.3.1).
pub(super) fn form_encoded(text: &str) -> String {
    let mut encoded = String::with_capacity(text.len());
    for byte in text.bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'*' => {
                encoded.push(char::from(byte));
            }
            b' ' => encoded.push('+'),
            _ => encoded.push_str(&format!("%{byte:02X}")),
        }
    }
    encoded
}

#[cfg(test)]
mod tests {
    use super::split_origin;

    #[test]
    fn splits_origin_and_path() {
        assert_eq!(
            split_origin("https://as.example.com/tenant/1"),
            ("https://as.example.com", "/tenant/1")
        );
        assert_eq!(
            split_origin("http://127.0.0.1:8080"),
            ("http://127.0.0.1:8080", "")
        );
    }
}
