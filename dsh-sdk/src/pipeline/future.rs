//! [`CallFuture`]: the future of one call. Small, so that whoever holds it
//! (a host's own future, a `join_all`, a spawned task) moves little: the
//! stages run boxed inside it. It checks the bounds and tells subscribers
//! of the request when first polled, contains a panic of the stages, and
//! ends with the result to subscribers; dropped before it finished, it
//! still records the call's result.

use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use futures_util::FutureExt;

use super::Pipeline;
use super::call::ToolCall;
use super::notify::{self, Pending};
use super::stop::{InputError, Stop};
use super::watch::{Watch, watched};
use super::{Begun, Head, Landed, Launched, execute, input, resolve, stopped, trace};
use crate::pipeline::layer::{ExecError, ExecuteFuture, TimeoutFuture};
use crate::tool::Prepared;
use crate::tool::panic_message;
use crate::value::result::{Status, ToolResult};
use crate::value::schema::limits::drop_deep;

/// The stages of one call, boxed, their panic caught.
type Stages<'a> = Pin<Box<dyn Future<Output = std::thread::Result<ToolResult>> + Send + 'a>>;

/// The future [`Registry::call_with`] returns.
pub(super) struct CallFuture<'a> {
    registry: &'a Pipeline,
    phase: Phase<'a>,
}

enum Phase<'a> {
    /// Not polled yet. The call is taken out of its place on the first
    /// poll, not the whole phase moved out.
    Start(Option<ToolCall>),
    /// Allowed as it is, with no host layer or recorded span around
    /// execute: the tool runs here within its timeout, and the stages after
    /// it run when it returns, with no boxed future for the call (see
    /// [`Registry::runs_directly`]). The tool's future is declared before
    /// `pending`, so it is dropped first.
    Direct {
        running: TimeoutFuture<ExecuteFuture>,
        launched: Launched,
        /// The tokens that may cancel the call, if it has any.
        watch: Option<Box<Watch>>,
        pending: Pending<'a>,
    },
    /// The stages run, boxed. Declared before `pending`, so they are
    /// dropped (the tool's future with them) before `pending` records the
    /// call as dropped.
    Running {
        stages: Stages<'a>,
        pending: Pending<'a>,
        /// The call's `execute_tool` span, entered while the stages run.
        span: tracing::Span,
    },
    /// The result was handed out.
    Done,
}

impl<'a> CallFuture<'a> {
    pub(super) fn new(registry: &'a Pipeline, call: ToolCall) -> Self {
        CallFuture {
            registry,
            phase: Phase::Start(Some(call)),
        }
    }
}

impl Future for CallFuture<'_> {
    type Output = ToolResult;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<ToolResult> {
        let this = self.get_mut();
        let registry = this.registry;
        if let Phase::Start(call) = &mut this.phase {
            let Some(call) = call.take() else {
                panic!("a call's future was polled after it finished");
            };
            // Made on the first poll, so its parent is the span the caller
            // polls in (an MCP request's, say).
            let span = trace::call_span(&call.name, call.invocation_id);
            let phase = &mut this.phase;
            let started = span.in_scope(|| start(registry, call, span.clone(), phase));
            match started {
                Ok(()) => {}
                Err(ended) => {
                    this.phase = Phase::Done;
                    let (pending, result) = *ended;
                    let _entered = span.enter();
                    return Poll::Ready(end(pending, result, &span));
                }
            }
        }
        if let Phase::Direct { running, watch, .. } = &mut this.phase {
            let executed = std::task::ready!(poll_watched(running, watch.as_deref_mut(), cx));
            let Phase::Direct {
                running,
                launched,
                pending,
                ..
            } = std::mem::replace(&mut this.phase, Phase::Done)
            else {
                unreachable!("the phase was just matched");
            };
            drop(running);
            let Some(executed) = executed else {
                let result = cancelled(&pending.name, pending.ids());
                return Poll::Ready(end(pending, result, &tracing::Span::none()));
            };
            let landed = std::panic::catch_unwind(AssertUnwindSafe(|| {
                let executed = executed.map_err(|error| stopped_by(&launched, error));
                let head = Head::of_tool(
                    pending.invocation_id,
                    pending.parallel_group_id,
                    launched.entry(),
                );
                registry.land(launched, head, executed)
            }));
            // A call runs directly only when no subscriber records its span.
            let none = tracing::Span::none();
            match landed {
                Ok(Landed::Done(result)) => return Poll::Ready(end(pending, result, &none)),
                Ok(Landed::Spill(spilling)) => {
                    let stages: Stages<'_> =
                        Box::pin(AssertUnwindSafe(registry.spill(*spilling)).catch_unwind());
                    this.phase = Phase::Running {
                        stages,
                        pending,
                        span: none,
                    };
                }
                Err(panic) => return Poll::Ready(end_panicked(pending, panic, &none)),
            }
        }
        let Phase::Running { stages, span, .. } = &mut this.phase else {
            panic!("a call's future was polled after it finished");
        };
        let entered = span.enter();
        let outcome = std::task::ready!(stages.as_mut().poll(cx));
        drop(entered);
        let Phase::Running {
            stages,
            pending,
            span,
        } = std::mem::replace(&mut this.phase, Phase::Done)
        else {
            unreachable!("the phase was just matched");
        };
        drop(stages);
        let _entered = span.enter();
        Poll::Ready(match outcome {
            Ok(result) => end(pending, result, &span),
            Err(panic) => end_panicked(pending, panic, &span),
        })
    }
}

/// Bounds first, before the log or anything else walks the arguments; then
/// the request to subscribers, and the stages, started: up to the tool,
/// run here for a call that runs directly, boxed otherwise. A call that
/// stopped before its tool ran ends here, with its result.
///
/// `span` is the call's span, entered: a call it records never runs
/// directly, so that the stages after `start` run inside it too. The
/// phase the call goes on in is written to `phase` where it is kept, not
/// returned: it is the largest part of the call's future, and moving it
/// costs every call.
fn start<'a>(
    registry: &'a Pipeline,
    mut call: ToolCall,
    span: tracing::Span,
    phase: &mut Phase<'a>,
) -> Result<(), Ended<'a>> {
    let refused = input::over_limits(&registry.config.limits, &call.args);
    notify::request(registry, &call, refused);
    // Until disarmed, dropping the future still records a result.
    let pending = Pending {
        registry,
        invocation_id: call.invocation_id,
        name: call.name.clone(),
        parallel_group_id: call.parallel_group_id,
        started: Pending::clock(registry),
        armed: true,
    };
    if let Some(exceeded) = refused {
        if let Some(args) = Arc::get_mut(&mut call.args) {
            drop_deep(std::mem::take(args));
        }
        let tool = resolve::tool_name(registry, &call.name, call.caller());
        let result = Head::of(&call, tool.clone().into()).failed(Stop::InvalidArguments {
            tool,
            error: InputError::Exceeded(exceeded),
            approved: false,
        });
        return Err(Box::new((pending, result)));
    }
    let name = call.name.clone();
    let watch = Watch::of(&call);
    if watch.as_ref().is_some_and(|watch| watch.cancelled()) {
        let result = cancelled(&name, pending.ids());
        return Err(Box::new((pending, result)));
    }
    let begun = std::panic::catch_unwind(AssertUnwindSafe(|| -> Result<Begin, Box<ToolResult>> {
        let begun = registry.begin(&name, call, &span)?;
        if !span.is_disabled() || !registry.runs_directly(&begun) {
            return Ok(Begin::Staged(begun));
        }
        // The head is made again from the call's ids when the tool
        // returns, and the call's own context goes (the tool's call holds
        // its own): the call's future stays small.
        let (launched, _head, prepared, _exec) = registry.launch(begun);
        Ok(Begin::Direct(launched, prepared))
    }));
    match begun {
        Ok(Ok(Begin::Direct(launched, prepared))) => {
            *phase = Phase::Direct {
                running: execute::direct(launched.entry(), prepared, pending.started),
                launched,
                watch,
                pending,
            };
            Ok(())
        }
        Ok(Ok(Begin::Staged(begun))) => {
            let rest = registry.rest(begun);
            let stages: Stages<'_> = match watch {
                None => Box::pin(AssertUnwindSafe(rest).catch_unwind()),
                Some(watch) => {
                    let ids = pending.ids();
                    let watched = watched(watch, rest, move || cancelled(&name, ids));
                    Box::pin(AssertUnwindSafe(watched).catch_unwind())
                }
            };
            *phase = Phase::Running {
                stages,
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

/// How a call that was read and decided goes on.
enum Begin {
    /// Its tool runs in the call's future.
    Direct(Launched, Prepared),
    /// The rest of its stages run boxed.
    Staged(Begun),
}

/// The tool, the tokens of `watch` read first and watched while it waits:
/// its outcome, or `None` once a token is cancelled.
fn poll_watched(
    running: &mut TimeoutFuture<ExecuteFuture>,
    watch: Option<&mut Watch>,
    cx: &mut Context<'_>,
) -> Poll<Option<Result<serde_json::Value, ExecError>>> {
    let Some(watch) = watch else {
        return Pin::new(running).poll(cx).map(Some);
    };
    if watch.cancelled() {
        return Poll::Ready(None);
    }
    if let Poll::Ready(executed) = Pin::new(running).poll(cx) {
        return Poll::Ready(Some(executed));
    }
    watch.poll_cancelled(cx).map(|()| None)
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

/// Why the tool's execute stopped the call.
fn stopped_by(launched: &Launched, error: ExecError) -> Stop {
    execute::stopped(launched.entry(), error)
}

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
    if pending.registry.config.trace_payloads {
        trace::result(span, &result);
    }
    pending.armed = false;
    let registry = pending.registry;
    result.duration = pending.elapsed();
    if result.status() == Status::Cancelled
        && let Some(entry) = registry.pool.entry(&result.tool_name)
    {
        result.output_type = entry.def.resolve_output_type(None);
    }
    notify::result(registry, result)
}
