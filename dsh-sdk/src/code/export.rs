//! The code tool in a provider's tool list: beside the tools, instead of
//! them, or Anthropic's own code execution calling them.

use serde_json::{Value, json};

use crate::export::{Format, export_tools};
use crate::registry::CallerView;

/// The type of Anthropic's code execution tool that programmatic tool
/// calling runs the model's code in.
pub const ANTHROPIC_CODE_EXECUTION: &str = "code_execution_20250825";

/// How a tool list offers code mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Exposure {
    /// Every tool the caller sees, the code tool among them: the model
    /// calls a tool directly or writes a program.
    Beside,
    /// The code tool alone: the model reaches the tools only through a
    /// program (the calls are still decided tool by tool, for the caller).
    Instead,
}

/// The tool list `view`'s caller gets in `format`, with the code tool
/// named `name` offered as `exposure` says. In every format, over MCP
/// too, the code tool is a tool like any other.
///
/// ```
/// use dsh_kit::code::{self, Exposure, Limits, RUN_CODE};
/// use dsh_kit::export::Format;
/// use dsh_kit::prelude::*;
/// use dsh_kit::Registry;
///
/// /// Add two numbers.
/// #[tool(read_only)]
/// async fn add(a: i64, b: i64) -> i64 { a + b }
///
/// let registry = Registry::new();
/// registry.register::<add>().unwrap().keep();
/// registry.register_dynamic(code::tool(registry.host(), Limits::default())).unwrap().keep();
/// let only = code::export(registry.host(), Format::OpenAi, Exposure::Instead, RUN_CODE);
/// assert_eq!(only.as_array().unwrap().len(), 1);
/// assert_eq!(only[0]["function"]["name"], RUN_CODE);
/// ```
pub fn export(view: &CallerView, format: Format, exposure: Exposure, name: &str) -> Value {
    match exposure {
        Exposure::Beside => view.export(format),
        Exposure::Instead => {
            let tools: Vec<_> = view.get(name).into_iter().collect();
            export_tools(&tools, format)
        }
    }
}

/// The Anthropic tool list for programmatic tool calling: Anthropic's
/// code execution tool first, then each tool `view`'s caller sees (but
/// the code tool `name`, whose part Anthropic's code execution plays) with
/// `allowed_callers`: the code execution tool alone, or, with `direct`,
/// the model too. The calls the model's code makes then arrive as
/// `tool_use` blocks whose [`caller`](crate::provider::Call::caller) says
/// so, and are answered like any other call.
///
/// ```
/// use dsh_kit::code::{self, ANTHROPIC_CODE_EXECUTION};
/// use dsh_kit::prelude::*;
/// use dsh_kit::Registry;
///
/// /// Add two numbers.
/// #[tool(read_only)]
/// async fn add(a: i64, b: i64) -> i64 { a + b }
///
/// let registry = Registry::new();
/// registry.register::<add>().unwrap().keep();
/// let tools = code::anthropic_programmatic(registry.host(), code::RUN_CODE, false);
/// assert_eq!(tools[0]["type"], ANTHROPIC_CODE_EXECUTION);
/// assert_eq!(tools[1]["name"], "add");
/// assert_eq!(tools[1]["allowed_callers"], json!([ANTHROPIC_CODE_EXECUTION]));
/// ```
pub fn anthropic_programmatic(view: &CallerView, name: &str, direct: bool) -> Value {
    let callers = if direct {
        json!(["direct", ANTHROPIC_CODE_EXECUTION])
    } else {
        json!([ANTHROPIC_CODE_EXECUTION])
    };
    let mut tools = vec![json!({ "type": ANTHROPIC_CODE_EXECUTION, "name": "code_execution" })];
    if let Value::Array(exported) = view.export(Format::Anthropic) {
        for mut tool in exported {
            if tool.get("name").and_then(Value::as_str) == Some(name) {
                continue;
            }
            if let Value::Object(fields) = &mut tool {
                fields.insert("allowed_callers".into(), callers.clone());
            }
            tools.push(tool);
        }
    }
    Value::Array(tools)
}
