//! A session's life: `initialize`, the `list_changed` notifications that
//! follow it or a `subscriptions/listen` stream, and the requests rmcp could
//! not read.

use std::sync::{Arc, PoisonError};

use rmcp::model::{
    CallToolRequestParams, CancelledNotificationParam, CustomNotification, CustomRequest,
    CustomResult, ErrorCode, InitializeRequestParams, InitializeResult, ProtocolVersion,
    ServerNotification,
};
use rmcp::service::{NotificationContext, RequestContext, SubscriptionContext};
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::Value;
use tokio::sync::{broadcast, watch};
use tokio_util::sync::{CancellationToken, DropGuard};

use crate::mcp::session::Calls;
use crate::mcp::stores::bus::BusEvent;
use crate::mcp::tasks::store::TaskOwner;

use super::{McpServer, caller};

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

/// The methods MCP 2026-07-28 removed (SEP-2575), and the 2025-11-25 task
/// methods its tasks extension dropped: a request on that protocol for one
/// is for a method the server does not have.
const REMOVED_IN_2026_07_28: &[&str] = &[
    "initialize",
    "ping",
    "logging/setLevel",
    "resources/subscribe",
    "resources/unsubscribe",
    "tasks/result",
    "tasks/list",
];

/// Refuses `method` as unknown (-32601, which streamable HTTP answers with
/// 404) when the request declares in its `_meta` a `protocol` that removed
/// it (a session's `initialize` declares none: it negotiates one).
pub(super) fn removed(method: &str, protocol: Option<&ProtocolVersion>) -> Result<(), ErrorData> {
    let modern =
        protocol.is_some_and(|version| version.as_str() >= ProtocolVersion::V_2026_07_28.as_str());
    if modern && REMOVED_IN_2026_07_28.contains(&method) {
        return Err(ErrorData::new(
            ErrorCode::METHOD_NOT_FOUND,
            format!("`{method}` is not a method of MCP 2026-07-28, the protocol of this request"),
            None,
        ));
    }
    Ok(())
}

/// Where a session that began with `initialize` is in sending `list_changed`.
#[derive(Default)]
pub(super) enum ListChanged {
    /// No `initialize` yet.
    #[default]
    Idle,
    /// Sending, to the tasks' statuses of `owner`'s; dropping the guard
    /// stops it.
    Sending {
        owner: watch::Sender<TaskOwner>,
        _stop: DropGuard,
    },
}

impl McpServer {
    fn list_changed(&self) -> std::sync::MutexGuard<'_, ListChanged> {
        self.list_changed
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// Starts, once per server, announcing the registry's tool changes on
    /// the event bus, where the sessions of every replica hear them. Needs
    /// a tokio runtime; without one, it is left for the next call.
    pub(super) fn forward_tool_changes(&self) {
        if tokio::runtime::Handle::try_current().is_err() {
            return;
        }
        self.forwarding.call_once(|| {
            let mut changes = self.registry.watch_tools();
            changes.mark_unchanged();
            let bus = self.bus.clone();
            tokio::spawn(async move {
                while changes.changed().await.is_ok() {
                    bus.publish(BusEvent::ToolsChanged);
                }
            });
        });
    }

    /// `initialize`: the peer is recorded and the protocol negotiated.
    pub(super) fn initialize_session(
        &self,
        request: InitializeRequestParams,
        context: &RequestContext<RoleServer>,
    ) -> Result<InitializeResult, ErrorData> {
        self.forward_tool_changes();
        // Changes from here on are news to the client: it lists the tools
        // after this answer. The session hears the bus from now on, not
        // from `notifications/initialized`: behind a load balancer that is
        // not sticky, that notification may go to another replica, and
        // this one must still hear the cancels of the calls it runs.
        let owner = caller::task_owner(&context.extensions);
        self.hear_bus(context.peer.clone(), owner);
        context.peer.set_peer_info(request.clone());
        self.negotiate_initialize(&request)
    }

    /// `notifications/initialized`: sends `list_changed` from now on, if
    /// `initialize` did not start it already. The host's tasks belong to
    /// the session, whose id `initialize` did not carry yet: the session
    /// hears its own tasks' status from here on. A session already hearing
    /// the bus goes on with the same subscription, so that no change
    /// published meanwhile is missed.
    pub(super) fn start_list_changed(&self, context: NotificationContext<RoleServer>) {
        self.forward_tool_changes();
        let owner = caller::task_owner(&context.extensions);
        let hears_session = caller::session_id(&context.extensions).is_some()
            && caller::principal_of(&context.extensions).is_host();
        let mut list_changed = self.list_changed();
        match &*list_changed {
            ListChanged::Sending { owner: hears, .. } => {
                if hears_session {
                    hears.send_replace(owner);
                }
            }
            ListChanged::Idle => {
                *list_changed = self.hear_bus_guarded(context.peer, owner);
            }
        }
    }

    /// Until the session ends, sends `list_changed` for each change of the
    /// tools on any replica and `notifications/tasks/status` for each start
    /// and end of a task of `owner`'s (the session's principal), and stops
    /// the session's calls that its client cancelled through another
    /// replica.
    fn hear_bus(&self, peer: rmcp::Peer<RoleServer>, owner: TaskOwner) {
        let hearing = self.hear_bus_guarded(peer, owner);
        *self.list_changed() = hearing;
    }

    /// [`hear_bus`](Self::hear_bus), giving what stops it and changes its
    /// owner rather than keeping it.
    fn hear_bus_guarded(&self, peer: rmcp::Peer<RoleServer>, owner: TaskOwner) -> ListChanged {
        let mut changes = self.bus.subscribe();
        let (owner, heard_owner) = watch::channel(owner);
        let stop = CancellationToken::new();
        let stopped = stop.clone();
        let calls = Arc::clone(&self.session.calls);
        let mut loaded = self.searches.watch();
        loaded.mark_unchanged();
        tokio::spawn(async move {
            loop {
                tokio::select! {
                    () = stopped.cancelled() => break,
                    // This session's tool search loaded a tool: news to
                    // this session alone.
                    Ok(()) = loaded.changed() => {
                        if peer.notify_tool_list_changed().await.is_err() {
                            break;
                        }
                    }
                    heard = session_event(&mut changes, &calls, &heard_owner) => {
                        let sent = match heard {
                            Heard::ToolsChanged => peer.notify_tool_list_changed().await,
                            Heard::Task(task) => {
                                let status = CustomNotification::new(TASK_STATUS, Some(task));
                                peer.send_notification(ServerNotification::CustomNotification(status)).await
                            }
                            Heard::Closed => break,
                        };
                        if sent.is_err() {
                            break;
                        }
                    }
                }
            }
        });
        ListChanged::Sending {
            owner,
            _stop: stop.drop_guard(),
        }
    }

    /// `notifications/cancelled`: rmcp stops the request if this process
    /// runs it; the bus tells the other replicas, in case one of them does
    /// (a load balancer that is not sticky sends a session's requests
    /// anywhere).
    pub(super) fn cancel_elsewhere(
        &self,
        notification: CancelledNotificationParam,
        context: &NotificationContext<RoleServer>,
    ) {
        let (Some(request), Some(session)) = (
            notification.request_id,
            super::caller::session_id(&context.extensions),
        ) else {
            return;
        };
        self.bus.publish(BusEvent::RequestCancelled {
            session,
            request: request.to_string(),
        });
    }

    /// A request rmcp could not read as any method it knows: one naming a
    /// method MCP defines failed on its params, which is JSON-RPC's invalid
    /// params (-32602), not an unknown method (-32601).
    pub(super) async fn unread_request(
        &self,
        request: CustomRequest,
        protocol: Option<&ProtocolVersion>,
        owner: &TaskOwner,
    ) -> Result<CustomResult, ErrorData> {
        let CustomRequest { method, params, .. } = request;
        removed(&method, protocol)?;
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
            "tasks/result" => {
                return (self.tasks.result(&task_id()?, owner).await).map(CustomResult);
            }
            "tasks/list" => return self.tasks.list(owner).await.map(CustomResult),
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
        self.forward_tool_changes();
        let mut changes = self.bus.subscribe();
        let mut loaded = self.searches.watch();
        loaded.mark_unchanged();
        loop {
            tokio::select! {
                () = context.cancelled() => return Ok(()),
                Ok(()) = loaded.changed() => {
                    if context.sink().notify_tool_list_changed().await.is_err() {
                        return Ok(());
                    }
                }
                changed = tools_changed(&mut changes) => {
                    if !changed || context.sink().notify_tool_list_changed().await.is_err() {
                        return Ok(());
                    }
                }
            }
        }
    }
}

/// Waits for the tools to change on any replica, stopping meanwhile the
/// calls of this session that a client cancelled through another replica:
/// `true` when the tools changed (or events were missed, which may have
/// held a change), `false` when the bus closed.
async fn session_event(
    events: &mut broadcast::Receiver<BusEvent>,
    calls: &Calls,
    owner: &watch::Receiver<TaskOwner>,
) -> Heard {
    loop {
        match events.recv().await {
            Ok(BusEvent::ToolsChanged) | Err(broadcast::error::RecvError::Lagged(_)) => {
                return Heard::ToolsChanged;
            }
            Ok(BusEvent::RequestCancelled { session, request }) => calls.cancel(&session, &request),
            Ok(BusEvent::TaskStatus { task, owner: of })
                if of.as_deref() == owner.borrow().key() =>
            {
                return Heard::Task(task);
            }
            Ok(_) => {}
            Err(broadcast::error::RecvError::Closed) => return Heard::Closed,
        }
    }
}

/// MCP 2025-11-25's notification of a task's status, sent to its requestor.
const TASK_STATUS: &str = "notifications/tasks/status";

/// What a session heard on the bus that its client is told of.
enum Heard {
    /// The tools changed, or events were missed that may have held a change.
    ToolsChanged,
    /// A task of the session's principal started or ended.
    Task(Value),
    /// The bus closed.
    Closed,
}

/// Waits for the tools to change on any replica: `true` when they did (or
/// events were missed, which may have held a change), `false` when the bus
/// closed.
async fn tools_changed(events: &mut broadcast::Receiver<BusEvent>) -> bool {
    loop {
        match events.recv().await {
            Ok(BusEvent::ToolsChanged) | Err(broadcast::error::RecvError::Lagged(_)) => {
                return true;
            }
            Ok(_) => {}
            Err(broadcast::error::RecvError::Closed) => return false,
        }
    }
}
