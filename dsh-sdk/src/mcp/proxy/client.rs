//! The client side of the connection.

use std::sync::{Arc, PoisonError};

use crate::mcp::wire::MCP_APPS_EXTENSION;
use crate::value::wire_keys::VALUES_EXTENSION;
use rmcp::model::{ClientCapabilities, ClientConfig, Implementation, ProgressNotificationParam};
use rmcp::service::NotificationContext;
use rmcp::{ClientHandler, RoleClient};
use tokio::sync::Notify;

use super::progress::Progress;

/// The client side of the connection: receives progress and list changes.
#[derive(Clone)]
pub(super) struct ProxyClient {
    pub(super) progress: Progress,
    pub(super) list_changed: Arc<Notify>,
}

impl ClientHandler for ProxyClient {
    fn get_info(&self) -> ClientConfig {
        // The proxy shows the cards a dsh server presents (MCP Apps): it
        // says so, and gets them in `_meta`. It reads values as data, and
        // hands its own callers the render or the value as its own server
        // shapes them: it takes every value in `structuredContent`.
        let mut capabilities = ClientCapabilities::default();
        capabilities.extensions = Some(
            [MCP_APPS_EXTENSION, VALUES_EXTENSION]
                .into_iter()
                .map(|extension| (extension.to_owned(), serde_json::Map::new()))
                .collect(),
        );
        ClientConfig::new(
            capabilities,
            Implementation::new("dsh-kit", env!("CARGO_PKG_VERSION")),
        )
    }

    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        let exec = self
            .progress
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(&params.progress_token)
            .cloned();
        if let Some(exec) = exec {
            exec.progress(match (params.message, params.total) {
                (Some(message), _) => message,
                (None, Some(total)) => format!("{} of {total}", params.progress),
                (None, None) => params.progress.to_string(),
            });
        }
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.list_changed.notify_one();
    }
}
