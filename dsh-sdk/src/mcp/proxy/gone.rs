//! Telling a server that went away from one that failed a request.

use rmcp::service::{ClientInitializeError, QuitReason};
use rmcp::transport::streamable_http_client::StreamableHttpError;
use tokio::task::JoinError;

/// Why the server is gone, when `error` says it is: the connection closed,
/// or nothing answers at its address.
pub(super) fn unreachable(error: &rmcp::ServiceError) -> Option<String> {
    use std::io::ErrorKind;
    match error {
        rmcp::ServiceError::TransportClosed => Some("its connection closed".to_owned()),
        rmcp::ServiceError::TransportSend(_) => {
            let refused = causes(error).any(|cause| {
                let http_connect = cause
                    .downcast_ref::<reqwest::Error>()
                    .is_some_and(reqwest::Error::is_connect);
                let io_refused = cause.downcast_ref::<std::io::Error>().is_some_and(|io| {
                    matches!(
                        io.kind(),
                        ErrorKind::ConnectionRefused
                            | ErrorKind::ConnectionReset
                            | ErrorKind::ConnectionAborted
                            | ErrorKind::BrokenPipe
                            | ErrorKind::NotConnected
                    )
                });
                // The server closed the connection while the request was on
                // it: killed mid-call, or between calls on a kept-alive
                // connection.
                let cut_off = cause
                    .downcast_ref::<hyper::Error>()
                    .is_some_and(|hyper| hyper.is_incomplete_message() || hyper.is_closed());
                http_connect || io_refused || cut_off
            });
            let lost_session = causes(error).any(|cause| {
                matches!(
                    cause.downcast_ref::<StreamableHttpError<reqwest::Error>>(),
                    Some(StreamableHttpError::SessionExpired)
                )
            });
            if lost_session {
                return Some("it no longer knows the session (it restarted)".to_owned());
            }
            refused.then(|| format!("nothing answers at its address ({})", root_cause(error)))
        }
        _ => None,
    }
}

/// An error and its sources, looking inside rmcp's HTTP client errors, which
/// do not name their cause as a source.
fn causes<'a>(
    error: &'a (dyn std::error::Error + 'static),
) -> impl Iterator<Item = &'a (dyn std::error::Error + 'static)> {
    std::iter::successors(Some(error), |current| {
        match current.downcast_ref::<StreamableHttpError<reqwest::Error>>() {
            Some(StreamableHttpError::Client(http)) => {
                Some(http as &(dyn std::error::Error + 'static))
            }
            _ => current.source(),
        }
    })
}

/// The innermost error of a chain: what went wrong, without the layers
/// (transport types and all) it was wrapped in.
pub(super) fn root_cause(error: &(dyn std::error::Error + 'static)) -> String {
    causes(error)
        .last()
        .map_or_else(|| error.to_string(), ToString::to_string)
}

/// Why a handshake failed, in a person's words: the innermost cause of a
/// transport error (rmcp names the transport's type, not the cause, as its
/// source), and of the legacy `initialize` when `server/discover` failed too.
pub(super) fn handshake_failure(error: &ClientInitializeError) -> String {
    match error {
        ClientInitializeError::TransportError { error, .. } => root_cause(error),
        ClientInitializeError::LegacyFallbackFailed { fallback, .. } => handshake_failure(fallback),
        other => root_cause(other),
    }
}

/// A person's words for how a connection's service ended.
pub(super) fn describe_quit(quit: Result<QuitReason, JoinError>) -> String {
    match quit {
        Ok(QuitReason::Closed) => "its connection closed".to_owned(),
        Ok(QuitReason::Cancelled) => "the connection was ended".to_owned(),
        Ok(other) => format!("the connection failed ({other:?})"),
        Err(error) => format!("the connection failed ({error})"),
    }
}
