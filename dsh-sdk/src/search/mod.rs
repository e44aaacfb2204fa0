//! Deferred tools and the tool-search tool that finds them.
//!
//! A tool marked `defer` stays out of the exported tool list, so a large pool
//! does not crowd the prompt. The model finds such tools through
//! [`tool_search`](struct@tool_search), which ranks them ([`ToolIndex`]: BM25F
//! over their names, descriptions, parameter names and parameter
//! descriptions, forgiving word forms, case styles, accents, common verb
//! synonyms, stems that stop short of a related word's and one-letter
//! misspellings, and reading Chinese, Japanese, Korean and Thai by pairs of
//! characters, then reordered by how well each tool's name and the query
//! cover each other and by which of each tool's required parameters the
//! query holds values for), returns the full definitions of the best
//! matches, and loads them: the next export lists them after the
//! stable prefix, in the order they were loaded, so the prefix stays
//! byte-identical and the prompt cache stays warm. `always_load` keeps a
//! deferred tool in the list from the start.
//!
//! ```
//! use dsh_sdk::prelude::*;
//! use dsh_sdk::export::Format;
//! use dsh_sdk::search::tool_search;
//!
//! /// Convert an amount between currencies at today's rate.
//! #[tool(defer)]
//! async fn convert_currency(
//!     /// The amount to convert
//!     amount: f64,
//!     /// ISO 4217 code of the target currency
//!     to: String,
//! ) -> String {
//!     format!("{amount} in {to}")
//! }
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() {
//! let registry = Registry::new();
//! registry.register::<convert_currency>().unwrap();
//! registry.register::<tool_search>().unwrap();
//! assert_eq!(registry.export(Format::Anthropic).as_array().unwrap().len(), 1);
//!
//! let found = registry.call("tool_search", json!({ "query": "exchange currency" })).await;
//! assert_eq!(found.value.unwrap()["tools"][0]["name"], "convert_currency");
//! assert_eq!(registry.export(Format::Anthropic).as_array().unwrap().len(), 2);
//! # }
//! ```

mod index;
mod text;

use std::sync::{Arc, PoisonError, RwLock};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate as dsh_sdk;
use crate::tool::ToolError;
use crate::tool::Exec;
use crate::export::{Format, export_tool};
use crate::pool::{Registry, ToolInfo};
use crate::tool::Entry;

pub use index::ToolIndex;
#[doc(hidden)]
pub use index::{FEATURE_NAMES, Features, RERANK_WEIGHTS};

/// The registry's index over its deferred tools, kept up to date as tools
/// come and go (the registry calls it while it holds its pool's write lock,
/// so the index never disagrees with the pool).
#[derive(Default)]
pub(crate) struct Index {
    deferred: RwLock<ToolIndex>,
}

impl Index {
    /// Indexes a tool joining the pool, if it is deferred.
    pub(crate) fn insert(&self, entry: &Arc<Entry>) {
        if entry.def.is_deferred() {
            let tool = ToolInfo {
                entry: Arc::clone(entry),
            };
            self.write().insert(tool);
        }
    }

    /// Forgets a tool leaving the pool.
    pub(crate) fn remove(&self, name: &str) {
        self.write().remove(name);
    }

    fn write(&self) -> std::sync::RwLockWriteGuard<'_, ToolIndex> {
        self.deferred
            .write()
            .unwrap_or_else(PoisonError::into_inner)
    }
}

impl Registry {
    /// The deferred tools that best match `query`, best first, at most `limit`.
    pub fn search_deferred(&self, query: &str, limit: usize) -> Vec<ToolInfo> {
        self.inner
            .search
            .deferred
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .search(query, limit)
    }
}

/// What [`tool_search`](struct@tool_search) returns: full definitions, best first.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Found {
    /// Each match as `{name, description, input_schema}`, plus `output_schema`
    /// when the tool declares its output and `failure_schema` when it declares
    /// how it fails; it can be called from now on.
    pub tools: Vec<Value>,
}

/// Search for tools that are not in the tool list yet, by what they do.
///
/// Write a few plain words naming the action and what it acts on, the way a
/// tool's name or description would say it: "refund payment", "list calendar
/// events", "convert currency". Add a distinctive word when it helps (a
/// service, a file type, a unit), and keep the details the user gave (a
/// date, an amount, one of a set of choices): a tool that needs a detail the
/// query does not give ranks a little lower. Word forms and case styles do
/// not matter: "sending
/// emails" finds `sendEmail`. Returns the full definitions of the best
/// matches, best first (inputs, and outputs and failure shapes where
/// declared); they can be called right away. If none fits, search again with
/// other words.
#[dsh_sdk::tool(read_only, concurrency_safe, idempotent, always_load)]
pub async fn tool_search(
    /// A few words describing the capability needed, e.g. "convert currency"
    query: String,
    /// How many tools to return, 1 to 20 (default 5)
    #[schemars(range(min = 1, max = 20))]
    limit: Option<u32>,
    exec: &Exec,
) -> Result<Found, ToolError> {
    let registry = exec
        .registry()
        .ok_or_else(|| ToolError::new("tool search needs the registry it was called through"))?;
    let limit = limit.unwrap_or(5).clamp(1, 20) as usize;
    let found = registry.search_deferred(&query, limit);
    registry.load_deferred(found.iter().map(ToolInfo::name));
    Ok(Found {
        tools: found.iter().map(definition).collect(),
    })
}

/// A found tool's full definition: what the model calls it with, what it
/// returns and how it can fail.
fn definition(tool: &ToolInfo) -> Value {
    let mut definition = export_tool(tool, Format::Anthropic);
    if let Value::Object(fields) = &mut definition {
        let output = tool.output_schema();
        if *output != Value::Bool(true) {
            fields.insert("output_schema".to_owned(), output.clone());
        }
        if let Some(failures) = tool.failure_schema() {
            fields.insert("failure_schema".to_owned(), failures.clone());
        }
    }
    definition
}
