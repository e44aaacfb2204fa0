//! A session's life: `initialize`, the `list_changed` notifications that
//! follow it or a `subscriptions/listen` stream, and the requests rmcp could
//! not read.

use std::sync::PoisonError;

use rmcp::model::{
    CallToolRequestParams, CustomRequest, CustomResult, ErrorCode, InitializeRequestParams,
    InitializeResult,
};
use rmcp::service::{NotificationContext, RequestContext, SubscriptionContext};
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::Value;
use tokio::sync::watch;
use tokio_util::sync::{CancellationToken, DropGuard};

use super::McpServer;

/// The methods MCP defines for a client to call: a request for one that
/// rmcp could not read has invalid params.
const KNOWN_METHODS: &[&str] = &[
    "initialize",
    "ping",
    "tools/list",
    "tools/call",
    "resources/list",
    "resources/templates/list",
    "resources/read",
    "resources/subscribe",
    "resources/unsubscribe",
    "prompts/list",
    "prompts/get",
    "completion/complete",
    "logging/setLevel",
    "subscriptions/listen",
    "server/discover",
];

/// Where a session that began with `initialize` is in sending `list_changed`.
#[derive(Default)]
pub(super) enum ListChanged {
    /// No `initialize` yet.
    #[default]
    Idle,
    /// Initialized, not yet confirmed: the changes since `initialize`.
    Pending(watch::Receiver<()>),
    /// Sending; dropping the guard stops it.
    Sending { _stop: DropGuard },
}

impl McpServer {
    fn list_changed(&self) -> std::sync::MutexGuard<'_, ListChanged> {
        self.list_changed
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// `initialize`: the peer is recorded and the protocol negotiated.
    pub(super) fn initialize_session(
        &self,
        request: InitializeRequestParams,
        context: &RequestContext<RoleServer>,
    ) -> Result<InitializeResult, ErrorData> {
        // Changes from here on are news to the client: it lists the tools
        // after this answer.
        *self.list_changed() = ListChanged::Pending(self.registry.watch_tools());
        context.peer.set_peer_info(request.clone());
        self.negotiate_initialize(&request)
    }

    /// `notifications/initialized`: starts sending `list_changed`.
    pub(super) fn start_list_changed(&self, context: NotificationContext<RoleServer>) {
        let mut changes = match std::mem::take(&mut *self.list_changed()) {
            ListChanged::Pending(changes) => changes,
            _ => self.registry.watch_tools(),
        };
        let stop = CancellationToken::new();
        let peer = context.peer;
        let stopped = stop.clone();
        tokio::spawn(async move {
            loop {
                tokio::select! {
                    () = stopped.cancelled() => break,
                    changed = changes.changed() => {
                        if changed.is_err() || peer.notify_tool_list_changed().await.is_err() {
                            break;
                        }
                    }
                }
            }
        });
        *self.list_changed() = ListChanged::Sending {
            _stop: stop.drop_guard(),
        };
    }

    /// A request rmcp could not read as any method it knows: one naming a
    /// method MCP defines failed on its params, which is JSON-RPC's invalid
    /// params (-32602), not an unknown method (-32601).
    pub(super) async fn unread_request(
        &self,
        request: CustomRequest,
    ) -> Result<CustomResult, ErrorData> {
        let CustomRequest { method, params, .. } = request;
        let task_id = || {
            params
                .as_ref()
                .and_then(|params| params.get("taskId"))
                .and_then(Value::as_str)
                .map(str::to_owned)
                .ok_or_else(|| {
                    ErrorData::invalid_params(format!("`{method}` needs a `taskId`"), None)
                })
        };
        // MCP 2025-11-25's task methods that the tasks extension dropped.
        match method.as_str() {
            "tasks/result" => return self.tasks.result(&task_id()?).await.map(CustomResult),
            "tasks/list" => return self.tasks.list().await.map(CustomResult),
            _ => {}
        }
        if !KNOWN_METHODS.contains(&method.as_str()) {
            return Err(ErrorData::new(ErrorCode::METHOD_NOT_FOUND, method, None));
        }
        let why = match method.as_str() {
            "tools/call" => {
                serde_json::from_value::<CallToolRequestParams>(params.unwrap_or(Value::Null))
                    .err()
                    .map(|error| error.to_string())
            }
            _ => None,
        };
        let message = match why {
            Some(why) => format!("invalid params for `{method}`: {why}"),
            None => format!("invalid params for `{method}`"),
        };
        Err(ErrorData::invalid_params(message, None))
    }

    /// A `subscriptions/listen` stream: `list_changed` on it while it is open.
    pub(super) async fn listen_for_changes(
        &self,
        context: SubscriptionContext,
    ) -> Result<(), ErrorData> {
        if context.accepted().tools_list_changed != Some(true) {
            context.cancelled().await;
            return Ok(());
        }
        let mut changes = self.registry.watch_tools();
        changes.mark_unchanged();
        loop {
            tokio::select! {
                () = context.cancelled() => return Ok(()),
                changed = changes.changed() => {
                    if changed.is_err() || context.sink().notify_tool_list_changed().await.is_err() {
                        return Ok(());
                    }
                }
            }
        }
    }
}
