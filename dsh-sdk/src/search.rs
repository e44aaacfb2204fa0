//! Deferred tools and the tool-search tool that finds them.
//!
//! A tool marked `defer` stays out of the exported tool list, so a large pool
//! does not crowd the prompt. The model finds such tools through
//! [`tool_search`](struct@tool_search), which ranks them with BM25 over their
//! names, descriptions and parameter names and descriptions, returns the full
//! definitions of the best matches, and loads them: the next export lists them
//! after the stable prefix, in the order they were loaded, so the prefix stays
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

use std::sync::{Mutex, PoisonError};

use bm25::{Document, SearchEngine, SearchEngineBuilder};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate as dsh_sdk;
use crate::error::ToolError;
use crate::exec::Exec;
use crate::export::{Format, export_tool};
use crate::registry::{Registry, ToolInfo};

/// The registry's BM25 index over its deferred tools, rebuilt when the pool changes.
#[derive(Default)]
pub(crate) struct Index {
    built: Mutex<Option<(u64, ToolIndex)>>,
}

/// A BM25 index over tools' names, descriptions and parameters.
///
/// The registry keeps one over its deferred tools; build one yourself to rank
/// any set of tools.
pub struct ToolIndex {
    engine: SearchEngine<String>,
}

impl ToolIndex {
    /// Indexes `tools` (all of them, deferred or not).
    pub fn build(tools: &[ToolInfo]) -> Self {
        let documents: Vec<Document<String>> = tools
            .iter()
            .map(|tool| Document::new(tool.name().to_owned(), search_text(tool)))
            .collect();
        let engine = if documents.is_empty() {
            SearchEngineBuilder::<String>::with_avgdl(1.0).build()
        } else {
            SearchEngineBuilder::<String>::with_documents(bm25::Language::English, documents)
                .build()
        };
        ToolIndex { engine }
    }

    /// The names of the tools that best match `query`, best first, at most `limit`.
    pub fn search(&self, query: &str, limit: usize) -> Vec<String> {
        self.engine
            .search(query, limit)
            .into_iter()
            .map(|hit| hit.document.id)
            .collect()
    }
}

impl std::fmt::Debug for ToolIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolIndex").finish_non_exhaustive()
    }
}

impl Registry {
    /// The deferred tools that best match `query`, best first, at most `limit`.
    pub fn search_deferred(&self, query: &str, limit: usize) -> Vec<ToolInfo> {
        let generation = self.generation();
        let mut built = self
            .inner
            .search
            .built
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if built.as_ref().is_none_or(|(at, _)| *at != generation) {
            let deferred: Vec<ToolInfo> = self
                .tools()
                .into_iter()
                .filter(|tool| tool.definition().is_deferred())
                .collect();
            *built = Some((generation, ToolIndex::build(&deferred)));
        }
        let Some((_, index)) = built.as_ref() else {
            return Vec::new();
        };
        index
            .search(query, limit)
            .iter()
            .filter_map(|name| self.get(name))
            .collect()
    }
}

/// What a tool is found by: its name split into words, its description, and
/// its parameters' names and descriptions.
fn search_text(tool: &ToolInfo) -> String {
    let def = tool.definition();
    let mut text = format!(
        "{} {} {}",
        def.name(),
        def.name().replace(['_', '-'], " "),
        def.description()
    );
    if let Some(Value::Object(properties)) = tool.input_schema().get("properties") {
        for (name, property) in properties {
            text.push(' ');
            text.push_str(&name.replace(['_', '-'], " "));
            if let Some(Value::String(description)) = property.get("description") {
                text.push(' ');
                text.push_str(description);
            }
        }
    }
    text
}

/// What [`tool_search`](struct@tool_search) returns: full definitions, best first.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Found {
    /// Each match as `{name, description, input_schema}`; it can be called from now on.
    pub tools: Vec<Value>,
}

/// Search for tools that are not in the tool list yet, by what they do. Returns
/// the full definitions of the best matches; they can be called right away.
#[dsh_sdk::tool(read_only, concurrency_safe, idempotent, always_load)]
pub async fn tool_search(
    /// Words describing the capability needed, e.g. "convert currency"
    query: String,
    /// How many tools to return, 1 to 20 (default 5)
    #[schemars(range(min = 1, max = 20))]
    limit: Option<u32>,
    exec: &Exec,
) -> Result<Found, ToolError> {
    let registry = exec
        .registry()
        .ok_or_else(|| ToolError::new("tool search needs the registry it was called through"))?;
    let limit = limit.unwrap_or(5) as usize;
    let found = registry.search_deferred(&query, limit);
    registry.load_deferred(found.iter().map(ToolInfo::name));
    Ok(Found {
        tools: found
            .iter()
            .map(|tool| export_tool(tool, Format::Anthropic))
            .collect(),
    })
}
