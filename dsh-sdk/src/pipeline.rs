//! The one path every call takes, from a name and raw arguments to a [`ToolResult`].
//!
//! 0. bounds: arguments over the size or depth [limits](crate::limits) are
//!    refused before anything, the session log included, walks them;
//! 1. resolve the name or alias; a tool the catalog marks `unavailable`, or
//!    with a `fatal` diagnostic, is refused;
//! 2. input: the raw arguments against the input schema (every violation at
//!    once), serde, then the tool's own `validate_input`;
//! 3. pre-execute: the default decision (`requires_approval` and `destructive`
//!    tools ask), permission rules, then the gates in order;
//! 4. monotone guards, which can only tighten that decision; `ask` goes to the
//!    host's approver, within the approval timeout, which may override the
//!    arguments: those are validated and decided again;
//! 5. execute inside the layers (host layers, metrics, retry, timeout), with
//!    cancellation and panics caught; just before, a top-level call's running
//!    card goes to subscribers, and the catalog's warnings about the tool
//!    stream as `progress` chunks;
//! 6. the output gate: the canonical value against the output limits and
//!    schema;
//! 7. post-execute hooks;
//! 8. render, and present for top-level calls;
//! 9. finalize: oversized content spills to a file;
//! 10. every subscriber observes the result, also of a call whose future was
//!     dropped before it finished.
//!
//! A panic in any host hook on the way (gate, guard, approver, post-execute
//! hook, `validate_input`, a `Deserialize` impl, render, present, an execute
//! layer) ends the call with an error result that names the hook.

use std::any::Any;
use std::panic::AssertUnwindSafe;
use std::path::PathBuf;
use std::sync::{Arc, Weak};
use std::time::{Duration, Instant};

use futures_util::FutureExt;
use futures_util::future::join_all;
use serde_json::Value;
use tokio_util::sync::CancellationToken;
use tower::{Service, ServiceExt};
use uuid::Uuid;

use crate::card::Card;
use crate::content::ContentBlock;
use crate::definition::{OutputType, Validation};
use crate::error::with_sources;
use crate::event::{Event, ValueSource};
use crate::exec::{Exec, StreamSink};
use crate::layer::{ExecError, ExecRequest, Execute, MetricsLayer, TimeoutLayer};
use crate::limits::{self, Exceeded, drop_deep};
use crate::permission::{Approval, ApprovalRequest, Approver, CallInfo, Decision};
use crate::post_execute::{PostCall, PostDecision};
use crate::registry::{Config, Entry, Inner, Prepared, Registry, ToolInfo};
use crate::result::{Cause, Failure, Status, ToolResult};
use crate::schema::describe;
use crate::spill::{Spilled, plan, spill, spilled_message};
use tower::Layer;

/// One call a model asked for: a tool name and its raw arguments.
///
/// ```
/// use dsh_sdk::ToolCall;
/// use serde_json::json;
/// use dsh_sdk::CancellationToken;
///
/// let cancel = CancellationToken::new();
/// let call = ToolCall::new("read_file", json!({ "path": "/etc/hosts" })).cancel_on(cancel.clone());
/// // later: cancel.cancel() ends the call with status `cancelled`.
/// # drop(call);
/// ```
#[derive(Clone, Debug)]
pub struct ToolCall {
    name: String,
    args: Value,
    invocation_id: Uuid,
    /// The host's token for this call, if it handed one in.
    cancel: Option<CancellationToken>,
    /// The batch's token, when the call also has a token of its own.
    batch_cancel: Option<CancellationToken>,
    parallel_group_id: Option<Uuid>,
    top_level: bool,
}

impl ToolCall {
    /// A top-level call of `name` with `args`, with a fresh invocation id.
    pub fn new(name: impl Into<String>, args: Value) -> Self {
        ToolCall {
            name: name.into(),
            args,
            invocation_id: Uuid::new_v4(),
            cancel: None,
            batch_cancel: None,
            parallel_group_id: None,
            top_level: true,
        }
    }

    /// Cancels the call when `token` is cancelled.
    pub fn cancel_on(mut self, token: CancellationToken) -> Self {
        self.cancel = Some(token);
        self
    }

    /// Uses this invocation id instead of a fresh one.
    pub fn invocation_id(mut self, id: Uuid) -> Self {
        self.invocation_id = id;
        self
    }

    /// Marks a nested call (made by another tool): it gets no card.
    pub fn nested(mut self) -> Self {
        self.top_level = false;
        self
    }

    /// The invocation id the call will carry.
    pub fn id(&self) -> Uuid {
        self.invocation_id
    }
}

/// Why a call stopped early: its result, built by the stage that stopped it.
type Stop = Box<ToolResult>;

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
        let limits = &self.inner.config.limits;
        let refused = limits::check(&call.args, limits.max_arg_depth, limits.max_arg_bytes).err();
        self.emit_with(|| Event::Request {
            invocation_id: call.invocation_id,
            tool_name: shown_name(&call.name).into_owned(),
            tool_version: self
                .entry(&call.name)
                .and_then(|entry| entry.def.version_text().map(str::to_owned)),
            input: match refused {
                None => call.args.clone(),
                Some(exceeded) => Value::String(format!(
                    "(not recorded: the arguments are {})",
                    exceeded.describe()
                )),
            },
            parallel_group_id: call.parallel_group_id,
        });
        let started = Instant::now();
        // Until disarmed, dropping this future still records a result.
        let mut pending = Pending {
            registry: self,
            invocation_id: call.invocation_id,
            name: shown_name(&call.name).into_owned(),
            parallel_group_id: call.parallel_group_id,
            started,
            armed: true,
        };
        let mut result = match refused {
            Some(exceeded) => {
                drop_deep(std::mem::take(&mut call.args));
                let tool = self
                    .entry(&call.name)
                    .map(|entry| entry.def.name().to_owned());
                let tool = tool.unwrap_or_else(|| shown_name(&call.name).into_owned());
                *Stub::new(&call, &tool, started).error(
                    Cause::InvalidArguments,
                    format!(
                        "invalid arguments for `{tool}`: the arguments are {}",
                        exceeded.describe()
                    ),
                )
            }
            None => self.run_cancellable(call, started).await,
        };
        pending.armed = false;
        result.duration = started.elapsed();
        if result.status == Status::Cancelled
            && let Some(entry) = self.entry(&result.tool_name)
        {
            result.output_type = OutputType::resolve(&entry.def, None);
        }
        if self.listening() {
            // Shared with the subscribers, and taken back without a copy
            // unless one of them kept it.
            let shared = Arc::new(result);
            self.inner.emit(&Event::Result(Arc::clone(&shared)));
            result = Arc::try_unwrap(shared).unwrap_or_else(|kept| ToolResult::clone(&kept));
        }
        result
    }

    /// Runs the stages, ending the call early when its token, or its batch's,
    /// is cancelled, and containing any panic the stages did not.
    async fn run_cancellable(&self, mut call: ToolCall, started: Instant) -> ToolResult {
        let batch_cancel = call.batch_cancel.take();
        let cancel = call.cancel.clone();
        let name = shown_name(&call.name).into_owned();
        let stub = Stub::new(&call, &name, started);
        let run = AssertUnwindSafe(self.run(call, started))
            .catch_unwind()
            .map(|outcome| {
                outcome.unwrap_or_else(|panic| {
                    *stub.error(
                        Cause::Panicked,
                        format!(
                            "`{}` failed: the call panicked: {}",
                            stub.tool,
                            panic_message(panic.as_ref())
                        ),
                    )
                })
            });
        match (cancel, batch_cancel) {
            // No token was handed in: nothing outside can cancel the call.
            (None, None) => run.await,
            (cancel, batch_cancel) => {
                let cancelled = until_cancelled(cancel.as_ref());
                let batch_cancelled = until_cancelled(batch_cancel.as_ref());
                // Dropping `run` drops the tool's future, so a tool that never
                // looks at its token stops all the same.
                tokio::select! {
                    biased;
                    () = cancelled => stub.cancelled(),
                    () = batch_cancelled => {
                        if let Some(cancel) = &cancel {
                            cancel.cancel();
                        }
                        stub.cancelled()
                    }
                    result = run => result,
                }
            }
        }
    }

    /// Calls the tools of one model turn. Runs of consecutive
    /// concurrency-safe calls run in parallel; every other call runs alone,
    /// in request order. Results come back in request order, sharing one
    /// `parallel_group_id`.
    pub async fn call_batch(&self, calls: Vec<ToolCall>) -> Vec<ToolResult> {
        self.call_batch_with(calls, CancellationToken::new()).await
    }

    /// [`call_batch`](Self::call_batch), cancelling every call still running
    /// when `cancel` is cancelled.
    pub async fn call_batch_with(
        &self,
        calls: Vec<ToolCall>,
        cancel: CancellationToken,
    ) -> Vec<ToolResult> {
        let group = Uuid::new_v4();
        let calls: Vec<ToolCall> = calls
            .into_iter()
            .map(|mut call| {
                call.parallel_group_id = Some(group);
                // A child token is cancelled with the batch; a call with a
                // token of its own watches both.
                match &call.cancel {
                    None => call.cancel = Some(cancel.child_token()),
                    Some(_) => call.batch_cancel = Some(cancel.clone()),
                }
                call
            })
            .collect();
        let mut results = Vec::with_capacity(calls.len());
        let mut parallel: Vec<ToolCall> = Vec::new();
        for call in calls {
            let safe = self
                .entry(&call.name)
                .is_none_or(|entry| entry.def.is_concurrency_safe());
            if safe {
                parallel.push(call);
                continue;
            }
            results.extend(join_all(parallel.drain(..).map(|call| self.call_with(call))).await);
            results.push(self.call_with(call).await);
        }
        results.extend(join_all(parallel.into_iter().map(|call| self.call_with(call))).await);
        results
    }

    async fn run(&self, call: ToolCall, started: Instant) -> ToolResult {
        match self.stages(call, started).await {
            Ok(result) => result,
            Err(stop) => *stop,
        }
    }

    async fn stages(&self, call: ToolCall, started: Instant) -> Result<ToolResult, Stop> {
        let config = &self.inner.config;

        // 1. resolve
        let Some(entry) = self.entry(&call.name) else {
            let shown = shown_name(&call.name);
            let stub = Stub::new(&call, &shown, started);
            return Err(stub.error(Cause::UnknownTool, self.unknown_tool_message(&call.name)));
        };
        let tool = entry.def.name();
        let mut stub = Stub::new(&call, tool, started);
        stub.output_type = OutputType::resolve(&entry.def, None);
        // The catalog's severity rules: `unavailable` or a `fatal` diagnostic
        // blocks the tool; `degraded` or an `error` diagnostic warns the user.
        let warnings = self
            .catalog_check(tool)
            .map_err(|m| stub.error(Cause::Unavailable, m))?;
        let sink = self
            .inner
            .sink
            .get_or_init(|| stream_sink(Arc::downgrade(&self.inner)));
        let exec = Exec::for_call(
            entry.def.name.clone(),
            call.invocation_id,
            call.cancel,
            self,
            Arc::clone(sink),
        );

        // 2. input
        let mut args = bounded_args(config, call.args).map_err(|m| {
            stub.error(
                Cause::InvalidArguments,
                format!("invalid arguments for `{tool}`: {m}"),
            )
        })?;
        let mut prepared = check_input(&entry, &args, &exec)
            .map_err(|m| stub.error(Cause::InvalidArguments, m))?;

        // 3–4. gates, rules, guards, approval
        match decide(config, &entry, &args) {
            Decision::Allow => {}
            Decision::Deny { reason } => {
                return Err(stub.error(Cause::Denied, format!("`{tool}` cannot run: {reason}")));
            }
            Decision::Ask { prompt } => {
                let Some(approver) = &config.approver else {
                    return Err(stub.error(Cause::Denied, unapproved_message(tool, &prompt)));
                };
                let asked = ask(config, approver.as_ref(), tool, &args, &prompt, &stub);
                match asked.await? {
                    Approval::Approve => {}
                    Approval::ApproveWith(overridden) => {
                        // What runs is decided again, as if the model had sent it.
                        let invalid = |m| {
                            stub.error(
                                Cause::InvalidArguments,
                                format!("the approved arguments are invalid: {m}"),
                            )
                        };
                        let overridden = bounded_args(config, overridden).map_err(invalid)?;
                        prepared = check_input(&entry, &overridden, &exec).map_err(invalid)?;
                        match decide(config, &entry, &overridden) {
                            Decision::Allow => {}
                            Decision::Deny { reason } => {
                                return Err(stub.error(Cause::Denied, format!(
                                    "`{tool}` cannot run with the arguments its approver gave: {reason}"
                                )));
                            }
                            // Asked once more, about what will run now; a
                            // second change of arguments is not taken.
                            Decision::Ask { prompt } => {
                                let asked = ask(
                                    config,
                                    approver.as_ref(),
                                    tool,
                                    &overridden,
                                    &prompt,
                                    &stub,
                                );
                                match asked.await? {
                                    Approval::Approve => {}
                                    Approval::ApproveWith(_) => {
                                        return Err(stub.error(Cause::Rejected, format!(
                                            "`{tool}` was not run: its approver changed the arguments, was asked again about the new ones, and changed them again; arguments are changed at most once per call"
                                        )));
                                    }
                                    Approval::Reject { reason } => {
                                        return Err(stub.error(
                                            Cause::Rejected,
                                            format!("`{tool}` was rejected: {reason}"),
                                        ));
                                    }
                                }
                            }
                        }
                        args = overridden;
                    }
                    Approval::Reject { reason } => {
                        return Err(
                            stub.error(Cause::Rejected, format!("`{tool}` was rejected: {reason}"))
                        );
                    }
                }
            }
        }

        // The card shown while the call runs, and the user's warnings.
        if call.top_level {
            self.emit_with(|| Event::Running {
                invocation_id: call.invocation_id,
                tool_name: tool.to_owned(),
                card: ToolInfo {
                    entry: Arc::clone(&entry),
                }
                .present_call(&args),
            });
        }
        for warning in warnings {
            exec.progress(format!("warning: {}: {}", warning.code, warning.message));
        }

        // 5. execute inside the layers
        let args = Arc::new(args);
        let timeout = entry.def.call_timeout().or(config.timeout);
        let request = ExecRequest::new(
            Arc::clone(&entry),
            Arc::clone(&args),
            prepared,
            exec,
            timeout,
        );
        let executed = match &config.service {
            // A host layer that panics is contained like a tool that does.
            Some(service) => AssertUnwindSafe(service.clone().oneshot(request))
                .catch_unwind()
                .await
                .unwrap_or_else(|panic| {
                    Err(ExecError::Panicked(format!(
                        "an execute layer panicked: {}",
                        panic_message(panic.as_ref())
                    )))
                }),
            // The built-in stack is always ready: called without `oneshot`.
            None => {
                MetricsLayer
                    .layer(TimeoutLayer.layer(Execute))
                    .call(request)
                    .await
            }
        };
        let value = match executed {
            Ok(value) => value,
            Err(ExecError::Timeout(limit)) => {
                return Err(stub.fail(
                    Status::Timeout,
                    Failure::new(Cause::Timeout),
                    format!("`{tool}` timed out after {}", human_duration(limit)),
                ));
            }
            Err(ExecError::Tool(error)) => {
                let failure = Failure::tool(error.kind().map(str::to_owned), error.data().cloned());
                return Err(stub.fail(Status::Error, failure, format!("`{tool}` failed: {error}")));
            }
            Err(ExecError::Panicked(message)) => {
                return Err(stub.error(Cause::Panicked, format!("`{tool}` panicked: {message}")));
            }
        };

        // 6. output gate
        let mut value =
            output_gate(config, &entry, value).map_err(|m| stub.error(Cause::InvalidOutput, m))?;

        // 7. post-execute hooks
        let mut source = ValueSource::Execute;
        let mut replaced_content: Option<Vec<ContentBlock>> = None;
        let mut context: Vec<ContentBlock> = Vec::new();
        for (index, hook) in config.post_execute.iter().enumerate() {
            let post_call = PostCall {
                tool,
                args: &args,
                value: &value,
            };
            let outcome = std::panic::catch_unwind(AssertUnwindSafe(|| hook.after(&post_call)))
                .map_err(|panic| {
                    stub.error(
                        Cause::HookPanicked,
                        format!(
                            "`{tool}` was stopped after it ran: {}",
                            hook_panicked(&format!("the post-execute hook #{}", index + 1), panic)
                        ),
                    )
                })?;
            context.extend(outcome.context);
            match outcome.decision {
                PostDecision::Pass => {}
                PostDecision::AcceptContent(content) => replaced_content = Some(content),
                PostDecision::AcceptValue(new_value) => {
                    value = output_gate(config, &entry, new_value).map_err(|m| {
                        stub.error(
                            Cause::InvalidOutput,
                            format!("a post-execute hook replaced the value: {m}"),
                        )
                    })?;
                    source = ValueSource::PostExecute;
                    replaced_content = None;
                }
                PostDecision::Block { feedback } => {
                    let mut stop =
                        stub.error(Cause::Blocked, format!("`{tool}` was blocked: {feedback}"));
                    stop.content.extend(context);
                    return Err(stop);
                }
            }
        }

        self.emit_with(|| Event::Executed {
            invocation_id: call.invocation_id,
            tool_name: tool.to_owned(),
            args: Arc::clone(&args),
            value: value.clone(),
            source,
            top_level: call.top_level,
            replaced_content: replaced_content.clone(),
            context: context.clone(),
        });

        // 8–9. render, present, finalize: the stages a replay runs too
        let settled = Settled {
            invocation_id: call.invocation_id,
            args: &args,
            value: &value,
            top_level: call.top_level,
            replaced_content,
            context,
        };
        let mut finished =
            finish(config, &entry, settled).map_err(|m| stub.error(Cause::RenderFailed, m))?;
        if let Some(mut overflow) = finished.spill.take() {
            // Boxed: the rare spill must not grow every call's future.
            let written = Box::pin(write_spill(config, call.invocation_id, &overflow)).await;
            // The message is the first block (see `finish`).
            let message = finished.content.first_mut();
            match written {
                // Another call with this invocation id took the planned name.
                Ok(path) if path != overflow.spilled.path => {
                    overflow.spilled.path = path;
                    if let Some(message) = message {
                        *message = ContentBlock::text(spilled_message(&overflow.spilled));
                    }
                }
                Ok(_) => {}
                // The output stays the call's: its value, and the preview.
                Err(error) => {
                    tracing::warn!(tool, "{error}");
                    if let Some(message) = message {
                        *message = ContentBlock::text(unsaved_message(&overflow, &error));
                    }
                }
            }
            finished.spill = Some(overflow);
        }

        let output_type = OutputType::resolve(&entry.def, Some(&value));
        Ok(ToolResult {
            invocation_id: call.invocation_id,
            tool_name: tool.to_owned(),
            status: Status::Success,
            content: finished.content,
            value: Some(value),
            card: finished.card,
            is_error: false,
            // Measured once the result is whole, in `call_with`.
            duration: Duration::ZERO,
            truncated: finished.spill.is_some(),
            output_type,
            parallel_group_id: call.parallel_group_id,
            failure: None,
        })
    }

    fn unknown_tool_message(&self, name: &str) -> String {
        let closest = self.closest(name);
        let name = shown_name(name);
        match closest.as_slice() {
            [] => format!("no tool named `{name}`"),
            [one] => format!("no tool named `{name}`; did you mean `{one}`?"),
            many => format!(
                "no tool named `{name}`; did you mean one of {}?",
                many.iter()
                    .map(|name| format!("`{name}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        }
    }
}

/// What every failed result of one call shares.
struct Stub<'a> {
    invocation_id: Uuid,
    tool: &'a str,
    parallel_group_id: Option<Uuid>,
    started: Instant,
    /// What a failure's `output_type` resolves to, once the tool is known.
    output_type: OutputType,
}

impl<'a> Stub<'a> {
    /// The stub of `call`, failing as `tool`, until the tool is known.
    fn new(call: &ToolCall, tool: &'a str, started: Instant) -> Self {
        Stub {
            invocation_id: call.invocation_id,
            tool,
            parallel_group_id: call.parallel_group_id,
            started,
            output_type: OutputType::Text,
        }
    }

    fn fail(&self, status: Status, failure: Failure, message: String) -> Stop {
        let mut result = ToolResult::failed(
            self.invocation_id,
            self.tool.to_owned(),
            status,
            failure,
            message,
            self.started.elapsed(),
        );
        result.parallel_group_id = self.parallel_group_id;
        result.output_type = self.output_type;
        Box::new(result)
    }

    fn error(&self, cause: Cause, message: String) -> Stop {
        self.fail(Status::Error, Failure::new(cause), message)
    }

    fn cancelled(&self) -> ToolResult {
        *self.fail(
            Status::Cancelled,
            Failure::new(Cause::Cancelled),
            format!("`{}` was cancelled before it finished", self.tool),
        )
    }
}

/// The arguments as a tool reads them, within the registry's limits: a
/// JSON string holding an object is parsed (see [`normalize_args`]), and
/// checked again, since parsing can nest deeper than the string was.
fn bounded_args(config: &Config, args: Value) -> Result<Value, String> {
    let limits = &config.limits;
    let refuse = |args: Value, exceeded: Exceeded| {
        drop_deep(args);
        Err(format!("the arguments are {}", exceeded.describe()))
    };
    if let Err(exceeded) = limits::check(&args, limits.max_arg_depth, limits.max_arg_bytes) {
        return refuse(args, exceeded);
    }
    if !args.is_string() {
        return Ok(args);
    }
    let args = normalize_args(args);
    match limits::check(&args, limits.max_arg_depth, limits.max_arg_bytes) {
        Ok(()) => Ok(args),
        Err(exceeded) => refuse(args, exceeded),
    }
}

/// The refusal of a call that asked for approval where no approver is set
/// up: a statement of what happened, not the question the approver would
/// have been asked.
fn unapproved_message(tool: &str, prompt: &str) -> String {
    match prompt.strip_suffix(": allow it?") {
        Some(reason) => {
            format!("`{tool}` was denied: {reason}, and no approver is set up to allow it")
        }
        None => {
            format!("`{tool}` was denied: it needs approval, and no approver is set up to give it")
        }
    }
}

/// Stage 2: schema, serde, then the tool's own check. A panic in the
/// arguments' `Deserialize` or in `validate_input` is an error too.
fn check_input(entry: &Entry, args: &Value, exec: &Exec) -> Result<Prepared, String> {
    let tool = entry.def.name();
    let violations = entry.input.violations(args);
    if !violations.is_empty() {
        return Err(format!(
            "invalid arguments for `{tool}`: {}",
            describe(&violations)
        ));
    }
    let prepared = std::panic::catch_unwind(AssertUnwindSafe(|| entry.handler.prepare(args)))
        .map_err(|panic| {
            format!(
                "`{tool}` could not read its arguments: {}",
                hook_panicked("their `Deserialize` impl", panic)
            )
        })?
        .map_err(|error| format!("invalid arguments for `{tool}`: {error}"))?;
    let validated =
        std::panic::catch_unwind(AssertUnwindSafe(|| entry.handler.validate(&prepared, exec)))
            .map_err(|panic| {
                format!(
                    "`{tool}` could not check its arguments: {}",
                    hook_panicked("its `validate_input`", panic)
                )
            })?;
    match validated {
        Validation::Ok => Ok(prepared),
        Validation::Invalid { message, code } => Err(format!(
            "invalid arguments for `{tool}` (code {code}): {message}"
        )),
    }
}

/// Stages 3 and 4 for `args`: default, rules, gates, guards. A gate or
/// guard that panics denies (see [`Permissions::decide`](crate::permission::Permissions::decide)).
fn decide(config: &Config, entry: &Entry, args: &Value) -> Decision {
    let aliases: Vec<&str> = entry.def.alias_names().collect();
    let info = CallInfo {
        tool: entry.def.name(),
        aliases: &aliases,
        args,
        read_only: entry.def.is_read_only(),
        destructive: entry.def.is_destructive(),
        requires_approval: entry.def.is_approval_required(),
    };
    config.permissions.decide(&info)
}

/// Puts an ask to the approver, for at most the approval timeout. An
/// approver that panics, or does not answer in time, stops the call.
async fn ask(
    config: &Config,
    approver: &dyn Approver,
    tool: &str,
    args: &Value,
    prompt: &str,
    stub: &Stub<'_>,
) -> Result<Approval, Stop> {
    let request = ApprovalRequest {
        tool,
        args,
        prompt,
        invocation_id: stub.invocation_id,
    };
    let panicked = |panic: Box<dyn Any + Send>| {
        stub.error(
            Cause::HookPanicked,
            format!(
                "`{tool}` could not be approved: {}",
                hook_panicked("the approver", panic)
            ),
        )
    };
    let answer = std::panic::catch_unwind(AssertUnwindSafe(|| approver.approve(request)))
        .map_err(panicked)?;
    let answer = AssertUnwindSafe(answer).catch_unwind();
    let limit = config.limits.approval_timeout;
    let answered = if tokio::runtime::Handle::try_current().is_ok() {
        tokio::time::timeout(limit, answer).await.map_err(|_| {
            stub.fail(
                Status::Timeout,
                Failure::new(Cause::Timeout),
                format!(
                    "`{tool}` was not run: its approval got no answer within {}",
                    human_duration(limit)
                ),
            )
        })?
    } else {
        answer.await
    };
    answered.map_err(panicked)
}

/// "the approver panicked: …", what a panic in a host hook becomes.
pub(crate) fn hook_panicked(hook: &str, panic: Box<dyn Any + Send>) -> String {
    format!("{hook} panicked: {}", panic_message(panic.as_ref()))
}

/// Stage 6: a value over the output limits, or that breaks the output
/// schema, never reaches the model.
fn output_gate(config: &Config, entry: &Entry, value: Value) -> Result<Value, String> {
    let limits = &config.limits;
    if let Err(exceeded) = limits::check(&value, limits.max_output_depth, limits.max_output_bytes) {
        drop_deep(value);
        return Err(format!(
            "`{}` returned an output {}",
            entry.def.name(),
            exceeded.describe()
        ));
    }
    let violations = entry.output.violations(&value);
    if violations.is_empty() {
        Ok(value)
    } else {
        Err(format!(
            "`{}` returned an output that breaks its schema: {}",
            entry.def.name(),
            describe(&violations)
        ))
    }
}

/// Records a result for a call whose future was dropped before it finished
/// (a host gave up on it, say), so the session log never ends with a
/// request and no result.
struct Pending<'a> {
    registry: &'a Registry,
    invocation_id: Uuid,
    name: String,
    parallel_group_id: Option<Uuid>,
    started: Instant,
    armed: bool,
}

impl Drop for Pending<'_> {
    fn drop(&mut self) {
        if !self.armed || !self.registry.listening() {
            return;
        }
        let tool = match self.registry.entry(&self.name) {
            Some(entry) => entry.def.name().to_owned(),
            None => self.name.clone(),
        };
        let mut result = ToolResult::failed(
            self.invocation_id,
            tool.clone(),
            Status::Cancelled,
            Failure::new(Cause::Cancelled),
            format!("`{tool}` was cancelled before it finished: the call was dropped"),
            self.started.elapsed(),
        );
        result.parallel_group_id = self.parallel_group_id;
        self.registry.inner.emit(&Event::Result(Arc::new(result)));
    }
}

/// The longest tool name echoed back whole; no valid name comes close.
const SHOWN_NAME_CHARS: usize = 128;

/// `name`, cut to [`SHOWN_NAME_CHARS`] characters with an ellipsis: an
/// unknown name of megabytes is not echoed into results and the log.
fn shown_name(name: &str) -> std::borrow::Cow<'_, str> {
    match name.char_indices().nth(SHOWN_NAME_CHARS) {
        None => std::borrow::Cow::Borrowed(name),
        Some((end, _)) => std::borrow::Cow::Owned(format!("{}…", &name[..end])),
    }
}

/// What stages 8 and 9 start from: a value that passed the output gate and
/// every post-execute hook. A live call builds it from the hooks' decisions; a
/// replay reads it from the session log's `executed` record.
pub(crate) struct Settled<'a> {
    pub(crate) invocation_id: Uuid,
    pub(crate) args: &'a Value,
    pub(crate) value: &'a Value,
    pub(crate) top_level: bool,
    pub(crate) replaced_content: Option<Vec<ContentBlock>>,
    pub(crate) context: Vec<ContentBlock>,
}

/// The content and card of a successful call, after finalize.
pub(crate) struct Finished {
    pub(crate) content: Vec<ContentBlock>,
    pub(crate) card: Option<Card>,
    /// Where the whole text goes, when it was over the limit.
    pub(crate) spill: Option<Overflow>,
}

/// Content over its tool's limit: the file it spills to and what goes there.
pub(crate) struct Overflow {
    /// The planned file, the text's length and its preview.
    pub(crate) spilled: Spilled,
    /// The whole text.
    pub(crate) full: String,
    /// Its length in characters.
    pub(crate) chars: usize,
    /// The limit it broke.
    pub(crate) limit: usize,
}

/// Stages 8 and 9: render and present, then plan the spill of oversized
/// content, which a live call then writes (see [`write_spill`]). The one
/// path from a settled value to content and card, for a live call and a
/// replay alike; `Err` is the message of the call's error result.
pub(crate) fn finish(
    config: &Config,
    entry: &Entry,
    settled: Settled<'_>,
) -> Result<Finished, String> {
    // 8. render and present
    let (rendered, card) = project(entry, settled.args, settled.value, settled.top_level)?;
    let mut content = settled.replaced_content.unwrap_or(rendered);

    // 9. finalize
    let limit = entry
        .def
        .result_char_limit()
        .unwrap_or(config.max_result_chars);
    let text_chars: usize = content
        .iter()
        .filter_map(ContentBlock::as_text)
        .map(|text| text.chars().count())
        .sum();
    let mut spilled_to = None;
    if text_chars > limit {
        let full = crate::content::joined_text(&content);
        let spilled = plan(&config.spill, settled.invocation_id, &full);
        content.retain(|block| block.as_text().is_none());
        content.insert(0, ContentBlock::text(spilled_message(&spilled)));
        spilled_to = Some(Overflow {
            spilled,
            full,
            chars: text_chars,
            limit,
        });
    }
    content.extend(settled.context);
    Ok(Finished {
        content,
        card,
        spill: spilled_to,
    })
}

/// Stage 8: render and present, pure projections of the canonical value. A
/// panic in either becomes an error message; a top-level call of a tool that
/// presents nothing gets the generic card, a nested call gets none.
fn project(
    entry: &Entry,
    args: &Value,
    value: &Value,
    top_level: bool,
) -> Result<(Vec<ContentBlock>, Option<Card>), String> {
    let tool = entry.def.name();
    let projected = std::panic::catch_unwind(AssertUnwindSafe(|| {
        entry.handler.project(args, value, top_level)
    }));
    match projected {
        Ok(Ok(projection)) => {
            let card = top_level.then(|| {
                projection.card.unwrap_or_else(|| {
                    Card::generic(tool.to_owned(), args.clone(), Some(value.clone()))
                })
            });
            Ok((projection.content, card))
        }
        Ok(Err(error)) => Err(format!("`{tool}` could not render its output: {error}")),
        Err(panic) => match panic.downcast::<PresentPanic>() {
            Ok(present) => Err(format!(
                "`{tool}` could not present its output: the present panicked: {}",
                present.0
            )),
            Err(panic) => Err(format!(
                "`{tool}` could not render its output: the render panicked: {}",
                panic_message(panic.as_ref())
            )),
        },
    }
}

/// The payload a panic in `present` is resumed with, to tell it from a
/// panic in render: its message.
pub(crate) struct PresentPanic(pub(crate) String);

/// Writes a planned spill file, on tokio's blocking pool when there is a
/// runtime: the write is synced to disk, which can take a while, and must
/// not hold up the other calls on this thread. Gives the path written, or
/// why the write failed.
async fn write_spill(
    config: &Config,
    invocation_id: Uuid,
    overflow: &Overflow,
) -> Result<PathBuf, String> {
    let Ok(runtime) = tokio::runtime::Handle::try_current() else {
        return spill(&config.spill, invocation_id, &overflow.full)
            .map_err(|error| with_sources(&error));
    };
    let spill_config = config.spill.clone();
    let full = overflow.full.clone();
    let writing = runtime.spawn_blocking(move || {
        spill(&spill_config, invocation_id, &full).map_err(|error| with_sources(&error))
    });
    writing
        .await
        .unwrap_or_else(|stopped| Err(format!("the write did not finish: {stopped}")))
}

/// What the model gets when oversized content could not be saved: the
/// preview it would have had, and why the rest is missing.
fn unsaved_message(overflow: &Overflow, error: &str) -> String {
    let Overflow {
        spilled,
        chars,
        limit,
        ..
    } = overflow;
    let mut message = format!(
        "Output too large ({chars} characters, over the limit of {limit}), and the full output could not be saved: {error}."
    );
    if !spilled.preview.is_empty() {
        message.push_str(&format!(
            " Preview (first {} characters):\n{}",
            spilled.preview.chars().count(),
            spilled.preview
        ));
    }
    message
}

/// Resolves when `token` is cancelled; never without one.
async fn until_cancelled(token: Option<&CancellationToken>) {
    match token {
        Some(token) => token.cancelled().await,
        None => std::future::pending().await,
    }
}

/// Streams chunks to the registry's subscribers, without keeping it alive.
fn stream_sink(registry: Weak<Inner>) -> StreamSink {
    Arc::new(move |chunk| {
        if let Some(inner) = registry.upgrade() {
            inner.emit(&Event::Stream(chunk));
        }
    })
}

/// Models sometimes send the arguments object as a JSON string; accept it.
pub(crate) fn normalize_args(args: Value) -> Value {
    if let Value::String(text) = &args
        && let Ok(parsed @ Value::Object(_)) = serde_json::from_str::<Value>(text)
    {
        return parsed;
    }
    args
}

fn human_duration(duration: Duration) -> String {
    if duration.subsec_millis() == 0 && duration.as_secs() > 0 {
        format!("{} s", duration.as_secs())
    } else {
        format!("{} ms", duration.as_millis())
    }
}

pub(crate) fn panic_message(panic: &(dyn Any + Send)) -> String {
    if let Some(message) = panic.downcast_ref::<&str>() {
        (*message).to_owned()
    } else if let Some(message) = panic.downcast_ref::<String>() {
        message.clone()
    } else {
        "(no message)".to_owned()
    }
}
