//! The `requestState` of a call that needs input (MCP 2026-07-28,
//! multi-round-trip input): the answers the client gave in the rounds so
//! far, bound to the request (method, name, arguments) and sealed with
//! HMAC-SHA256 under the server's [`StateKey`]. The client carries it to
//! the next round, on any replica that shares the key, and cannot alter it,
//! nor move it to another call, unnoticed.

use std::fmt;

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::{KeyInit, Mac};
use rmcp::model::InputResponses;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};

/// The longest `requestState` read, in bytes: a client's answers to one
/// call's questions fit many times over.
pub(crate) const MAX_STATE_BYTES: usize = 256 * 1024;

/// What a state starts with: its format.
const PREFIX: &str = "dsh2.";

/// The key that seals a server's `requestState`s: random per server unless
/// set, so replicas that answer each other's rounds share one
/// ([`McpServer::state_key`](super::McpServer::state_key)).
#[derive(Clone)]
pub(crate) struct StateKey([u8; 32]);

impl fmt::Debug for StateKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("StateKey(..)")
    }
}

impl StateKey {
    /// A fresh random key (two v4 UUIDs: 244 random bits).
    pub(crate) fn random() -> Self {
        let mut key = [0; 32];
        key[..16].copy_from_slice(uuid::Uuid::new_v4().as_bytes());
        key[16..].copy_from_slice(uuid::Uuid::new_v4().as_bytes());
        StateKey(key)
    }

    /// The key made from `secret`, any length.
    pub(crate) fn from_secret(secret: &[u8]) -> Self {
        StateKey(Sha256::digest(secret).into())
    }

    fn mac(&self, body: &str) -> Vec<u8> {
        let mut mac =
            hmac::Hmac::<Sha256>::new_from_slice(&self.0).expect("HMAC takes a key of any length");
        mac.update(body.as_bytes());
        mac.finalize().into_bytes().to_vec()
    }

    /// The state of `request` (from [`binding`]) after the client gave
    /// `answers`.
    pub(crate) fn seal(&self, request: &str, answers: &InputResponses) -> String {
        let sealed = Sealed {
            request: request.to_owned(),
            answers: answers.clone(),
        };
        let json = serde_json::to_vec(&sealed).unwrap_or_default();
        let body = URL_SAFE_NO_PAD.encode(json);
        let mac = URL_SAFE_NO_PAD.encode(self.mac(&body));
        format!("{PREFIX}{body}.{mac}")
    }

    /// The answers sealed in `state`, if this server sealed it for
    /// `request`.
    pub(crate) fn open(&self, request: &str, state: &str) -> Result<InputResponses, StateError> {
        if state.len() > MAX_STATE_BYTES {
            return Err(StateError::TooLong { len: state.len() });
        }
        let (body, mac) = state
            .strip_prefix(PREFIX)
            .and_then(|rest| rest.split_once('.'))
            .ok_or(StateError::Malformed)?;
        let mac = URL_SAFE_NO_PAD
            .decode(mac)
            .map_err(|_| StateError::Malformed)?;
        let mut check =
            hmac::Hmac::<Sha256>::new_from_slice(&self.0).expect("HMAC takes a key of any length");
        check.update(body.as_bytes());
        check.verify_slice(&mac).map_err(|_| StateError::Forged)?;
        let json = URL_SAFE_NO_PAD
            .decode(body)
            .map_err(|_| StateError::Malformed)?;
        let sealed: Sealed = serde_json::from_slice(&json).map_err(|_| StateError::Malformed)?;
        if sealed.request != request {
            return Err(StateError::OtherRequest);
        }
        Ok(sealed.answers)
    }
}

/// What a state holds.
#[derive(Serialize, Deserialize)]
struct Sealed {
    /// The request it belongs to ([`binding`]).
    #[serde(rename = "r")]
    request: String,
    /// The answers so far, by key.
    #[serde(rename = "a")]
    answers: InputResponses,
}

/// What binds a state to one request: `method`, the `name` of its tool or
/// prompt and its `args`, hashed.
pub(crate) fn binding(method: &str, name: &str, args: &Value) -> String {
    let mut hash = Hashing(Sha256::new());
    for part in [method, name] {
        hash.0.update(part.as_bytes());
        hash.0.update([0]);
    }
    // Written as `args.to_string()` would be, straight into the hash.
    serde_json::to_writer(&mut hash, args)
        .unwrap_or_else(|error| unreachable!("a JSON value serializes into a hash: {error}"));
    let digest = hash.0.finalize();
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut hex = String::with_capacity(32);
    for byte in &digest[..16] {
        hex.push(char::from(DIGITS[usize::from(byte >> 4)]));
        hex.push(char::from(DIGITS[usize::from(byte & 0xf)]));
    }
    hex
}

/// A hash that bytes are written into.
struct Hashing(Sha256);

impl std::io::Write for Hashing {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.update(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Why a `requestState` was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum StateError {
    /// Longer than [`MAX_STATE_BYTES`].
    #[error(
        "`requestState` is {len} bytes, more than the {MAX_STATE_BYTES} this server ever gives"
    )]
    TooLong {
        /// Its length.
        len: usize,
    },
    /// Not in the format this server gives.
    #[error("`requestState` is not one this server gave: it is not in its format")]
    Malformed,
    /// Its seal does not match: altered, or sealed by another key.
    #[error("`requestState` failed its integrity check: it was altered, or another server gave it")]
    Forged,
    /// Sealed for another call.
    #[error(
        "`requestState` is not the one this server gave for this request: it belongs to another tool, prompt or arguments"
    )]
    OtherRequest,
}

/// Checks the client's answers are objects (an `ElicitResult`,
/// `CreateMessageResult` or `ListRootsResult`, or an error), naming the
/// first that is not.
pub(crate) fn check_answers(answers: &InputResponses) -> Result<(), String> {
    match answers.iter().find(|(_, answer)| !answer.is_object()) {
        None => Ok(()),
        Some((key, answer)) => Err(format!(
            "`inputResponses.{key}` must be an object (the result of the request it answers), not {}",
            crate::value::json_kind(answer)
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn answers() -> InputResponses {
        InputResponses::from([(
            "step1".to_owned(),
            json!({ "action": "accept", "content": { "name": "Alice" } }),
        )])
    }

    /// The binding is the hash of the request as written out, so a state
    /// another replica sealed opens here.
    #[test]
    fn a_binding_is_the_hash_of_method_name_and_compact_arguments() {
        let args = json!({ "b": [1, 2.5, null], "a": { "x": "é\"" } });
        let mut hash = Sha256::new();
        hash.update(b"tools/call\0greet\0");
        hash.update(args.to_string().as_bytes());
        let expected: String = hash.finalize()[..16]
            .iter()
            .map(|byte| format!("{byte:02x}"))
            .collect();
        assert_eq!(binding("tools/call", "greet", &args), expected);
        assert_eq!(expected.len(), 32);
    }

    #[test]
    fn a_sealed_state_opens_for_its_request_alone() {
        let key = StateKey::random();
        let request = binding("tools/call", "greet", &json!({ "x": 1 }));
        let state = key.seal(&request, &answers());
        assert_eq!(key.open(&request, &state), Ok(answers()));

        let other = binding("tools/call", "greet", &json!({ "x": 2 }));
        assert_eq!(key.open(&other, &state), Err(StateError::OtherRequest));
        assert_eq!(
            StateKey::random().open(&request, &state),
            Err(StateError::Forged),
            "another server's key"
        );
    }

    #[test]
    fn an_altered_state_is_refused() {
        let key = StateKey::from_secret(b"shared by the replicas");
        let request = binding("prompts/get", "p", &json!({}));
        let state = key.seal(&request, &answers());
        assert!(matches!(
            key.open(&request, &format!("{state}-TAMPERED")),
            Err(StateError::Malformed | StateError::Forged)
        ));
        let (body, mac) = state.rsplit_once('.').unwrap();
        let forged = key.seal(&request, &InputResponses::new());
        let (_, forged_mac) = forged.rsplit_once('.').unwrap();
        assert_eq!(
            key.open(&request, &format!("{body}.{forged_mac}")),
            Err(StateError::Forged)
        );
        assert_eq!(key.open(&request, "forged"), Err(StateError::Malformed));
        let long = "x".repeat(MAX_STATE_BYTES + 1);
        assert!(matches!(
            key.open(&request, &long),
            Err(StateError::TooLong { .. })
        ));
        assert!(!mac.is_empty());
    }

    #[test]
    fn answers_that_are_not_objects_are_named() {
        let answers = InputResponses::from([("user_name".to_owned(), json!(12345))]);
        let error = check_answers(&answers).unwrap_err();
        assert!(error.contains("inputResponses.user_name"), "{error}");
        assert!(error.contains("a number"), "{error}");
    }
}
