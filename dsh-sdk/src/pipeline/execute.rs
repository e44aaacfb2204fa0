//! Stage 5, execute: the tool inside its layers (the host's layers, metrics,
//! retry, timeout; see [`layer`](crate::pipeline::layer)), with panics caught.

use std::panic::AssertUnwindSafe;
use std::sync::Arc;

use futures_util::FutureExt;
use serde_json::Value;
use tower::{Layer, Service, ServiceExt};

use super::Config;
use super::stop::Stop;
use crate::pipeline::layer::{
    ExecError, ExecRequest, ExecSpanLayer, Execute, ExecuteFuture, Executed, TimeoutFuture,
    TimeoutLayer, bounded, span_recorded,
};
use crate::tool::Exec;
use crate::tool::panic_message;
use crate::tool::{Entry, Prepared};

/// Runs the tool on `prepared` inside its layers, to its canonical value.
pub(super) async fn run(
    config: &Config,
    entry: &Arc<Entry>,
    args: &Arc<Value>,
    prepared: Prepared,
    exec: Exec,
) -> Result<Executed, Stop> {
    let timeout = entry.enforced.timeout;
    let request = ExecRequest::new(Arc::clone(entry), Arc::clone(args), prepared, exec, timeout);
    let executed = match &config.service {
        // A host layer that panics is contained like a tool that does.
        // Boxed: host layers are rare, and their state would otherwise grow
        // every call's future.
        Some(service) => {
            Box::pin(AssertUnwindSafe(service.clone().oneshot(request)).catch_unwind())
                .await
                .unwrap_or_else(|panic| {
                    Err(ExecError::Panicked(format!(
                        "an execute layer panicked: {}",
                        panic_message(panic.as_ref())
                    )))
                })
        }
        // The built-in stack is always ready: called without `oneshot`.
        None => {
            ExecSpanLayer
                .layer(TimeoutLayer.layer(Execute))
                .call(request)
                .await
        }
    };
    executed.map_err(|error| stopped(entry, error))
}

/// Whether execute runs with no layer but its timeout: no host layer, and
/// no `tool.execute` span that a `tracing` subscriber records. The tool
/// then runs as the layers would run it ([`direct`]), else [`run`].
pub(super) fn runs_directly(config: &Config) -> bool {
    config.service.is_none() && !span_recorded()
}

/// The tool running on `prepared`, within its timeout (counted from
/// `started`, when the call read the clock as it began, else from now), a
/// panic caught.
pub(super) fn direct(
    entry: &Entry,
    prepared: Prepared,
    started: Option<std::time::Instant>,
) -> TimeoutFuture<ExecuteFuture> {
    bounded(Execute::start(prepared), entry.enforced.timeout, started)
}

/// Why `entry`'s execute stopped the call.
pub(super) fn stopped(entry: &Entry, error: ExecError) -> Stop {
    let tool = entry.def.name().to_owned();
    match error {
        ExecError::Timeout(limit) => Stop::Timeout { tool, limit },
        ExecError::Tool(error) => Stop::Tool {
            tool,
            error: Box::new(error),
        },
        ExecError::Panicked(message) => Stop::Panicked { tool, message },
    }
}
