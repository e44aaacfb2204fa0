//! The one path every call takes, from a name and raw arguments to a [`ToolResult`].
//!
//! 0. bounds (`input`): arguments over the size or depth
//!    [limits](crate::limits) are refused before anything, the session log
//!    included, walks them;
//! 1. `resolve` the name or alias; a tool the catalog marks `unavailable`,
//!    or with a `fatal` diagnostic, is refused;
//! 2. `input`: the raw arguments against the input schema (every violation
//!    at once), serde, then the tool's own `validate_input`;
//! 3. `permission`: the default decision (`requires_approval` and
//!    `destructive` tools ask), permission rules, then the gates in order;
//! 4. `permission`: monotone guards, which can only tighten that decision;
//!    `ask` goes to the host's approver, within the approval timeout, which
//!    may override the arguments: those are validated and decided again;
//! 5. `execute` inside the [layers](crate::layer) (host layers, metrics,
//!    retry, timeout), with cancellation and panics caught; just before, a
//!    top-level call's running card goes to subscribers, and the catalog's
//!    warnings about the tool stream as `progress` chunks;
//! 6. the `output` gate: the canonical value against the output limits and
//!    schema;
//! 7. `post_execute` hooks;
//! 8. project: render, and present for top-level calls (`finalize`, through
//!    the tool's projections);
//! 9. `finalize`: oversized content spills to a file;
//! 10. `notify`: every subscriber observes the result, also of a call whose
//!     future was dropped before it finished.
//!
//! A panic in any host hook on the way (gate, guard, approver, post-execute
//! hook, `validate_input`, a `Deserialize` impl, render, present, an execute
//! layer) ends the call with an error result that names the hook.
//!
//! Each stage is a module of its own; `Registry::stages`, here, calls them in
//! that order. A stage that stops the call returns a `Stop` (`stop`), which
//! the one place results are built (`Head`, beside it) turns into the call's
//! error result. The call's future (`future`) checks the bounds, tells
//! subscribers, contains panics and times the call around the stages.
//! `batch` runs the calls of one model turn.

use std::sync::Arc;

use serde_json::Value;
use tokio_util::sync::CancellationToken;
use uuid::Uuid;

use crate::definition::OutputType;
use crate::exec::Exec;
use crate::registry::Registry;
use crate::result::ToolResult;
use crate::tool::Entry;
use permission::Verdict;
use resolve::shown_name;

mod batch;
mod call;
mod execute;
mod finalize;
mod future;
mod input;
mod notify;
mod output;
mod permission;
mod post_execute;
mod resolve;
mod stop;

pub use call::ToolCall;
pub(crate) use finalize::{Settled, finish, is_unsaved};
pub(crate) use input::normalize_args;
pub(crate) use stop::{Head, Stop, Success};

impl Registry {
    /// Calls the tool `name` (or alias) with the raw arguments a model sent.
    ///
    /// Never fails and never panics: an unknown tool, arguments that break the
    /// schema, a refusal, the tool's own error, a panic, a timeout or an
    /// output that breaks its schema all come back as a result with
    /// `is_error` set and a message the model can act on.
    pub fn call<'a>(
        &'a self,
        name: &str,
        args: Value,
    ) -> impl Future<Output = ToolResult> + Send + use<'a> {
        self.call_with(ToolCall::new(name, args))
    }

    /// Calls with every option of [`ToolCall`].
    ///
    /// Nothing happens until the future is polled; a future dropped before
    /// it finished still gives subscribers the call's (cancelled) result.
    pub fn call_with(&self, call: ToolCall) -> impl Future<Output = ToolResult> + Send + '_ {
        future::CallFuture::new(self, call)
    }

    /// Runs the stages, ending the call early when its token, or its batch's,
    /// is cancelled. A panic goes on to the call's future, which contains it.
    async fn run_cancellable(&self, name: Arc<str>, mut call: ToolCall) -> ToolResult {
        let batch_cancel = call.batch_cancel.take();
        let cancel = call.cancel.clone();
        let ids = (call.invocation_id, call.parallel_group_id);
        let token_cancelled = until_cancelled(cancel.as_ref());
        let batch_cancelled = until_cancelled(batch_cancel.as_ref());
        let cancelled = || {
            stopped(&name, ids, |tool| Stop::Cancelled {
                tool,
                dropped: false,
            })
        };
        // Dropping the stages drops the tool's future, so a tool that never
        // looks at its token stops all the same.
        tokio::select! {
            biased;
            () = token_cancelled => cancelled(),
            () = batch_cancelled => {
                if let Some(cancel) = &cancel {
                    cancel.cancel();
                }
                cancelled()
            }
            result = self.stages(Arc::clone(&name), call) => result,
        }
    }

    /// The stages, in order; see the [module docs](self). One flat future:
    /// each `async fn` nested in another is copied whole into its caller's
    /// state when it starts, so the stages are plain functions, and only
    /// execute, and the rare approval and spill, are awaited.
    ///
    /// An `async` block rather than an `async fn`: an `async fn` keeps its
    /// arguments twice in its state, as handed in and as bound.
    fn stages(
        &self,
        name: Arc<str>,
        call: ToolCall,
    ) -> impl Future<Output = ToolResult> + Send + '_ {
        let mut call = call;
        async move {
            let entry = match resolve::entry(self, &name) {
                Ok(entry) => entry,
                Err(stop) => {
                    return Head::of(&call, shown_name(&name).into_owned().into()).failed(stop);
                }
            };
            let mut head = Head::of(&call, entry.def.name.clone());
            head.output_type = OutputType::resolve(&entry.def, None);
            let config = self.config();
            let warnings = match resolve::warnings(self, &entry) {
                Ok(warnings) => warnings,
                Err(stop) => return head.failed(stop),
            };
            let exec = self.exec_for(&entry, &mut call);
            let args = std::mem::take(&mut call.args);
            let (args, prepared) = match input::read(&config.limits, &entry, args, &exec) {
                Ok(read) => read,
                Err(stop) => return head.failed(stop),
            };
            let verdict = match permission::decide_first(config, &entry, &args) {
                Ok(verdict) => verdict,
                Err(stop) => return head.failed(stop),
            };
            let (args, prepared) = match verdict {
                Verdict::Allowed => (args, prepared),
                // Boxed: the rare ask must not grow every call's future.
                Verdict::Ask(prompt) => {
                    let settled = Box::pin(permission::settle(
                        config, &entry, args, prepared, prompt, &exec,
                    ))
                    .await;
                    match settled {
                        Ok(settled) => settled,
                        Err(stop) => return head.failed(stop),
                    }
                }
            };
            notify::running(self, &call, &entry, &args);
            for warning in warnings {
                exec.progress(format!("warning: {}: {}", warning.code, warning.message));
            }
            let args = Arc::new(args);
            let value = match execute::run(config, &entry, &args, prepared, exec).await {
                Ok(value) => value,
                Err(stop) => return head.failed(stop),
            };
            let mut settled = match self.settle(&entry, &call, args, value) {
                Ok(settled) => settled,
                Err(stop) => return head.failed(stop),
            };
            if settled.finished.spill.is_some() {
                // Boxed: the rare spill must not grow every call's future.
                Box::pin(finalize::write(
                    config,
                    entry.def.name(),
                    call.invocation_id,
                    &mut settled.finished,
                ))
                .await;
            }
            head.succeeded(Success::new(&entry, settled.value, settled.finished))
        }
    }

    /// From the value the tool returned to the content and card: the output
    /// gate, the post-execute hooks, then project and finalize.
    fn settle(
        &self,
        entry: &Entry,
        call: &ToolCall,
        args: Arc<Value>,
        value: Value,
    ) -> Result<SettledValue, Stop> {
        let config = self.config();
        let value =
            output::gate(&config.limits, entry, value).map_err(|error| Stop::InvalidOutput {
                tool: entry.def.name().to_owned(),
                error,
                replaced: false,
            })?;
        let hooked = post_execute::run(config, entry, &args, value)?;
        notify::executed(self, call, entry, &args, &hooked);
        let settled = Settled {
            invocation_id: call.invocation_id,
            args: &args,
            value: &hooked.value,
            top_level: call.top_level,
            replaced_content: hooked.replaced_content,
            context: hooked.context,
        };
        let finished = finish(config, entry, settled)?;
        Ok(SettledValue {
            value: hooked.value,
            finished,
        })
    }

    /// The context of one call of `entry`.
    fn exec_for(&self, entry: &Entry, call: &mut ToolCall) -> Exec {
        Exec::for_call(
            entry.def.name.clone(),
            call.invocation_id,
            call.cancel.take(),
            self.state().clone(),
            self.host(),
            self.stream_sink(),
            call.client.take().map(|client| client.0),
        )
    }
}

/// A value settled and finished, its spill not yet written.
struct SettledValue {
    value: Value,
    finished: finalize::Finished,
}

/// Resolves when `token` is cancelled; never without one.
async fn until_cancelled(token: Option<&CancellationToken>) {
    match token {
        Some(token) => token.cancelled().await,
        None => std::future::pending().await,
    }
}

/// The error result of the call `ids` of `name`, as the name was asked for.
fn stopped(
    name: &str,
    (invocation_id, parallel_group_id): (Uuid, Option<Uuid>),
    stop: impl FnOnce(String) -> Stop,
) -> ToolResult {
    let tool = shown_name(name).into_owned();
    Head::new(invocation_id, parallel_group_id, tool.clone().into()).failed(stop(tool))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// The call future is moved as it is built and polled: its size is paid
    /// on every call, so it holds the stages boxed, and they box the rare
    /// paths (approval, spill).
    #[test]
    fn a_call_future_stays_small() {
        let registry = Registry::new();
        let call = registry.call("greet", json!({}));
        let size = std::mem::size_of_val(&call);
        println!("call future: {size} bytes");
        assert!(size <= 256, "the call future is {size} bytes");
        let stages = registry.stages(Arc::from("greet"), ToolCall::new("greet", json!({})));
        let size = std::mem::size_of_val(&stages);
        println!("stages: {size} bytes");
        assert!(size < 1024, "the stages' future is {size} bytes");
    }
}
