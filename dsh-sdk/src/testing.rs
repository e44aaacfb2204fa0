//! Test helpers for tool authors: is a tool's projection pure
//! ([`assert_pure`]), and does every example call of a registry's tools
//! still work ([`run_examples`])?
//!
//! ## Pure projections
//!
//! `render`, `present` and `present_call` must give the same bytes for the
//! same arguments and canonical value, every time, in every process: a
//! replay of a session log depends on it, and a prompt cache does too.
//! `#[render]` and `#[present]` refuse at compile time the impurity they can
//! see in the fn's own body (I/O, the clock, randomness, …: their docs list
//! it). They cannot see into the helpers the body calls, what a module
//! imports, or the types it is handed; [`assert_pure`] catches those at test
//! time, by running the projections many times under perturbation and
//! comparing the bytes:
//!
//! ```
//! use dsh_kit::prelude::*;
//! use std::collections::HashMap;
//!
//! #[derive(Serialize, Deserialize, JsonSchema)]
//! struct Counts {
//!     counts: HashMap<String, u32>,
//! }
//!
//! /// Count words.
//! #[tool(render = counts_text)]
//! async fn count(text: String) -> Counts {
//!     let mut counts = HashMap::new();
//!     for word in text.split_whitespace() {
//!         *counts.entry(word.to_owned()).or_insert(0) += 1;
//!     }
//!     Counts { counts }
//! }
//!
//! #[render]
//! fn counts_text(_args: &CountArgs, value: &Counts) -> Vec<ContentBlock> {
//!     // Sorted: iterating the map directly would change order from run to run.
//!     let mut counts: Vec<_> = value.counts.iter().collect();
//!     counts.sort();
//!     let lines: Vec<String> = counts.iter().map(|(word, n)| format!("{word}: {n}")).collect();
//!     vec![ContentBlock::text(lines.join("\n"))]
//! }
//!
//! let output = Counts {
//!     counts: [("a", 2), ("b", 1), ("c", 1), ("d", 4)]
//!         .into_iter()
//!         .map(|(word, n)| (word.to_owned(), n))
//!         .collect(),
//! };
//! dsh_kit::testing::assert_pure::<count>(json!({ "text": "a a b c d d d d" }), &output);
//! ```
//!
//! What it perturbs, run to run:
//!
//! - **hash seeds**: the arguments and the value are deserialized again from
//!   their JSON for every run, as the pipeline and a replay do, so every
//!   `HashMap`/`HashSet` in them, and every one the projection builds, gets a
//!   fresh `RandomState` (and with it another iteration order);
//! - **threads**: runs go on the calling thread and on fresh threads, some at
//!   the same time, so thread ids, thread-locals and stack addresses differ;
//! - **memory**: allocations of varying sizes between runs move heap addresses
//!   (what `{:p}` prints);
//! - **the clock**: the last run comes after a pause ([`PurityCheck::clock_gap`],
//!   1.1 s by default), so a projection that prints the time to the second
//!   differs. The system clock itself cannot be moved from a test: a
//!   projection that prints only the date, say, passes.

pub use crate::tool::testing::*;

use crate::registry::Registry;
use crate::value::result::Cause;

/// One example call that did not succeed.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("`{tool}`, example {index}: {problem}")]
pub struct ExampleFailure {
    /// The tool.
    pub tool: String,
    /// The example's place among the tool's, from 0.
    pub index: usize,
    /// What went wrong: what the failed result said.
    pub problem: String,
    /// How the call failed; [`Cause::InvalidOutput`] for a value that broke
    /// the output schema.
    pub cause: Cause,
}

/// Every example call that failed, each with what its result said.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("{} example call(s) failed:\n{}", .0.len(), list(.0))]
pub struct ExamplesFailed(pub Vec<ExampleFailure>);

fn list(failures: &[ExampleFailure]) -> String {
    failures
        .iter()
        .map(|failure| format!("- {failure}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Calls every example of every tool in `registry`
/// ([`ToolDefBuilder::examples_json`](crate::ToolDefBuilder::examples_json),
/// `#[tool(example(…))]`) through the full pipeline, one at a time in pool
/// order, and reports each that did not succeed: arguments the tool's own
/// check refuses, a refusal, the tool's error, or a value that breaks the
/// output schema (the pipeline's output gate checks each value). The
/// number of calls made is the `Ok` value.
///
/// ```
/// use dsh_kit::prelude::*;
/// use dsh_kit::Registry;
///
/// /// Greet someone by name.
/// #[tool(read_only, example(name = "Ada"))]
/// async fn greet(name: String) -> String {
///     format!("Hello, {name}!")
/// }
///
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// let registry = Registry::new();
/// let _greet = registry.register::<greet>().unwrap();
/// assert_eq!(dsh_kit::testing::run_examples(&registry).await, Ok(1));
/// # }
/// ```
pub async fn run_examples(registry: &Registry) -> Result<usize, ExamplesFailed> {
    let mut failures = Vec::new();
    let mut made = 0;
    for tool in registry.tools() {
        let name = tool.name().to_owned();
        for (index, args) in tool.definition().example_values().into_iter().enumerate() {
            made += 1;
            let result = registry.call(&name, args).await;
            if let Some(failure) = &result.failure {
                failures.push(ExampleFailure {
                    tool: name.clone(),
                    index,
                    problem: result.text(),
                    cause: failure.cause,
                });
            }
        }
    }
    if failures.is_empty() {
        Ok(made)
    } else {
        Err(ExamplesFailed(failures))
    }
}
