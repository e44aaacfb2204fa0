//! Who makes a call: [`Principal`].

use std::collections::BTreeSet;
use std::sync::{Arc, LazyLock};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// Who makes a call, as an authenticator vouched for it: its subject, the
/// client it used, the scopes it was granted, the issuer, and the token's
/// other claims. Never the token itself.
///
/// Every call has one. A call made over an authenticated MCP server carries
/// the principal its access token names; a call the host makes in process
/// carries [`Principal::host`] unless the host gives another
/// ([`ToolCall::principal`]), so one code path decides for both.
///
/// ```
/// use dsh_kit::Principal;
///
/// let ada = Principal::new("ada")
///     .with_client_id("notes-app")
///     .with_scopes(["files:read", "files:write"]);
/// assert!(ada.has_scope("files:write"));
/// assert!(!ada.has_scope("admin"));
///
/// // The host itself holds every scope.
/// assert!(Principal::host().has_scope("admin"));
/// ```
///
/// [`ToolCall::principal`]: crate::ToolCall::principal
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Principal {
    /// The subject: a user, or a service acting as itself (`sub`).
    subject: String,
    /// The OAuth client the subject called through (`client_id`, `azp`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    client_id: Option<String>,
    /// Who vouched for the subject (`iss`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    issuer: Option<String>,
    /// The scopes granted, sorted.
    #[serde(default, skip_serializing_if = "BTreeSet::is_empty")]
    scopes: BTreeSet<String>,
    /// The host process itself, which holds every scope.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    host: bool,
    /// The token's other claims, as the authenticator kept them.
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    claims: Map<String, Value>,
}

impl std::fmt::Debug for Principal {
    /// Every field but the claims' values, which may hold anything the
    /// authorization server put in the token: only their names, so a
    /// principal printed in an error or a log line leaks none of them.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Principal")
            .field("subject", &self.subject)
            .field("client_id", &self.client_id)
            .field("issuer", &self.issuer)
            .field("scopes", &self.scopes)
            .field("host", &self.host)
            .field("claims", &self.claims.keys().collect::<Vec<_>>())
            .finish()
    }
}

/// The subject of [`Principal::host`].
const HOST_SUBJECT: &str = "host";

impl Principal {
    /// A principal for `subject`, with no scopes.
    pub fn new(subject: impl Into<String>) -> Self {
        Principal {
            subject: subject.into(),
            client_id: None,
            issuer: None,
            scopes: BTreeSet::new(),
            host: false,
            claims: Map::new(),
        }
    }

    /// The process that hosts the registry, calling its own tools: it holds
    /// every scope. The principal of a call nobody named another for.
    pub fn host() -> Self {
        Principal {
            host: true,
            ..Principal::new(HOST_SUBJECT)
        }
    }

    /// [`Principal::host`], shared: what a call without a principal reads.
    pub(crate) fn shared_host() -> &'static Arc<Principal> {
        static HOST: LazyLock<Arc<Principal>> = LazyLock::new(|| Arc::new(Principal::host()));
        &HOST
    }

    /// With the OAuth client the subject called through.
    pub fn with_client_id(mut self, client_id: impl Into<String>) -> Self {
        self.client_id = Some(client_id.into());
        self
    }

    /// With the issuer that vouched for the subject.
    pub fn with_issuer(mut self, issuer: impl Into<String>) -> Self {
        self.issuer = Some(issuer.into());
        self
    }

    /// With these scopes granted, besides any granted before.
    pub fn with_scopes<S: Into<String>>(mut self, scopes: impl IntoIterator<Item = S>) -> Self {
        self.scopes.extend(scopes.into_iter().map(Into::into));
        self
    }

    /// With the token's other claims.
    pub fn with_claims(mut self, claims: Map<String, Value>) -> Self {
        self.claims = claims;
        self
    }

    /// The subject.
    pub fn subject(&self) -> &str {
        &self.subject
    }

    /// The OAuth client the subject called through, if known.
    pub fn client_id(&self) -> Option<&str> {
        self.client_id.as_deref()
    }

    /// Who vouched for the subject, if known.
    pub fn issuer(&self) -> Option<&str> {
        self.issuer.as_deref()
    }

    /// The scopes granted, sorted. Empty for [`Principal::host`], which holds
    /// every scope without listing any.
    pub fn scopes(&self) -> impl Iterator<Item = &str> {
        self.scopes.iter().map(String::as_str)
    }

    /// Whether `scope` was granted (always, for the host).
    pub fn has_scope(&self, scope: &str) -> bool {
        self.host || self.scopes.contains(scope)
    }

    /// Whether this is the host process itself.
    pub fn is_host(&self) -> bool {
        self.host
    }

    /// The token's claim `name`, if the authenticator kept it.
    pub fn claim(&self, name: &str) -> Option<&Value> {
        self.claims.get(name)
    }

    /// The token's other claims.
    pub fn claims(&self) -> &Map<String, Value> {
        &self.claims
    }
}

/// Who made a call, as an event or the session log records it: a
/// [`Principal`] without the token's claims, which may hold anything the
/// authorization server put in the token (and so are never written down).
/// The host's own calls record no caller at all, so a log written before
/// callers were recorded reads as the host's, which it was.
///
/// ```
/// use dsh_kit::{Caller, Principal};
///
/// let mut claims = serde_json::Map::new();
/// claims.insert("email".into(), "ada@example.com".into());
/// let ada = Principal::new("ada").with_scopes(["files:read"]).with_claims(claims);
/// let caller = Caller::of(&ada).unwrap();
/// assert_eq!(
///     serde_json::to_value(&caller).unwrap(),
///     serde_json::json!({ "subject": "ada", "scopes": ["files:read"] }),
/// );
/// assert!(caller.principal().claims().is_empty());
/// assert_eq!(Caller::of(&Principal::host()), None);
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Caller {
    /// The subject ([`Principal::subject`]).
    pub subject: String,
    /// The OAuth client the subject called through.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_id: Option<String>,
    /// Who vouched for the subject.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub issuer: Option<String>,
    /// The scopes granted, sorted.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub scopes: Vec<String>,
}

impl Caller {
    /// The record of `principal`; `None` for [`Principal::host`].
    pub fn of(principal: &Principal) -> Option<Caller> {
        (!principal.is_host()).then(|| Caller {
            subject: principal.subject.clone(),
            client_id: principal.client_id.clone(),
            issuer: principal.issuer.clone(),
            scopes: principal.scopes.iter().cloned().collect(),
        })
    }

    /// The principal this records, without claims: what a replay of the
    /// call runs as.
    pub fn principal(&self) -> Principal {
        Principal {
            client_id: self.client_id.clone(),
            issuer: self.issuer.clone(),
            scopes: self.scopes.iter().cloned().collect(),
            ..Principal::new(self.subject.clone())
        }
    }
}

impl std::fmt::Display for Caller {
    /// `ada`, `ada (client notes-app)`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.subject)?;
        if let Some(client) = &self.client_id {
            write!(f, " (client {client})")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scopes_are_a_set_and_the_host_holds_all() {
        let p = Principal::new("ada").with_scopes(["b", "a", "b"]);
        assert_eq!(p.scopes().collect::<Vec<_>>(), ["a", "b"]);
        assert!(!p.is_host() && !p.has_scope("c"));
        assert!(Principal::host().has_scope("c"));
    }

    #[test]
    fn debug_names_the_claims_without_their_values() {
        let mut claims = Map::new();
        claims.insert("secret".into(), Value::String("s3cr3t-value".into()));
        let p = Principal::new("ada").with_claims(claims);
        let debug = format!("{p:?}");
        assert!(debug.contains("\"secret\"") && debug.contains("\"ada\""));
        assert!(!debug.contains("s3cr3t-value"), "{debug}");
    }

    #[test]
    fn serializes_without_empty_fields_and_reads_back() {
        let p = Principal::new("ada").with_scopes(["files:read"]);
        let json = serde_json::to_value(&p).unwrap();
        assert_eq!(
            json,
            serde_json::json!({ "subject": "ada", "scopes": ["files:read"] })
        );
        assert_eq!(serde_json::from_value::<Principal>(json).unwrap(), p);
    }
}
