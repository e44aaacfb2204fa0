//! The authorization server's signing keys (its JWKS), cached: fetched on
//! first use, again when older than a maximum age, and again when a token
//! names a key id not in the set, but then at most once per refresh
//! interval, so a flood of tokens with made-up `kid`s costs the
//! authorization server one request per interval.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use jsonwebtoken::jwk::{Jwk, JwkSet, PublicKeyUse};
use jsonwebtoken::{Algorithm, DecodingKey};

use super::TokenError;
use super::fetch::{self, FetchError, MAX_DOCUMENT_BYTES};

/// How long a fetched key set is used before it is fetched again: 1 hour.
const MAX_AGE: Duration = Duration::from_secs(3600);

/// Where the key set is.
#[derive(Debug, Clone)]
pub(super) enum JwksSource {
    /// The `jwks_uri` of the issuer's metadata.
    Discover { issuer: String },
    /// A `jwks_uri` given.
    Uri(String),
}

/// One usable key.
struct Key {
    decoding: DecodingKey,
    /// The algorithm the key is for, when the set says.
    algorithm: Option<Algorithm>,
}

#[derive(Default)]
struct Cached {
    keys: HashMap<String, Key>,
    /// The only key of a set whose keys have no ids, for tokens with no `kid`.
    unnamed: Option<Key>,
    /// When the set was last fetched (or a fetch last failed).
    fetched: Option<Instant>,
    jwks_uri: Option<String>,
}

/// The cached key set.
pub(super) struct Jwks {
    http: reqwest::Client,
    source: JwksSource,
    refresh: Duration,
    cached: tokio::sync::Mutex<Cached>,
}

impl Jwks {
    pub(super) fn new(http: reqwest::Client, source: JwksSource, refresh: Duration) -> Self {
        Jwks {
            http,
            source,
            refresh,
            cached: tokio::sync::Mutex::default(),
        }
    }

    /// The key named `kid` (or the only key, for no `kid`), checked to be
    /// for `algorithm`.
    pub(super) async fn key(
        &self,
        kid: Option<&str>,
        algorithm: Algorithm,
    ) -> Result<DecodingKey, TokenError> {
        let mut cached = self.cached.lock().await;
        let stale = cached.fetched.is_none_or(|at| at.elapsed() > MAX_AGE);
        if stale {
            self.fetch(&mut cached).await?;
        }
        if find(&cached, kid).is_none()
            && !stale
            && cached.fetched.is_none_or(|at| at.elapsed() >= self.refresh)
        {
            // Perhaps the server rotated its keys.
            self.fetch(&mut cached).await?;
        }
        let key =
            find(&cached, kid).ok_or_else(|| TokenError::UnknownKey(kid.map(str::to_owned)))?;
        if key.algorithm.is_some_and(|bound| bound != algorithm) {
            return Err(TokenError::Algorithm(format!("{algorithm:?}")));
        }
        Ok(key.decoding.clone())
    }

    async fn fetch(&self, cached: &mut Cached) -> Result<(), TokenError> {
        // A failure counts as a fetch too: an unreachable server is asked
        // again only after the refresh interval.
        cached.fetched = Some(Instant::now());
        let uri = match (&self.source, &cached.jwks_uri) {
            (JwksSource::Uri(uri), _) | (JwksSource::Discover { .. }, Some(uri)) => uri.clone(),
            (JwksSource::Discover { issuer }, None) => {
                let metadata = fetch::server_metadata(&self.http, issuer)
                    .await
                    .map_err(TokenError::Unavailable)?;
                let uri = metadata
                    .endpoint(&metadata.jwks_uri, "jwks_uri")
                    .map_err(TokenError::Unavailable)?;
                cached.jwks_uri = Some(uri.clone());
                uri
            }
        };
        let set: JwkSet = fetch::json(self.http.get(&uri), &uri, MAX_DOCUMENT_BYTES)
            .await
            .map_err(TokenError::Unavailable)?;
        let (keys, unnamed) = usable(set);
        if keys.is_empty() && unnamed.is_none() {
            return Err(TokenError::Unavailable(FetchError::Malformed {
                url: uri,
                reason: "the key set holds no usable signing key".into(),
            }));
        }
        cached.keys = keys;
        cached.unnamed = unnamed;
        Ok(())
    }
}

fn find<'a>(cached: &'a Cached, kid: Option<&str>) -> Option<&'a Key> {
    match kid {
        Some(kid) => cached.keys.get(kid),
        None => cached.unnamed.as_ref(),
    }
}

/// The signing keys of `set` by id, and its only key if it has one with no
/// id. Keys for encryption, symmetric keys and keys that cannot be read are
/// left out.
fn usable(set: JwkSet) -> (HashMap<String, Key>, Option<Key>) {
    let mut keys = HashMap::new();
    let mut unnamed = Vec::new();
    for jwk in set.keys {
        let Some(key) = key(&jwk) else { continue };
        match jwk.common.key_id {
            Some(kid) => {
                keys.insert(kid, key);
            }
            None => unnamed.push(key),
        }
    }
    let unnamed = (unnamed.len() == 1).then(|| unnamed.pop()).flatten();
    (keys, unnamed)
}

fn key(jwk: &Jwk) -> Option<Key> {
    if matches!(jwk.common.public_key_use, Some(ref usage) if *usage != PublicKeyUse::Signature) {
        return None;
    }
    if matches!(
        jwk.algorithm,
        jsonwebtoken::jwk::AlgorithmParameters::OctetKey(_)
    ) {
        return None;
    }
    let decoding = DecodingKey::from_jwk(jwk).ok()?;
    let algorithm = jwk
        .common
        .key_algorithm
        .and_then(|algorithm| algorithm.to_string().parse().ok());
    Some(Key {
        decoding,
        algorithm,
    })
}
