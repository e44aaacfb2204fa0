//! Deferred tools: a tool marked `defer` stays out of the tool list the
//! model sees until tool search finds it. The built-in [`tool_search`]
//! tool searches the deferred set and loads what it finds; a provider with
//! a tool search of its own gets the deferred tools marked for it instead
//! ([`Deferred::Native`]).

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::export::{
    ANTHROPIC_TOOL_SEARCH_NAME, ANTHROPIC_TOOL_SEARCH_TYPE, Deferred, Format, export_tool,
    export_tools, formats_for,
};
use crate::pipeline::Pipeline;
use crate::pool::{Loaded, Pool};
use crate::tool::{Exec, ToolError, ToolInfo};

use super::Reader;

/// What [`CallerView::visible_tools`](crate::CallerView::visible_tools) does.
pub(crate) fn visible_tools(reader: Reader<'_>) -> Vec<ToolInfo> {
    let pool = reader.pool();
    let mut visible: Vec<ToolInfo> = pool
        .tools()
        .into_iter()
        .filter(|tool| {
            let def = tool.definition();
            !def.defer() || def.always_load()
        })
        .collect();
    let loaded = reader.loaded().names();
    visible.extend(
        loaded
            .iter()
            .filter_map(|name| pool.get(name))
            .filter(|tool| {
                let def = tool.definition();
                def.defer() && !def.always_load()
            }),
    );
    visible.retain(|tool| reader.sees(tool));
    visible
}

/// What [`CallerView::load_deferred`](crate::CallerView::load_deferred)
/// does: `names` loaded into `loaded`, one caller's set. Names that are not
/// deferred or not registered are skipped.
pub(crate) fn load_deferred<'a>(
    pool: &Pool,
    loaded: &Loaded,
    names: impl IntoIterator<Item = &'a str>,
) {
    for name in names {
        let Some(tool) = pool.get(name) else { continue };
        let def = tool.definition();
        if def.defer() && !def.always_load() {
            loaded.add(tool.name());
        }
    }
}

/// What [`CallerView::search_deferred`](crate::CallerView::search_deferred) does.
pub(crate) fn search_deferred(reader: Reader<'_>, query: &str, limit: usize) -> Vec<ToolInfo> {
    (reader.pool().inner.search).search(query, limit, &|tool| reader.sees(tool))
}

/// What [`CallerView::export`](crate::CallerView::export) does.
pub(crate) fn export(reader: Reader<'_>, format: Format) -> Value {
    export_tools(&visible_tools(reader), format)
}

/// What [`CallerView::export_with`](crate::CallerView::export_with) does.
pub(crate) fn export_with(reader: Reader<'_>, format: Format, deferred: Deferred) -> Value {
    let native = matches!(format, Format::Anthropic | Format::AnthropicStrict);
    if deferred == Deferred::BuiltIn || !native {
        return export(reader, format);
    }
    let (listed, deferred) = split_deferred(reader);
    let mut tools: Vec<Value> = listed
        .iter()
        .zip(formats_for(&listed, format))
        .map(|(tool, format)| export_tool(tool, format))
        .collect();
    if !deferred.is_empty() {
        tools.push(json!({
            "type": ANTHROPIC_TOOL_SEARCH_TYPE,
            "name": ANTHROPIC_TOOL_SEARCH_NAME,
        }));
        // Strict mode's budgets count the tools the model sees up front;
        // deferred tools go out plain.
        tools.extend(deferred.iter().map(|tool| {
            let mut exported = export_tool(tool, Format::Anthropic);
            if let Value::Object(object) = &mut exported {
                object.insert("defer_loading".into(), Value::Bool(true));
            }
            exported
        }));
    }
    Value::Array(tools)
}

/// The tools a provider's own tool search serves: the ones listed up front
/// (not deferred, or `always_load`), in pool order, without the built-in
/// `tool_search`; and the deferred ones, sorted by name. Only the tools
/// `reader` sees.
pub(crate) fn split_deferred(reader: Reader<'_>) -> (Vec<ToolInfo>, Vec<ToolInfo>) {
    let search = <tool_search as crate::Tool>::DEFINITION;
    let (mut deferred, listed): (Vec<ToolInfo>, Vec<ToolInfo>) = (reader.pool().tools())
        .into_iter()
        .filter(|tool| reader.sees(tool))
        .filter(|tool| tool.name() != search.name() || tool.is_dynamic())
        .partition(|tool| {
            let def = tool.definition();
            def.defer() && !def.always_load()
        });
    deferred.sort_by(|a, b| a.name().cmp(b.name()));
    (listed, deferred)
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
///
/// It finds only the tools its caller ([`Exec::principal`]) may see, and
/// loads them for that caller alone: into the session the call came
/// through, else the principal's own set.
#[dsh_kit::tool(read_only, concurrency_safe, idempotent, always_load)]
pub async fn tool_search(
    /// A few words describing the capability needed, e.g. "convert currency"
    query: String,
    /// How many tools to return, 1 to 20 (default 5)
    #[schemars(range(min = 1, max = 20))]
    limit: Option<u32>,
    exec: &Exec,
) -> Result<Found, ToolError> {
    let pipeline = Pipeline::of(exec)
        .ok_or_else(|| ToolError::new("tool search needs the registry it was called through"))?;
    let limit = limit.unwrap_or(5).clamp(1, 20) as usize;
    let loaded = pipeline.loaded_of(exec);
    let reader = Reader::new(&pipeline, exec.principal(), &loaded);
    let found = search_deferred(reader, &query, limit);
    load_deferred(&pipeline.pool, &loaded, found.iter().map(ToolInfo::name));
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
