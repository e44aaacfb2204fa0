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
                let (pending, result) = *ended;
                let _entered = span.enter();
                return Poll::Ready(end(pending, result, &span));
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
        let outcome = std::task::ready!(poll_watched(
            pipeline,
            stage,
            watch.as_deref_mut(),
            pending.ids(),
            cx
        ));
        drop(entered);
        let Phase::Staged {
            stage,
            pending,
            span,
            ..
        } = std::mem::replace(&mut this.phase, Phase::Done)
        else {
            unreachable!("the phase was just matched");
        };
        drop(stage);
        let _entered = span.enter();
        Poll::Ready(match outcome {
            None => {
                let result = cancelled(&pending.name, pending.ids());
                end(pending, result, &span)
            }
            Some(Ok(result)) => end(pending, result, &span),
            Some(Err(panic)) => end_panicked(pending, panic, &span),
        })
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
    let begun = std::panic::catch_unwind(AssertUnwindSafe(|| -> Result<_, Box<ToolResult>> {
        let name = call.name.clone();
        let begun = pipeline.begin(&name, call, &span)?;
        Ok(pipeline.proceed(begun, started))
    }));
    match begun {
        Ok(Ok(stage)) => {
            *phase = Phase::Staged {
                stage,
                watch,
                pending,
                span,
            };
            Ok(())
        }
        Ok(Err(result)) => Err(Box::new((pending, *result))),
        Err(panic) => {
            let result = panicked(&pending, panic);
            Err(Box::new((pending, result)))
        }
    }
}

/// The call's stages polled ([`Pipeline::advance`]), the tokens of `watch`
/// read first and watched while they wait: the call's result, or the panic
/// that ended it, or `None` once a token is cancelled.
fn poll_watched<'a>(
    pipeline: &'a Pipeline,
    stage: &mut Stage<'a>,
    watch: Option<&mut Watch>,
    ids: (uuid::Uuid, Option<uuid::Uuid>),
    cx: &mut Context<'_>,
) -> Poll<Option<std::thread::Result<ToolResult>>> {
    if watch.as_ref().is_some_and(|watch| watch.cancelled()) {
        return Poll::Ready(None);
    }
    match std::panic::catch_unwind(AssertUnwindSafe(|| pipeline.advance(stage, ids, cx))) {
        Ok(Poll::Ready(result)) => return Poll::Ready(Some(Ok(result))),
        Err(panic) => return Poll::Ready(Some(Err(panic))),
        Ok(Poll::Pending) => {}
    }
    match watch {
        Some(watch) => watch.poll_cancelled(cx).map(|()| None),
        None => Poll::Pending,
    }
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

/// [`end`], for a call whose stages panicked.
fn end_panicked(
    pending: Pending<'_>,
    panic: Box<dyn std::any::Any + Send>,
    span: &tracing::Span,
) -> ToolResult {
    let result = panicked(&pending, panic);
    end(pending, result, span)
}

/// The call's result, timed, to subscribers; how it ended, on its `span`.
/// Always inlined: the result is large, and a call of its own would copy
/// it in and out.
#[inline(always)]
fn end(mut pending: Pending<'_>, mut result: ToolResult, span: &tracing::Span) -> ToolResult {
    trace::ended(span, &result);
    if pending.pipeline.config.trace_payloads {
        trace::result(span, &result);
    }
    pending.armed = false;
    let pipeline = pending.pipeline;
    result.duration = pending.elapsed();
    if result.status() == Status::Cancelled
        && let Some(entry) = pipeline.pool.entry(&result.tool_name)
    {
        result.output_type = entry.def.resolve_output_type(None);
    }
    notify::result(pipeline, result)
}
