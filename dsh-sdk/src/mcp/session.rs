//! One MCP session's side of a call: the [`Client`] a tool reaches through
//! [`Exec`](crate::Exec) (log messages, elicitation, sampling over rmcp's
//! peer), the log level the client set, and its resource subscriptions.
//!
//! rmcp marks logging and sampling deprecated: the 2026-07-28 protocol drops
//! server-to-client requests. Clients on the 2025 protocols, most of them
//! today, still use them, so this module does too.
#![allow(deprecated)]

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex, PoisonError};

use futures_util::future::BoxFuture;
use rmcp::model::{
    ClientResult, CreateMessageRequest, CreateMessageRequestParams, ElicitRequest,
    ElicitRequestParams, ElicitationAction, LoggingLevel, LoggingMessageNotificationParam,
    ProtocolVersion, ResourceUpdatedNotificationParam, ServerRequest,
};
use rmcp::service::ServiceError;
use rmcp::{Peer, RoleServer};
use serde_json::{Value, json};
use tokio::sync::broadcast;
use tokio_util::sync::{CancellationToken, DropGuard};

use crate::client::{
    Client, ClientError, ElicitRequest as DshElicitRequest, Elicitation, LogLevel, LogMessage,
    Sample, SampleRequest,
};

/// What one session remembers between requests.
#[derive(Default)]
pub(super) struct Session {
    /// The lowest level the client wants (`logging/setLevel`); `info` until it says.
    log_level: Arc<Mutex<Option<LogLevel>>>,
    /// The resources the client subscribed to.
    subscriptions: Arc<Mutex<BTreeSet<String>>>,
    /// Forwards updates of subscribed resources while the session lasts.
    forward: Mutex<Option<DropGuard>>,
}

impl Session {
    /// `logging/setLevel`.
    pub(super) fn set_log_level(&self, level: LoggingLevel) {
        let level = serde_json::to_value(level)
            .and_then(serde_json::from_value)
            .unwrap_or(LogLevel::Debug);
        *lock(&self.log_level) = Some(level);
    }

    /// The [`Client`] of a call on this session, made on `protocol`.
    pub(super) fn client(
        &self,
        peer: &Peer<RoleServer>,
        protocol: Option<ProtocolVersion>,
    ) -> Arc<dyn Client> {
        Arc::new(McpClient {
            peer: peer.clone(),
            protocol,
            log_level: Arc::clone(&self.log_level),
        })
    }

    /// `resources/subscribe`: from now on, each update of `uri` announced on
    /// `updates` goes to the client as `notifications/resources/updated`.
    pub(super) fn subscribe(
        &self,
        uri: String,
        peer: &Peer<RoleServer>,
        updates: &broadcast::Sender<String>,
    ) {
        lock(&self.subscriptions).insert(uri);
        let mut forward = lock(&self.forward);
        if forward.is_some() {
            return;
        }
        let stop = CancellationToken::new();
        let stopped = stop.clone();
        let mut updates = updates.subscribe();
        let subscriptions = Arc::clone(&self.subscriptions);
        let peer = peer.clone();
        tokio::spawn(async move {
            loop {
                let uri = tokio::select! {
                    () = stopped.cancelled() => break,
                    update = updates.recv() => match update {
                        Ok(uri) => uri,
                        Err(broadcast::error::RecvError::Lagged(_)) => continue,
                        Err(broadcast::error::RecvError::Closed) => break,
                    },
                };
                if !lock(&subscriptions).contains(&uri) {
                    continue;
                }
                let update = ResourceUpdatedNotificationParam::new(uri);
                if peer.notify_resource_updated(update).await.is_err() {
                    break;
                }
            }
        });
        *forward = Some(stop.drop_guard());
    }

    /// `resources/unsubscribe`: no more updates of `uri`.
    pub(super) fn unsubscribe(&self, uri: &str) {
        lock(&self.subscriptions).remove(uri);
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The MCP client of one session, as a tool sees it.
struct McpClient {
    peer: Peer<RoleServer>,
    /// The protocol of the call's request.
    protocol: Option<ProtocolVersion>,
    log_level: Arc<Mutex<Option<LogLevel>>>,
}

impl McpClient {
    /// Fails unless the client declared `capability` when it connected.
    fn require(&self, capability: &'static str) -> Result<(), ClientError> {
        if let Some(version) = &self.protocol
            && version.as_str() >= ProtocolVersion::V_2026_07_28.as_str()
        {
            return Err(ClientError::Failed(format!(
                "the session speaks MCP {version}, which has no requests from server to client; {capability} there takes multi-round-trip input, which this server does not offer yet"
            )));
        }
        let info = self.peer.peer_info();
        let declared = info.as_ref().is_some_and(|info| match capability {
            "elicitation" => info.capabilities.elicitation.is_some(),
            _ => info.capabilities.sampling.is_some(),
        });
        if declared {
            Ok(())
        } else {
            Err(ClientError::Unsupported { capability })
        }
    }

    async fn request(&self, request: ServerRequest) -> Result<ClientResult, ClientError> {
        self.peer.send_request(request).await.map_err(failed)
    }
}

fn failed(error: ServiceError) -> ClientError {
    ClientError::Failed(error.to_string())
}

/// Builds an rmcp value from its JSON shape: rmcp's types are non-exhaustive.
fn from_json<T: serde::de::DeserializeOwned>(value: Value, what: &str) -> Result<T, ClientError> {
    serde_json::from_value(value)
        .map_err(|error| ClientError::Failed(format!("{what} does not fit MCP: {error}")))
}

impl Client for McpClient {
    fn log(&self, message: LogMessage) -> BoxFuture<'_, Result<(), ClientError>> {
        Box::pin(async move {
            let wanted = lock(&self.log_level).unwrap_or(LogLevel::Info);
            if message.level < wanted {
                return Ok(());
            }
            let level: LoggingLevel = from_json(json!(message.level), "a log level")?;
            let mut param = LoggingMessageNotificationParam::new(level, message.data);
            param.logger = Some(message.logger);
            // MCP logging is what the 2025 protocols offer a tool to reach its user's log.
            #[allow(deprecated)]
            let sent = self.peer.notify_logging_message(param).await;
            sent.map_err(failed)
        })
    }

    fn elicit(&self, request: DshElicitRequest) -> BoxFuture<'_, Result<Elicitation, ClientError>> {
        Box::pin(async move {
            self.require("elicitation")?;
            let params: ElicitRequestParams = from_json(
                json!({
                    "mode": "form",
                    "message": request.message,
                    "requestedSchema": request.schema,
                }),
                "the elicitation form",
            )?;
            let answer = self
                .request(ServerRequest::ElicitRequest(ElicitRequest::new(params)))
                .await?;
            let ClientResult::ElicitResult(answer) = answer else {
                return Err(ClientError::Failed(
                    "the client answered an elicitation with something else".to_owned(),
                ));
            };
            Ok(match answer.action {
                ElicitationAction::Accept => match answer.content {
                    Some(Value::Object(content)) => Elicitation::Accept(content),
                    None => Elicitation::Accept(serde_json::Map::new()),
                    Some(other) => {
                        return Err(ClientError::Failed(format!(
                            "the client accepted an elicitation with content that is not an object: {other}"
                        )));
                    }
                },
                ElicitationAction::Decline => Elicitation::Decline,
                ElicitationAction::Cancel => Elicitation::Cancel,
                other => {
                    return Err(ClientError::Failed(format!(
                        "the client answered an elicitation with an unknown action: {other:?}"
                    )));
                }
            })
        })
    }

    fn sample(&self, request: SampleRequest) -> BoxFuture<'_, Result<Sample, ClientError>> {
        Box::pin(async move {
            self.require("sampling")?;
            let messages: Vec<Value> = request
                .messages
                .iter()
                .map(|message| {
                    json!({
                        "role": message.role,
                        "content": { "type": "text", "text": message.text },
                    })
                })
                .collect();
            let mut params = json!({ "messages": messages, "maxTokens": request.max_tokens });
            if let Some(system) = &request.system_prompt {
                params["systemPrompt"] = Value::from(system.as_str());
            }
            let params: CreateMessageRequestParams = from_json(params, "the sampling request")?;
            let answer = self
                .request(ServerRequest::CreateMessageRequest(
                    CreateMessageRequest::new(params),
                ))
                .await?;
            let ClientResult::CreateMessageResult(answer) = answer else {
                return Err(ClientError::Failed(
                    "the client answered a sampling request with something else".to_owned(),
                ));
            };
            let answer = serde_json::to_value(&answer)
                .map_err(|error| ClientError::Failed(error.to_string()))?;
            let blocks = match &answer["content"] {
                Value::Array(blocks) => blocks.clone(),
                block => vec![block.clone()],
            };
            let text = blocks
                .iter()
                .filter_map(|block| block.get("text").and_then(Value::as_str))
                .collect::<Vec<_>>()
                .join("\n");
            Ok(Sample {
                text,
                model: answer["model"].as_str().unwrap_or_default().to_owned(),
                stop_reason: answer["stopReason"].as_str().map(str::to_owned),
            })
        })
    }
}
