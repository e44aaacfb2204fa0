//! Fuzzes the call pipeline's input path with random names and arguments.
//!
//! ```text
//! cargo run --release --example fuzz -- --iterations 10000000 [--seed N]
//! ```
//!
//! Every call goes through `Registry::call_with` with rules, a gate, a guard
//! and an approver that sometimes rewrites the arguments. After each call
//! the result must be whole (error iff not `success`, an error says why, the
//! invocation id is the call's), a path the deny rule forbids must never
//! reach a tool, and `echo` must give back exactly what it was sent. Values
//! are generated from a seeded generator, so a failure prints the seed, the
//! iteration and the call: `--seed S --skip I --iterations 1` runs it alone.
//! At the end it prints the executions per second.

use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use dsh_kit::permission::{Approval, ApprovalRequest, CallInfo, Decision, FnApprover, Rule};
use dsh_kit::prelude::*;
use dsh_kit::{Registry, ToolResult};
use dsh_kit::{Status, ToolCall};
use serde_json::{Map, Value};

/// How a line range is read.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum Mode {
    Head,
    Tail,
}

#[derive(Deserialize, JsonSchema)]
struct ReadArgs {
    /// The path
    path: String,
    /// At most this many lines
    #[schemars(range(max = 1000))]
    limit: Option<u32>,
    /// Which end
    mode: Option<Mode>,
}

/// Times a forbidden path reached a tool: must stay 0.
static FORBIDDEN_RAN: AtomicU64 = AtomicU64::new(0);

fn check_path(args: &ReadArgs, _: &Exec) -> Validation {
    if args.path.contains('\0') {
        Validation::invalid("paths hold no NUL", 1)
    } else {
        Validation::Ok
    }
}

/// Read lines of a file (pretend).
#[tool(read_only, concurrency_safe, validate = check_path)]
async fn read_lines(args: ReadArgs) -> String {
    if args.path.starts_with("/secret") {
        FORBIDDEN_RAN.fetch_add(1, Ordering::Relaxed);
    }
    let end = match args.mode {
        Some(Mode::Tail) => "tail",
        Some(Mode::Head) | None => "head",
    };
    format!("{} {:?} {end}", args.path, args.limit)
}

/// Write a file (pretend).
#[tool(destructive)]
async fn write_file(
    /// The path
    path: String,
    /// The text
    text: String,
) -> usize {
    if path.starts_with("/secret") {
        FORBIDDEN_RAN.fetch_add(1, Ordering::Relaxed);
    }
    text.len()
}

/// Echo any JSON value.
#[tool(read_only)]
async fn echo(
    /// Anything
    value: Value,
) -> Value {
    value
}

#[derive(Deserialize, JsonSchema, Serialize)]
struct Point {
    x: f64,
    y: f64,
}

/// Sum points.
#[tool(read_only)]
async fn centroid(
    /// The points
    #[schemars(length(min = 1, max = 64))]
    points: Vec<Point>,
) -> Point {
    let n = points.len() as f64;
    Point {
        x: points.iter().map(|p| p.x).sum::<f64>() / n,
        y: points.iter().map(|p| p.y).sum::<f64>() / n,
    }
}

/// splitmix64: small, fast and reproducible from a seed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }

    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len() as u64) as usize]
    }
}

const KEYS: &[&str] = &[
    "path",
    "limit",
    "mode",
    "text",
    "value",
    "points",
    "x",
    "y",
    "file",
    "",
    "$ref",
    "__proto__",
];
const WORDS: &[&str] = &[
    "/tmp/a",
    "/secret/key",
    "/secret",
    "head",
    "tail",
    "",
    "é🦀語",
    "\u{0}",
    "{\"path\":\"/secret/x\"}",
    "{\"value\":[[[[1]]]]}",
    "../../etc/passwd",
];
const NAMES: &[&str] = &[
    "read_lines",
    "write_file",
    "echo",
    "centroid",
    "read_line",
    "ECHO",
    "",
    "tool_search",
];

fn string(rng: &mut Rng) -> String {
    match rng.below(4) {
        0 => (*rng.pick(WORDS)).to_owned(),
        1 => (0..rng.below(12))
            .map(|_| char::from_u32(rng.below(0x2_0000) as u32).unwrap_or('?'))
            .collect(),
        2 => format!("/secret/{}", rng.below(100)),
        _ => "x".repeat(rng.below(3_000) as usize),
    }
}

fn number(rng: &mut Rng) -> Value {
    match rng.below(5) {
        0 => json!(rng.below(2_000)),
        1 => json!(-(rng.below(1 << 40) as i64)),
        2 => json!(rng.next()),
        3 => serde_json::Number::from_f64(f64::from_bits(rng.next()))
            .map_or(Value::Null, Value::Number),
        _ => json!((rng.below(1_000_000) as f64) / 7.0),
    }
}

/// A random value, at most `depth` levels deep, sometimes far deeper.
fn value(rng: &mut Rng, depth: u32) -> Value {
    if depth == 0 {
        return match rng.below(4) {
            0 => Value::Null,
            1 => Value::Bool(rng.chance(50)),
            2 => number(rng),
            _ => Value::String(string(rng)),
        };
    }
    match rng.below(8) {
        0 => Value::Null,
        1 => Value::Bool(rng.chance(50)),
        2 => number(rng),
        3 | 4 => Value::String(string(rng)),
        5 => Value::Array((0..rng.below(5)).map(|_| value(rng, depth - 1)).collect()),
        _ => object(rng, depth - 1),
    }
}

fn object(rng: &mut Rng, depth: u32) -> Value {
    let mut map = Map::new();
    for _ in 0..rng.below(5) {
        let key = if rng.chance(80) {
            (*rng.pick(KEYS)).to_owned()
        } else {
            string(rng)
        };
        map.insert(key, value(rng, depth));
    }
    Value::Object(map)
}

/// A deep chain built without recursion: far past every limit.
fn chain(levels: u64) -> Value {
    let mut value = Value::Null;
    for _ in 0..levels {
        value = Value::Array(vec![value]);
    }
    value
}

/// Arguments shaped for `name`, mostly near-valid, some hostile.
fn args(rng: &mut Rng, name: &str) -> Value {
    let mut map = Map::new();
    match (name, rng.below(10)) {
        (_, 0) => return value(rng, 4),
        (_, 1) => {
            map.insert("value".into(), chain(60 + rng.below(300)));
            return Value::Object(map);
        }
        (_, 2) => return Value::String(object(rng, 3).to_string()),
        ("read_lines", _) => {
            map.insert("path".into(), Value::String(string(rng)));
            if rng.chance(50) {
                map.insert("limit".into(), number(rng));
            }
            if rng.chance(50) {
                map.insert("mode".into(), Value::String(string(rng)));
            }
        }
        ("write_file", _) => {
            map.insert("path".into(), Value::String(string(rng)));
            map.insert("text".into(), Value::String(string(rng)));
        }
        ("centroid", _) => {
            let points = (0..rng.below(70))
                .map(|_| json!({ "x": number(rng), "y": number(rng) }))
                .collect();
            map.insert("points".into(), Value::Array(points));
        }
        _ => {
            map.insert("value".into(), value(rng, 6));
        }
    }
    if rng.chance(10) {
        map.insert((*rng.pick(KEYS)).to_owned(), value(rng, 2));
    }
    Value::Object(map)
}

fn registry() -> Registry {
    let registry = Registry::builder()
        .rule(Rule::deny("read_lines").when("path", "/secret*").unwrap())
        .rule(Rule::deny("write_file").when("path", "/secret*").unwrap())
        .gate(|call: &CallInfo<'_>| {
            if call.args.get("text").and_then(Value::as_str) == Some("") {
                Decision::Ask {
                    prompt: "write nothing?".into(),
                }
            } else {
                Decision::Allow
            }
        })
        .approver(FnApprover(|request: &ApprovalRequest<'_>| {
            let path = request
                .args
                .get("path")
                .and_then(Value::as_str)
                .unwrap_or("");
            match path.len() % 3 {
                // Tries to slip a forbidden path past the rules.
                0 => Approval::ApproveWith(json!({ "path": "/secret/slipped", "text": "x" })),
                1 => Approval::Approve,
                _ => Approval::Reject {
                    reason: "no".into(),
                },
            }
        }))
        .max_arg_bytes(64 * 1024)
        .spill_dir(std::env::temp_dir().join(format!("dsh-fuzz-{}", std::process::id())))
        .build();
    registry.register::<read_lines>().unwrap().keep();
    registry.register::<write_file>().unwrap().keep();
    registry.register::<echo>().unwrap().keep();
    registry.register::<centroid>().unwrap().keep();
    registry
}

/// What is wrong with `result` for a call of `name` with `args`, if anything.
fn violation(name: &str, args: &Value, id: u128, result: &ToolResult) -> Option<String> {
    if result.invocation_id.as_u128() != id {
        return Some("the result carries another invocation id".into());
    }
    if result.is_error() != (result.status() != Status::Success) {
        return Some(format!(
            "is_error {} with status {:?}",
            result.is_error(),
            result.status()
        ));
    }
    if result.is_error() && result.text().trim().is_empty() {
        return Some("an error result says nothing".into());
    }
    if !result.is_error() && result.value.is_none() {
        return Some("a success without a value".into());
    }
    if FORBIDDEN_RAN.load(Ordering::Relaxed) > 0 {
        return Some("a path the deny rule forbids reached a tool".into());
    }
    if name == "echo" && !result.is_error() && result.value.as_ref() != args.get("value") {
        return Some("echo gave back something else".into());
    }
    None
}

fn shorten(text: String) -> String {
    match text.char_indices().nth(2_000) {
        Some((end, _)) => format!("{}… ({} bytes in all)", &text[..end], text.len()),
        None => text,
    }
}

struct Options {
    iterations: u64,
    seed: u64,
    skip: u64,
}

fn options() -> Result<Options, String> {
    let mut options = Options {
        iterations: 1_000_000,
        seed: 0x5eed,
        skip: 0,
    };
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let value = args
            .next()
            .ok_or_else(|| format!("`{flag}` needs a value"))?;
        let number: u64 = value
            .replace('_', "")
            .parse()
            .map_err(|error| format!("`{flag} {value}`: {error}"))?;
        match flag.as_str() {
            "--iterations" => options.iterations = number,
            "--seed" => options.seed = number,
            "--skip" => options.skip = number,
            other => {
                return Err(format!(
                    "unknown option `{other}`; use --iterations N, --seed N, --skip N"
                ));
            }
        }
    }
    Ok(options)
}

fn main() -> ExitCode {
    let options = match options() {
        Ok(options) => options,
        Err(message) => {
            eprintln!("fuzz: {message}");
            return ExitCode::from(2);
        }
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .expect("a runtime");
    let registry = registry();
    let started = Instant::now();
    let failures = runtime.block_on(async {
        let mut failures = 0u64;
        let mut succeeded = 0u64;
        let mut last_report = Instant::now();
        for iteration in options.skip..options.skip + options.iterations {
            // One generator per iteration: any iteration replays alone.
            let mut rng = Rng(options.seed ^ iteration.wrapping_mul(0x2545_f491_4f6c_dd1d));
            let name = if rng.chance(3) {
                string(&mut rng)
            } else {
                (*rng.pick(NAMES)).to_owned()
            };
            let args = args(&mut rng, &name);
            let shown = shorten(args.to_string());
            // What `echo` must give back: the arguments as the tool reads them.
            let sent = match (&args, name == "echo") {
                (_, false) => Value::Null,
                (Value::String(text), true) => serde_json::from_str(text).unwrap_or(Value::Null),
                (args, true) => args.clone(),
            };
            let call = ToolCall::new(name.clone(), args);
            let id = call.id().as_u128();
            let result = registry.call_with(call).await;
            succeeded += u64::from(!result.is_error());
            if let Some(problem) = violation(&name, &sent, id, &result) {
                failures += 1;
                FORBIDDEN_RAN.store(0, Ordering::Relaxed);
                println!(
                    "FAILURE: {problem}\n  reproduce: cargo run --release --example fuzz -- --seed {} --skip {iteration} --iterations 1\n  tool: {:?}\n  args: {shown}\n  result: {}",
                    options.seed,
                    shorten(name.clone()),
                    shorten(result.text())
                );
            }
            if last_report.elapsed().as_secs() >= 30 {
                last_report = Instant::now();
                let done = iteration - options.skip + 1;
                eprintln!(
                    "{done} executions, {:.0}/s",
                    done as f64 / started.elapsed().as_secs_f64()
                );
            }
        }
        (failures, succeeded)
    });
    let (failures, succeeded) = failures;
    let elapsed = started.elapsed().as_secs_f64();
    println!(
        "{} executions in {elapsed:.1} s: {:.0} executions per second; {succeeded} succeeded, the rest were refused or failed as they should; {failures} failures (seed {})",
        options.iterations,
        options.iterations as f64 / elapsed,
        options.seed
    );
    if failures == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
