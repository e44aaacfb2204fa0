//! [`CallerView`]: a registry as one caller sees it.

use std::future::Future;
use std::sync::Arc;

use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::catalog::{self, Reader};
use crate::export::{Deferred, Format};
use crate::pipeline::{Pipeline, ToolCall};
use crate::pool::Loaded;
use crate::tool::{Exec, ToolInfo};
use crate::value::event::rawp::CatalogPublish;
use crate::value::principal::Principal;
use crate::value::result::ToolResult;

/// A [`Registry`](crate::Registry) as one caller sees it: every list read,
/// every export and every call made through it is that caller's.
///
/// Made by [`Registry::as_caller`](crate::Registry::as_caller) for a
/// principal a host acts for, and by [`Registry::of`](crate::Registry::of)
/// inside a tool, for the caller of the call the tool serves. Cheap to
/// clone.
///
/// - Listing ([`tools`](Self::tools), [`get`](Self::get),
///   [`visible_tools`](Self::visible_tools)), the exports in every format,
///   [`search_deferred`](Self::search_deferred) and the
///   [`catalog`](Self::catalog) show only the tools the principal may see
///   ([`Permissions::shows`](crate::permission::Permissions::shows)); the
///   host sees every tool.
/// - Calls are made by the principal: a tool hidden from it is an unknown
///   tool, word for word.
/// - The deferred tools its tool search loads are its own: the view's
///   session's when it has one ([`in_new_session`](Self::in_new_session),
///   an MCP session, a call made through either), else the principal's. No
///   other caller's list changes.
///
/// ```
/// use dsh_kit::prelude::*;
/// use dsh_kit::{Principal, Registry};
///
/// /// Write a file.
/// #[tool(scopes = ["files:write"])]
/// async fn write_file(path: String) -> String { path }
///
/// /// Read a file.
/// #[tool(read_only)]
/// async fn read_file(path: String) -> String { path }
///
/// let registry = Registry::new();
/// registry.register::<write_file>().unwrap().keep();
/// registry.register::<read_file>().unwrap().keep();
/// let names = |principal: Principal| -> Vec<String> {
///     let view = registry.as_caller(principal);
///     view.tools().iter().map(|tool| tool.name().to_owned()).collect()
/// };
/// assert_eq!(names(Principal::new("ada")), ["read_file"]);
/// let writer = Principal::new("ada").with_scopes(["files:write"]);
/// assert_eq!(names(writer), ["read_file", "write_file"]);
/// assert_eq!(names(Principal::host()), ["read_file", "write_file"]);
/// ```
#[derive(Clone)]
pub struct CallerView {
    pipeline: Arc<Pipeline>,
    principal: Arc<Principal>,
    /// The session the view reads and calls through; `None`: the
    /// principal's own set of loaded tools, kept by the pool.
    session: Option<Arc<Loaded>>,
}

impl CallerView {
    /// `principal`'s view of `pipeline`, through `session` if it has one.
    pub(crate) fn new(
        pipeline: Arc<Pipeline>,
        principal: Arc<Principal>,
        session: Option<Arc<Loaded>>,
    ) -> Self {
        CallerView {
            pipeline,
            principal,
            session,
        }
    }

    /// The view of the caller of the call `exec` belongs to, through the
    /// session that call came through.
    pub(crate) fn of(exec: &Exec) -> Option<Self> {
        Pipeline::of(exec).map(|pipeline| {
            CallerView::new(
                pipeline,
                Arc::clone(exec.principal_shared()),
                Pipeline::session_of(exec),
            )
        })
    }

    /// The same caller in a session of its own, starting with no deferred
    /// tool loaded: what its tool search loads from now on is seen through
    /// this view, its clones and the calls made through them, and nowhere
    /// else. One conversation of a host acting for someone.
    ///
    /// ```
    /// use dsh_kit::prelude::*;
    /// use dsh_kit::{Principal, Registry};
    ///
    /// /// Convert an amount between currencies.
    /// #[tool(defer)]
    /// async fn convert(amount: f64) -> f64 { amount }
    ///
    /// let registry = Registry::new();
    /// registry.register::<convert>().unwrap().keep();
    /// let one = registry.as_caller(Principal::new("ada")).in_new_session();
    /// let other = registry.as_caller(Principal::new("ada")).in_new_session();
    /// one.load_deferred(["convert"]);
    /// assert_eq!(one.visible_tools().len(), 1);
    /// assert!(other.visible_tools().is_empty());
    /// ```
    pub fn in_new_session(self) -> Self {
        CallerView {
            session: Some(Arc::default()),
            ..self
        }
    }

    /// The view of the same caller, through `session`.
    #[cfg(feature = "mcp")]
    pub(crate) fn in_session(self, session: &Arc<Loaded>) -> Self {
        CallerView {
            session: Some(Arc::clone(session)),
            ..self
        }
    }

    /// The pipeline read and called through.
    pub(crate) fn pipeline_shared(&self) -> &Arc<Pipeline> {
        &self.pipeline
    }

    /// Who the view is for.
    pub fn principal(&self) -> &Principal {
        &self.principal
    }

    /// The tools this caller may see, in pool order (the built-in block,
    /// then the dynamic tools, each sorted by name).
    pub fn tools(&self) -> Vec<ToolInfo> {
        self.read(catalog::tools)
    }

    /// The tool registered under `name` or one of its aliases, if this
    /// caller may see it.
    pub fn get(&self, name: &str) -> Option<ToolInfo> {
        self.read(|reader| catalog::get(reader, name))
    }

    /// The names of the tools this caller may see closest to `name`, best
    /// first: what an unknown name is answered with.
    ///
    /// A name longer than 128 characters, far beyond any valid tool name,
    /// is close to none: the comparison costs time in proportion to the
    /// name's length.
    pub fn closest(&self, name: &str) -> Vec<String> {
        crate::pipeline::closest(&self.pipeline, name, &self.principal)
    }

    /// The tools the model sees, in the order it sees them: every tool that
    /// is not deferred (or is marked `always_load`), in pool order, then the
    /// deferred tools this caller's tool search has loaded, in the order
    /// they were loaded; only those this caller may see.
    pub fn visible_tools(&self) -> Vec<ToolInfo> {
        self.read(catalog::visible_tools)
    }

    /// Loads deferred tools into this caller's exported list, after
    /// everything already there. Names that are not deferred, not
    /// registered, or already loaded are skipped.
    pub fn load_deferred<'a>(&self, names: impl IntoIterator<Item = &'a str>) {
        catalog::load_deferred(&self.pipeline.pool, &self.loaded(), names)
    }

    /// The deferred tools this caller may see that best match `query`,
    /// best first, at most `limit`.
    pub fn search_deferred(&self, query: &str, limit: usize) -> Vec<ToolInfo> {
        self.read(|reader| catalog::search_deferred(reader, query, limit))
    }

    /// The tool list in `format`, as a JSON array: the
    /// [`visible_tools`](Self::visible_tools).
    pub fn export(&self, format: Format) -> Value {
        self.read(|reader| catalog::export(reader, format))
    }

    /// [`export`](Self::export) as pretty-printed JSON.
    pub fn export_json(&self, format: Format) -> String {
        // Serializing a `Value` cannot fail: its keys are strings.
        serde_json::to_string_pretty(&self.export(format)).unwrap_or_default()
    }

    /// The tool list in `format`, deferred tools listed as `deferred` says.
    ///
    /// With [`Deferred::Native`] and an Anthropic format, the list is the
    /// tools that are not deferred, in pool order (the same stable prefix as
    /// [`export`](Self::export)), then Anthropic's tool search tool
    /// ([`ANTHROPIC_TOOL_SEARCH_TYPE`](crate::export::ANTHROPIC_TOOL_SEARCH_TYPE)),
    /// then every deferred tool sorted by name with `"defer_loading": true`.
    /// The built-in `tool_search` tool is left out: Anthropic's replaces it.
    /// Tool search is in beta at Anthropic: send the
    /// `anthropic-beta: advanced-tool-use-2025-11-20` header with it.
    ///
    /// ```
    /// use dsh_kit::export::{Deferred, Format};
    /// use dsh_kit::prelude::*;
    /// use dsh_kit::{Principal, Registry};
    ///
    /// /// Greet someone by name.
    /// #[tool]
    /// async fn greet(name: String) -> String { format!("Hello, {name}!") }
    ///
    /// /// Convert an amount between currencies.
    /// #[tool(defer)]
    /// async fn convert(amount: f64) -> f64 { amount }
    ///
    /// let registry = Registry::new();
    /// registry.register::<greet>().unwrap().keep();
    /// registry.register::<convert>().unwrap().keep();
    /// let tools = registry.as_caller(Principal::host()).export_with(Format::Anthropic, Deferred::Native);
    /// let names: Vec<&str> = tools.as_array().unwrap().iter()
    ///     .map(|tool| tool["name"].as_str().unwrap()).collect();
    /// assert_eq!(names, ["greet", "tool_search_tool_bm25", "convert"]);
    /// assert_eq!(tools[2]["defer_loading"], true);
    /// ```
    pub fn export_with(&self, format: Format, deferred: Deferred) -> Value {
        self.read(|reader| catalog::export_with(reader, format, deferred))
    }

    /// The tools a provider's own tool search serves, as this caller sees
    /// them: those listed up front, in pool order, without the built-in
    /// `tool_search`; and the deferred ones, sorted by name.
    pub(crate) fn split_deferred(&self) -> (Vec<ToolInfo>, Vec<ToolInfo>) {
        self.read(catalog::split_deferred)
    }

    /// The `tool.catalog.publish` payload of the tools this caller may see
    /// ([`Registry::catalog`](crate::Registry::catalog) for the host); the
    /// diagnostics as they are.
    pub fn catalog(&self) -> CatalogPublish {
        self.read(catalog::snapshot)
    }

    /// Calls the tool `name` (or alias) as this caller, with the raw
    /// arguments a model sent; see [`Registry::call`](crate::Registry::call).
    pub fn call<'a>(
        &'a self,
        name: &str,
        args: Value,
    ) -> impl Future<Output = ToolResult> + Send + use<'a> {
        (self.pipeline).call_as(name, args, Some(&self.principal), self.session.as_ref())
    }

    /// Calls with every option of [`ToolCall`], as this caller unless the
    /// call names another principal.
    pub fn call_with(&self, call: ToolCall) -> impl Future<Output = ToolResult> + Send + '_ {
        self.pipeline.call_with(self.acting(call))
    }

    /// Calls the tools of one model turn as this caller; see
    /// [`Registry::call_batch`](crate::Registry::call_batch).
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
        let calls = calls.into_iter().map(|call| self.acting(call)).collect();
        self.pipeline.call_batch(calls, cancel).await
    }

    /// `call`, made by this caller through its session unless it names a
    /// principal.
    fn acting(&self, call: ToolCall) -> ToolCall {
        call.made_by(&self.principal, self.session.as_ref())
    }

    /// The deferred tools this caller loaded.
    fn loaded(&self) -> Arc<Loaded> {
        match &self.session {
            Some(session) => Arc::clone(session),
            None => self.pipeline.pool.loaded_by(&self.principal),
        }
    }

    /// `read`, run by this caller's reader.
    fn read<T>(&self, read: impl FnOnce(Reader<'_>) -> T) -> T {
        let loaded = self.loaded();
        read(Reader::new(&self.pipeline, &self.principal, &loaded))
    }
}

impl AsRef<CallerView> for CallerView {
    fn as_ref(&self) -> &CallerView {
        self
    }
}

impl std::fmt::Debug for CallerView {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CallerView")
            .field("principal", &self.principal)
            .field("in_session", &self.session.is_some())
            .finish_non_exhaustive()
    }
}
