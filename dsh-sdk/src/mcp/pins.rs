//! Pinned tool contracts for [`McpProxy`](super::McpProxy): a guard against
//! a server that changes a tool after it was approved (a "rug pull").

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

/// The code of the `fatal` diagnostic on a proxied tool whose definition no
/// longer matches its pinned contract hash: the tool is blocked until
/// [`McpProxy::approve_contract`](super::McpProxy::approve_contract)
/// approves the new definition.
pub const TOOL_CONTRACT_CHANGED: &str = "MCP_TOOL_CONTRACT_CHANGED";

/// The [contract hashes](crate::export::digest) a host approved, by the name the
/// tool is registered under. Shared by clones, so a host can keep it across
/// proxies and persist it ([`pins`](Self::pins), then
/// [`from_pins`](Self::from_pins) on the next run).
///
/// A proxy pins each tool it has no pin for the first time it sees it, and
/// blocks a tool whose definition hashes to anything else afterwards.
///
/// ```
/// use dsh_kit::mcp::ContractPins;
///
/// let pins = ContractPins::new();
/// pins.pin("files_read", "sha256:…");
/// assert_eq!(pins.get("files_read").as_deref(), Some("sha256:…"));
/// let saved = pins.pins();
/// assert_eq!(ContractPins::from_pins(saved).get("files_read").as_deref(), Some("sha256:…"));
/// ```
#[derive(Clone, Debug, Default)]
pub struct ContractPins {
    pins: Arc<Mutex<BTreeMap<String, String>>>,
    /// Whether every definition seen is pinned as it comes ([`following`](Self::following)).
    follow: bool,
}

impl ContractPins {
    /// No pins yet: every tool is pinned when first seen.
    pub fn new() -> Self {
        Self::default()
    }

    /// Pins as saved from [`pins`](Self::pins).
    pub fn from_pins(pins: BTreeMap<String, String>) -> Self {
        ContractPins {
            pins: Arc::new(Mutex::new(pins)),
            follow: false,
        }
    }

    /// Pins that follow every change: each definition a proxy sees is
    /// pinned as it comes, so no tool is ever blocked. For a server whose
    /// changes are the host's own, such as one under development (`dsh
    /// dev`): a change is served at once, with no moment in which the new
    /// definition is listed but its calls are refused.
    ///
    /// ```
    /// use dsh_kit::mcp::ContractPins;
    ///
    /// let pins = ContractPins::following();
    /// pins.pin("files_read", "sha256:old");
    /// assert!(pins.is_following());
    /// ```
    pub fn following() -> Self {
        ContractPins {
            pins: Arc::default(),
            follow: true,
        }
    }

    /// Whether these pins follow every change ([`following`](Self::following)).
    pub fn is_following(&self) -> bool {
        self.follow
    }

    /// Pins `tool` to `hash`, replacing any earlier pin.
    pub fn pin(&self, tool: impl Into<String>, hash: impl Into<String>) {
        self.lock().insert(tool.into(), hash.into());
    }

    /// The hash `tool` is pinned to.
    pub fn get(&self, tool: &str) -> Option<String> {
        self.lock().get(tool).cloned()
    }

    /// Every pin, by tool name.
    pub fn pins(&self) -> BTreeMap<String, String> {
        self.lock().clone()
    }

    fn lock(&self) -> MutexGuard<'_, BTreeMap<String, String>> {
        self.pins.lock().unwrap_or_else(PoisonError::into_inner)
    }

    #[cfg(feature = "proxy")]
    /// Checks `hash` for `tool`: pins it when unpinned (or when following);
    /// an error naming the pin when it differs.
    pub(super) fn check(&self, tool: &str, hash: &str) -> Result<(), ContractChanged> {
        let mut pins = self.lock();
        match pins.get(tool) {
            Some(pinned) if pinned != hash && !self.follow => Err(ContractChanged {
                pinned: pinned.clone(),
            }),
            Some(pinned) if pinned == hash => Ok(()),
            Some(_) | None => {
                pins.insert(tool.to_owned(), hash.to_owned());
                Ok(())
            }
        }
    }
}

#[cfg(feature = "proxy")]
/// A tool's definition hashes to something other than its pin.
#[derive(Debug)]
pub(super) struct ContractChanged {
    /// The hash the tool is pinned to.
    pub(super) pinned: String,
}

#[cfg(all(test, feature = "proxy"))]
mod tests {
    use super::*;

    #[test]
    fn pins_block_a_change_and_following_pins_take_it() {
        let pins = ContractPins::new();
        assert!(pins.check("greet", "sha256:a").is_ok());
        let changed = pins.check("greet", "sha256:b").unwrap_err();
        assert_eq!(changed.pinned, "sha256:a");
        assert_eq!(pins.get("greet").as_deref(), Some("sha256:a"));

        let following = ContractPins::following();
        assert!(following.check("greet", "sha256:a").is_ok());
        assert!(following.check("greet", "sha256:b").is_ok());
        assert_eq!(following.get("greet").as_deref(), Some("sha256:b"));
        // Clones share the pins and the mode.
        assert!(following.clone().is_following());
    }
}
