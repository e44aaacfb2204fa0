//! The task that follows a connection for as long as the proxy lives.

use std::pin::pin;
use std::sync::Arc;

use rmcp::model::{ProtocolVersion, ServerNotification, SubscriptionFilter};
use rmcp::service::{RunningService, Subscription};
use rmcp::{Peer, RoleClient};
use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;

use super::CLOSE_TIMEOUT;
use super::client::ProxyClient;
use super::gone::describe_quit;
use super::link::Link;

/// Follows the connection: re-reads the tools when the server says they
/// changed, marks them unavailable when it goes, and ends it when the proxy
/// is dropped.
pub(super) async fn watch(
    running: RunningService<RoleClient, ProxyClient>,
    link: Arc<Link>,
    stop: CancellationToken,
    list_changed: Arc<Notify>,
) {
    // From 2026-07-28 on, `list_changed` comes on a `subscriptions/listen`
    // stream; before, as a plain notification (`ProxyClient`).
    let mut subscription = listen(running.peer()).await;
    let cancel = running.cancellation_token();
    let mut waiting = pin!(running.waiting());
    loop {
        let next_change = async {
            match subscription.as_mut() {
                Some(subscription) => subscription.next().await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            change = next_change => match change {
                Ok(Some(ServerNotification::ToolListChangedNotification(_))) => list_changed.notify_one(),
                Ok(Some(_)) => {}
                Ok(None) | Err(_) => subscription = None,
            },
            () = stop.cancelled() => {
                cancel.cancel();
                let _ = tokio::time::timeout(CLOSE_TIMEOUT, waiting).await;
                return;
            }
            () = list_changed.notified() => {
                if let Err(reason) = link.sync().await {
                    tracing::warn!(server = %link.server, "cannot re-read the tools of an MCP server: {reason}");
                }
            }
            quit = &mut waiting => {
                let reason = match quit {
                    Ok(reason) => format!("{reason:?}"),
                    Err(error) => error.to_string(),
                };
                link.mark_gone(describe_quit(&reason));
                return;
            }
        }
    }
}

/// A `list_changed` subscription, when the server is on 2026-07-28 or later
/// and says its tool list changes.
pub(super) async fn listen(peer: &Peer<RoleClient>) -> Option<Subscription> {
    let info = peer.peer_info()?;
    let modern = info.protocol_version.as_str() >= ProtocolVersion::V_2026_07_28.as_str();
    let changes = info
        .capabilities
        .tools
        .as_ref()
        .and_then(|tools| tools.list_changed)
        == Some(true);
    if !(modern && changes) {
        return None;
    }
    let filter = SubscriptionFilter::builder().tools_list_changed().build();
    peer.listen(filter).await.ok()
}
