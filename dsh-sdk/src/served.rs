//! A loopback HTTP server running in the background: what the MCP server's
//! HTTP transport and the playground share. Both run tools for whoever can
//! reach them, so both bind loopback addresses only.

use std::future::Future;
use std::net::SocketAddr;
use std::time::Duration;

use tokio::net::TcpListener;
use tokio::task::{JoinError, JoinHandle};
use tokio_util::sync::{CancellationToken, DropGuard};

/// Why a loopback server could not be bound.
#[derive(Debug)]
pub(crate) enum BindError {
    /// The address is not a loopback one.
    NotLoopback { addr: SocketAddr },
    /// The socket could not be bound, or its address read.
    Io {
        addr: SocketAddr,
        source: std::io::Error,
    },
}

/// Binds `addr`, which must be a loopback address (`127.0.0.1:0` picks a
/// free port); returns the listener and the address it got.
#[cfg(feature = "playground")]
pub(crate) async fn bind_loopback(
    addr: SocketAddr,
) -> Result<(TcpListener, SocketAddr), BindError> {
    bind(addr, false).await
}

/// Binds `addr`; one that is not loopback only when `remote` is allowed (a
/// server that authenticates its callers, or one told its network is trusted).
pub(crate) async fn bind(
    addr: SocketAddr,
    remote: bool,
) -> Result<(TcpListener, SocketAddr), BindError> {
    if !remote && !addr.ip().is_loopback() {
        return Err(BindError::NotLoopback { addr });
    }
    let io = |source| BindError::Io { addr, source };
    let listener = TcpListener::bind(addr).await.map_err(io)?;
    let local_addr = listener.local_addr().map_err(io)?;
    Ok((listener, local_addr))
}

/// Why a background server stopped other than by being told to.
#[derive(Debug, thiserror::Error)]
pub(crate) enum Stopped {
    /// Serving failed.
    #[error(transparent)]
    Failed(std::io::Error),
    /// The serving task panicked.
    #[error(transparent)]
    Panicked(JoinError),
}

/// A server task bound to `local_addr`; dropping it stops the server.
pub(crate) struct Background {
    local_addr: SocketAddr,
    stop: DropGuard,
    task: JoinHandle<std::io::Result<()>>,
}

impl Background {
    /// Spawns `serve`, which must end once `stop` is cancelled.
    pub(crate) fn spawn(
        local_addr: SocketAddr,
        stop: CancellationToken,
        serve: impl Future<Output = std::io::Result<()>> + Send + 'static,
    ) -> Self {
        Background {
            local_addr,
            stop: stop.drop_guard(),
            task: tokio::spawn(serve),
        }
    }

    /// The address the server listens on.
    pub(crate) fn local_addr(&self) -> SocketAddr {
        self.local_addr
    }

    /// Runs until the server fails (or is shut down from elsewhere).
    pub(crate) async fn wait(self) -> Result<(), Stopped> {
        let Background { stop, task, .. } = self;
        let result = task.await;
        drop(stop);
        flatten(result)
    }

    /// Tells the server to stop and waits for it: for ever, or at most
    /// `grace`, after which the task is aborted.
    pub(crate) async fn shutdown(self, grace: Option<Duration>) -> Result<(), Stopped> {
        let Background { stop, task, .. } = self;
        drop(stop);
        let Some(grace) = grace else {
            return flatten(task.await);
        };
        let abort = task.abort_handle();
        match tokio::time::timeout(grace, task).await {
            Ok(result) => flatten(result),
            Err(_) => {
                abort.abort();
                Ok(())
            }
        }
    }
}

fn flatten(result: Result<std::io::Result<()>, JoinError>) -> Result<(), Stopped> {
    match result {
        Ok(Ok(())) => Ok(()),
        Ok(Err(error)) => Err(Stopped::Failed(error)),
        // Aborted here, after the grace of a shutdown.
        Err(error) if error.is_cancelled() => Ok(()),
        Err(error) => Err(Stopped::Panicked(error)),
    }
}
