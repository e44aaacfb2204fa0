//! What a proxy shares with its tools and its watcher.

use std::collections::BTreeMap;
use std::sync::atomic::AtomicBool;
use std::sync::{Mutex, MutexGuard, PoisonError};

use rmcp::model::Tool;
use rmcp::{Peer, RoleClient};
use serde_json::Value;
use tokio::sync::{Notify, broadcast};
use tokio_util::sync::CancellationToken;

use crate::pool::ScopedTool;
use crate::registry::Registry;
use crate::skill::SkillHandle;
use crate::tool::RegisterError;
use crate::value::event::rawp::{Diagnostic, Severity, ToolStatus};

use super::super::pins::{ContractChanged, ContractPins, TOOL_CONTRACT_CHANGED};
use super::TOOL_SKIPPED;
use super::events::ProxyEvent;
use super::progress::Progress;

/// What the proxy, its tools' handlers and the watcher share.
pub(super) struct Link {
    pub(super) server: String,
    pub(super) prefix: String,
    pub(super) pins: ContractPins,
    pub(super) registry: Registry,
    /// The current connection, replaced on each reconnection.
    peer: Mutex<Peer<RoleClient>>,
    /// Cancelled when the current connection is seen to be gone (a call that
    /// nothing answered), so the watcher stops following it.
    connection: Mutex<CancellationToken>,
    /// Progress token → the call it reports on.
    pub(super) progress: Progress,
    /// Registered name → what it was made from, and its handle.
    pub(super) tools: Mutex<BTreeMap<String, Proxied>>,
    pub(super) skipped: Mutex<Vec<Diagnostic>>,
    /// The server's skills as served here: each URI, and its handle.
    pub(super) skills: Mutex<Vec<(String, SkillHandle)>>,
    /// Set when the proxy is dropped: a re-read still running registers nothing.
    pub(super) dropped: AtomicBool,
    /// Why the server is gone, while it is.
    gone: Mutex<Option<String>>,
    pub(super) closed: Notify,
    events: broadcast::Sender<ProxyEvent>,
}

/// A remote tool as registered here.
pub(super) struct Proxied {
    /// Its MCP definition, as the server listed it.
    pub(super) definition: Value,
    /// The contract hash of that definition.
    pub(super) contract: String,
    pub(super) _handle: ScopedTool,
}

/// How many events a slow [`McpProxy::events`](super::McpProxy::events)
/// receiver may fall behind before it misses some.
const EVENT_BUFFER: usize = 64;

impl Link {
    pub(super) fn new(
        server: String,
        prefix: String,
        pins: ContractPins,
        registry: &Registry,
        peer: Peer<RoleClient>,
        progress: Progress,
    ) -> Self {
        Link {
            server,
            prefix,
            pins,
            registry: registry.clone(),
            peer: Mutex::new(peer),
            connection: Mutex::default(),
            progress,
            tools: Mutex::default(),
            skipped: Mutex::default(),
            skills: Mutex::default(),
            dropped: AtomicBool::new(false),
            gone: Mutex::default(),
            closed: Notify::new(),
            events: broadcast::channel(EVENT_BUFFER).0,
        }
    }

    pub(super) fn tools(&self) -> MutexGuard<'_, BTreeMap<String, Proxied>> {
        self.tools.lock().unwrap_or_else(PoisonError::into_inner)
    }

    pub(super) fn gone(&self) -> Option<String> {
        self.gone
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// The current connection to the server.
    pub(super) fn peer(&self) -> Peer<RoleClient> {
        self.peer
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Follows a new connection from here on; returns the token that says
    /// it was seen to be gone.
    pub(super) fn attach(&self, peer: Peer<RoleClient>) -> CancellationToken {
        *self.peer.lock().unwrap_or_else(PoisonError::into_inner) = peer;
        let token = CancellationToken::new();
        *self
            .connection
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = token.clone();
        token
    }

    pub(super) fn subscribe(&self) -> broadcast::Receiver<ProxyEvent> {
        self.events.subscribe()
    }

    pub(super) fn emit(&self, event: ProxyEvent) {
        tracing::info!(server = %self.server, ?event, "MCP proxy");
        // No receiver is not an error: nobody asked.
        let _ = self.events.send(event);
    }

    /// Blocks `name` when its contract `hash` is not the pinned one, and
    /// lifts the block when it is again.
    pub(super) fn check_contract(&self, name: &str, hash: &str) {
        if self.registry.get(name).is_none() {
            return;
        }
        match self.pins.check(name, hash) {
            Ok(()) => {
                self.registry
                    .remove_diagnostic(Some(name), TOOL_CONTRACT_CHANGED);
            }
            Err(ContractChanged { pinned }) => {
                let server = &self.server;
                self.registry.add_diagnostic(
                    Diagnostic::new(
                        Severity::Fatal,
                        TOOL_CONTRACT_CHANGED,
                        format!(
                            "the tool `{name}` of the MCP server `{server}` changed its definition since it was approved (pinned {pinned}, now {hash}): it is blocked until its new definition is approved"
                        ),
                    )
                    .tool(name),
                );
            }
        }
    }

    /// Takes this proxy's `TOOL_SKIPPED` diagnostics out of the catalog.
    pub(super) fn forget_skipped(&self) {
        let skipped =
            std::mem::take(&mut *self.skipped.lock().unwrap_or_else(PoisonError::into_inner));
        for diagnostic in skipped {
            if diagnostic.code == TOOL_SKIPPED {
                self.registry
                    .remove_diagnostic(diagnostic.tool_name.as_deref(), TOOL_SKIPPED);
            }
        }
    }

    /// Records why the remote `tool` could not be registered as `name`.
    pub(super) fn skip(&self, name: &str, tool: &Tool, error: &RegisterError) -> Diagnostic {
        let server = &self.server;
        let remote = &tool.name;
        if let RegisterError::Duplicate { existing, .. } = error
            && self
                .registry
                .get(existing)
                .is_some_and(|tool| !tool.is_dynamic())
        {
            // The registry recorded `TOOL_SHADOWED` already.
            return Diagnostic::new(
                Severity::Warning,
                crate::tool::TOOL_SHADOWED,
                format!(
                    "the tool `{remote}` of the MCP server `{server}` is left out: the built-in tool `{existing}` has the name `{name}`"
                ),
            )
            .tool(name);
        }
        let diagnostic = Diagnostic::new(
            Severity::Warning,
            TOOL_SKIPPED,
            format!("the tool `{remote}` of the MCP server `{server}` is left out: {error}"),
        )
        .tool(name);
        self.registry.add_diagnostic(diagnostic.clone());
        diagnostic
    }

    /// The server went away: its tools turn unavailable, and the watcher
    /// stops following the connection. The first reason stays.
    pub(super) fn mark_gone(&self, reason: String) {
        {
            let mut gone = self.gone.lock().unwrap_or_else(PoisonError::into_inner);
            if gone.is_some() {
                return;
            }
            *gone = Some(reason.clone());
        }
        self.set_statuses(
            ToolStatus::Unavailable,
            Some(&format!(
                "the MCP server `{}` is gone: {reason}",
                self.server
            )),
        );
        self.connection
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .cancel();
        self.closed.notify_waiters();
        self.emit(ProxyEvent::Disconnected { reason });
    }

    /// The server is back: its tools turn available again.
    pub(super) fn mark_back(&self) {
        *self.gone.lock().unwrap_or_else(PoisonError::into_inner) = None;
        self.set_statuses(ToolStatus::Available, None);
    }

    /// Says in each tool's status description that reconnecting failed for good.
    pub(super) fn mark_given_up(&self, attempts: u32, error: &str) {
        let reason = self.gone().unwrap_or_default();
        let server = &self.server;
        self.set_statuses(
            ToolStatus::Unavailable,
            Some(&format!(
                "the MCP server `{server}` is gone: {reason}; {attempts} attempts to reconnect failed, the last with: {error}"
            )),
        );
    }

    fn set_statuses(&self, status: ToolStatus, description: Option<&str>) {
        let names: Vec<String> = self.tools().keys().cloned().collect();
        for name in names {
            let _ = self.registry.set_status(&name, status, description);
        }
    }
}
