//! The example servers' log lines, on standard error.
//!
//! dsh-kit says what it refused and why as `tracing` events (a call stopped
//! by a rule or for want of an approver, an MCP request refused, a Redis
//! command retried), and prints nothing itself: a host sees them once it
//! installs a subscriber. The example servers install this one first thing.

use tracing_subscriber::EnvFilter;

/// What is shown when `RUST_LOG` is unset: warnings, and each call that
/// stopped short of its result (refused, invalid arguments, failed), which
/// dsh-kit tells at `info`.
pub const DEFAULT_FILTER: &str = "warn,dsh_kit::pipeline::stop=info";

/// Writes log lines to standard error, never standard output (which a stdio
/// server speaks MCP on), filtered by `RUST_LOG` (`RUST_LOG=dsh_kit=debug`,
/// `RUST_LOG=off`) or else by [`DEFAULT_FILTER`]. Does nothing when the
/// process already has a subscriber (`dsh_kit::otel::init` installs one).
pub fn log_to_stderr() {
    let filter =
        EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(DEFAULT_FILTER));
    let _already_set = tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(filter)
        .try_init();
}
