//! Replaying a logged program: the program runs again, each of its tool
//! calls answered by the call the log holds, and nothing else runs.
//!
//! The session log holds a `run_code` call like any other (its program in
//! the arguments, its value with the result, console and the ids of the
//! calls it made), and each call the program made as a call of its own,
//! so [`log::replay`](crate::log::replay::replay) already re-projects the
//! content the model saw from the logged value. This goes further: it runs
//! the program again, answers its `k`-th tool call with the logged outcome
//! of the `k`-th call it made live (after checking the program asked for
//! the same tool with the same arguments), and compares the value it
//! computes with the logged value, byte for byte. The sandbox has no
//! clock and no randomness, so a program that computed its result from
//! its calls computes it again, without a tool running.
//!
//! ```
//! use dsh_kit::code::{self, Limits};
//! use dsh_kit::log::{Log, SessionLog};
//! use dsh_kit::prelude::*;
//! use dsh_kit::Registry;
//!
//! /// Add two numbers.
//! #[tool(read_only)]
//! async fn add(a: i64, b: i64) -> i64 { a + b }
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! # let dir = tempfile::tempdir()?;
//! # let path = dir.path().join("session.jsonl");
//! let registry = Registry::new();
//! registry.register::<add>()?.keep();
//! registry.register_dynamic(code::tool(registry.host(), Limits::default()))?.keep();
//! let log = SessionLog::open(&path)?;
//! let logging = registry.subscribe(log.subscriber());
//! registry.call("run_code", json!({ "code": "return tools.add({ a: 2, b: 3 }).value * 10;" })).await;
//! drop(logging);
//!
//! let replays = code::replay::replay(&registry, &Log::read(&path)?, code::RUN_CODE, &Limits::default()).await;
//! assert_eq!(replays.len(), 1);
//! assert!(replays[0].is_identical());
//! # Ok(())
//! # }
//! ```

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};

use serde_json::{Value, json};
use uuid::Uuid;

use super::error::CodeError;
use super::limits::Limits;
use super::runner::run;
use super::tool::outcome;
use crate::log::{Log, LoggedCall};
use crate::registry::Registry;
use crate::value::principal::{Caller, Principal};

/// One logged program, run again.
#[derive(Clone, Debug, PartialEq)]
pub struct ProgramReplay {
    /// The `run_code` call's id.
    pub invocation_id: Uuid,
    /// Its line in the log, 1-based.
    pub line: usize,
    /// What the replay found.
    pub outcome: ProgramOutcome,
}

impl ProgramReplay {
    /// Whether the program computed, again, exactly what it computed live.
    pub fn is_identical(&self) -> bool {
        matches!(self.outcome, ProgramOutcome::Identical)
    }
}

/// What replaying one program found.
#[derive(Clone, Debug, PartialEq)]
pub enum ProgramOutcome {
    /// The value is the logged one, byte for byte.
    Identical,
    /// The program computed something else: both as JSON text.
    Differs {
        /// The logged value.
        logged: String,
        /// The replayed one.
        replayed: String,
    },
    /// The program asked for a call the log does not hold
    /// ([`CodeError::Diverged`]), or failed where it succeeded live.
    Failed(CodeError),
    /// Not replayed: the call has no program or no end in the log, failed
    /// live (it has no value), or names calls the log lacks.
    Skipped,
}

/// Runs again every logged call of the code tool `name` in `log`, its
/// tool calls answered from the log, against the tools `registry` shows
/// the call's caller; see the [module docs](self).
pub async fn replay(
    registry: &Registry,
    log: &Log,
    name: &str,
    limits: &Limits,
) -> Vec<ProgramReplay> {
    let calls = log.calls();
    let by_id: HashMap<Uuid, &LoggedCall> = calls
        .iter()
        .map(|call| (call.invocation_id, call))
        .collect();
    let mut replays = Vec::new();
    for call in calls.iter().filter(|call| call.tool_name() == name) {
        let outcome = replay_one(registry, call, &by_id, name, limits).await;
        replays.push(ProgramReplay {
            invocation_id: call.invocation_id,
            line: call.line,
            outcome,
        });
    }
    replays
}

async fn replay_one(
    registry: &Registry,
    call: &LoggedCall,
    by_id: &HashMap<Uuid, &LoggedCall>,
    name: &str,
    limits: &Limits,
) -> ProgramOutcome {
    let (Some(result), Some(program)) = (
        call.result.as_ref(),
        call.args()
            .and_then(|args| args.get("code"))
            .and_then(Value::as_str),
    ) else {
        return ProgramOutcome::Skipped;
    };
    // The calls the program made live, in order, as its value names them.
    // A program that failed live has no value to compare: skipped.
    let logged_ids: Vec<Uuid> = match &call.executed {
        Some(executed) => executed
            .value
            .get("calls")
            .and_then(Value::as_array)
            .map(|calls| {
                calls
                    .iter()
                    .filter_map(|call| call.get("invocation_id")?.as_str()?.parse().ok())
                    .collect()
            })
            .unwrap_or_default(),
        None => return ProgramOutcome::Skipped,
    };
    let inner: Vec<&LoggedCall> = logged_ids
        .iter()
        .filter_map(|id| by_id.get(id).copied())
        .collect();
    if inner.len() != logged_ids.len() {
        return ProgramOutcome::Skipped;
    }
    let tools = tool_names(registry, call, name);
    let diverged = Mutex::new(None);
    let ran = run(program, &tools, limits, answer_from(&inner, &diverged)).await;
    if let Some(error) = diverged
        .into_inner()
        .unwrap_or_else(PoisonError::into_inner)
    {
        return ProgramOutcome::Failed(error);
    }
    match ran {
        Ok(run) => {
            let replayed = json!({ "result": run.result, "console": run.console, "calls": value_calls(&inner[..run.calls.min(inner.len())]) });
            let logged = call
                .executed
                .as_ref()
                .map(|executed| executed.value.to_string())
                .unwrap_or_default();
            let replayed = replayed.to_string();
            if logged == replayed && result.failure.is_none() {
                ProgramOutcome::Identical
            } else {
                ProgramOutcome::Differs { logged, replayed }
            }
        }
        Err(error) => ProgramOutcome::Failed(error),
    }
}

/// The tools the program saw: those the call's caller sees in `registry`,
/// less the code tool.
fn tool_names(registry: &Registry, call: &LoggedCall, name: &str) -> Vec<String> {
    let principal = call
        .caller()
        .map_or_else(Principal::host, Caller::principal);
    registry
        .as_caller(principal)
        .tools()
        .iter()
        .map(|tool| tool.name().to_owned())
        .filter(|tool| tool != name)
        .collect()
}

/// The value's `calls` of the logged calls.
fn value_calls(inner: &[&LoggedCall]) -> Value {
    Value::Array(
        inner
            .iter()
            .map(|call| json!({ "tool": call.request.as_ref().map_or_else(|| call.tool_name(), |request| request.tool_name.as_str()), "invocation_id": call.invocation_id.to_string() }))
            .collect(),
    )
}

/// Answers the program's `k`-th call with the `k`-th logged call's
/// outcome, when it asked for the same tool with the same arguments; the
/// first call the log does not hold is kept in `diverged`, and the
/// program's call fails.
fn answer_from<'a>(
    inner: &'a [&'a LoggedCall],
    diverged: &'a Mutex<Option<CodeError>>,
) -> impl FnMut(String, Value) -> std::future::Ready<Value> + 'a {
    let mut index = 0;
    move |tool, args| {
        let logged = inner.get(index);
        let answer = match logged.map(|logged| (logged.request.as_ref(), logged.result.as_ref())) {
            Some((Some(request), Some(result)))
                if request.tool_name == tool && request.input == args =>
            {
                Ok(outcome(result))
            }
            Some(_) => Err("another tool or other arguments than the logged call"),
            None => Err("the live run made fewer calls"),
        };
        let answer = answer.unwrap_or_else(|reason| {
            let mut first = diverged.lock().unwrap_or_else(PoisonError::into_inner);
            first.get_or_insert(CodeError::Diverged {
                tool: tool.clone(),
                index,
                reason: reason.to_owned(),
            });
            json!({ "ok": false, "cause": "diverged", "message": format!("replay diverged at call {index} (`{tool}`): {reason}") })
        });
        index += 1;
        std::future::ready(answer)
    }
}
