//! Test helpers for tool authors: is a tool's projection pure
//! ([`assert_pure`]), and does every example call of a registry's tools
//! still work ([`run_examples`])?

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
