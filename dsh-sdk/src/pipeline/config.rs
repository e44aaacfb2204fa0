//! [`Config`]: the settings every stage of a call reads, fixed when the
//! registry is built ([`RegistryBuilder`](crate::RegistryBuilder)).

use std::sync::{Arc, Weak};

use super::layer::ExecService;
use super::post_execute::PostExecute;
use super::spill::SpillConfig;
use crate::permission::{Approver, Permissions};
use crate::pool::{self, Pool};
use crate::value::event::Event;
use crate::value::path::Roots;
use crate::value::schema::limits::Limits;

/// The settings every call reads, fixed when the registry is built.
pub(crate) struct Config {
    pub(crate) spill: SpillConfig,
    pub(crate) permissions: Permissions,
    pub(crate) approver: Option<Arc<dyn Approver>>,
    pub(crate) post_execute: Vec<Arc<dyn PostExecute>>,
    /// What a call may carry in and out (`limits.rs`).
    pub(crate) limits: Limits,
    /// The directories path arguments may reach.
    pub(crate) roots: Roots,
    /// Whether every call is timed, also when nothing observes the registry.
    pub(crate) time_calls: bool,
    /// Whether a call's span carries its arguments and result text.
    pub(crate) trace_payloads: bool,
    /// The execute stack when it has retries or host layers; `None` runs
    /// the built-in stack directly.
    pub(crate) service: Option<ExecService>,
    /// The pool these settings belong to, for the events of stages that
    /// have only the settings at hand (a spill that could not be saved).
    pub(crate) pool: Weak<pool::Inner>,
}

impl Config {
    /// Builds and emits an event to the subscribers of the pool these
    /// settings belong to, only when someone listens.
    pub(crate) fn emit_with(&self, event: impl FnOnce() -> Event) {
        if let Some(inner) = self.pool.upgrade() {
            Pool { inner }.emit_with(event);
        }
    }
}
