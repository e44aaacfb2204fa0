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

use super::call::ToolCall;
use super::notify::{self, Pending};
use super::stop::{InputError, Stop};
use super::{input, resolve, stopped};
use crate::definition::OutputType;
use crate::error::panic_message;
use crate::limits::drop_deep;
use crate::registry::Registry;
use crate::result::{Status, ToolResult};

/// The stages of one call, boxed, their panic caught.
type Stages<'a> = Pin<Box<dyn Future<Output = std::thread::Result<ToolResult>> + Send + 'a>>;

/// The future [`Registry::call_with`] returns.
pub(super) struct CallFuture<'a> {
    registry: &'a Registry,
    phase: Phase<'a>,
}

enum Phase<'a> {
    /// Not polled yet.
    Start(ToolCall),
    /// The stages run. Declared before `pending`, so they are dropped (the
    /// tool's future with them) before `pending` records the call as
    /// dropped.
    Running {
        stages: Stages<'a>,
        pending: Pending<'a>,
    },
    /// The result was handed out.
    Done,
}

impl<'a> CallFuture<'a> {
    pub(super) fn new(registry: &'a Registry, call: ToolCall) -> Self {
        CallFuture {
            registry,
            phase: Phase::Start(call),
        }
    }
}

impl Future for CallFuture<'_> {
    type Output = ToolResult;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<ToolResult> {
        let this = self.get_mut();
        let registry = this.registry;
        if let Phase::Start(_) = this.phase {
            let Phase::Start(call) = std::mem::replace(&mut this.phase, Phase::Done) else {
                unreachable!("the phase was just matched");
            };
            match start(registry, call) {
                Ok(running) => this.phase = running,
                Err(refused) => {
                    let (pending, result) = *refused;
                    return Poll::Ready(end(pending, result));
                }
            }
        }
        let Phase::Running { stages, .. } = &mut this.phase else {
            panic!("a call's future was polled after it finished");
        };
        let outcome = std::task::ready!(stages.as_mut().poll(cx));
        let Phase::Running { stages, pending } = std::mem::replace(&mut this.phase, Phase::Done)
        else {
            unreachable!("the phase was just matched");
        };
        drop(stages);
        let result = outcome.unwrap_or_else(|panic| {
            let message = panic_message(panic.as_ref());
            stopped(&pending.name, pending.ids(), |tool| Stop::CallPanicked {
                tool,
                message,
            })
        });
        Poll::Ready(end(pending, result))
    }
}

/// Bounds first, before the log or anything else walks the arguments; then
/// the request to subscribers, and the stages, started. A call refused by
/// the bounds ends here, with its result.
fn start(registry: &Registry, mut call: ToolCall) -> Result<Phase<'_>, Refused<'_>> {
    let refused = input::over_limits(&registry.config().limits, &call.args);
    notify::request(registry, &call, refused);
    // Until disarmed, dropping the future still records a result.
    let pending = Pending {
        registry,
        invocation_id: call.invocation_id,
        name: Arc::clone(&call.name),
        parallel_group_id: call.parallel_group_id,
        started: Pending::clock(registry),
        armed: true,
    };
    if let Some(exceeded) = refused {
        drop_deep(std::mem::take(&mut call.args));
        let tool = resolve::tool_name(registry, &call.name);
        let result = super::Head::of(&call, tool.clone().into()).failed(Stop::InvalidArguments {
            tool,
            error: InputError::Exceeded(exceeded),
            approved: false,
        });
        return Err(Box::new((pending, result)));
    }
    let name = Arc::clone(&call.name);
    let stages: Stages<'_> = if call.cancel.is_none() && call.batch_cancel.is_none() {
        // Nothing outside can cancel the call.
        Box::pin(AssertUnwindSafe(registry.stages(name, call)).catch_unwind())
    } else {
        Box::pin(AssertUnwindSafe(registry.run_cancellable(name, call)).catch_unwind())
    };
    Ok(Phase::Running { stages, pending })
}

/// A call the bounds refused, with its result: boxed, being rare.
type Refused<'a> = Box<(Pending<'a>, ToolResult)>;

/// The call's result, timed, to subscribers.
fn end(mut pending: Pending<'_>, mut result: ToolResult) -> ToolResult {
    pending.armed = false;
    let registry = pending.registry;
    result.duration = pending.elapsed();
    if result.status == Status::Cancelled
        && let Some(entry) = registry.entry(&result.tool_name)
    {
        result.output_type = OutputType::resolve(&entry.def, None);
    }
    notify::result(registry, result)
}
