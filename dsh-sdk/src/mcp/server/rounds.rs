//! Multi-round-trip input (MCP 2026-07-28) for the requests that take it,
//! `tools/call` and `prompts/get`: the answers a retry brings, with those of
//! the earlier rounds opened from its `requestState`, and the
//! `InputRequiredResult` of a round that stopped for more.

use std::sync::Arc;

use rmcp::ErrorData;
use rmcp::model::{InputRequests, InputRequiredResult, InputResponses};

use crate::mcp::request_state::check_answers;
use crate::mcp::session::RoundTrip;

use super::McpServer;

impl McpServer {
    /// The round of the request bound as `binding` (see
    /// [`binding`](crate::mcp::request_state::binding)): the answers it
    /// brings, checked to be objects, over those sealed in its `state`,
    /// checked to be this server's for this request. `None` when the
    /// client's protocol predates multi-round-trip input (`modern` false).
    pub(super) fn round_trip(
        &self,
        modern: bool,
        binding: &str,
        responses: Option<InputResponses>,
        state: Option<&str>,
    ) -> Result<Option<Arc<RoundTrip>>, ErrorData> {
        let mut answers = match state {
            Some(state) => self
                .state_key
                .open(binding, state)
                .map_err(|error| ErrorData::invalid_params(error.to_string(), None))?,
            None => InputResponses::new(),
        };
        if let Some(responses) = responses {
            check_answers(&responses).map_err(|why| ErrorData::invalid_params(why, None))?;
            answers.extend(responses);
        }
        Ok(modern.then(|| RoundTrip::new(answers)))
    }

    /// What a round that stopped for `needed` answers: the requests, and
    /// the state that carries the answers the round read to the next.
    pub(super) fn input_required(
        &self,
        binding: &str,
        round_trip: &RoundTrip,
        needed: InputRequests,
    ) -> InputRequiredResult {
        let state = self.state_key.seal(binding, &round_trip.used());
        InputRequiredResult::new(Some(needed), Some(state))
    }
}
