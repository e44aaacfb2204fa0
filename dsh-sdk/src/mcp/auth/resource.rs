//! [`ResourceServer`]: what a protected MCP server needs to know about
//! itself and its authorization servers, and its protected resource
//! metadata (RFC 9728).

use std::collections::BTreeSet;
use std::fmt;
use std::num::NonZeroU32;
use std::sync::Arc;

use serde_json::{Value, json};

use crate::registry::Registry;

use super::fetch::split_origin;
use super::{Authenticator, JwtAuthenticator};

/// The longest bearer token read: 8 KiB. A longer one is refused unread.
pub const DEFAULT_MAX_TOKEN_BYTES: usize = 8 * 1024;

/// Requests per second one principal may make, on average: 20.
pub const DEFAULT_RATE_PER_SECOND: u32 = 20;

/// Requests one principal may make at once above its rate: 40.
pub const DEFAULT_RATE_BURST: u32 = 40;

/// Requests (`POST`s: calls, lists) one principal may have running at once: 8.
pub const DEFAULT_MAX_CONCURRENT_CALLS: usize = 8;

/// The well-known path of protected resource metadata (RFC 9728 section 3).
pub(crate) const METADATA_PATH: &str = "/.well-known/oauth-protected-resource";

/// What one principal may ask of the server: a request rate (past it, `429`
/// with `Retry-After`) and a number of requests running at once (past it,
/// `429`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PrincipalLimits {
    /// Requests per second, on average.
    pub per_second: NonZeroU32,
    /// Requests that may come at once above the rate.
    pub burst: NonZeroU32,
    /// Requests running at once.
    pub max_concurrent: usize,
}

impl Default for PrincipalLimits {
    fn default() -> Self {
        PrincipalLimits {
            per_second: NonZeroU32::new(DEFAULT_RATE_PER_SECOND).expect("not zero"),
            burst: NonZeroU32::new(DEFAULT_RATE_BURST).expect("not zero"),
            max_concurrent: DEFAULT_MAX_CONCURRENT_CALLS,
        }
    }
}

/// A protected MCP server: its resource URI, the authorization servers that
/// issue tokens for it, how a token is checked, and the limits per
/// principal. Give it to [`McpServer::resource_server`].
///
/// ```
/// use dsh_kit::mcp::auth::ResourceServer;
///
/// // JWT access tokens from one issuer, for this server's URI.
/// let protected = ResourceServer::jwt("https://mcp.example.com/mcp", "https://auth.example.com")
///     .scopes_supported(["notes:read", "notes:write"]);
/// ```
///
/// [`McpServer::resource_server`]: crate::mcp::McpServer::resource_server
#[derive(Clone)]
pub struct ResourceServer {
    pub(crate) resource: String,
    pub(crate) authorization_servers: Vec<String>,
    pub(crate) authenticator: Arc<dyn Authenticator>,
    pub(crate) scopes_supported: Vec<String>,
    pub(crate) required_scopes: Vec<String>,
    pub(crate) resource_name: Option<String>,
    pub(crate) max_token_bytes: usize,
    pub(crate) limits: PrincipalLimits,
}

impl ResourceServer {
    /// The server whose resource URI is `resource` (the URL clients connect
    /// to, as they write it: `https://mcp.example.com/mcp`), checking tokens
    /// with `authenticator`. Name the authorization servers with
    /// [`authorization_server`](Self::authorization_server).
    pub fn new(resource: impl Into<String>, authenticator: impl Authenticator) -> Self {
        ResourceServer {
            resource: resource.into(),
            authorization_servers: Vec::new(),
            authenticator: Arc::new(authenticator),
            scopes_supported: Vec::new(),
            required_scopes: Vec::new(),
            resource_name: None,
            max_token_bytes: DEFAULT_MAX_TOKEN_BYTES,
            limits: PrincipalLimits::default(),
        }
    }

    /// The server at `resource`, taking JWT access tokens `issuer` issued for
    /// it ([`JwtAuthenticator`] with its defaults), and naming `issuer` as
    /// its authorization server.
    pub fn jwt(resource: impl Into<String>, issuer: impl Into<String>) -> Self {
        let resource = resource.into();
        let issuer = issuer.into();
        ResourceServer::new(
            resource.clone(),
            JwtAuthenticator::new(issuer.clone(), resource),
        )
        .authorization_server(issuer)
    }

    /// Names an authorization server (its issuer URL) in the metadata, for
    /// clients to get tokens from.
    pub fn authorization_server(mut self, issuer: impl Into<String>) -> Self {
        self.authorization_servers.push(issuer.into());
        self
    }

    /// Scopes to list in the metadata's `scopes_supported`, besides those the
    /// registry's tools declare.
    pub fn scopes_supported(mut self, scopes: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.scopes_supported
            .extend(scopes.into_iter().map(Into::into));
        self
    }

    /// Scopes every request needs, whatever it asks (`403
    /// insufficient_scope` without them).
    pub fn required_scopes(mut self, scopes: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.required_scopes
            .extend(scopes.into_iter().map(Into::into));
        self
    }

    /// A name for people, in the metadata's `resource_name`.
    pub fn resource_name(mut self, name: impl Into<String>) -> Self {
        self.resource_name = Some(name.into());
        self
    }

    /// The longest bearer token read; [`DEFAULT_MAX_TOKEN_BYTES`] unless set.
    pub fn max_token_bytes(mut self, bytes: usize) -> Self {
        self.max_token_bytes = bytes;
        self
    }

    /// What one principal may ask; [`PrincipalLimits::default`] unless set.
    pub fn limits(mut self, limits: PrincipalLimits) -> Self {
        self.limits = limits;
        self
    }

    /// The resource URI.
    pub fn resource(&self) -> &str {
        &self.resource
    }

    /// The URL of this resource's metadata: the well-known path inserted
    /// between the resource URI's origin and its path (RFC 9728 section 3.1).
    pub fn metadata_url(&self) -> String {
        let (origin, _) = split_origin(&self.resource);
        format!("{origin}{}", self.metadata_route())
    }

    /// The path the metadata is served at on this server.
    pub(crate) fn metadata_route(&self) -> String {
        let (_, path) = split_origin(&self.resource);
        let path = path.trim_end_matches('/');
        format!("{METADATA_PATH}{path}")
    }

    /// The protected resource metadata document.
    pub(crate) fn metadata(&self, registry: &Registry) -> Value {
        let mut scopes: BTreeSet<String> = self.scopes_supported.iter().cloned().collect();
        scopes.extend(self.required_scopes.iter().cloned());
        for tool in registry.tools() {
            scopes.extend(tool.definition().scopes().map(str::to_owned));
        }
        let mut document = json!({
            "resource": self.resource,
            "authorization_servers": self.authorization_servers,
            "scopes_supported": scopes,
            "bearer_methods_supported": ["header"],
        });
        if let Some(name) = &self.resource_name {
            document["resource_name"] = Value::String(name.clone());
        }
        document
    }
}

impl fmt::Debug for ResourceServer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ResourceServer")
            .field("resource", &self.resource)
            .field("authorization_servers", &self.authorization_servers)
            .field("limits", &self.limits)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp::auth::{Authenticating, TokenError};

    struct Nobody;
    impl Authenticator for Nobody {
        fn authenticate<'a>(&'a self, _: &'a str) -> Authenticating<'a> {
            Box::pin(async { Err(TokenError::Inactive) })
        }
    }

    #[test]
    fn the_metadata_url_puts_the_well_known_path_before_the_resource_path() {
        let server = ResourceServer::new("https://mcp.example.com/api/mcp", Nobody);
        assert_eq!(
            server.metadata_url(),
            "https://mcp.example.com/.well-known/oauth-protected-resource/api/mcp"
        );
        let root = ResourceServer::new("https://mcp.example.com", Nobody);
        assert_eq!(
            root.metadata_url(),
            "https://mcp.example.com/.well-known/oauth-protected-resource"
        );
    }
}
