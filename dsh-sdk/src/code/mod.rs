//! Code mode: a registry as a typed API for a model that writes a program,
//! and a sandbox that runs the program, each tool call it makes going
//! through the pipeline as its caller.
//!
//! A model that writes one short program against a tool API does in one
//! step what takes it many turns of one call each, and sees only what the
//! program returns. Here the API is typed both ways: [`declarations`]
//! gives TypeScript declarations of every tool a caller may call, its
//! arguments from the input schema, its value from the output schema, its
//! failures from the failure schema, so every call a program makes returns
//! a value the pipeline validated, of a type the program was told.
//!
//! ```
//! use dsh_kit::prelude::*;
//! use dsh_kit::Registry;
//! use dsh_kit::code::{self, Limits};
//!
//! /// The words of a text.
//! #[tool(read_only)]
//! async fn words(text: String) -> Vec<String> {
//!     text.split_whitespace().map(str::to_owned).collect()
//! }
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() {
//! let registry = Registry::new();
//! registry.register::<words>().unwrap().keep();
//! registry.register_dynamic(code::tool(registry.host(), Limits::default())).unwrap().keep();
//!
//! let program = r#"
//!     const counts = ["a b", "c d e"].map((text) => tools.words({ text }).value.length);
//!     console.log("counted", counts.length, "texts");
//!     return Math.max(...counts);
//! "#;
//! let result = registry.call("run_code", json!({ "code": program })).await;
//! assert_eq!(result.text(), "counted 2 texts\n3");
//! # }
//! ```
//!
//! - [`runner`]'s [`run`] is the sandbox: QuickJS, embedded, with no I/O,
//!   clock or randomness, within [`Limits`] of time, memory, stack, output
//!   and calls, each passed bound its own [`CodeError`].
//! - [`tool`] makes the `run_code` tool, whose description holds the API;
//!   [`export`] offers it beside the tools or instead of them, in every
//!   provider format, and [`anthropic_programmatic`] lets Anthropic's own
//!   code execution call the tools (programmatic tool calling).
//! - [`replay`](mod@replay) runs a logged program again against its
//!   logged calls, without running a tool, and compares its value byte
//!   for byte.
//!
//! Everything here is behind the `code` feature, which builds QuickJS from C.

mod declarations;
mod error;
mod export;
mod limits;
pub mod replay;
pub mod runner;
mod tool;

pub use declarations::declarations;
pub use error::CodeError;
pub use export::{ANTHROPIC_CODE_EXECUTION, Exposure, anthropic_programmatic, export};
pub use limits::Limits;
pub use runner::{Run, run};
pub use tool::{RUN_CODE, named, outcome, tool};
