//! The tool catalog (RAWP-DPS `tool.catalog.publish`): what [`Registry::catalog`](crate::Registry::catalog) publishes,
//! each tool's status, the diagnostics, and the rules they impose on calls.
//!
//! - `unavailable` status, or a `fatal` diagnostic (the tool's own, or one
//!   about the whole catalog): every call is refused with an error result
//!   saying why (the spec's `session.error`), before its arguments are even
//!   read.
//! - `degraded` status, or an `error` diagnostic: calls run, and the user is
//!   warned: [`Registry::warnings`](crate::Registry::warnings) lists the warnings for a host to show,
//!   and each call streams them as `progress` chunks (`warning: CODE: …`)
//!   before the tool runs, so a UI following the call shows them and the
//!   session log keeps them. The model is not told: the spec asks for the
//!   user to be warned.
//! - `warning` and `info` diagnostics are for the log and a UI, and change
//!   nothing about calls.
//!
//! Any change to a status or the diagnostics republishes the catalog to
//! subscribers as [`Event::Catalog`]; a host publishes it once at session
//! start with [`Registry::publish_catalog`](crate::Registry::publish_catalog), and again after it changes the
//! set of tools.
//!
//! ```
//! use dsh_kit::prelude::*;
//! use dsh_kit::Registry;
//! use dsh_kit::event::rawp::ToolStatus;
//!
//! /// Search with ripgrep.
//! #[tool(read_only, category = "search")]
//! async fn rg(
//!     /// The pattern
//!     pattern: String,
//! ) -> String {
//!     pattern
//! }
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() {
//! let registry = Registry::new();
//! registry.register::<rg>().unwrap();
//! registry.set_status("rg", ToolStatus::Unavailable, Some("`rg` is not on the PATH")).unwrap();
//!
//! let result = registry.call("rg", json!({ "pattern": "fn main" })).await;
//! assert!(result.is_error());
//! assert_eq!(result.text(), "`rg` is unavailable and cannot be called: `rg` is not on the PATH");
//!
//! // ripgrep installed: the status goes back, and the catalog is republished.
//! registry.set_status("rg", ToolStatus::Available, None).unwrap();
//! assert!(!registry.call("rg", json!({ "pattern": "fn main" })).await.is_error());
//! # }
//! ```
//!
//! [`Registry::catalog`]: crate::Registry::catalog
//! [`Registry::warnings`]: crate::Registry::warnings
//! [`Registry::publish_catalog`]: crate::Registry::publish_catalog

mod deferred;

use crate::pipeline::Pipeline;
use crate::pool::{Loaded, Pool};
use crate::tool::ToolInfo;
use crate::value::event::Event;
use crate::value::event::rawp::{CatalogPublish, CatalogTool, Diagnostic, ToolStatus};
use crate::value::principal::Principal;

pub use crate::pool::TOOL_DEGRADED;
pub use crate::tool::TOOL_SHADOWED;
pub use deferred::{Found, tool_search};
pub(crate) use deferred::{
    export, export_with, load_deferred, search_deferred, split_deferred, visible_tools,
};

/// Why a catalog change was refused.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CatalogError {
    /// No tool of that name or alias is registered.
    #[error("cannot set the status of `{name}`: no tool of that name is registered{}", crate::value::schema::suggest::hint(.closest))]
    UnknownTool {
        /// The name given.
        name: String,
        /// The registered names closest to it, best first.
        closest: Vec<String>,
    },
}

/// Who reads a list of tools, and what decides which it sees: every list
/// of tools a caller reads is filtered here, by
/// [`Permissions::shows`](crate::permission::Permissions::shows), and the
/// deferred tools it lists are those its own tool search loaded.
#[derive(Clone, Copy)]
pub(crate) struct Reader<'a> {
    pipeline: &'a Pipeline,
    principal: &'a Principal,
    loaded: &'a Loaded,
}

impl<'a> Reader<'a> {
    /// `principal`, reading the tools of `pipeline`, with the deferred
    /// tools `loaded` holds.
    pub(crate) fn new(
        pipeline: &'a Pipeline,
        principal: &'a Principal,
        loaded: &'a Loaded,
    ) -> Self {
        Reader {
            pipeline,
            principal,
            loaded,
        }
    }

    /// The pool read.
    pub(crate) fn pool(&self) -> &'a Pool {
        &self.pipeline.pool
    }

    /// The deferred tools this reader's tool search loaded.
    pub(crate) fn loaded(&self) -> &'a Loaded {
        self.loaded
    }

    /// Whether the reader may see `tool`.
    pub(crate) fn sees(&self, tool: &ToolInfo) -> bool {
        (self.pipeline.config.permissions).shows(tool.definition(), self.principal)
    }
}

/// What [`CallerView::tools`](crate::CallerView::tools) does.
pub(crate) fn tools(reader: Reader<'_>) -> Vec<ToolInfo> {
    let mut tools = reader.pool().tools();
    tools.retain(|tool| reader.sees(tool));
    tools
}

/// What [`CallerView::get`](crate::CallerView::get) does.
pub(crate) fn get(reader: Reader<'_>, name: &str) -> Option<ToolInfo> {
    reader.pool().get(name).filter(|tool| reader.sees(tool))
}

/// What [`CallerView::catalog`](crate::CallerView::catalog) does.
pub(crate) fn snapshot(reader: Reader<'_>) -> CatalogPublish {
    snapshot_of(reader.pool(), tools(reader))
}

/// The catalog of `tools`, with their statuses, and the diagnostics.
fn snapshot_of(pool: &Pool, tools: Vec<ToolInfo>) -> CatalogPublish {
    let state = pool.catalog().read();
    let tools = tools
        .iter()
        .map(|tool| {
            let def = tool.definition();
            let (status, status_description) =
                state.statuses.get(def.name()).cloned().unwrap_or_default();
            CatalogTool {
                name: def.name().to_owned(),
                version: def.version().map(str::to_owned),
                description: def.description().to_owned(),
                input_schema: Some(tool.input_schema().clone()),
                output_type: def.output_type(),
                requires_approval: Some(def.requires_approval() || def.destructive()),
                category: def.category(),
                status,
                status_description,
                contract_hash: Some(crate::export::digest::tool_hash(tool)),
            }
        })
        .collect();
    CatalogPublish {
        tools,
        diagnostics: state.diagnostics.clone(),
    }
}

/// What [`Registry::publish_catalog`](crate::Registry::publish_catalog)
/// does: the host's catalog, every tool, to the host's subscribers.
pub(crate) fn publish(pool: &Pool) {
    pool.emit_with(|| Event::Catalog(snapshot_of(pool, pool.tools())));
}

/// What [`Registry::set_status`](crate::Registry::set_status) does, on the pool.
pub(crate) fn set_status(
    pool: &Pool,
    name: &str,
    status: ToolStatus,
    description: Option<&str>,
) -> Result<(), CatalogError> {
    let Some(entry) = pool.entry(name) else {
        return Err(CatalogError::UnknownTool {
            name: name.to_owned(),
            closest: pool.closest(name),
        });
    };
    let tool = entry.def.name();
    let new = (status, description.map(str::to_owned));
    let changed = {
        let mut state = pool.catalog().write();
        let old = state.statuses.get(tool).cloned().unwrap_or_default();
        if new == <(ToolStatus, Option<String>)>::default() {
            state.statuses.remove(tool);
        } else {
            state.statuses.insert(tool.to_owned(), new.clone());
        }
        old != new
    };
    if changed {
        // MCP `tools/list` shows each tool's status: its clients re-read it.
        pool.notify_changed();
        publish(pool);
    }
    Ok(())
}

/// What [`Registry::add_diagnostic`](crate::Registry::add_diagnostic) does, on the pool.
pub(crate) fn add_diagnostic(pool: &Pool, mut diagnostic: Diagnostic) {
    if let Some(name) = &diagnostic.tool_name
        && let Some(entry) = pool.entry(name)
    {
        diagnostic.tool_name = Some(entry.def.name().to_owned());
    }
    let changed = pool.catalog().add(diagnostic);
    if changed {
        publish(pool);
    }
}

/// What [`Registry::remove_diagnostic`](crate::Registry::remove_diagnostic) does, on the pool.
pub(crate) fn remove_diagnostic(pool: &Pool, tool_name: Option<&str>, code: &str) -> bool {
    let tool_name = tool_name.map(|name| canonical(pool, name));
    remove_diagnostics(pool, |diagnostic| {
        diagnostic.tool_name.as_deref() == tool_name.as_deref() && diagnostic.code == code
    })
}

/// What [`Registry::clear_diagnostics`](crate::Registry::clear_diagnostics) does, on the pool.
pub(crate) fn clear_diagnostics(pool: &Pool, tool_name: Option<&str>) -> bool {
    let tool_name = tool_name.map(|name| canonical(pool, name));
    remove_diagnostics(pool, |diagnostic| {
        diagnostic.tool_name.as_deref() == tool_name.as_deref()
    })
}

/// What [`Registry::warnings`](crate::Registry::warnings) does, on the pool.
pub(crate) fn warnings(pool: &Pool, name: &str) -> Vec<Diagnostic> {
    pool.catalog().read().warnings(&canonical(pool, name))
}

fn remove_diagnostics(pool: &Pool, remove: impl Fn(&Diagnostic) -> bool) -> bool {
    let changed = {
        let mut state = pool.catalog().write();
        let before = state.diagnostics.len();
        state.diagnostics.retain(|diagnostic| !remove(diagnostic));
        state.diagnostics.len() != before
    };
    if changed {
        publish(pool);
    }
    changed
}

/// The tool's name for a name or alias; the name itself when no tool has it.
fn canonical(pool: &Pool, name: &str) -> String {
    pool.entry(name)
        .map_or_else(|| name.to_owned(), |entry| entry.def.name().to_owned())
}
