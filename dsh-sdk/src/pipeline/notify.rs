//! Stage 10, notify: what subscribers observe of a call (its request, the
//! card shown while it runs, the value it settled on, its result), built
//! only when someone listens; and the result of a call whose future was
//! dropped before it finished.

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::Value;
use uuid::Uuid;

use super::Pipeline;
use super::call::{CallName, ToolCall};
use super::head::Head;
use super::post_execute::Hooked;
use super::resolve::{self, shown_name};
use super::stop::Stop;
use crate::tool::{Entry, Remote, running_card};
use crate::value::event::{Event, Verdict};
use crate::value::principal::{Caller, Principal};
use crate::value::result::ToolResult;
use crate::value::schema::limits::Exceeded;

/// The request, as subscribers see it: the arguments, or why they are not
/// recorded.
pub(super) fn request(pipeline: &Pipeline, call: &ToolCall, refused: Option<Exceeded>) {
    pipeline.pool.emit_with(|| {
        let looked_up;
        let entry = match &call.resolved {
            Some(resolved) => Some(&resolved.0),
            None => {
                looked_up = pipeline.pool.entry(&call.name);
                looked_up.as_ref()
            }
        };
        Event::Request {
            invocation_id: call.invocation_id,
            // The tool's own name, borrowed when it is known at compile time,
            // if that is what was called; else the name as it was asked for.
            tool_name: match entry {
                Some(entry) if *entry.def.name == *call.name => entry.def.name.clone(),
                _ => shown_name(&call.name).into_owned().into(),
            },
            tool_version: entry.and_then(|entry| entry.def.version().map(str::to_owned)),
            input: match refused {
                None => Arc::clone(&call.args),
                Some(exceeded) => Arc::new(Value::String(format!(
                    "(not recorded: the arguments are {})",
                    exceeded.describe()
                ))),
            },
            parallel_group_id: call.parallel_group_id,
            principal: call.principal.as_deref().and_then(Caller::of),
        }
    });
}

/// The decision on a call, with the arguments it was made on.
pub(super) fn decided(
    pipeline: &Pipeline,
    invocation_id: Uuid,
    entry: &Entry,
    args: &Arc<Value>,
    verdict: Verdict,
) {
    pipeline.pool.emit_with(|| Event::Decided {
        invocation_id,
        tool_name: entry.def.name.clone(),
        args: Arc::clone(args),
        verdict,
    });
}

/// The card shown while a top-level call runs.
pub(super) fn running(
    pipeline: &Pipeline,
    invocation_id: Uuid,
    top_level: bool,
    entry: &Entry,
    args: &Arc<Value>,
) {
    if top_level {
        pipeline.pool.emit_with(|| Event::Running {
            invocation_id,
            tool_name: entry.def.name.clone(),
            card: running_card(entry, args, || Arc::clone(args)),
        });
    }
}

/// The value the call settled on, before it is projected: what a replay
/// projects again. The value is shared with subscribers, then taken back
/// without a copy unless one of them kept it: a large output is not copied
/// for a session log.
pub(super) fn executed(
    pipeline: &Pipeline,
    invocation_id: Uuid,
    top_level: bool,
    entry: &Entry,
    args: &Arc<Value>,
    mut hooked: Hooked,
    remote: &Remote,
) -> Hooked {
    if !pipeline.pool.listening() {
        return hooked;
    }
    let value = Arc::new(std::mem::take(&mut hooked.value));
    pipeline.pool.emit(&Event::Executed {
        invocation_id,
        tool_name: entry.def.name.clone(),
        args: Arc::clone(args),
        value: Arc::clone(&value),
        source: hooked.source,
        top_level,
        replaced_content: hooked.replaced_content.clone(),
        context: hooked.context.clone(),
        remote_card: remote.card.clone(),
        remote_content: remote.content.clone(),
    });
    hooked.value = Arc::unwrap_or_clone(value);
    hooked
}

/// The result, to every subscriber, taken back without a copy unless one
/// of them kept it. Inlined, and the result lent rather than passed: a
/// result nobody listens for is not moved on its way out.
#[inline(always)]
pub(super) fn result(pipeline: &Pipeline, result: &mut ToolResult) {
    if pipeline.pool.listening() {
        emit_result(pipeline, result);
    }
}

/// [`result`], to subscribers.
#[cold]
fn emit_result(pipeline: &Pipeline, result: &mut ToolResult) {
    let shared = Arc::new(std::mem::replace(result, ToolResult::vacant()));
    pipeline.pool.emit(&Event::Result(Arc::clone(&shared)));
    *result = Arc::try_unwrap(shared).unwrap_or_else(|kept| ToolResult::clone(&kept));
}

/// Records a result for a call whose future was dropped before it finished
/// (a host gave up on it, say), so the session log never ends with a
/// request and no result.
pub(super) struct Pending<'a> {
    pub(super) pipeline: &'a Pipeline,
    pub(super) invocation_id: Uuid,
    pub(super) name: CallName,
    pub(super) parallel_group_id: Option<Uuid>,
    /// When the call started, if it is timed (see [`Pending::clock`]).
    pub(super) started: Option<Instant>,
    pub(super) armed: bool,
}

impl Pending<'_> {
    /// The time now, when `pipeline` times its calls: always with
    /// `time_calls`, else while something observes it. A call nobody
    /// observes reads no clock.
    pub(super) fn clock(pipeline: &Pipeline) -> Option<Instant> {
        (pipeline.config.time_calls || pipeline.pool.listening()).then(Instant::now)
    }

    /// How long the call has run, if it is timed; zero when it is not.
    pub(super) fn elapsed(&self) -> Duration {
        self.started
            .map_or(Duration::ZERO, |started| started.elapsed())
    }

    /// The call's invocation id and batch.
    pub(super) fn ids(&self) -> (Uuid, Option<Uuid>) {
        (self.invocation_id, self.parallel_group_id)
    }
}

impl Drop for Pending<'_> {
    fn drop(&mut self) {
        if !self.armed || !self.pipeline.pool.listening() {
            return;
        }
        // For the host's subscribers, who see every tool.
        let host = Principal::shared_host();
        let tool = resolve::tool_name(self.pipeline, &self.name, host);
        let head = Head {
            invocation_id: self.invocation_id,
            tool: tool.clone().into(),
            parallel_group_id: self.parallel_group_id,
            output_type: crate::value::names::OutputType::Text,
        };
        let mut result = head.failed(Stop::Cancelled {
            tool,
            dropped: true,
        });
        result.duration = self.elapsed();
        self.pipeline.pool.emit(&Event::Result(Arc::new(result)));
    }
}
