//! [`Head`]: what every result of one call shares, and the one place a
//! call's result is built, failed ([`Head::failed`]) or succeeded
//! ([`Head::succeeded`]), for a live call and a replay alike.

use std::borrow::Cow;
use std::time::Duration;

use serde_json::Value;
use uuid::Uuid;

use super::finalize::Finished;
use super::stop::Stop;
use crate::tool::Entry;
use crate::value::names::OutputType;
use crate::value::result::{ContentSlot, ToolResult};

/// What every result of one call shares, success or not.
#[derive(Clone, Debug)]
pub(crate) struct Head {
    pub(crate) invocation_id: Uuid,
    pub(crate) tool: Cow<'static, str>,
    pub(crate) parallel_group_id: Option<Uuid>,
    /// What a failure's `output_type` is, once the tool is known.
    pub(crate) output_type: OutputType,
}

impl Head {
    /// The head of one call's results, as `tool`, until the tool is known.
    pub(crate) fn new(
        invocation_id: Uuid,
        parallel_group_id: Option<Uuid>,
        tool: Cow<'static, str>,
    ) -> Self {
        Head {
            invocation_id,
            tool,
            parallel_group_id,
            output_type: OutputType::Text,
        }
    }

    /// The head of `call`'s results, as `tool`, until the tool is known.
    pub(crate) fn of(call: &super::ToolCall, tool: Cow<'static, str>) -> Self {
        Head::new(call.invocation_id, call.parallel_group_id, tool)
    }

    /// The head of the results of call `invocation_id` of `entry`, known.
    pub(crate) fn of_tool(
        invocation_id: Uuid,
        parallel_group_id: Option<Uuid>,
        entry: &Entry,
    ) -> Self {
        Head {
            invocation_id,
            tool: entry.def.name.clone(),
            parallel_group_id,
            output_type: entry.def.resolve_output_type(None),
        }
    }

    /// The error result of a call that stopped this way, told as an event
    /// of the call's span: what stopped it and, for arguments that broke
    /// the schema, their first violation.
    pub(crate) fn failed(&self, stop: Stop) -> ToolResult {
        let failure = stop.failure();
        tracing::info!(
            "error.type" = failure.cause.name(),
            dsh.violation = stop.first_violation().map(tracing::field::display),
            exception.message = %stop,
            "call stopped",
        );
        let mut result = ToolResult::failed(
            self.invocation_id,
            self.tool.clone(),
            failure,
            stop.to_string(),
            // Measured once the result is whole.
            Duration::ZERO,
        );
        if let Stop::Blocked { context, .. } = stop {
            let mut content = result.content().to_vec();
            content.extend(context);
            result.set_content(content);
        }
        result.parallel_group_id = self.parallel_group_id;
        result.output_type = self.output_type;
        result
    }

    /// The result of a call that succeeded. Inlined, so the result is made
    /// where it goes.
    #[inline]
    pub(crate) fn succeeded(self, success: Success) -> ToolResult {
        let Success {
            value,
            finished,
            output_type,
        } = success;
        ToolResult {
            invocation_id: self.invocation_id,
            tool_name: self.tool,
            content: ContentSlot::of(finished.content),
            value: Some(value),
            card: finished.card,
            // Measured once the result is whole.
            duration: Duration::ZERO,
            truncated: finished.spill.is_some(),
            output_type,
            parallel_group_id: self.parallel_group_id,
            failure: None,
        }
    }
}

/// What a call that succeeded produced: its value, projected and finalized.
pub(crate) struct Success {
    pub(crate) value: Value,
    pub(crate) finished: Finished,
    pub(crate) output_type: OutputType,
}

impl Success {
    /// The success of `entry` with `value`, finished.
    pub(crate) fn new(entry: &Entry, value: Value, finished: Finished) -> Self {
        let output_type = entry.def.resolve_output_type(Some(&value));
        Success {
            value,
            finished,
            output_type,
        }
    }
}
