//! The sandbox: a model's program run in an embedded QuickJS engine, its
//! tool calls handed to the host one at a time.
//!
//! The program runs on a thread of its own, synchronously: a tool call
//! from the program sends its name and arguments over a channel to the
//! task that awaits [`run`], which makes the call (through the pipeline,
//! in the tool's case) and sends the outcome back; the program's thread
//! waits for it. Only one side runs at a time, neither holds the other's
//! lock, and every wait ends: when the task stops waiting (time is up, the
//! call was cancelled) it drops its end of the channel and raises the stop
//! flag, the program's pending call fails, and the engine's interrupt
//! hook ends the program at its next step.
//!
//! The engine has no I/O, no timers, no clock (`Date` and `performance`
//! are left out) and no randomness (`Math.random` is removed): given the
//! same tool outcomes, a program computes the same result. Each bound in
//! [`Limits`] ends the program with its own [`CodeError`].

use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};
use std::thread;
use std::time::{Duration, Instant};

use rquickjs::context::EvalOptions;
use rquickjs::context::intrinsic;
use rquickjs::function::{Opt, Rest};
use rquickjs::{CatchResultExt, CaughtError, Context, Ctx, Function, Object, Promise, Runtime};
use serde::Serialize;
use serde_json::Value;
use tokio::sync::{mpsc, oneshot};

use super::error::CodeError;
use super::limits::Limits;

/// What a program computed: its result, what it printed, and how many
/// tool calls it made.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Run {
    /// The value the program returned (`null` for none).
    pub result: Value,
    /// The lines `console.log` printed, in order.
    pub console: Vec<String>,
    /// How many tool calls the program made.
    pub calls: usize,
}

/// One tool call from the program: name, arguments, and where its outcome goes.
struct Request {
    name: String,
    args: Value,
    reply: oneshot::Sender<Value>,
}

/// Why the host stopped the program; kept in one byte both sides read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
enum Stop {
    Running = 0,
    Timeout = 1,
    Calls = 2,
    Output = 3,
    Cancelled = 4,
}

impl Stop {
    fn read(flag: &AtomicU8) -> Stop {
        match flag.load(Ordering::Acquire) {
            1 => Stop::Timeout,
            2 => Stop::Calls,
            3 => Stop::Output,
            4 => Stop::Cancelled,
            _ => Stop::Running,
        }
    }

    /// Raises the flag, keeping the first reason given.
    fn raise(self, flag: &AtomicU8) {
        let _ = flag.compare_exchange(0, self as u8, Ordering::AcqRel, Ordering::Acquire);
    }
}

/// Raises the stop flag when the task awaiting the program goes away,
/// whatever way it ends (finished, timed out, dropped by its caller).
struct StopOnDrop(Arc<AtomicU8>);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        Stop::Cancelled.raise(&self.0);
    }
}

/// Runs `program` (the body of an async function) with `tools` callable as
/// `tools.<name>(args)`; each such call awaits `call(name, args)`, whose
/// value is what the program's call returns.
///
/// ```
/// use dsh_kit::code::{Limits, run};
/// use serde_json::json;
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// let tools = ["double".to_owned()];
/// let program = "const r = tools.double({ n: 21 }); console.log('got', r.value); return r.value;";
/// let run = run(program, &tools, &Limits::default(), |_name, args| async move {
///     json!({ "ok": true, "value": args["n"].as_i64().unwrap_or(0) * 2 })
/// })
/// .await
/// .unwrap();
/// assert_eq!(run.result, json!(42));
/// assert_eq!(run.console, ["got 42"]);
/// # }
/// ```
pub async fn run<F, Fut>(
    program: &str,
    tools: &[String],
    limits: &Limits,
    mut call: F,
) -> Result<Run, CodeError>
where
    F: FnMut(String, Value) -> Fut,
    Fut: Future<Output = Value>,
{
    let length = program.chars().count();
    if length > limits.program_chars() {
        return Err(CodeError::ProgramTooLong {
            length,
            limit: limits.program_chars(),
        });
    }
    let stop = Arc::new(AtomicU8::new(Stop::Running as u8));
    let _stop_on_drop = StopOnDrop(Arc::clone(&stop));
    let deadline = Instant::now() + limits.time();
    let (requests, mut incoming) = mpsc::channel::<Request>(1);
    let (done, mut finished) = oneshot::channel();
    let sandbox = Sandbox {
        program: program.to_owned(),
        tools: tools.to_vec(),
        limits: limits.clone(),
        stop: Arc::clone(&stop),
        deadline,
        requests,
    };
    // The engine's own stack limit is checked against this thread's stack:
    // give it room beyond that limit for the host functions it calls.
    let spawned = thread::Builder::new()
        .name("dsh-code".into())
        .stack_size(limits.stack_bytes() + 4 * 1024 * 1024)
        .spawn(move || {
            let _ = done.send(sandbox.run());
        });
    if let Err(source) = spawned {
        return Err(CodeError::Engine {
            message: source.to_string(),
        });
    }
    let serve = async {
        loop {
            tokio::select! {
                biased;
                outcome = &mut finished => {
                    return outcome.unwrap_or(Err(CodeError::Engine {
                        message: "the sandbox thread ended without a result".into(),
                    }));
                }
                Some(request) = incoming.recv() => {
                    let outcome = call(request.name, request.args).await;
                    let _ = request.reply.send(outcome);
                }
            }
        }
    };
    let timeout = tokio::time::Instant::from_std(deadline);
    match tokio::time::timeout_at(timeout, serve).await {
        Ok(outcome) => outcome,
        Err(_) => {
            Stop::Timeout.raise(&stop);
            Err(CodeError::Timeout {
                limit_ms: millis(limits.time()),
            })
        }
    }
}

fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

/// Everything the program's thread needs.
struct Sandbox {
    program: String,
    tools: Vec<String>,
    limits: Limits,
    stop: Arc<AtomicU8>,
    deadline: Instant,
    requests: mpsc::Sender<Request>,
}

/// What the program's thread keeps while it runs.
struct State {
    console: Vec<String>,
    printed: usize,
    calls: usize,
}

impl Sandbox {
    fn run(self) -> Result<Run, CodeError> {
        let engine = |error: rquickjs::Error| CodeError::Engine {
            message: error.to_string(),
        };
        let runtime = Runtime::new().map_err(engine)?;
        runtime.set_memory_limit(self.limits.memory_bytes());
        runtime.set_max_stack_size(self.limits.stack_bytes());
        let (stop, deadline) = (Arc::clone(&self.stop), self.deadline);
        runtime.set_interrupt_handler(Some(Box::new(move || {
            Stop::read(&stop) != Stop::Running || Instant::now() >= deadline
        })));
        // Everything but `Date`, `performance` and `WeakRef`: no clock,
        // and nothing whose behaviour depends on when the collector runs.
        let context = Context::custom::<(
            intrinsic::Eval,
            intrinsic::RegExpCompiler,
            intrinsic::RegExp,
            intrinsic::Json,
            intrinsic::Proxy,
            intrinsic::MapSet,
            intrinsic::TypedArrays,
            intrinsic::Promise,
        )>(&runtime)
        .map_err(engine)?;
        let state = std::rc::Rc::new(std::cell::RefCell::new(State {
            console: Vec::new(),
            printed: 0,
            calls: 0,
        }));
        let outcome = context.with(|ctx| self.evaluate(&ctx, &state));
        let outcome = outcome.map_err(|error| self.classify(error));
        let state = state.borrow();
        outcome.map(|result| Run {
            result,
            console: state.console.clone(),
            calls: state.calls,
        })
    }

    /// Installs the globals, runs the program to its end and reads its result.
    fn evaluate<'js>(
        &self,
        ctx: &Ctx<'js>,
        state: &std::rc::Rc<std::cell::RefCell<State>>,
    ) -> Result<Value, Failure> {
        self.install(ctx, state)
            .map_err(|error| caught(ctx, error))?;
        let mut options = EvalOptions::default();
        options.strict = false;
        options.filename = Some("program.js".into());
        // The program's first line stays line 1 of `program.js`.
        let source = format!("(async () => {{{}\n}})()", self.program);
        let promise: Promise<'js> = ctx
            .eval_with_options(source, options)
            .catch(ctx)
            .map_err(|error| Failure::from_caught(error, true))?;
        let value: rquickjs::Value<'js> = match promise.finish() {
            Ok(value) => value,
            Err(rquickjs::Error::WouldBlock) => return Err(Failure::NeverSettles),
            Err(error) => return Err(caught(ctx, error)),
        };
        // A result JSON cannot hold (a BigInt, a cycle) is the result's fault.
        let json =
            ctx.json_stringify(value).catch(ctx).map_err(|error| {
                match Failure::from_caught(error, false) {
                    Failure::Thrown { message, .. } => Failure::NotJson(message),
                    other => other,
                }
            })?;
        let Some(json) = json else {
            return Ok(Value::Null);
        };
        let json = json.to_string().map_err(|error| caught(ctx, error))?;
        let total = state.borrow().printed + json.chars().count();
        if total > self.limits.output_chars() {
            return Err(Failure::Stopped(Stop::Output));
        }
        serde_json::from_str(&json).map_err(|error| Failure::NotJson(error.to_string()))
    }

    /// `console.log`, `tools`, and no `Math.random`.
    fn install<'js>(
        &self,
        ctx: &Ctx<'js>,
        state: &std::rc::Rc<std::cell::RefCell<State>>,
    ) -> rquickjs::Result<()> {
        let globals = ctx.globals();
        let math: Object<'js> = globals.get("Math")?;
        math.remove("random")?;

        let console = Object::new(ctx.clone())?;
        let log_state = std::rc::Rc::clone(state);
        let (limit, stop) = (self.limits.output_chars(), Arc::clone(&self.stop));
        let log = Function::new(
            ctx.clone(),
            move |ctx: Ctx<'js>, values: Rest<rquickjs::Value<'js>>| -> rquickjs::Result<()> {
                let parts = values
                    .0
                    .into_iter()
                    .map(|value| printed(&ctx, value))
                    .collect::<rquickjs::Result<Vec<_>>>()?;
                let line = parts.join(" ");
                let mut state = log_state.borrow_mut();
                state.printed += line.chars().count() + 1;
                if state.printed > limit {
                    Stop::Output.raise(&stop);
                    return Err(rquickjs::Exception::throw_range(
                        &ctx,
                        "console output is over its limit",
                    ));
                }
                state.console.push(line);
                Ok(())
            },
        )?;
        console.set("log", log)?;
        globals.set("console", console)?;

        let tools = Object::new(ctx.clone())?;
        for name in &self.tools {
            let call = self.tool_function(ctx, name, state)?;
            tools.set(name.as_str(), call)?;
        }
        let object: Object<'js> = globals.get("Object")?;
        let freeze: Function<'js> = object.get("freeze")?;
        let tools: Object<'js> = freeze.call((tools,))?;
        globals.set("tools", tools)?;
        Ok(())
    }

    /// The function the program calls a tool by.
    fn tool_function<'js>(
        &self,
        ctx: &Ctx<'js>,
        name: &str,
        state: &std::rc::Rc<std::cell::RefCell<State>>,
    ) -> rquickjs::Result<Function<'js>> {
        let (name, state) = (name.to_owned(), std::rc::Rc::clone(state));
        let (requests, stop) = (self.requests.clone(), Arc::clone(&self.stop));
        let (max_calls, max_args) = (self.limits.calls(), self.limits.output_chars());
        Function::new(
            ctx.clone(),
            move |ctx: Ctx<'js>,
                  args: Opt<rquickjs::Value<'js>>|
                  -> rquickjs::Result<rquickjs::Value<'js>> {
                {
                    let mut state = state.borrow_mut();
                    if state.calls >= max_calls {
                        Stop::Calls.raise(&stop);
                        return Err(rquickjs::Exception::throw_range(
                            &ctx,
                            "too many tool calls",
                        ));
                    }
                    state.calls += 1;
                }
                let args = match args.0 {
                    None => Value::Object(serde_json::Map::new()),
                    Some(value) => {
                        let Some(json) = ctx.json_stringify(value)? else {
                            return Err(rquickjs::Exception::throw_type(
                                &ctx,
                                "a tool's arguments must be a JSON value",
                            ));
                        };
                        let json = json.to_string()?;
                        if json.len() > max_args {
                            return Err(rquickjs::Exception::throw_range(
                                &ctx,
                                &format!(
                                    "a tool's arguments may be at most {max_args} bytes of JSON"
                                ),
                            ));
                        }
                        serde_json::from_str(&json).map_err(|error| {
                            rquickjs::Exception::throw_type(&ctx, &error.to_string())
                        })?
                    }
                };
                let (reply, answer) = oneshot::channel();
                let request = Request {
                    name: name.clone(),
                    args,
                    reply,
                };
                let outcome = match requests.blocking_send(request) {
                    Ok(()) => answer.blocking_recv().ok(),
                    Err(_) => None,
                };
                let Some(outcome) = outcome else {
                    Stop::Cancelled.raise(&stop);
                    return Err(rquickjs::Exception::throw_internal(
                        &ctx,
                        "the host stopped the program",
                    ));
                };
                ctx.json_parse(outcome.to_string())
            },
        )
    }

    /// The error a failed program ends with: the host's reason if it
    /// stopped the program, else what the engine says.
    fn classify(&self, failure: Failure) -> CodeError {
        let limits = &self.limits;
        let stopped = match Stop::read(&self.stop) {
            Stop::Running if Instant::now() >= self.deadline => Stop::Timeout,
            Stop::Running => match failure {
                Failure::Stopped(stop) => stop,
                _ => Stop::Running,
            },
            stop => stop,
        };
        match stopped {
            Stop::Timeout => {
                return CodeError::Timeout {
                    limit_ms: millis(limits.time()),
                };
            }
            Stop::Calls => {
                return CodeError::TooManyCalls {
                    limit: limits.calls(),
                };
            }
            Stop::Output => {
                return CodeError::OutputTooLong {
                    limit: limits.output_chars(),
                };
            }
            Stop::Cancelled => return CodeError::Cancelled,
            Stop::Running => {}
        }
        match failure {
            Failure::OutOfMemory => CodeError::OutOfMemory {
                limit: limits.memory_bytes(),
            },
            Failure::NeverSettles => CodeError::NeverSettles,
            Failure::NotJson(message) => CodeError::ResultNotJson { message },
            Failure::Thrown {
                name,
                message,
                stack,
                compiling,
            } => match name.as_deref() {
                // The engine's own errors for its two bounds: QuickJS
                // throws these, and only these, when it runs out of memory
                // or stack, so their name and text are how it says so.
                Some("InternalError" | "RangeError") if message.contains("out of memory") => {
                    CodeError::OutOfMemory {
                        limit: limits.memory_bytes(),
                    }
                }
                Some("InternalError" | "RangeError")
                    if message.contains("stack overflow")
                        || message.contains("Maximum call stack size exceeded") =>
                {
                    CodeError::StackOverflow {
                        limit: limits.stack_bytes(),
                    }
                }
                Some("SyntaxError") if compiling => CodeError::Syntax {
                    message: with_stack(message, stack),
                },
                _ => CodeError::Threw {
                    message: match name {
                        Some(name) => with_stack(format!("{name}: {message}"), stack),
                        None => with_stack(message, stack),
                    },
                },
            },
            Failure::Stopped(_) => CodeError::Cancelled,
        }
    }
}

/// A message followed by where it happened, when the engine says.
fn with_stack(message: String, stack: Option<String>) -> String {
    match stack.map(|stack| stack.trim_end().to_owned()) {
        Some(stack) if !stack.is_empty() => format!("{message}\n{stack}"),
        _ => message,
    }
}

/// How the program's run failed, before the host's reasons are weighed.
enum Failure {
    /// The host's bound, seen on the program's side.
    Stopped(Stop),
    OutOfMemory,
    NeverSettles,
    NotJson(String),
    /// The program threw (or the engine threw for it).
    Thrown {
        name: Option<String>,
        message: String,
        stack: Option<String>,
        /// While the program was compiled, before it ran.
        compiling: bool,
    },
}

impl Failure {
    fn from_caught(error: CaughtError<'_>, compiling: bool) -> Failure {
        match error {
            CaughtError::Error(rquickjs::Error::Allocation) => Failure::OutOfMemory,
            CaughtError::Error(error) => Failure::Thrown {
                name: None,
                message: error.to_string(),
                stack: None,
                compiling,
            },
            CaughtError::Exception(exception) => {
                let name = exception
                    .as_object()
                    .get::<_, Option<String>>("name")
                    .ok()
                    .flatten();
                Failure::Thrown {
                    name,
                    message: exception.message().unwrap_or_default(),
                    stack: exception.stack(),
                    compiling,
                }
            }
            // QuickJS throws `null` when it cannot allocate even the error
            // it means to throw, which happens only when it is out of
            // memory. A program's own `throw null`, which says nothing, is
            // reported the same way.
            CaughtError::Value(value) if value.is_null() => Failure::OutOfMemory,
            CaughtError::Value(value) => Failure::Thrown {
                name: None,
                message: thrown_text(&value),
                stack: None,
                compiling,
            },
        }
    }
}

/// The caught form of an engine error.
fn caught(ctx: &Ctx<'_>, error: rquickjs::Error) -> Failure {
    Failure::from_caught(CaughtError::from_error(ctx, error), false)
}

/// A thrown value that is no `Error`, as text: JSON where it has one.
fn thrown_text(value: &rquickjs::Value<'_>) -> String {
    let ctx = value.ctx();
    if let Some(text) = value.as_string().and_then(|text| text.to_string().ok()) {
        return text;
    }
    match ctx.json_stringify(value.clone()) {
        Ok(Some(json)) => json.to_string().unwrap_or_default(),
        _ => format!("a thrown {}", value.type_name()),
    }
}

/// One `console.log` argument as printed: a string as itself, anything
/// else as JSON (`undefined` and functions by their type).
fn printed<'js>(ctx: &Ctx<'js>, value: rquickjs::Value<'js>) -> rquickjs::Result<String> {
    if let Some(text) = value.as_string() {
        return text.to_string();
    }
    let kind = value.type_name();
    match ctx.json_stringify(value)? {
        Some(json) => json.to_string(),
        None => Ok(kind.to_owned()),
    }
}
