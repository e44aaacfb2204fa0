//! What a proxy shares with its tools and its watcher, and how it registers the
//! remote tools.

use crate::value::wire_keys::APPS_UI;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use rmcp::model::Tool;
use rmcp::{Peer, RoleClient};
use serde::Deserialize;
use serde_json::Value;
use tokio::sync::{Notify, broadcast};
use tokio_util::sync::CancellationToken;

use crate::pool::ScopedTool;
use crate::registry::Registry;
use crate::skill::SkillHandle;
use crate::tool::DynamicTool;
use crate::tool::RegisterError;
use crate::tool::ToolDef;
use crate::value::content::{ContentBlock, render_default};
use crate::value::event::rawp::{Diagnostic, Severity, ToolStatus};
use crate::value::names::Category;

use super::super::apps::links_card_view;
use super::super::pins::{ContractChanged, ContractPins, TOOL_CONTRACT_CHANGED};
use super::TOOL_SKIPPED;
use super::events::{ProxyEvent, ToolListDiff};
use super::forward::{Forward, Progress};

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
    _handle: ScopedTool,
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

    /// Registers the server's tools, replacing those that changed and
    /// dropping those it no longer has; says how the registered list changed.
    pub(super) async fn sync(self: &Arc<Self>) -> Result<ToolListDiff, rmcp::ServiceError> {
        let remote = self.peer().list_all_tools().await?;
        // The registry is only ever called with no lock of ours held: it
        // publishes the catalog to subscribers, who may ask this proxy.
        let known: BTreeMap<String, (Value, String)> = self
            .tools()
            .iter()
            .map(|(name, tool)| {
                (
                    name.clone(),
                    (tool.definition.clone(), tool.contract.clone()),
                )
            })
            .collect();
        self.forget_skipped();
        let mut skipped = Vec::new();
        let mut fresh = Vec::new();
        let mut seen = BTreeSet::new();
        let mut contracts = Vec::new();
        for tool in remote {
            let name = format!("{}{}", self.prefix, tool.name);
            seen.insert(name.clone());
            let definition = serde_json::to_value(&tool).unwrap_or(Value::Null);
            let contract = crate::export::digest::contract_hash(&definition);
            contracts.push((name.clone(), contract.clone()));
            if known
                .get(&name)
                .is_some_and(|(known, _)| *known == definition)
            {
                continue;
            }
            // A changed tool: the old one goes first, freeing the name.
            let old = self.tools().remove(&name);
            drop(old);
            match self
                .registry
                .register_dynamic(self.dynamic_tool(&name, &tool))
            {
                Ok(handle) => {
                    let _ = self.registry.set_status(&name, ToolStatus::Available, None);
                    let tool = Proxied {
                        definition,
                        contract,
                        _handle: handle.scoped(),
                    };
                    fresh.push((name, tool));
                }
                Err(error) => skipped.push(self.skip(&name, &tool, &error)),
            }
        }
        let (leftovers, now): (Vec<Proxied>, BTreeMap<String, String>) = {
            let mut tools = self.tools();
            if self.dropped.load(Ordering::SeqCst) {
                // The proxy went while this ran: nothing it registered stays.
                (
                    fresh.into_iter().map(|(_, tool)| tool).collect(),
                    BTreeMap::new(),
                )
            } else {
                tools.extend(fresh);
                let stale: Vec<String> = tools
                    .keys()
                    .filter(|name| !seen.contains(*name))
                    .cloned()
                    .collect();
                let leftovers = stale.iter().filter_map(|name| tools.remove(name)).collect();
                let now = tools
                    .iter()
                    .map(|(name, tool)| (name.clone(), tool.contract.clone()))
                    .collect();
                (leftovers, now)
            }
        };
        // A status outlives its tool: a tool gone while its server was gone
        // must not leave `unavailable` behind for one of the same name.
        if self.gone().is_some() {
            for name in known.keys().filter(|name| !now.contains_key(*name)) {
                let _ = self.registry.set_status(name, ToolStatus::Available, None);
            }
        }
        // Unregistered here, with the lock released.
        drop(leftovers);
        for (name, hash) in contracts {
            self.check_contract(&name, &hash);
        }
        *self.skipped.lock().unwrap_or_else(PoisonError::into_inner) = skipped;
        if !self.dropped.load(Ordering::SeqCst) {
            self.sync_skills().await;
        }
        Ok(diff(&known, &now))
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

    /// The dynamic tool `name` that forwards each call to the remote `tool`.
    pub(super) fn dynamic_tool(self: &Arc<Self>, name: &str, tool: &Tool) -> DynamicTool {
        let annotations = tool.annotations.clone().unwrap_or_default();
        let read_only = annotations.read_only_hint == Some(true);
        let mut def = ToolDef::builder_owned(name, tool.description.as_deref().unwrap_or_default())
            .category(Category::Mcp)
            .read_only(read_only)
            .concurrency_safe(read_only)
            .destructive(!read_only && annotations.destructive_hint == Some(true))
            .idempotent(annotations.idempotent_hint == Some(true));
        if let Some(open_world) = annotations.open_world_hint {
            def = def.open_world(open_world);
        }
        if let Some(title) = tool.title.clone().or(annotations.title) {
            def = def.with_title(title);
        }
        // What a dsh server says of its tools beyond MCP's fields.
        let meta = tool.meta.as_ref().map(|meta| &meta.0);
        if let Some(version) = meta
            .and_then(|meta| meta.get(crate::export::META_VERSION))
            .and_then(Value::as_str)
        {
            def = def.with_version(version);
        }
        let failure_schema = meta
            .and_then(|meta| meta.get(crate::export::META_FAILURE_SCHEMA))
            .cloned();
        if let Some(own) = meta.and_then(own_meta) {
            def = def.with_meta(own);
        }
        let forward = Forward {
            link: Arc::clone(self),
            remote: tool.name.to_string(),
            structured: tool.output_schema.is_some(),
        };
        let mut dynamic = DynamicTool::new(
            def.build(),
            Value::Object((*tool.input_schema).clone()),
            move |args, exec| forward.clone().call(args, exec),
        );
        if let Some(schema) = failure_schema {
            dynamic = dynamic.failure_schema(schema);
        }
        if links_card_view(tool.meta.as_ref()) {
            dynamic = dynamic.presents_remotely();
        }
        match &tool.output_schema {
            Some(schema) => dynamic.output_schema(Value::Object((**schema).clone())),
            None => dynamic.render(|_args, value| {
                Vec::<ContentBlock>::deserialize(value).unwrap_or_else(|_| render_default(value))
            }),
        }
    }
}

/// The most a remote tool's own `_meta` may hold, as JSON, to be kept.
const MAX_OWN_META_BYTES: usize = 16 * 1024;

/// The entries of a remote tool's `_meta` that are the tool's own: those
/// whose keys dsh-kit takes (not `dsh/`, which it reads itself, nor a
/// reserved prefix), less the MCP Apps view links (`ui`, `ui/…`), which
/// name the remote server's resources. `None` when none is left, or when
/// they are too large to carry.
fn own_meta(meta: &serde_json::Map<String, Value>) -> Option<serde_json::Map<String, Value>> {
    let own: serde_json::Map<String, Value> = meta
        .iter()
        .filter(|(key, _)| {
            crate::value::names::meta_key_problem(key).is_none()
                && key.as_str() != APPS_UI
                && !key
                    .strip_prefix(APPS_UI)
                    .is_some_and(|rest| rest.starts_with('/'))
        })
        .map(|(key, value)| (key.clone(), value.clone()))
        .collect();
    let size = serde_json::to_vec(&own).map_or(usize::MAX, |json| json.len());
    (!own.is_empty() && size <= MAX_OWN_META_BYTES).then_some(own)
}

/// How the registered tools changed from `before` to `now` (name → contract).
fn diff(
    before: &BTreeMap<String, (Value, String)>,
    now: &BTreeMap<String, String>,
) -> ToolListDiff {
    ToolListDiff {
        added: now
            .keys()
            .filter(|name| !before.contains_key(*name))
            .cloned()
            .collect(),
        removed: before
            .keys()
            .filter(|name| !now.contains_key(*name))
            .cloned()
            .collect(),
        changed: now
            .iter()
            .filter(|(name, contract)| {
                before
                    .get(*name)
                    .is_some_and(|(_, before)| before != *contract)
            })
            .map(|(name, _)| name.clone())
            .collect(),
    }
}
