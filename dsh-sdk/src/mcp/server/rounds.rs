//! Multi-round-trip input (MCP 2026-07-28) for the requests that take it,
//! `tools/call` and `prompts/get`: the answers a retry brings, with those of
//! the earlier rounds opened from its `requestState`, and the
//! `InputRequiredResult` of a round that stopped for more.

use std::sync::Arc;

use rmcp::model::{
    GetPromptRequestParams, GetPromptResponse, InputRequests, InputRequiredResult, InputResponses,
    ProtocolVersion,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer};
use serde_json::Value;

use crate::mcp::request_state::{binding, check_answers};
use crate::mcp::session::{RoundTrip, missing_capability};
use crate::tool::Exec;

use super::McpServer;

impl McpServer {
    /// The round of the request `bind` gives the binding of (see
    /// [`binding`](crate::mcp::request_state::binding)): the answers it
    /// brings, checked to be objects, over those sealed in its `state`,
    /// checked to be this server's for this request. `None` when the
    /// client's protocol predates multi-round-trip input (`modern` false).
    /// The binding is made only when a state is to be opened or sealed.
    pub(super) fn round_trip(
        &self,
        modern: bool,
        bind: impl Fn() -> String,
        responses: Option<InputResponses>,
        state: Option<&str>,
    ) -> Result<Option<Arc<RoundTrip>>, ErrorData> {
        let binding = state.is_some().then(&bind);
        let mut answers = match (state, &binding) {
            (Some(state), Some(binding)) => self
                .state_key
                .open(binding, state)
                .map_err(|error| ErrorData::invalid_params(error.to_string(), None))?,
            _ => InputResponses::new(),
        };
        if let Some(responses) = responses {
            check_answers(&responses).map_err(|why| ErrorData::invalid_params(why, None))?;
            answers.extend(responses);
        }
        Ok(modern.then(|| RoundTrip::new(binding.unwrap_or_else(bind), answers)))
    }

    /// What a round that stopped for `needed` answers: the requests, and
    /// the state that carries the answers the round read to the next.
    pub(super) fn input_required(
        &self,
        round_trip: &RoundTrip,
        needed: InputRequests,
    ) -> InputRequiredResult {
        let state = self
            .state_key
            .seal(round_trip.binding(), &round_trip.used());
        InputRequiredResult::new(Some(needed), Some(state))
    }

    /// `prompts/get`: the prompt's messages, or, on 2026-07-28, the
    /// requests it made of the client, as a tool's call has them.
    pub(super) async fn answer_prompt(
        &self,
        request: GetPromptRequestParams,
        context: &RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        let modern = context
            .protocol_version()
            .is_some_and(|version| version.as_str() >= ProtocolVersion::V_2026_07_28.as_str());
        let args = request.arguments.unwrap_or_default();
        let round_trip = self.round_trip(
            modern,
            || binding("prompts/get", &request.name, &Value::Object(args.clone())),
            request.input_responses,
            request.request_state.as_deref(),
        )?;
        let client = self.session.client(
            &context.peer,
            context.protocol_version(),
            context.client_capabilities(),
            context.meta.log_level(),
            round_trip.clone(),
        );
        let exec = Exec::builder(request.name.as_str())
            .client(client)
            .cancellation(context.ct.clone())
            .build();
        let getting = self.offers.prompts.get(&request.name, args, exec)?;
        let result = match &round_trip {
            None => getting.await,
            Some(round_trip) => tokio::select! {
                result = getting => result,
                needed = round_trip.needed() => {
                    return Ok(GetPromptResponse::InputRequired(
                        self.input_required(round_trip, needed),
                    ));
                }
            },
        };
        match result {
            Ok(result) => Ok(GetPromptResponse::Complete(result)),
            Err(error) => match round_trip.as_deref().and_then(RoundTrip::missing) {
                Some(capability) => Err(missing_capability(capability)),
                None => Err(error),
            },
        }
    }
}
