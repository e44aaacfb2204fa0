//! The one path every call takes, from a name and raw arguments to a [`ToolResult`].
//!
//! 0. bounds (`input`): arguments over the size or depth
//!    [limits](crate::value::schema::limits) are refused before anything, the session log
//!    included, walks them;
//! 1. `resolve` the name or alias; a tool the catalog marks `unavailable`,
//!    or with a `fatal` diagnostic, is refused;
//! 2. `input`: the raw arguments against the input schema (every violation
//!    at once); the path arguments resolved against the roots and rewritten
//!    to their resolved form ([`crate::value::path`]); serde, then the tool's own
//!    `validate_input`;
//! 3. `permission`: the default decision (`requires_approval` and
//!    `destructive` tools ask), permission rules, then the gates in order;
//! 4. `permission`: monotone guards, which can only tighten that decision;
//!    `ask` goes to the host's approver, within the approval timeout, which
//!    may override the arguments: those are validated and decided again;
//! 5. `execute` inside the [layers](crate::pipeline::layer) (host layers, metrics,
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
//! Each stage is a module of its own; the spine, here, calls them in that
//! order, once for every call: [`Pipeline::begin`] (resolve, input, the
//! permission decision, which never wait), then [`Pipeline::advance`],
//! which takes the call from [`Pipeline::proceed`] through the approval if
//! it asks ([`Pipeline::approve`]), execute ([`Pipeline::execute`], just
//! after [`Pipeline::launch`]), [`Pipeline::land`] (output gate,
//! post-execute, project, finalize) and the spill if content is over its
//! limit ([`Pipeline::spill`]). The fast case is that same path with
//! nothing to wait for but the tool: allowed as it is, with no host layer
//! or recorded span around execute, the tool runs unboxed within its
//! timeout ([`Running::Direct`]). A stage that stops the call returns a
//! `Stop` (`stop`), which the one place results are built (`Head`, in
//! `head`) turns into the call's error result. The call's future
//! (`future`) checks the bounds, tells subscribers, polls the path,
//! watches the tokens that may cancel the call (`watch`), contains panics
//! and times the call. The call's context ([`Exec`]) is made once
//! something needs it (`CallExec`): the tool, an approval, a host layer.
//! `batch` runs the calls of one model turn.

use std::borrow::Cow;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, OnceLock, Weak};
use std::task::{Context, Poll};
use std::time::Instant;

use serde_json::Value;
use uuid::Uuid;

use crate::pipeline::layer::{ExecuteFuture, Executed, TimeoutFuture};
use crate::pool::{Loaded, Pool};
use crate::tool::client::Client;
use crate::tool::{CallTokens, Exec};
use crate::tool::{Entry, Prepared};
use crate::tool::{Remote, RunsCalls, Session, StreamSink, Surroundings, WeakPipeline};
use crate::value::event::rawp::Diagnostic;
use crate::value::event::{self, Event};
use crate::value::principal::Principal;
use crate::value::result::ToolResult;
use permission::Verdict;
use resolve::shown_name;

mod batch;
mod call;
mod config;
mod execute;
mod finalize;
mod future;
mod head;
mod input;
pub mod layer;
mod notify;
mod output;
mod permission;
pub mod post_execute;
mod resolve;
pub(crate) mod spill;
mod stop;
mod trace;
mod watch;

pub use call::ToolCall;
use call::{CallName, Resolved};
pub(crate) use config::Config;
pub(crate) use finalize::{Settled, finish, is_unsaved};
pub(crate) use head::{Head, Success};
pub(crate) use resolve::closest;
pub(crate) use stop::Stop;

/// What a call runs against: the pool and the settings every stage reads.
/// The stages are its methods and this module's functions; the host holds
/// it behind a [`Registry`](crate::Registry).
pub(crate) struct Pipeline {
    pub(crate) pool: Pool,
    pub(crate) config: Config,
    /// What every call's context shares; made once, on first use.
    surroundings: OnceLock<Arc<Surroundings>>,
    /// Itself, not kept alive: what a call's context holds to reach the
    /// pipeline it runs in (a tool that calls other tools, tool search).
    me: Weak<Pipeline>,
}

impl Pipeline {
    /// A pipeline over `pool` with `config`, shared.
    pub(crate) fn new(pool: Pool, config: Config) -> Arc<Pipeline> {
        Arc::new_cyclic(|me| Pipeline {
            pool,
            config,
            surroundings: OnceLock::new(),
            me: me.clone(),
        })
    }

    /// The pipeline a call's context was made by, while it lives: for tools
    /// that reach the pool they run in (tool search).
    pub(crate) fn of(exec: &Exec) -> Option<Arc<Pipeline>> {
        let pipeline: Arc<dyn std::any::Any + Send + Sync> = exec.pipeline()?.upgrade()?;
        pipeline.downcast::<Pipeline>().ok()
    }

    /// The deferred tools the caller of `exec` loaded: its session's, else
    /// its principal's own.
    pub(crate) fn loaded_of(&self, exec: &Exec) -> Arc<Loaded> {
        exec.session()
            .and_then(|session| Arc::clone(session).downcast::<Loaded>().ok())
            .unwrap_or_else(|| self.pool.loaded_by(exec.principal()))
    }

    /// The session `exec`'s call came through, if any.
    pub(crate) fn session_of(exec: &Exec) -> Option<Arc<Loaded>> {
        exec.session()
            .and_then(|session| Arc::clone(session).downcast::<Loaded>().ok())
    }

    /// The pipeline as a call's context holds it: not kept alive.
    pub(crate) fn weak(&self) -> WeakPipeline {
        self.me.clone()
    }

    /// What every call's context shares: the state, the pipeline (not kept
    /// alive) and the sink that forwards a tool's stream chunks to the
    /// subscribers; made once, on first use.
    pub(crate) fn surroundings(&self) -> Arc<Surroundings> {
        let shared = self.surroundings.get_or_init(|| {
            let pipeline = self.weak();
            let pool = Arc::downgrade(&self.pool.inner);
            let sink: StreamSink = Arc::new(move |chunk| {
                if let Some(inner) = pool.upgrade() {
                    Pool { inner }.emit(&Event::Stream(chunk));
                }
            });
            Arc::new(Surroundings {
                state: self.pool.inner.state.clone(),
                pipeline: Some(pipeline),
                sink: Some(sink),
            })
        });
        Arc::clone(shared)
    }
}

impl Pipeline {
    /// Calls the tool `name` (or alias) with the raw arguments a model sent.
    ///
    /// Never fails and never panics: an unknown tool, arguments that break the
    /// schema, a refusal, the tool's own error, a panic, a timeout or an
    /// output that breaks its schema all come back as a result with
    /// `is_error` set and a message the model can act on.
    ///
    /// The tool is looked up here, once for the whole call: the call runs
    /// the tool registered under `name` now, even if it is unregistered or
    /// replaced before the future is first polled. Everything else (the
    /// catalog's verdict on the tool, the checks, the tool itself) happens
    /// when the future is polled. The call is made by `principal` when one
    /// is given, else by the host, through `session` when one is given.
    #[inline]
    pub fn call_as<'a>(
        &'a self,
        name: &str,
        args: Value,
        principal: Option<&Arc<Principal>>,
        session: Option<&Arc<Loaded>>,
    ) -> impl Future<Output = ToolResult> + Send + use<'a> {
        // Looked up once, here: the name borrowed when it is the tool's own
        // and known at compile time, the tool kept for the pipeline.
        let entry = self.pool.entry(name);
        let name = match entry.as_ref().map(|entry| &entry.def.name) {
            Some(Cow::Borrowed(own)) if *own == name => CallName::Static(own),
            _ => CallName::Shared(name.into()),
        };
        let call = ToolCall::resolved(name, args, entry.map(Resolved));
        self.call_with(match principal {
            Some(principal) => call.made_by(principal, session),
            None => call,
        })
    }

    /// Calls with every option of [`ToolCall`].
    ///
    /// Nothing happens until the future is polled; a future dropped before
    /// it finished still gives subscribers the call's (cancelled) result.
    #[inline]
    pub fn call_with(&self, call: ToolCall) -> impl Future<Output = ToolResult> + Send + '_ {
        future::CallFuture::new(self, call)
    }

    /// Stages 1 to 3 (resolve, input, the permission decision), which never
    /// wait: the call read and decided, or its result when a stage stopped
    /// it (boxed, being rare). The tool, once resolved, is recorded on the
    /// call's `span`.
    #[inline]
    fn begin(
        &self,
        name: &str,
        mut call: ToolCall,
        span: &tracing::Span,
    ) -> Result<Begun, Box<ToolResult>> {
        let resolved = match call.resolved.take() {
            Some(Resolved(entry)) => resolve::shown(self, entry, name, call.caller()),
            None => resolve::entry(self, name, call.caller()),
        };
        let entry = match resolved {
            Ok(entry) => entry,
            Err(stop) => {
                let head = Head::of(&call, shown_name(name).into_owned().into());
                return Err(Box::new(head.failed(stop)));
            }
        };
        trace::resolved(span, &entry);
        let head = Head::of_tool(call.invocation_id, call.parallel_group_id, &entry);
        let config = &self.config;
        let warnings = match resolve::warnings(self, &entry) {
            Ok(warnings) => warnings,
            Err(stop) => return Err(Box::new(head.failed(stop))),
        };
        let mut exec = CallExec::of(&mut call);
        if entry.handler.reads_exec() {
            exec.make(self, &entry, call.invocation_id);
        }
        let input::Read {
            args,
            prepared,
            rewritten,
        } = match input::read(
            &config.limits,
            &config.roots,
            &entry,
            call.args,
            exec.handed(),
        ) {
            Ok(read) => read,
            Err(stop) => return Err(Box::new(head.failed(stop))),
        };
        if config.trace_payloads {
            trace::arguments(span, &entry, &args);
        }
        let verdict = match permission::decide_first(config, &entry, &args, exec.principal()) {
            Ok(verdict) => verdict,
            Err(stop) => {
                let refused = event::Verdict::Refused;
                notify::decided(self, head.invocation_id, &entry, &args, refused);
                return Err(Box::new(head.failed(stop)));
            }
        };
        // A plain allow of the arguments as sent is told by the request.
        if let Verdict::Allowed = verdict
            && rewritten
        {
            let allowed = event::Verdict::Allowed;
            notify::decided(self, head.invocation_id, &entry, &args, allowed);
        }
        Ok(Begun {
            entry,
            head,
            exec,
            args,
            prepared,
            verdict,
            warnings,
            top_level: call.top_level,
        })
    }

    /// The stage a call read and decided starts at: the approval when it
    /// asks, else its tool, whose timeout counts from `started` (when the
    /// call read the clock as it began, else from now).
    #[inline]
    fn proceed(&self, begun: Begun, started: Option<Instant>) -> Stage<'_> {
        match begun.verdict {
            Verdict::Ask(_) => Stage::Approving(Box::pin(self.approve(begun))),
            Verdict::Allowed => self.execute(begun, started),
        }
    }

    /// Stage 4's wait: the approver asked about the call `begun`. The call,
    /// approved (its arguments as the approver left them), or its result.
    async fn approve(&self, mut begun: Begun) -> Result<Begun, ToolResult> {
        let Verdict::Ask(asking) = std::mem::replace(&mut begun.verdict, Verdict::Allowed) else {
            return Ok(begun);
        };
        let Begun {
            entry,
            head,
            exec,
            args,
            prepared,
            ..
        } = &mut begun;
        let exec = exec.make(self, entry, head.invocation_id);
        // Boxed apart from the call it holds: the approver's wait is as
        // large as the approver makes it.
        let settled = Box::pin(tracing::Instrument::instrument(
            permission::settle(&self.config, entry, args, prepared, asking, exec),
            tracing::info_span!("approval", "otel.name" = "approval"),
        ))
        .await;
        let verdict = match settled {
            Ok(()) => event::Verdict::Approved,
            Err(_) => event::Verdict::Refused,
        };
        notify::decided(self, head.invocation_id, entry, args, verdict);
        match settled {
            Ok(()) => Ok(begun),
            Err(stop) => Err(begun.head.failed(stop)),
        }
    }

    /// Stage 5 started for the call `begun`: within its timeout alone (from
    /// `started`) when nothing else wraps execute, else inside the layers.
    fn execute(&self, begun: Begun, started: Option<Instant>) -> Stage<'_> {
        let invocation_id = begun.head.invocation_id;
        let (launched, prepared, exec) = self.launch(begun);
        let running = if execute::runs_directly(&self.config) {
            Running::Direct(execute::direct(&launched.entry, prepared, started))
        } else {
            let exec = exec.into_made(self, &launched.entry, invocation_id);
            let (entry, args) = (Arc::clone(&launched.entry), Arc::clone(&launched.args));
            Running::Layered(Box::pin(async move {
                execute::run(&self.config, &entry, &args, prepared, exec).await
            }))
        };
        Stage::Executing {
            running,
            launched: Some(launched),
        }
    }

    /// The one path of a call read and decided, in order: the approval if
    /// it asks, execute, [`land`](Pipeline::land) once the tool returned,
    /// then the spill if content is over its limit. Polled from wherever
    /// `stage` is (the call `ids`' future keeps it) to the call's result.
    /// A call allowed as it is starts at execute, and one whose content
    /// fits ends when it lands: nothing of the path is boxed for it but
    /// what its layers box.
    pub(super) fn advance<'a>(
        &'a self,
        stage: &mut Stage<'a>,
        (invocation_id, parallel_group_id): (Uuid, Option<Uuid>),
        cx: &mut Context<'_>,
    ) -> Poll<ToolResult> {
        loop {
            match stage {
                Stage::Approving(approval) => match std::task::ready!(approval.as_mut().poll(cx)) {
                    Ok(begun) => *stage = self.execute(begun, None),
                    Err(result) => return Poll::Ready(result),
                },
                Stage::Executing { running, launched } => {
                    let Some(entry) = launched.as_ref().map(Launched::entry) else {
                        panic!("a call's stages were polled after they ended");
                    };
                    let executed = std::task::ready!(running.poll(entry, cx));
                    let Some(launched) = launched.take() else {
                        unreachable!("the stage was just matched");
                    };
                    // The tool's future goes, in place, before the stages
                    // after it run.
                    *stage = Stage::Ended;
                    let head = Head::of_tool(invocation_id, parallel_group_id, &launched.entry);
                    match self.land(launched, head, executed) {
                        Landed::Done(result) => return Poll::Ready(result),
                        Landed::Spill(spilling) => {
                            *stage = Stage::Spilling(Box::pin(self.spill(*spilling)));
                        }
                    }
                }
                Stage::Spilling(spilling) => return spilling.as_mut().poll(cx),
                Stage::Ended => panic!("a call's stages were polled after they ended"),
            }
        }
    }

    /// Just before execute, for a call that runs: the running card to
    /// subscribers, the catalog's warnings about the tool as progress, and
    /// the arguments shared from here on. Gives what the call needs once
    /// the tool returns, the tool's call and the call's context; the
    /// results' head is made again from the call's ids when the tool
    /// returns, so that what a running call keeps stays small.
    fn launch(&self, begun: Begun) -> (Launched, Prepared, CallExec) {
        let Begun {
            entry,
            head,
            mut exec,
            args,
            prepared,
            warnings,
            top_level,
            ..
        } = begun;
        notify::running(self, head.invocation_id, top_level, &entry, &args);
        if !warnings.is_empty() {
            let exec = exec.make(self, &entry, head.invocation_id);
            for warning in warnings {
                exec.progress(format!("warning: {}: {}", warning.code, warning.message));
            }
        }
        let launched = Launched {
            entry,
            args,
            top_level,
        };
        (launched, prepared, exec)
    }

    /// Stages 6 to 9 once the tool returned: the output gate, the
    /// post-execute hooks, project and finalize. The call's result, unless
    /// content spills to a file, which is then written ([`spill`]).
    ///
    /// [`spill`]: Pipeline::spill
    #[inline(always)]
    fn land(&self, launched: Launched, head: Head, executed: Result<Executed, Stop>) -> Landed {
        let Launched {
            entry,
            args,
            top_level,
        } = launched;
        let (value, remote) = match executed {
            Ok(executed) => executed.into_parts(),
            Err(stop) => return Landed::Done(head.failed(stop)),
        };
        let settled = match self.settle(&entry, head.invocation_id, top_level, args, value, remote)
        {
            Ok(settled) => settled,
            Err(stop) => return Landed::Done(head.failed(stop)),
        };
        if settled.finished.spill.is_some() {
            return Landed::Spill(Box::new(Spilling {
                entry,
                head,
                settled,
            }));
        }
        Landed::Done(head.succeeded(Success::new(&entry, settled.value, settled.finished)))
    }

    /// Writes the spill file of a call whose content is over its limit.
    async fn spill(&self, spilling: Spilling) -> ToolResult {
        let Spilling {
            entry,
            head,
            mut settled,
        } = spilling;
        let writing = finalize::write(
            &self.config,
            entry.def.name(),
            head.invocation_id,
            &mut settled.finished,
        );
        tracing::Instrument::instrument(writing, tracing::info_span!("spill")).await;
        head.succeeded(Success::new(&entry, settled.value, settled.finished))
    }

    /// From the value the tool returned, with what its server showed it
    /// with if it is a proxied tool's, to the content and card: the output
    /// gate, the post-execute hooks, then project and finalize.
    fn settle(
        &self,
        entry: &Entry,
        invocation_id: Uuid,
        top_level: bool,
        args: Arc<Value>,
        value: Value,
        remote: Remote,
    ) -> Result<SettledValue, Stop> {
        let config = &self.config;
        let value =
            output::gate(&config.limits, entry, value).map_err(|error| Stop::InvalidOutput {
                tool: entry.def.name().to_owned(),
                error,
                replaced: false,
            })?;
        let hooked = post_execute::run(&config.post_execute, &config.limits, entry, &args, value)?;
        // What the server showed shows the value execute returned: a value
        // a hook put in its place gets the generic card and its own
        // rendering.
        let remote = match hooked.source {
            event::ValueSource::Execute => remote,
            _ => Remote::default(),
        };
        let hooked = notify::executed(
            self,
            invocation_id,
            top_level,
            entry,
            &args,
            hooked,
            &remote,
        );
        let settled = Settled {
            invocation_id,
            args,
            value: &hooked.value,
            top_level,
            replaced_content: hooked.replaced_content,
            context: hooked.context,
            remote_card: remote.card.as_deref(),
            remote_content: remote.content,
        };
        let finished = finish(config, entry, settled)?;
        Ok(SettledValue {
            value: hooked.value,
            finished,
        })
    }
}

impl RunsCalls for Pipeline {}

/// A call's context, made once something needs it: a tool that reads none
/// (`Tool::READS_EXEC`), allowed outright, run with no host layer and with
/// no catalog warning to stream, never gets one.
pub(super) struct CallExec {
    made: Option<Exec>,
    /// What it is made from, until it is.
    tokens: CallTokens,
    client: Option<Arc<dyn Client>>,
    /// Who makes the call, when the call said; else the host, who is not
    /// shared until a context is made.
    principal: Option<Arc<Principal>>,
    /// The session the call comes through, if any.
    session: Option<Arc<Loaded>>,
}

impl CallExec {
    /// The context of `call`, not made yet: its tokens and client, taken.
    fn of(call: &mut ToolCall) -> Self {
        CallExec {
            made: None,
            tokens: CallTokens {
                own: call.cancel.take(),
                batch: call.batch_cancel.take(),
            },
            client: call.client.take().map(|client| client.0),
            principal: call.principal.clone(),
            session: call.session.take(),
        }
    }

    /// The context of call `invocation_id` of `entry`, made if it was not.
    fn make(&mut self, pipeline: &Pipeline, entry: &Entry, invocation_id: Uuid) -> &Exec {
        let CallExec {
            made,
            tokens,
            client,
            principal,
            session,
        } = self;
        made.get_or_insert_with(|| {
            let (tokens, client) = (std::mem::take(tokens), client.take());
            exec_for(
                pipeline,
                entry,
                invocation_id,
                tokens,
                client,
                Arc::clone(or_host(principal.as_ref())),
                session.take(),
            )
        })
    }

    /// [`make`](CallExec::make), owned.
    fn into_made(self, pipeline: &Pipeline, entry: &Entry, invocation_id: Uuid) -> Exec {
        match self.made {
            Some(exec) => exec,
            None => exec_for(
                pipeline,
                entry,
                invocation_id,
                self.tokens,
                self.client,
                Arc::clone(or_host(self.principal.as_ref())),
                self.session,
            ),
        }
    }

    /// Who makes the call.
    fn principal(&self) -> &Principal {
        or_host(self.principal.as_ref())
    }

    /// The context the tool is handed when it is prepared: its own, or,
    /// for a tool that reads none, [`Exec::detached`].
    fn handed(&self) -> &Exec {
        self.made.as_ref().unwrap_or_else(|| Exec::detached())
    }
}

/// `principal`, or the host when a call names nobody.
fn or_host(principal: Option<&Arc<Principal>>) -> &Arc<Principal> {
    principal.unwrap_or_else(|| Principal::shared_host())
}

/// A value settled and finished, its spill not yet written.
struct SettledValue {
    value: Value,
    finished: finalize::Finished,
}

/// A call read and decided, its tool not yet run: what [`Pipeline::begin`]
/// gives the rest of the stages.
pub(super) struct Begun {
    entry: Arc<Entry>,
    head: Head,
    exec: CallExec,
    /// The arguments as the tool reads them.
    args: Arc<Value>,
    prepared: Prepared,
    verdict: Verdict,
    /// The catalog's warnings about the tool, streamed once it runs.
    warnings: Vec<Diagnostic>,
    top_level: bool,
}

/// A call whose tool runs: what the stages after execute need, with its
/// results' head.
pub(super) struct Launched {
    entry: Arc<Entry>,
    args: Arc<Value>,
    top_level: bool,
}

impl Launched {
    /// The tool that runs.
    pub(super) fn entry(&self) -> &Entry {
        &self.entry
    }
}

/// How a call ends once its tool returned.
#[expect(
    clippy::large_enum_variant,
    reason = "the result is what nearly every call lands on; boxing it would cost each call an allocation"
)]
pub(super) enum Landed {
    /// With this result.
    Done(ToolResult),
    /// With content over its limit, to write to a file first.
    Spill(Box<Spilling>),
}

/// Where a call read and decided is on its path ([`Pipeline::advance`]).
pub(super) enum Stage<'a> {
    /// The approver was asked. Boxed: an ask is rare, and its future large.
    Approving(Pin<Box<dyn Future<Output = Result<Begun, ToolResult>> + Send + 'a>>),
    /// The tool runs. Its future is declared first, so it is dropped first.
    Executing {
        running: Running<'a>,
        /// Taken once the tool returned; then the stage ends.
        launched: Option<Launched>,
    },
    /// Content over its limit is written to its file. Boxed: a spill is
    /// rare.
    Spilling(Pin<Box<dyn Future<Output = ToolResult> + Send + 'a>>),
    /// Nothing to poll: the call landed, or its first stage is not
    /// written yet.
    Ended,
}

/// A call's execute, running.
pub(super) enum Running<'a> {
    /// The tool within its timeout, and nothing else: no host layer, no
    /// recorded span around execute ([`execute::runs_directly`]).
    Direct(TimeoutFuture<ExecuteFuture>),
    /// The tool inside its layers. Boxed: the layers' futures are as large
    /// as the host makes them.
    Layered(Pin<Box<dyn Future<Output = Result<Executed, Stop>> + Send + 'a>>),
}

impl Running<'_> {
    /// The tool's outcome, once it returned, as the call of `entry` reads it.
    fn poll(&mut self, entry: &Entry, cx: &mut Context<'_>) -> Poll<Result<Executed, Stop>> {
        match self {
            Running::Direct(running) => Pin::new(running)
                .poll(cx)
                .map(|executed| executed.map_err(|error| execute::stopped(entry, error))),
            Running::Layered(running) => running.as_mut().poll(cx),
        }
    }
}

/// A call whose content spills, the file not yet written.
pub(super) struct Spilling {
    entry: Arc<Entry>,
    head: Head,
    settled: SettledValue,
}

/// The context of call `invocation_id` of `entry`.
fn exec_for(
    pipeline: &Pipeline,
    entry: &Entry,
    invocation_id: Uuid,
    tokens: CallTokens,
    client: Option<Arc<dyn Client>>,
    principal: Arc<Principal>,
    session: Option<Arc<Loaded>>,
) -> Exec {
    let shared = pipeline.surroundings();
    Exec::for_call(
        entry.def.name.clone(),
        invocation_id,
        tokens,
        shared,
        client,
        principal,
        session.map(|session| session as Session),
    )
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
    /// on every call, so it boxes the rare paths (approval, spill), and
    /// those stay small too.
    #[test]
    fn a_call_future_stays_small() {
        let facade = crate::Registry::new();
        let pipeline = facade.pipeline();
        let echo = crate::DynamicTool::new(
            crate::ToolDef::builder_owned("echo".to_owned(), "Echo.".to_owned()).build(),
            json!({ "type": "object" }),
            |args, _| async move { Ok(args) },
        );
        facade.register_dynamic(echo).expect("echo registers");
        let call = pipeline.call_as("echo", json!({}), None, None);
        let size = std::mem::size_of_val(&call);
        println!("call future: {size} bytes");
        assert!(size <= 256, "the call future is {size} bytes");
        let call = ToolCall::new("echo", json!({}));
        let begun = pipeline
            .begin("echo", call, &tracing::Span::none())
            .expect("the call begins");
        let approval = pipeline.approve(begun);
        let size = std::mem::size_of_val(&approval);
        println!("the approval stage: {size} bytes");
        assert!(size < 1024, "the approval stage's future is {size} bytes");
    }
}
