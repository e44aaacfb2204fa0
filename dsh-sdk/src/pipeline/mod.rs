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
//! Each stage is a module of its own; this spine calls them in that order.
//! A stage that stops the call returns a `Stop` (`stop`), which the one place
//! results are built (`Head`, beside it) turns into the call's error result.
//! `batch` runs the calls of one model turn.

use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::time::Instant;

use futures_util::FutureExt;
use serde_json::Value;
use tokio_util::sync::CancellationToken;
use uuid::Uuid;

use crate::definition::OutputType;
use crate::error::panic_message;
use crate::exec::Exec;
use crate::limits::drop_deep;
use crate::registry::Registry;
use crate::result::{Status, ToolResult};
use crate::tool::Entry;
use permission::Verdict;
use resolve::shown_name;
use stop::InputError;

mod batch;
mod call;
mod execute;
mod finalize;
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
    pub async fn call(&self, name: &str, args: Value) -> ToolResult {
        self.call_with(ToolCall::new(name, args)).await
    }

    /// Calls with every option of [`ToolCall`].
    pub async fn call_with(&self, mut call: ToolCall) -> ToolResult {
        // Bounds first, before the log or anything else walks the arguments.
        let refused = input::over_limits(&self.config().limits, &call.args);
        notify::request(self, &call, refused);
        let started = Instant::now();
        // Until disarmed, dropping this future still records a result.
        let mut pending = notify::Pending {
            registry: self,
            invocation_id: call.invocation_id,
            name: std::mem::take(&mut call.name),
            parallel_group_id: call.parallel_group_id,
            started,
            armed: true,
        };
        let name = pending.name.as_str();
        let mut result = match refused {
            Some(exceeded) => {
                drop_deep(std::mem::take(&mut call.args));
                let tool = resolve::tool_name(self, name);
                Head::of(&call, tool.clone()).failed(Stop::InvalidArguments {
                    tool,
                    error: InputError::Exceeded(exceeded),
                    approved: false,
                })
            }
            None => self.run_cancellable(name, call).await,
        };
        pending.armed = false;
        result.duration = started.elapsed();
        if result.status == Status::Cancelled
            && let Some(entry) = self.entry(&result.tool_name)
        {
            result.output_type = OutputType::resolve(&entry.def, None);
        }
        notify::result(self, result)
    }

    /// Runs the stages, ending the call early when its token, or its batch's,
    /// is cancelled, and containing any panic the stages did not.
    async fn run_cancellable(&self, name: &str, mut call: ToolCall) -> ToolResult {
        let batch_cancel = call.batch_cancel.take();
        let cancel = call.cancel.clone();
        // Built only when the call does not end by itself.
        let ids = (call.invocation_id, call.parallel_group_id);
        // Boxed once, here: the stages' future is large, and every async fn
        // around it would otherwise copy it whole as it is built and awaited.
        let run = AssertUnwindSafe(Box::pin(self.stages(name, call)))
            .catch_unwind()
            .map(|outcome| {
                outcome.unwrap_or_else(|panic| {
                    let message = panic_message(panic.as_ref());
                    stopped(name, ids, |tool| Stop::CallPanicked { tool, message })
                })
            });
        let cancelled = || {
            stopped(name, ids, |tool| Stop::Cancelled {
                tool,
                dropped: false,
            })
        };
        match (cancel, batch_cancel) {
            // No token was handed in: nothing outside can cancel the call.
            (None, None) => run.await,
            (cancel, batch_cancel) => {
                let token_cancelled = until_cancelled(cancel.as_ref());
                let batch_cancelled = until_cancelled(batch_cancel.as_ref());
                // Dropping `run` drops the tool's future, so a tool that never
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
                    result = run => result,
                }
            }
        }
    }

    /// Resolves the tool, then runs the other stages on it.
    async fn stages(&self, name: &str, call: ToolCall) -> ToolResult {
        let entry = match resolve::entry(self, name) {
            Ok(entry) => entry,
            Err(stop) => return Head::of(&call, shown_name(name).into_owned()).failed(stop),
        };
        let mut head = Head::of(&call, entry.def.name().to_owned());
        head.output_type = OutputType::resolve(&entry.def, None);
        match self.spine(&entry, call).await {
            Ok(success) => head.succeeded(success),
            Err(stop) => head.failed(stop),
        }
    }

    /// The stages after resolve, in order; see the [module docs](self).
    async fn spine(&self, entry: &Arc<Entry>, mut call: ToolCall) -> Result<Success, Stop> {
        let config = self.config();
        let warnings = resolve::warnings(self, entry)?;
        let exec = self.exec_for(entry, &mut call);
        let args = std::mem::take(&mut call.args);
        let (args, prepared) = input::read(&config.limits, entry, args, &exec)?;
        let (args, prepared) = match permission::decide_first(config, entry, &args)? {
            Verdict::Allowed => (args, prepared),
            // Boxed: the rare ask must not grow every call's future.
            Verdict::Ask(prompt) => {
                Box::pin(permission::settle(
                    config, entry, args, prepared, prompt, &exec,
                ))
                .await?
            }
        };
        notify::running(self, &call, entry, &args);
        for warning in warnings {
            exec.progress(format!("warning: {}: {}", warning.code, warning.message));
        }
        let args = Arc::new(args);
        let value = execute::run(config, entry, &args, prepared, exec).await?;
        let value =
            output::gate(&config.limits, entry, value).map_err(|error| Stop::InvalidOutput {
                tool: entry.def.name().to_owned(),
                error,
                replaced: false,
            })?;
        let hooked = post_execute::run(config, entry, &args, value)?;
        notify::executed(self, &call, entry, &args, &hooked);
        let settled = Settled {
            invocation_id: call.invocation_id,
            args: &args,
            value: &hooked.value,
            top_level: call.top_level,
            replaced_content: hooked.replaced_content,
            context: hooked.context,
        };
        let mut finished = finish(config, entry, settled)?;
        finalize::write(config, entry.def.name(), call.invocation_id, &mut finished).await;
        Ok(Success::new(entry, hooked.value, finished))
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
    Head::new(invocation_id, parallel_group_id, tool.clone()).failed(stop(tool))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// The call future is moved as it is built and polled: its size is paid
    /// on every call, so the stages and the rare paths (approval, spill)
    /// are boxed.
    #[test]
    fn a_call_future_stays_small() {
        let registry = Registry::new();
        let call = registry.call("greet", json!({}));
        let size = std::mem::size_of_val(&call);
        println!("call future: {size} bytes");
        assert!(size < 2048, "the call future is {size} bytes");
    }
}
