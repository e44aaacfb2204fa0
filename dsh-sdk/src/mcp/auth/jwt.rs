//! [`JwtAuthenticator`]: JWT access tokens (RFC 9068) checked against the
//! authorization server's keys.

use std::fmt;
use std::time::Duration;

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use jsonwebtoken::errors::ErrorKind;
use jsonwebtoken::{Algorithm, Validation};
use serde_json::{Map, Value};

use super::jwks::{Jwks, JwksSource};
use super::{Authenticating, Authenticator, TokenError, principal_from_claims};

/// The signing algorithms [`JwtAuthenticator`] accepts unless told
/// otherwise: RSA (PKCS#1 v1.5 and PSS), ECDSA and EdDSA. Never `none`,
/// never an HMAC: a resource server holds only public keys, and an HMAC
/// "signed" with one is a forgery anyone can make.
pub const DEFAULT_ALGORITHMS: [Algorithm; 9] = [
    Algorithm::RS256,
    Algorithm::RS384,
    Algorithm::RS512,
    Algorithm::PS256,
    Algorithm::PS384,
    Algorithm::PS512,
    Algorithm::ES256,
    Algorithm::ES384,
    Algorithm::EdDSA,
];

/// How far `exp` and `nbf` may be off, for clocks that differ: 30 seconds.
pub const DEFAULT_LEEWAY: Duration = Duration::from_secs(30);

/// The shortest time between two fetches of the key set for a `kid` it did
/// not hold: 30 seconds.
pub const DEFAULT_JWKS_REFRESH: Duration = Duration::from_secs(30);

/// The largest JWT header read, before its signature is checked: 4 KiB.
const MAX_HEADER_BYTES: usize = 4096;

/// Checks JWT access tokens: signed by one of the issuer's keys with an
/// allowed asymmetric algorithm ([`DEFAULT_ALGORITHMS`]), issued by the
/// issuer (`iss`), for this resource (`aud`, RFC 8707), within `exp` and
/// `nbf` give or take the [leeway](Self::leeway). The keys come from the
/// issuer's `jwks_uri`, found through its metadata (RFC 8414, or OpenID
/// Connect Discovery), cached, and fetched again for a key id not known yet
/// at most once per [refresh interval](Self::jwks_refresh), so keys the
/// authorization server rotates in are picked up without a restart.
///
/// The token must say it is an access token, as RFC 9068 asks: its header's
/// `typ` is `at+jwt` or `application/at+jwt` (in any case). A token typed
/// `JWT` or not typed is refused, unless the issuer is one that does not
/// type its access tokens and the host says so
/// ([`untyped_access_tokens`](Self::untyped_access_tokens)). An OpenID
/// Connect ID token is never taken for an access token, typed or not: a
/// token with a claim only ID tokens carry (`nonce`, `at_hash`, `c_hash`),
/// or whose audience is the very client it was issued to (`aud` naming its
/// `azp` or `client_id`), is refused.
///
/// ```
/// use dsh_kit::mcp::auth::JwtAuthenticator;
///
/// let tokens = JwtAuthenticator::new("https://auth.example.com", "https://mcp.example.com/mcp");
/// ```
pub struct JwtAuthenticator {
    issuer: String,
    audience: String,
    algorithms: Vec<Algorithm>,
    leeway: Duration,
    jwks: Jwks,
    source: JwksSource,
    http: reqwest::Client,
    refresh: Duration,
    untyped: bool,
}

impl JwtAuthenticator {
    /// Tokens `issuer` issued for `audience`, the resource URI of this server.
    pub fn new(issuer: impl Into<String>, audience: impl Into<String>) -> Self {
        let issuer = issuer.into();
        let source = JwksSource::Discover {
            issuer: issuer.clone(),
        };
        let http = reqwest::Client::new();
        JwtAuthenticator {
            issuer,
            audience: audience.into(),
            algorithms: DEFAULT_ALGORITHMS.to_vec(),
            leeway: DEFAULT_LEEWAY,
            jwks: Jwks::new(http.clone(), source.clone(), DEFAULT_JWKS_REFRESH),
            source,
            http,
            refresh: DEFAULT_JWKS_REFRESH,
            untyped: false,
        }
    }

    /// Also accepts access tokens typed `JWT` or not typed at all, for an
    /// authorization server that does not set RFC 9068's `at+jwt` (many
    /// predate it). ID tokens are still refused by their claims (see
    /// [`JwtAuthenticator`]); a token of another `typ` still is too.
    pub fn untyped_access_tokens(mut self) -> Self {
        self.untyped = true;
        self
    }

    /// Reads the keys from `uri` rather than the `jwks_uri` of the issuer's metadata.
    pub fn jwks_uri(mut self, uri: impl Into<String>) -> Self {
        self.source = JwksSource::Uri(uri.into());
        self.rebuild()
    }

    /// The HTTP client the keys and metadata are fetched with (its TLS
    /// roots, proxy, timeouts).
    pub fn http_client(mut self, http: reqwest::Client) -> Self {
        self.http = http;
        self.rebuild()
    }

    /// The shortest time between two fetches of the key set for a key id it
    /// did not hold; [`DEFAULT_JWKS_REFRESH`] unless set.
    pub fn jwks_refresh(mut self, every: Duration) -> Self {
        self.refresh = every;
        self.rebuild()
    }

    /// How far `exp` and `nbf` may be off; [`DEFAULT_LEEWAY`] unless set.
    pub fn leeway(mut self, leeway: Duration) -> Self {
        self.leeway = leeway;
        self
    }

    /// Accepts only these algorithms. HMACs (`HS256`, …) are dropped: a
    /// resource server checks signatures with public keys.
    pub fn algorithms(mut self, algorithms: impl IntoIterator<Item = Algorithm>) -> Self {
        self.algorithms = algorithms
            .into_iter()
            .filter(|algorithm| {
                !matches!(
                    algorithm,
                    Algorithm::HS256 | Algorithm::HS384 | Algorithm::HS512
                )
            })
            .collect();
        self
    }

    fn rebuild(mut self) -> Self {
        self.jwks = Jwks::new(self.http.clone(), self.source.clone(), self.refresh);
        self
    }

    async fn check(&self, token: &str) -> Result<Map<String, Value>, TokenError> {
        let (algorithm, kid, typ) = self.header(token)?;
        let key = self.jwks.key(kid.as_deref(), algorithm).await?;
        let mut validation = Validation::new(algorithm);
        validation.algorithms = vec![algorithm];
        validation.leeway = self.leeway.as_secs();
        validation.validate_nbf = true;
        validation.set_issuer(&[&self.issuer]);
        validation.set_audience(&[&self.audience]);
        validation.set_required_spec_claims(&["exp", "iss", "aud"]);
        let data = jsonwebtoken::decode::<Map<String, Value>>(token, &key, &validation)
            .map_err(|error| refusal(error.kind()))?;
        self.token_type(typ)?;
        not_an_id_token(&data.claims)?;
        Ok(data.claims)
    }

    /// The access-token `typ`: `at+jwt`, or `application/at+jwt`, in any
    /// case (a `typ` is a media type, and media type names ignore case);
    /// `JWT` or none only when the issuer was said not to type its tokens.
    fn token_type(&self, typ: Option<String>) -> Result<(), TokenError> {
        let typed = |typ: &str| {
            typ.eq_ignore_ascii_case("at+jwt") || typ.eq_ignore_ascii_case("application/at+jwt")
        };
        match typ {
            Some(typ) if typed(&typ) => Ok(()),
            None if self.untyped => Ok(()),
            Some(typ) if self.untyped && typ.eq_ignore_ascii_case("jwt") => Ok(()),
            typ => Err(TokenError::NotAnAccessToken(match typ {
                Some(typ) => format!("its `typ` is {typ:?}, not `at+jwt` (RFC 9068)"),
                None => "it has no `typ`; an access token is typed `at+jwt` (RFC 9068)".into(),
            })),
        }
    }

    /// The token's algorithm, checked against the allow-list before anything
    /// else is done with it, and its key id.
    fn header(
        &self,
        token: &str,
    ) -> Result<(Algorithm, Option<String>, Option<String>), TokenError> {
        let mut parts = token.split('.');
        let (Some(header), Some(_), Some(_), None) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return Err(TokenError::Malformed(
                "not three dot-separated parts".into(),
            ));
        };
        if header.len() > MAX_HEADER_BYTES {
            return Err(TokenError::Malformed(format!(
                "its header is longer than {MAX_HEADER_BYTES} bytes"
            )));
        }
        let header = URL_SAFE_NO_PAD
            .decode(header)
            .map_err(|_| TokenError::Malformed("its header is not base64url".into()))?;
        let header: Map<String, Value> = serde_json::from_slice(&header)
            .map_err(|_| TokenError::Malformed("its header is not a JSON object".into()))?;
        let alg = header
            .get("alg")
            .and_then(Value::as_str)
            .ok_or_else(|| TokenError::Malformed("its header has no `alg`".into()))?;
        let algorithm = alg
            .parse::<Algorithm>()
            .ok()
            .filter(|algorithm| self.algorithms.contains(algorithm))
            .ok_or_else(|| TokenError::Algorithm(alg.chars().take(32).collect()))?;
        let kid = match header.get("kid") {
            None => None,
            Some(Value::String(kid)) => Some(kid.chars().take(128).collect()),
            Some(_) => return Err(TokenError::Malformed("its `kid` is not a string".into())),
        };
        let typ = match header.get("typ") {
            None => None,
            Some(Value::String(typ)) => Some(typ.chars().take(64).collect()),
            Some(_) => return Err(TokenError::Malformed("its `typ` is not a string".into())),
        };
        Ok((algorithm, kid, typ))
    }
}

/// Refuses an OpenID Connect ID token: one with a claim only ID tokens
/// carry, or whose audience is the client it was issued to.
fn not_an_id_token(claims: &Map<String, Value>) -> Result<(), TokenError> {
    if let Some(claim) = ["nonce", "at_hash", "c_hash"]
        .into_iter()
        .find(|claim| claims.contains_key(*claim))
    {
        return Err(TokenError::NotAnAccessToken(format!(
            "it carries `{claim}`, a claim of OpenID Connect ID tokens"
        )));
    }
    let client = ["azp", "client_id"]
        .into_iter()
        .filter_map(|claim| claims.get(claim).and_then(Value::as_str))
        .find(|client| match claims.get("aud") {
            Some(Value::String(aud)) => aud == client,
            Some(Value::Array(auds)) => auds.iter().any(|aud| aud.as_str() == Some(client)),
            _ => false,
        });
    match client {
        Some(client) => Err(TokenError::NotAnAccessToken(format!(
            "its audience is its own client {client:?}, as an ID token's is"
        ))),
        None => Ok(()),
    }
}

/// The refusal a failed decode stands for.
fn refusal(kind: &ErrorKind) -> TokenError {
    match kind {
        ErrorKind::InvalidSignature => TokenError::Signature,
        ErrorKind::ExpiredSignature => TokenError::Expired,
        ErrorKind::ImmatureSignature => TokenError::NotYetValid,
        ErrorKind::InvalidIssuer => TokenError::Issuer,
        ErrorKind::InvalidAudience => TokenError::Audience,
        ErrorKind::MissingRequiredClaim(claim) | ErrorKind::InvalidClaimFormat(claim) => {
            TokenError::Claim(claim.clone())
        }
        ErrorKind::InvalidAlgorithm | ErrorKind::MissingAlgorithm => {
            TokenError::Algorithm("(not the key's)".into())
        }
        ErrorKind::Base64(_) => TokenError::Malformed("a part is not base64url".into()),
        ErrorKind::Json(_) | ErrorKind::Utf8(_) => {
            TokenError::Malformed("its claims are not a JSON object".into())
        }
        _ => TokenError::Signature,
    }
}

impl Authenticator for JwtAuthenticator {
    fn authenticate<'a>(&'a self, token: &'a str) -> Authenticating<'a> {
        Box::pin(async move { principal_from_claims(self.check(token).await?) })
    }
}

impl fmt::Debug for JwtAuthenticator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("JwtAuthenticator")
            .field("issuer", &self.issuer)
            .field("audience", &self.audience)
            .field("algorithms", &self.algorithms)
            .finish_non_exhaustive()
    }
}
