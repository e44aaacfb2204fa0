//! [`CallFuture`]: the future of one call. Small, so that whoever holds it
//! (a host's own future, a `join_all`, a spawned task) moves little: what
//! waits long (an approval, host layers, a spill) is boxed inside it. It
//! checks the bounds and tells subscribers of the request when first
//! polled, then polls the call along its one path ([`Pipeline::advance`])
//! inside the call's span, watching the tokens that may cancel it; it
//! contains a panic of the stages, and ends with the result to
//! subscribers; dropped before it finished, it still records the call's
//! result.

use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use super::Pipeline;
use super::call::ToolCall;
use super::notify::{self, Pending};
use super::stop::{InputError, Stop};
use super::watch::Watch;
use super::{Head, Stage, input, resolve, stopped, trace};
use crate::tool::panic_message;
use crate::value::result::{Status, ToolResult};
use crate::value::schema::limits::drop_deep;

/// The future [`Pipeline::call_with`] returns.
pub(super) struct CallFuture<'a> {
    pipeline: &'a Pipeline,
    phase: Phase<'a>,
}

enum Phase<'a> {
    /// Not polled yet. The call is taken out of its place on the first
    /// poll, not the whole phase moved out.
    Start(Option<ToolCall>),
    /// Read and decided, on its way. The stage is declared before
    /// `pending`, so it is dropped (the tool's future with it) before
    /// `pending` records the call as dropped.
    Staged {
        stage: Stage<'a>,
        /// The tokens that may cancel the call, if it has any.
        watch: Option<Box<Watch>>,
        pending: Pending<'a>,
        /// The call's `execute_tool` span, entered while the stages run.
        span: tracing::Span,
    },
    /// The result was handed out.
    Done,
}

impl<'a> CallFuture<'a> {
    #[inline]
    pub(super) fn new(pipeline: &'a Pipeline, call: ToolCall) -> Self {
        CallFuture {
            pipeline,
            phase: Phase::Start(Some(call)),
        }
    }
}

impl Future for CallFuture<'_> {
    type Output = ToolResult;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<ToolResult> {
        let this = self.get_mut();
        let pipeline = this.pipeline;
        if let Phase::Start(call) = &mut this.phase {
            let Some(call) = call.take() else {
                panic!("a call's future was polled after it finished");
            };
            // Made on the first poll, so its parent is the span the caller
            // polls in (an MCP request's, say).
            let span = trace::call_span(&call.name, call.invocation_id);
            let phase = &mut this.phase;
            let started = span.in_scope(|| start(pipeline, call, span.clone(), phase));
            if let Err(ended) = started {
                this.phase = Phase::Done;
                let (mut pending, mut result) = *ended;
                let entered = span.enter();
                end(&mut pending, &mut result, &span);
                drop(entered);
                return Poll::Ready(result);
            }
        }
        let Phase::Staged {
            stage,
            watch,
            pending,
            span,
        } = &mut this.phase
        else {
            panic!("a call's future was polled after it finished");
        };
        let entered = span.enter();
        let ids = pending.ids();
        // Kept as polled and finished in place: the result is large, and
        // each move out of the `Poll` would copy it.
        let mut polled = if watch.as_ref().is_some_and(|watch| watch.cancelled()) {
            Poll::Ready(cancelled(&pending.name, ids))
        } else {
            std::panic::catch_unwind(AssertUnwindSafe(|| pipeline.advance(stage, ids, cx)))
                .unwrap_or_else(|panic| Poll::Ready(panicked(pending, panic)))
        };
        if polled.is_pending() {
            // Woken by the tokens that may cancel it, too.
            match watch.as_deref_mut().map(|watch| watch.poll_cancelled(cx)) {
                Some(Poll::Ready(())) => polled = Poll::Ready(cancelled(&pending.name, ids)),
                _ => return Poll::Pending,
            }
        }
        let Poll::Ready(result) = &mut polled else {
            unreachable!("a pending call returned above");
        };
        drop(entered);
        // Ended in place (the tool's future dropped before the call is
        // recorded), not moved out: the phase is the largest part of the
        // future, and moving it costs every call.
        *stage = Stage::Ended;
        let entered = span.enter();
        end(pending, result, span);
        drop(entered);
        this.phase = Phase::Done;
        polled
    }
}

/// Bounds first, before the log or anything else walks the arguments; then
/// the request to subscribers, and the stages up to the tool, run: the
/// call read and decided, and its first stage started ([`Pipeline::proceed`]).
/// A call that stopped before its tool ran ends here, with its result.
///
/// `span` is the call's span, entered. The phase the call goes on in is
/// written to `phase` where it is kept, not returned: it is the largest
/// part of the call's future, and moving it costs every call.
fn start<'a>(
    pipeline: &'a Pipeline,
    mut call: ToolCall,
    span: tracing::Span,
    phase: &mut Phase<'a>,
) -> Result<(), Ended<'a>> {
    let refused = input::over_limits(&pipeline.config.limits, &call.args);
    notify::request(pipeline, &call, refused);
    // Until disarmed, dropping the future still records a result.
    let pending = Pending {
        pipeline,
        invocation_id: call.invocation_id,
        name: call.name.clone(),
        parallel_group_id: call.parallel_group_id,
        started: Pending::clock(pipeline),
        armed: true,
    };
    if let Some(exceeded) = refused {
        if let Some(args) = Arc::get_mut(&mut call.args) {
            drop_deep(std::mem::take(args));
        }
        let tool = resolve::tool_name(pipeline, &call.name, call.caller());
        let result = Head::of(&call, tool.clone().into()).failed(Stop::InvalidArguments {
            tool,
            error: InputError::Exceeded(exceeded),
            approved: false,
        });
        return Err(Box::new((pending, result)));
    }
    let watch = Watch::of(&call);
    if watch.as_ref().is_some_and(|watch| watch.cancelled()) {
        let result = cancelled(&call.name, pending.ids());
        return Err(Box::new((pending, result)));
    }
    let started = pending.started;
    // The phase is written where it is kept, and its first stage into it,
    // rather than built here and moved there.
    *phase = Phase::Staged {
        stage: Stage::Ended,
        watch,
        pending,
        span,
    };
    let Phase::Staged {
        stage,
        pending,
        span,
        ..
    } = phase
    else {
        unreachable!("the phase was just written");
    };
    let begun = std::panic::catch_unwind(AssertUnwindSafe(|| -> Result<(), Box<ToolResult>> {
        let name = call.name.clone();
        let begun = pipeline.begin(&name, call, span)?;
        *stage = pipeline.proceed(begun, started);
        Ok(())
    }));
    let result = match begun {
        Ok(Ok(())) => return Ok(()),
        Ok(Err(result)) => *result,
        Err(panic) => panicked(pending, panic),
    };
    let Phase::Staged { pending, .. } = std::mem::replace(phase, Phase::Done) else {
        unreachable!("the phase was just written");
    };
    Err(Box::new((pending, result)))
}

/// The result of call `ids` of `name`, cancelled from outside before it
/// finished.
fn cancelled(name: &str, ids: (uuid::Uuid, Option<uuid::Uuid>)) -> ToolResult {
    stopped(name, ids, |tool| Stop::Cancelled {
        tool,
        dropped: false,
    })
}

/// A call that ended before its tool ran, with its result: boxed, being rare.
type Ended<'a> = Box<(Pending<'a>, ToolResult)>;

/// The error result of a call whose stages panicked outside every hook's
/// own catch.
fn panicked(pending: &Pending<'_>, panic: Box<dyn std::any::Any + Send>) -> ToolResult {
    let message = panic_message(panic.as_ref());
    stopped(&pending.name, pending.ids(), |tool| Stop::CallPanicked {
        tool,
        message,
    })
}

/// The call's result, timed, to subscribers; how it ended, on its `span`.
/// Finished in place: the result is large, and each function it passed
/// through by value would copy it. `pending` is disarmed: the call is
/// recorded.
fn end(pending: &mut Pending<'_>, result: &mut ToolResult, span: &tracing::Span) {
    trace::ended(span, result);
    if pending.pipeline.config.trace_payloads {
        trace::result(span, result);
    }
    pending.armed = false;
    result.duration = pending.elapsed();
    if result.status() == Status::Cancelled
        && let Some(entry) = pending.pipeline.pool.entry(&result.tool_name)
    {
        result.output_type = entry.def.resolve_output_type(None);
    }
    notify::result(pending.pipeline, result);
}
