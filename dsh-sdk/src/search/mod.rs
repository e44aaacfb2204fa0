//! Deferred tools and the tool-search tool that finds them.
//!
//! A tool marked `defer` stays out of the exported tool list, so a large pool
//! does not crowd the prompt. The model finds such tools through
//! [`tool_search`], which ranks them ([`ToolIndex`]: BM25F
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
//! use dsh_kit::prelude::*;
//! use dsh_kit::Registry;
//! use dsh_kit::export::Format;
//! use dsh_kit::catalog::tool_search;
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
//!
//! [`tool_search`]: struct@crate::catalog::tool_search

mod index;
mod text;

use std::sync::{Arc, PoisonError, RwLock};

use crate::tool::Entry;
use crate::tool::ToolInfo;

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
        if entry.def.defer() {
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

    /// The deferred tools `keep` lets through that best match `query`, best
    /// first, at most `limit`.
    pub(crate) fn search(
        &self,
        query: &str,
        limit: usize,
        keep: &dyn Fn(&ToolInfo) -> bool,
    ) -> Vec<ToolInfo> {
        self.deferred
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .search_where(query, limit, keep)
    }

    fn write(&self) -> std::sync::RwLockWriteGuard<'_, ToolIndex> {
        self.deferred
            .write()
            .unwrap_or_else(PoisonError::into_inner)
    }
}
