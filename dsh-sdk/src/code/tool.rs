//! The `run_code` tool: a program against the registry's typed API, run
//! in the sandbox, every call it makes a call of the caller through the
//! pipeline.

use serde_json::{Value, json};

use super::declarations::declarations;
use super::error::CodeError;
use super::limits::Limits;
use super::runner::{Run, run};
use crate::registry::{CallerView, Registry};
use crate::tool::{DynamicTool, Exec, ToolDef, ToolError};
use crate::value::content::ContentBlock;
use crate::value::result::ToolResult;

/// The name the code tool has unless given another.
pub const RUN_CODE: &str = "run_code";

/// What the tool's description says before the API.
const INTRODUCTION: &str = "\
Run a JavaScript program that calls the tools below, in one step, and get \
back what it returns and prints. Prefer it to calling tools one at a time \
when a task takes several calls, or filters or combines their results: only \
what the program returns and logs comes back. Every call returns a typed \
outcome: check `ok`, then read `value`.";

/// The code tool, named [`RUN_CODE`]: its description holds the
/// TypeScript declarations of the tools `view`'s caller may call (made
/// now: make the tool again when the pool changes), and each program runs
/// within `limits`.
///
/// Register it beside the tools, or instead of showing them (export only
/// the code tool, see [`export`](super::export)). The calls a program
/// makes are the caller's own: the caller of each `run_code` call, through
/// the whole pipeline (permissions, approver, limits, spill, events,
/// the log), one at a time in the order the program makes them.
///
/// ```
/// use dsh_kit::prelude::*;
/// use dsh_kit::Registry;
///
/// /// Add two numbers.
/// #[tool(read_only)]
/// async fn add(a: i64, b: i64) -> i64 { a + b }
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// let registry = Registry::new();
/// registry.register::<add>().unwrap().keep();
/// let code = dsh_kit::code::tool(registry.host(), dsh_kit::code::Limits::default());
/// registry.register_dynamic(code).unwrap().keep();
///
/// let program = "let sum = 0; for (const n of [1, 2, 3]) { sum = tools.add({ a: sum, b: n }).value; } return sum;";
/// let result = registry.call("run_code", json!({ "code": program })).await;
/// assert_eq!(result.value.unwrap()["result"], 6);
/// # }
/// ```
pub fn tool(view: &CallerView, limits: Limits) -> DynamicTool {
    named(RUN_CODE, view, limits)
}

/// The code tool under another name.
pub fn named(name: &str, view: &CallerView, limits: Limits) -> DynamicTool {
    let api = declarations(view, &[name]);
    let description = format!("{INTRODUCTION}\n\n```typescript\n{api}```");
    let def = ToolDef::builder_owned(name, description).build();
    let own = name.to_owned();
    DynamicTool::new(def, input_schema(), move |args, exec| {
        let (limits, own) = (limits.clone(), own.clone());
        async move { run_code(&own, args, exec, &limits).await }
    })
    .output_schema(output_schema())
    .failure_schema(ToolError::failure_schema::<CodeError>())
    .render(render)
}

/// The arguments: the program.
fn input_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "code": {
                "type": "string",
                "description": "The body of an async JavaScript function: call `tools.<name>(args)`, `return` the result."
            }
        },
        "required": ["code"],
        "additionalProperties": false
    })
}

/// The value: the result, the console, and the calls made, by id.
fn output_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "result": { "description": "What the program returned (`null` for nothing)." },
            "console": { "type": "array", "items": { "type": "string" } },
            "calls": {
                "type": "array",
                "description": "The calls the program made, in order: each call's tool and invocation id.",
                "items": {
                    "type": "object",
                    "properties": {
                        "tool": { "type": "string" },
                        "invocation_id": { "type": "string" }
                    },
                    "required": ["tool", "invocation_id"]
                }
            }
        },
        "required": ["result", "console", "calls"]
    })
}

/// Runs one program for the caller of `exec`'s call.
async fn run_code(own: &str, args: Value, exec: Exec, limits: &Limits) -> Result<Value, ToolError> {
    let Some(program) = args.get("code").and_then(Value::as_str) else {
        return Err(ToolError::new("`code` must be a string"));
    };
    let Some(view) = Registry::of(&exec) else {
        return Err(ToolError::new("`run_code` runs only inside a registry"));
    };
    let tools: Vec<String> = view
        .tools()
        .iter()
        .map(|tool| tool.name().to_owned())
        .filter(|name| name != own)
        .collect();
    let calls = std::sync::Mutex::new(Vec::new());
    let program_run = run(program, &tools, limits, |name, args| {
        let (view, calls) = (view.clone(), &calls);
        async move {
            let result = view.call(&name, args).await;
            calls
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .push(json!({ "tool": name, "invocation_id": result.invocation_id.to_string() }));
            outcome(&result)
        }
    });
    let ran = tokio::select! {
        ran = program_run => ran,
        () = exec.cancellation().cancelled() => Err(CodeError::Cancelled),
    };
    let calls = calls
        .into_inner()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    match ran {
        Ok(Run {
            result, console, ..
        }) => Ok(json!({ "result": result, "console": console, "calls": calls })),
        Err(error) => Err(ToolError::typed(error.to_string(), &error)),
    }
}

/// What a program's tool call returns: `{ok: true, value}`, or `{ok:
/// false, cause, message}` with the tool's failure `kind` and `data` when
/// it declared one.
pub fn outcome(result: &ToolResult) -> Value {
    match &result.failure {
        None => json!({ "ok": true, "value": result.value.clone().unwrap_or(Value::Null) }),
        Some(failure) => {
            let mut failed = json!({
                "ok": false,
                "cause": failure.cause.name(),
                "message": result.text(),
            });
            if let Some(kind) = &failure.kind {
                failed["kind"] = json!(kind);
            }
            if let Some(data) = &failure.data {
                failed["data"] = data.clone();
            }
            failed
        }
    }
}

/// What the model sees: the console lines, then the result (a string as
/// itself, anything else as JSON).
fn render(_args: &Value, value: &Value) -> Vec<ContentBlock> {
    let mut text = String::new();
    if let Some(lines) = value.get("console").and_then(Value::as_array) {
        for line in lines.iter().filter_map(Value::as_str) {
            text.push_str(line);
            text.push('\n');
        }
    }
    match value.get("result") {
        Some(Value::String(result)) => text.push_str(result),
        Some(result) => text.push_str(&result.to_string()),
        None => text.push_str("null"),
    }
    vec![ContentBlock::text(text)]
}
