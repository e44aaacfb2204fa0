//! The task that follows a connection for as long as the proxy lives: it
//! re-reads the tools when the server says they changed, sees the server
//! go, and reaches it again when the proxy knows how.

use std::pin::pin;
use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{
    ClientRequest, PingRequest, ProtocolVersion, ServerNotification, SubscriptionFilter,
};
use rmcp::service::{RunningService, Subscription};
use rmcp::{Peer, RoleClient};
use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;

use crate::Backoff;

use super::client::ProxyClient;
use super::events::ProxyEvent;
use super::gone::{describe_quit, root_cause, unreachable};
use super::link::Link;
use super::sync::sync;
use super::{CLOSE_TIMEOUT, Dialing};

/// A connection to the server, as the proxy's handler serves it.
pub(super) type Running = RunningService<RoleClient, ProxyClient>;

/// Opens a new connection to the server: what makes a proxy able to reconnect.
pub(super) type Dial = Arc<dyn Fn() -> Dialing + Send + Sync>;

/// How the watcher follows the server.
pub(super) struct Watch {
    pub(super) link: Arc<Link>,
    pub(super) stop: CancellationToken,
    pub(super) list_changed: Arc<Notify>,
    /// `None`: the connection cannot be opened again (a transport given as is).
    pub(super) dial: Option<Dial>,
    pub(super) backoff: Backoff,
    /// How often the server is pinged while nothing else is heard.
    pub(super) heartbeat: Option<Duration>,
}

impl Watch {
    /// Follows `running`, and each connection after it, until the proxy is
    /// dropped or the server cannot be reached again.
    pub(super) async fn run(self, mut running: Running, mut gone: CancellationToken) {
        loop {
            let Some(reason) = self.follow(running, &gone).await else {
                return;
            };
            self.link.mark_gone(reason);
            let Some(dial) = &self.dial else {
                return;
            };
            match self.reconnect(dial).await {
                Some((next, token)) => (running, gone) = (next, token),
                None => return,
            }
        }
    }

    /// Follows one connection: `None` when the proxy was dropped, otherwise
    /// why the server is gone.
    async fn follow(&self, running: Running, gone: &CancellationToken) -> Option<String> {
        let link = &self.link;
        // From 2026-07-28 on, `list_changed` comes on a `subscriptions/listen`
        // stream; before, as a plain notification (`ProxyClient`).
        let mut subscription = listen(running.peer()).await;
        // The server hears changes from its acknowledgment on; one that came
        // after the tools were read and before that would go unsaid: read
        // them once more now.
        if subscription.is_some() {
            self.list_changed.notify_one();
        }
        let peer = running.peer().clone();
        let cancel = running.cancellation_token();
        let mut waiting = pin!(running.waiting());
        let mut heartbeat = self.heartbeat.map(|every| {
            let mut interval = tokio::time::interval_at(tokio::time::Instant::now() + every, every);
            interval.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            (interval, every)
        });
        let reason = loop {
            let next_change = async {
                match subscription.as_mut() {
                    Some(subscription) => subscription.next().await,
                    None => std::future::pending().await,
                }
            };
            let beat = async {
                match heartbeat.as_mut() {
                    Some((interval, every)) => {
                        interval.tick().await;
                        *every
                    }
                    None => std::future::pending().await,
                }
            };
            tokio::select! {
                change = next_change => match change {
                    Ok(Some(ServerNotification::ToolListChangedNotification(_))) => self.list_changed.notify_one(),
                    Ok(Some(_)) => {}
                    Ok(None) | Err(_) => subscription = None,
                },
                () = self.stop.cancelled() => {
                    cancel.cancel();
                    let _ = tokio::time::timeout(CLOSE_TIMEOUT, waiting).await;
                    return None;
                }
                () = self.list_changed.notified() => match sync(link).await {
                    Ok(diff) if !diff.is_empty() => link.emit(ProxyEvent::ToolsChanged { diff }),
                    Ok(_) => {}
                    Err(reason) => {
                        tracing::warn!(server = %link.server, "cannot re-read the tools of an MCP server: {reason}");
                    }
                },
                quit = &mut waiting => return Some(describe_quit(quit)),
                // A call found nothing answering.
                () = gone.cancelled() => break link.gone().unwrap_or_default(),
                every = beat => {
                    if let Err(silent) = ping(&peer, every).await {
                        break silent.to_string();
                    }
                }
            }
        };
        cancel.cancel();
        let _ = tokio::time::timeout(CLOSE_TIMEOUT, waiting).await;
        Some(reason)
    }

    /// Tries to reach the server again, waiting [`Backoff`] between attempts;
    /// `None` when the proxy was dropped or every attempt failed.
    async fn reconnect(&self, dial: &Dial) -> Option<(Running, CancellationToken)> {
        let link = &self.link;
        let mut waits = self.backoff.delays();
        let mut wait = waits.next();
        let mut attempt = 0u32;
        let mut error = String::new();
        while let Some(this) = wait {
            attempt = attempt.saturating_add(1);
            tokio::select! {
                () = self.stop.cancelled() => return None,
                () = tokio::time::sleep(this) => {}
            }
            let dialed = tokio::select! {
                () = self.stop.cancelled() => return None,
                dialed = dial() => dialed,
            };
            wait = waits.next();
            error = match dialed {
                Ok(running) => {
                    let gone = link.attach(running.peer().clone());
                    match sync(link).await {
                        Ok(diff) => {
                            link.mark_back();
                            link.emit(ProxyEvent::Reconnected { attempt, diff });
                            return Some((running, gone));
                        }
                        Err(reason) => format!("the tools could not be listed: {reason}"),
                    }
                }
                Err(error) => error.to_string(),
            };
            if let Some(retry_in) = wait {
                link.emit(ProxyEvent::ReconnectFailed {
                    attempt,
                    error: error.clone(),
                    retry_in,
                });
            }
        }
        if attempt > 0 {
            link.mark_given_up(attempt, &error);
            link.emit(ProxyEvent::GaveUp {
                attempts: attempt,
                error,
            });
        }
        None
    }
}

/// Why a server that was pinged is taken to be gone.
#[derive(Debug, thiserror::Error)]
enum Silent {
    /// No answer came in time.
    #[error("it did not answer a ping within {0:?}")]
    Timeout(Duration),
    /// Nothing is there: what [`unreachable`] says of the error.
    #[error("{0}")]
    Unreachable(String),
    /// The ping could not be sent or answered, for this innermost reason.
    #[error("a ping failed ({0})")]
    Failed(String),
}

/// Checks the server still answers: `Err(why not)` when it does not within
/// `every` (at least a second), or when nothing is there.
async fn ping(peer: &Peer<RoleClient>, every: Duration) -> Result<(), Silent> {
    let wait = every.max(Duration::from_secs(1));
    let request = ClientRequest::PingRequest(PingRequest::default());
    match tokio::time::timeout(wait, peer.send_request(request)).await {
        Err(_) => Err(Silent::Timeout(wait)),
        // An error answer is an answer: something is there.
        Ok(Ok(_) | Err(rmcp::ServiceError::McpError(_))) => Ok(()),
        Ok(Err(error)) => Err(match unreachable(&error) {
            Some(reason) => Silent::Unreachable(reason),
            None => Silent::Failed(root_cause(&error)),
        }),
    }
}

/// A `list_changed` subscription, when the server is on 2026-07-28 or later
/// and says its tool list changes.
async fn listen(peer: &Peer<RoleClient>) -> Option<Subscription> {
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
