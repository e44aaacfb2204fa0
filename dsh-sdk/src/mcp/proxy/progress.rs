//! Routing a remote server's progress notifications to the call they report on.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use rmcp::model::ProgressToken;

use crate::tool::Exec;

/// Progress token → the call whose progress it reports.
pub(super) type Progress = Arc<Mutex<HashMap<ProgressToken, Exec>>>;

/// Routes a call's progress notifications to its [`Exec`] while it runs.
pub(super) struct Reporting {
    calls: Progress,
    token: ProgressToken,
}

impl Reporting {
    pub(super) fn start(calls: &Progress, token: ProgressToken, exec: &Exec) -> Self {
        calls
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(token.clone(), exec.clone());
        Reporting {
            calls: Arc::clone(calls),
            token,
        }
    }
}

impl Drop for Reporting {
    fn drop(&mut self) {
        self.calls
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&self.token);
    }
}
