//! The one path every call takes, from a name and raw arguments to a [`ToolResult`].
//!
//! 1. resolve the name or alias; a tool the catalog marks `unavailable`, or
//!    with a `fatal` diagnostic, is refused;
//! 2. input: the raw arguments against the input schema (every violation at
//!    once), serde, then the tool's own `validate_input`;
//! 3. pre-execute: the default decision (`requires_approval` and `destructive`
//!    tools ask), permission rules, then the gates in order;
//! 4. monotone guards, which can only tighten that decision; `ask` goes to the
//!    host's approver, which may override the arguments (validated again);
//! 5. execute inside the layers (host layers, metrics, retry, timeout), with
//!    cancellation and panics caught; just before, a top-level call's running
//!    card goes to subscribers, and the catalog's warnings about the tool
//!    stream as `progress` chunks;
//! 6. the output gate: the canonical value against the output schema;
//! 7. post-execute hooks;
//! 8. render, and present for top-level calls;
//! 9. finalize: oversized content spills to a file;
//! 10. every subscriber observes the result.

use std::any::Any;
use std::panic::AssertUnwindSafe;
use std::path::PathBuf;
use std::sync::{Arc, Weak};
use std::time::{Duration, Instant};

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
use crate::permission::{Approval, ApprovalRequest, CallInfo, Decision};
use crate::post_execute::{PostCall, PostDecision};
use crate::registry::{Config, Entry, Inner, Prepared, Registry, ToolInfo};
use crate::result::{Cause, Failure, Status, ToolResult};
use crate::schema::describe;
use crate::spill::{plan, spill, spilled_message};
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
        self.emit_with(|| Event::Request {
            invocation_id: call.invocation_id,
            tool_name: call.name.clone(),
            tool_version: self
                .entry(&call.name)
                .and_then(|entry| entry.def.version_text().map(str::to_owned)),
            input: call.args.clone(),
            parallel_group_id: call.parallel_group_id,
        });
        let started = Instant::now();
        let batch_cancel = call.batch_cancel.take();
        let mut result = match (call.cancel.clone(), batch_cancel) {
            // No token was handed in: nothing outside can cancel the call.
            (None, None) => self.run(call, started).await,
            (cancel, batch_cancel) => {
                let name = call.name.clone();
                let stub = Stub::new(&call, &name, started);
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
                    result = self.run(call, started) => result,
                }
            }
        };
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
            let stub = Stub::new(&call, &call.name, started);
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
        let mut args = normalize_args(call.args);
        let mut prepared = check_input(&entry, &args, &exec)
            .map_err(|m| stub.error(Cause::InvalidArguments, m))?;

        // 3–4. gates, rules, guards, approval
        let aliases: Vec<&str> = entry.def.alias_names().collect();
        let info = CallInfo {
            tool,
            aliases: &aliases,
            args: &args,
            read_only: entry.def.is_read_only(),
            destructive: entry.def.is_destructive(),
            requires_approval: entry.def.is_approval_required(),
        };
        match config.permissions.decide(&info) {
            Decision::Allow => {}
            Decision::Deny { reason } => {
                return Err(stub.error(Cause::Denied, format!("`{tool}` cannot run: {reason}")));
            }
            Decision::Ask { prompt } => {
                let Some(approver) = &config.approver else {
                    return Err(stub.error(Cause::Denied, unapproved_message(tool, &prompt)));
                };
                let request = ApprovalRequest {
                    tool,
                    args: &args,
                    prompt: &prompt,
                    invocation_id: call.invocation_id,
                };
                match approver.approve(request).await {
                    Approval::Approve => {}
                    Approval::ApproveWith(overridden) => {
                        let overridden = normalize_args(overridden);
                        prepared = check_input(&entry, &overridden, &exec).map_err(|m| {
                            stub.error(
                                Cause::InvalidArguments,
                                format!("the approved arguments are invalid: {m}"),
                            )
                        })?;
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
            Some(service) => service.clone().oneshot(request).await,
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
        output_gate(&entry, &value).map_err(|m| stub.error(Cause::InvalidOutput, m))?;

        // 7. post-execute hooks
        let mut value = value;
        let mut source = ValueSource::Execute;
        let mut replaced_content: Option<Vec<ContentBlock>> = None;
        let mut context: Vec<ContentBlock> = Vec::new();
        for hook in &config.post_execute {
            let outcome = hook.after(&PostCall {
                tool,
                args: &args,
                value: &value,
            });
            context.extend(outcome.context);
            match outcome.decision {
                PostDecision::Pass => {}
                PostDecision::AcceptContent(content) => replaced_content = Some(content),
                PostDecision::AcceptValue(new_value) => {
                    output_gate(&entry, &new_value).map_err(|m| {
                        stub.error(
                            Cause::InvalidOutput,
                            format!("a post-execute hook replaced the value: {m}"),
                        )
                    })?;
                    value = new_value;
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
        if let Some(overflow) = finished.spill.take() {
            let (chars, limit) = (overflow.chars, overflow.limit);
            // Boxed: the rare spill must not grow every call's future.
            let written = Box::pin(write_spill(config, call.invocation_id, overflow)).await;
            finished.spill = Some(written.map_err(|error| {
                stub.error(Cause::SpillFailed, format!(
                    "`{tool}` produced {chars} characters, over its limit of {limit}, and they could not be saved: {error}"
                ))
            })?);
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

/// Stage 2: schema, serde, then the tool's own check.
fn check_input(entry: &Entry, args: &Value, exec: &Exec) -> Result<Prepared, String> {
    let tool = entry.def.name();
    let violations = entry.input.violations(args);
    if !violations.is_empty() {
        return Err(format!(
            "invalid arguments for `{tool}`: {}",
            describe(&violations)
        ));
    }
    let prepared = entry
        .handler
        .prepare(args)
        .map_err(|error| format!("invalid arguments for `{tool}`: {error}"))?;
    match entry.handler.validate(&prepared, exec) {
        Validation::Ok => Ok(prepared),
        Validation::Invalid { message, code } => Err(format!(
            "invalid arguments for `{tool}` (code {code}): {message}"
        )),
    }
}

/// Stage 6: a value that breaks the output schema never reaches the model.
fn output_gate(entry: &Entry, value: &Value) -> Result<(), String> {
    let violations = entry.output.violations(value);
    if violations.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "`{}` returned an output that breaks its schema: {}",
            entry.def.name(),
            describe(&violations)
        ))
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
    pub(crate) path: PathBuf,
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
            path: spilled.path,
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
        Err(panic) => Err(format!(
            "`{tool}` could not render its output: the render panicked: {}",
            panic_message(panic.as_ref())
        )),
    }
}

/// Writes a planned spill file, on tokio's blocking pool when there is a
/// runtime: the write is synced to disk, which can take a while, and must
/// not hold up the other calls on this thread. Gives the overflow back, or
/// why the write failed.
async fn write_spill(
    config: &Config,
    invocation_id: Uuid,
    overflow: Overflow,
) -> Result<Overflow, String> {
    let Ok(runtime) = tokio::runtime::Handle::try_current() else {
        return spill(&config.spill, invocation_id, &overflow.full)
            .map(|_| overflow)
            .map_err(|error| with_sources(&error));
    };
    let spill_config = config.spill.clone();
    let writing = runtime.spawn_blocking(move || {
        spill(&spill_config, invocation_id, &overflow.full)
            .map(|_| overflow)
            .map_err(|error| with_sources(&error))
    });
    writing
        .await
        .unwrap_or_else(|stopped| Err(format!("the write did not finish: {stopped}")))
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
