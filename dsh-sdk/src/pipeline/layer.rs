//! The execute stage as a `tower` service, and the layers around it.
//!
//! Every call's `execute` runs as a [`Service<ExecRequest>`] wrapped, from the
//! outside in, by the host's own layers (any tower middleware whose error type
//! stays [`ExecError`]: `ConcurrencyLimitLayer`, `RateLimitLayer`, …), then
//! [`ExecSpanLayer`], then tower's `Retry` with a [`RetryPolicy`], then
//! [`TimeoutLayer`], then the tool itself with panics caught.
//!
//! ```
//! use std::time::Duration;
//! use dsh_kit::Registry;
//! use dsh_kit::layer::RetryPolicy;
//!
//! let registry = Registry::builder()
//!     .timeout(Duration::from_secs(30))
//!     .retry(RetryPolicy::new(3))
//!     .layer(tower::limit::ConcurrencyLimitLayer::new(8))
//!     .build();
//! # drop(registry);
//! ```

use std::fmt;
use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use futures_util::FutureExt;
use futures_util::future::{BoxFuture, CatchUnwind};
use pin_project_lite::pin_project;
use serde_json::Value;
use tower::retry::Policy;
use tower::util::BoxCloneSyncService;
use tower::{Layer, Service};

use crate::Backoff;
use crate::tool::Exec;
pub use crate::tool::Executed;
use crate::tool::ToolDef;
use crate::tool::ToolError;
use crate::tool::panic_message;
use crate::tool::{Entry, Prepared};

/// The execute stage with its layers, type-erased.
pub type ExecService = BoxCloneSyncService<ExecRequest, Executed, ExecError>;

/// One call's execute, as the layers see it.
pub struct ExecRequest {
    pub(crate) entry: Arc<Entry>,
    args: Arc<Value>,
    /// The arguments deserialized before `validate_input`, for the attempt
    /// that gets this request; a clone (a retry) deserializes them again from
    /// `args`. In a mutex, which costs no allocation, only so that the
    /// request stays `Sync` for the layers whatever the arguments' type.
    prepared: Mutex<Option<Prepared>>,
    exec: Exec,
    timeout: Option<Duration>,
    attempt: u32,
}

impl ExecRequest {
    pub(crate) fn new(
        entry: Arc<Entry>,
        args: Arc<Value>,
        prepared: Prepared,
        exec: Exec,
        timeout: Option<Duration>,
    ) -> Self {
        ExecRequest {
            entry,
            args,
            prepared: Mutex::new(Some(prepared)),
            exec,
            timeout,
            attempt: 1,
        }
    }

    /// The tool's definition.
    pub fn tool(&self) -> &ToolDef {
        &self.entry.def
    }

    /// The validated arguments.
    pub fn args(&self) -> &Value {
        &self.args
    }

    /// The call's context.
    pub fn exec(&self) -> &Exec {
        &self.exec
    }

    /// How long one attempt may run: the tool's timeout, else the registry's.
    pub fn timeout(&self) -> Option<Duration> {
        self.timeout
    }

    /// 1 for the first attempt, 2 for the first retry, and so on.
    pub fn attempt(&self) -> u32 {
        self.attempt
    }
}

impl Clone for ExecRequest {
    /// The same call without its deserialized arguments, which cannot be
    /// cloned: the attempt that runs the clone deserializes them again.
    fn clone(&self) -> Self {
        ExecRequest {
            entry: Arc::clone(&self.entry),
            args: Arc::clone(&self.args),
            prepared: Mutex::new(None),
            exec: self.exec.clone(),
            timeout: self.timeout,
            attempt: self.attempt,
        }
    }
}

impl fmt::Debug for ExecRequest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ExecRequest")
            .field("tool", &self.entry.def.name())
            .field("invocation_id", &self.exec.invocation_id())
            .field("attempt", &self.attempt)
            .finish_non_exhaustive()
    }
}

/// Why the execute stage produced no value.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ExecError {
    /// The tool returned an error.
    #[error("{0}")]
    Tool(ToolError),
    /// The tool panicked.
    #[error("panicked: {0}")]
    Panicked(String),
    /// An attempt ran out of time.
    #[error("timed out after {} ms", .0.as_millis())]
    Timeout(Duration),
}

/// The innermost service: runs the tool, catching a panic.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Execute;

impl Service<ExecRequest> for Execute {
    type Response = Executed;
    type Error = ExecError;
    type Future = ExecuteFuture;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), ExecError>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: ExecRequest) -> Self::Future {
        let taken = request
            .prepared
            .into_inner()
            .unwrap_or_else(PoisonError::into_inner);
        let prepared = match taken {
            Some(prepared) => prepared,
            None => match request.entry.handler.prepare(&request.args, &request.exec) {
                Ok(prepared) => prepared,
                // The attempt fails as the tool would, with an error.
                Err(error) => Box::pin(std::future::ready(Err(ToolError::new(error.to_string())))),
            },
        };
        Execute::start(prepared)
    }
}

impl Execute {
    /// Runs `entry` on its deserialized arguments, a panic caught: what the
    /// service does once it has them, and what the pipeline runs, within its
    /// [`bounded`] timeout, when no host layer or recorded span wraps it
    /// (see [`span_recorded`]).
    pub(crate) fn start(prepared: Prepared) -> ExecuteFuture {
        // The call's future is boxed already: running it needs no second box.
        ExecuteFuture(AssertUnwindSafe(prepared).catch_unwind())
    }
}

/// Whether a `tracing` subscriber records the `tool.execute` span of
/// [`ExecSpanLayer`]; without one, the layer has nothing to do.
pub(crate) fn span_recorded() -> bool {
    tracing::span_enabled!(tracing::Level::INFO)
}

/// The future [`Execute`] returns: the tool's own, with a panic caught.
pub(crate) struct ExecuteFuture(
    CatchUnwind<AssertUnwindSafe<BoxFuture<'static, Result<Executed, ToolError>>>>,
);

impl Future for ExecuteFuture {
    type Output = Result<Executed, ExecError>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        Poll::Ready(
            match std::task::ready!(Pin::new(&mut self.get_mut().0).poll(cx)) {
                Ok(Ok(value)) => Ok(value),
                Ok(Err(error)) => Err(ExecError::Tool(error)),
                Err(panic) => Err(ExecError::Panicked(panic_message(panic.as_ref()))),
            },
        )
    }
}

/// Limits each attempt to the request's [`timeout`](ExecRequest::timeout).
#[derive(Clone, Copy, Debug, Default)]
pub struct TimeoutLayer;

impl<S> Layer<S> for TimeoutLayer {
    type Service = Timeout<S>;

    fn layer(&self, inner: S) -> Timeout<S> {
        Timeout { inner }
    }
}

/// The service [`TimeoutLayer`] makes.
#[derive(Clone, Debug)]
pub struct Timeout<S> {
    inner: S,
}

impl<S> Service<ExecRequest> for Timeout<S>
where
    S: Service<ExecRequest, Response = Executed, Error = ExecError>,
{
    type Response = Executed;
    type Error = ExecError;
    type Future = TimeoutFuture<S::Future>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), ExecError>> {
        self.inner.poll_ready(cx)
    }

    /// Starts a call of the inner service, bounded by the request's timeout.
    fn call(&mut self, request: ExecRequest) -> Self::Future {
        let limit = request.timeout;
        bounded(self.inner.call(request), limit, None)
    }
}

/// `running`, ended with [`ExecError::Timeout`] once `limit` has passed
/// from `started`, or from now: a call that already read the clock as it
/// began counts from then, and reads it no more.
pub(crate) fn bounded<F>(
    running: F,
    limit: Option<Duration>,
    started: Option<Instant>,
) -> TimeoutFuture<F> {
    TimeoutFuture {
        running,
        // The limit counts from here, though its timer is set only if needed.
        limit: limit.map(|limit| Limit {
            started: started.unwrap_or_else(Instant::now),
            limit,
            timer: None,
        }),
    }
}

pin_project! {
    /// The future [`Timeout`] returns: the inner one, bounded in time. Its
    /// timer is set only when the inner future does not finish on its first
    /// poll, so a call that finishes at once never touches the runtime's
    /// timers, nor allocates one.
    pub struct TimeoutFuture<F> {
        #[pin]
        running: F,
        limit: Option<Limit>,
    }
}

/// A limit on a call's time, and its timer once set (boxed: a timer is
/// large, and most calls finish before they need one).
struct Limit {
    started: Instant,
    limit: Duration,
    timer: Option<Pin<Box<tokio::time::Sleep>>>,
}

impl<F> Future for TimeoutFuture<F>
where
    F: Future<Output = Result<Executed, ExecError>>,
{
    type Output = Result<Executed, ExecError>;

    /// The inner future, then, while it is pending, its timer.
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.project();
        if let Poll::Ready(result) = this.running.poll(cx) {
            return Poll::Ready(result);
        }
        let Some(limit) = this.limit else {
            return Poll::Pending;
        };
        if limit.timer.is_none() {
            // A limit too far off to name an instant never ends the call.
            let Some(deadline) = limit.started.checked_add(limit.limit) else {
                return Poll::Pending;
            };
            limit.timer = Some(Box::pin(tokio::time::sleep_until(deadline.into())));
        }
        match limit.timer.as_mut().map(|timer| timer.as_mut().poll(cx)) {
            Some(Poll::Ready(())) => Poll::Ready(Err(ExecError::Timeout(limit.limit))),
            _ => Poll::Pending,
        }
    }
}

/// Which failures are retried, how often, and how long apart. Only tools
/// marked `idempotent` or `read_only` are ever retried: running anything
/// else twice could do twice what it did once.
///
/// ```
/// use std::time::Duration;
/// use dsh_kit::Backoff;
/// use dsh_kit::layer::RetryPolicy;
///
/// // Three attempts in all; 50 to 100 ms before the second, 100 to 200 ms
/// // before the third.
/// let retry = RetryPolicy::new(3)
///     .backoff(Backoff::new(Duration::from_millis(100), Duration::from_secs(2)));
/// assert_eq!(retry.max_attempts(), 3);
/// ```
#[derive(Clone)]
pub struct RetryPolicy {
    max_attempts: u32,
    /// `None`: a retry starts at once.
    backoff: Option<Backoff>,
    retry_on: Arc<dyn Fn(&ExecError) -> bool + Send + Sync>,
}

impl RetryPolicy {
    /// Up to `max_attempts` attempts in all (1 means no retry), retrying
    /// timeouts and tool errors, never panics, each retry at once.
    pub fn new(max_attempts: u32) -> Self {
        RetryPolicy {
            max_attempts: max_attempts.max(1),
            backoff: None,
            retry_on: Arc::new(|error| !matches!(error, ExecError::Panicked(_))),
        }
    }

    /// Waits [`Backoff::delay`] before each retry: the first retry waits
    /// `delay(0)`, the next `delay(1)`, and so on. A call gets no more
    /// retries than the backoff's [`attempts`](Backoff::attempts) either
    /// ([`Backoff::never`]: none).
    pub fn backoff(mut self, backoff: Backoff) -> Self {
        self.backoff = Some(backoff);
        self
    }

    /// Retries only the failures `retry_on` accepts.
    pub fn retry_on(
        mut self,
        retry_on: impl Fn(&ExecError) -> bool + Send + Sync + 'static,
    ) -> Self {
        self.retry_on = Arc::new(retry_on);
        self
    }

    /// The most attempts a call gets.
    pub fn max_attempts(&self) -> u32 {
        self.max_attempts
    }
}

impl Default for RetryPolicy {
    /// No retries.
    fn default() -> Self {
        RetryPolicy::new(1)
    }
}

impl fmt::Debug for RetryPolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RetryPolicy")
            .field("max_attempts", &self.max_attempts)
            .field("backoff", &self.backoff)
            .finish_non_exhaustive()
    }
}

impl Policy<ExecRequest, Executed, ExecError> for RetryPolicy {
    type Future = BoxFuture<'static, ()>;

    fn retry(
        &mut self,
        request: &mut ExecRequest,
        result: &mut Result<Executed, ExecError>,
    ) -> Option<Self::Future> {
        let error = result.as_ref().err()?;
        let def = request.tool();
        let retryable = def.idempotent() || def.read_only();
        // Retries made so far: the first attempt is no retry.
        let retries = request.attempt.saturating_sub(1);
        let allowed = self
            .backoff
            .as_ref()
            .is_none_or(|backoff| retries < backoff.attempts());
        if !retryable
            || !allowed
            || request.attempt >= self.max_attempts
            || request.exec.is_cancelled()
            || !(self.retry_on)(error)
        {
            return None;
        }
        request.attempt += 1;
        let wait = self
            .backoff
            .as_ref()
            .map_or(Duration::ZERO, |backoff| backoff.delay(retries));
        Some(Box::pin(tokio::time::sleep(wait)))
    }

    fn clone_request(&mut self, request: &ExecRequest) -> Option<ExecRequest> {
        Some(request.clone())
    }
}

/// A `tracing` span per call, `tool.execute`, with the tool's name, the
/// invocation id, the attempts, the status and the duration in milliseconds.
#[derive(Clone, Copy, Debug, Default)]
pub struct ExecSpanLayer;

impl<S> Layer<S> for ExecSpanLayer {
    type Service = ExecSpan<S>;

    fn layer(&self, inner: S) -> ExecSpan<S> {
        ExecSpan { inner }
    }
}

/// The service [`ExecSpanLayer`] makes.
#[derive(Clone, Debug)]
pub struct ExecSpan<S> {
    inner: S,
}

impl<S> Service<ExecRequest> for ExecSpan<S>
where
    S: Service<ExecRequest, Response = Executed, Error = ExecError>,
{
    type Response = Executed;
    type Error = ExecError;
    type Future = ExecSpanFuture<S::Future>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), ExecError>> {
        self.inner.poll_ready(cx)
    }

    /// Starts a call of the inner service inside its `tool.execute` span.
    fn call(&mut self, request: ExecRequest) -> Self::Future {
        let span = tracing::info_span!(
            "tool.execute",
            tool = request.tool().name(),
            invocation_id = %request.exec.invocation_id(),
            status = tracing::field::Empty,
            duration_ms = tracing::field::Empty,
        );
        let running = {
            let _entered = span.enter();
            self.inner.call(request)
        };
        // The clock is read only when someone records the duration.
        let started = (!span.is_disabled()).then(Instant::now);
        ExecSpanFuture {
            running,
            span,
            started,
        }
    }
}

pin_project! {
    /// The future [`Metrics`] returns: the inner one inside its span, which
    /// records the status and the duration when it ends.
    pub struct ExecSpanFuture<F> {
        #[pin]
        running: F,
        span: tracing::Span,
        started: Option<Instant>,
    }
}

impl<F> Future for ExecSpanFuture<F>
where
    F: Future<Output = Result<Executed, ExecError>>,
{
    type Output = Result<Executed, ExecError>;

    /// The inner future inside the span, which records how it ended.
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.project();
        let _entered = this.span.enter();
        let result = std::task::ready!(this.running.poll(cx));
        if let Some(started) = this.started {
            this.span.record(
                "status",
                match &result {
                    Ok(_) => "success",
                    Err(ExecError::Timeout(_)) => "timeout",
                    Err(_) => "error",
                },
            );
            let millis = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
            this.span.record("duration_ms", millis);
        }
        Poll::Ready(result)
    }
}

/// The old name of [`ExecSpanLayer`], which records a span, not metrics
/// (those are [`otel::MetricsLayer`](crate::otel)'s, with the `otel`
/// feature).
#[deprecated(note = "renamed `ExecSpanLayer`: it records the `tool.execute` span, not metrics")]
pub type MetricsLayer = ExecSpanLayer;

/// The old name of the [`ExecSpanLayer`] value, as `.layer(MetricsLayer)`
/// wrote it.
#[deprecated(note = "renamed `ExecSpanLayer`: it records the `tool.execute` span, not metrics")]
#[allow(non_upper_case_globals)]
pub const MetricsLayer: ExecSpanLayer = ExecSpanLayer;

/// The old name of [`ExecSpan`].
#[deprecated(note = "renamed `ExecSpan`")]
pub type Metrics<S> = ExecSpan<S>;

/// The old name of [`ExecSpanFuture`].
#[deprecated(note = "renamed `ExecSpanFuture`")]
pub type MetricsFuture<F> = ExecSpanFuture<F>;
