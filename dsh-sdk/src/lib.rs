//! Author the tools LLM agents call: one async fn with `#[tool]`.
//!
//! ```
//! use dsh_kit::prelude::*;
//! use dsh_kit::Registry;
//!
//! /// Greet someone by name.
//! #[tool(read_only, concurrency_safe)]
//! async fn greet(
//!     /// The name to greet
//!     name: String,
//! ) -> String {
//!     format!("Hello, {name}!")
//! }
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() {
//! let registry = Registry::new();
//! registry.register::<greet>().unwrap();
//!
//! let result = registry.call("greet", json!({ "name": "Ada" })).await;
//! assert_eq!(result.text(), "Hello, Ada!");
//!
//! let result = registry.call("greet", json!({})).await;
//! assert!(result.is_error());
//! assert_eq!(result.text(), "invalid arguments for `greet`: /name: required property missing");
//! # }
//! ```
//!
//! The macro derives the input schema from the args (here the inline
//! parameters, whose doc comments become descriptions), the output schema from
//! the return type, and a zero-sized type named after the fn that the
//! [`Registry`] takes. The fn itself stays callable as written.
//!
//! Every call goes through one path: resolve the name or alias, validate the
//! raw arguments against the input schema (every violation reported at once,
//! each with its JSON pointer), deserialize, execute, serialize the output to
//! one canonical JSON value, validate it against the output schema, then
//! render the content the model sees and present the card a UI shows.
//!
//! A tool declares its file-system path arguments as [`ToolPath`]; the
//! host sets the directories they may reach
//! ([`RegistryBuilder::path_root`]), and every path is resolved (`..`,
//! `//`, symbolic links) and confined before any rule or approver sees it,
//! then opened through no symbolic link ([`path`]).
//!
//! # Typed failures, end to end
//!
//! An error enum that derives [`ToolFailure`](macro@ToolFailure) (its
//! messages in `#[error]`, its data by serde) is a tool's declared failure
//! shapes. From the `Err(…)` a tool returns, each variant travels as a
//! *kind* (the variant's name) and *data* (what it holds; nothing for a unit
//! variant), never wrapped in its name twice:
//!
//! ```
//! use dsh_kit::prelude::*;
//! use dsh_kit::{Cause, Registry};
//! use dsh_kit::export::Format;
//!
//! /// How a lookup fails.
//! #[derive(ToolFailure, Debug)]
//! enum LookupError {
//!     /// Nothing is filed under the key.
//!     #[error("nothing is filed under `{key}`")]
//!     Missing { key: String },
//!     /// The store is down.
//!     #[error("the store is offline: try again later")]
//!     Offline,
//! }
//!
//! /// Look a key up.
//! #[tool(read_only)]
//! async fn lookup(key: String) -> Result<String, LookupError> {
//!     Err(LookupError::Missing { key })
//! }
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() {
//! let registry = Registry::new();
//! registry.register::<lookup>().unwrap();
//! let result = registry.call("lookup", json!({ "key": "k" })).await;
//! // 1. The result: the message for the model, the failure for the host.
//! assert_eq!(result.text(), "`lookup` failed: nothing is filed under `k`");
//! let failure = result.failure.as_ref().unwrap();
//! assert_eq!(failure.cause, Cause::Tool);
//! assert_eq!(failure.kind.as_deref(), Some("Missing"));
//! assert_eq!(failure.data, Some(json!({ "key": "k" })));
//! // 2. The definition: every export names the kinds in the description the
//! //    model reads; MCP also carries the schema, one branch per variant.
//! let mcp = &registry.export(Format::Mcp)[0];
//! assert!(mcp["description"].as_str().unwrap().ends_with("one of: `Missing`, `Offline`."));
//! let schema = &mcp["_meta"]["dsh/failureSchema"];
//! assert_eq!(schema["oneOf"][0]["properties"]["kind"]["const"], "Missing");
//! # }
//! ```
//!
//! 3. **The event and the log**: the [`Event::Result`](event::Event::Result)
//!    subscribers get is that result, and RAWP-DPS `tool.invoke.result` and the
//!    session log's `result` record carry `"failure": {"cause": "tool", "kind":
//!    "Missing", "data": {"key": "k"}}`; [`log::Log::read`] gives it back as it
//!    was, and a replay skips the call (it never produced a value).
//! 4. **An MCP client** gets a result with `isError: true`, the message as its
//!    text, and the same failure in `_meta["dsh/failure"]`; `tools/list` has
//!    the schema in the tool's `_meta["dsh/failureSchema"]`, which the pair
//!    `{"kind", "data"}` validates against. A [`mcp::McpProxy`] in front of a
//!    dsh server gives its host the same kind and data.
//! 5. **A provider's tool result** ([`provider`]) is the message the model
//!    reads, marked failed the provider's way: Anthropic's `is_error: true`,
//!    Gemini's `{"error": …}`, OpenAI's text starting `Error: ` (its tool
//!    results have no error flag). The model sees the kinds in the tool's
//!    description and the message; the structured failure is for the host.
//!
//! A tool written by hand gives the same with [`ToolError::typed`] and
//! [`ToolError::failure_schema`].
//!
//! A host records every call in a session log with
//! `registry.subscribe(SessionLog::open(path)?.subscriber())` ([`log`]);
//! [`log::replay::replay()`] runs render and present again on the logged values,
//! executing nothing, and reports every byte that comes out differently.

#![forbid(unsafe_code)]

// Lets the macros' `::dsh_kit::…` paths resolve inside this crate too (the
// built-in tool-search tool is a `#[tool]`).
extern crate self as dsh_kit;

// The layers, lowest first; each module depends only on those above it
// in this list (none on a later one), so the crate has no import circle.
//
// How long to wait between attempts (retries, reconnections); it reads
// nothing else of the crate.
mod backoff;
// Values: what a call carries and produces (content, cards, results,
// events, schemas, names, principals, paths).
mod value;
// The conventions' names, and OpenTelemetry export (feature `otel`); it
// reads nothing else of the crate.
pub mod otel;
// What a tool is.
mod tool;
// Skills: instructions served beside the tools.
pub mod skill;
// Whether a call may run; the index that finds deferred tools.
pub mod permission;
pub mod search;
// The pool of registered tools.
mod pool;
// Every stage of a call.
mod pipeline;
// What the model sees of the pool, per provider.
pub mod export;
// Each tool's status and diagnostics; deferred tools and tool search.
pub mod catalog;
// The host's handle on all of the above.
mod registry;
// Front ends.
#[cfg(feature = "code")]
pub mod code;
pub mod log;
#[cfg(feature = "mcp")]
pub mod mcp;
#[cfg(feature = "playground")]
pub mod playground;
pub mod provider;
#[cfg(any(feature = "mcp", feature = "playground"))]
mod served;
// Helpers for tests of tools: purity, and every example call run.
pub mod testing;

#[doc(hidden)]
#[path = "private.rs"]
pub mod __private;

// README.md's snippets, compiled (and run, unless `no_run`) as doctests of
// this crate, so the README cannot drift from the API. Only under `doctest`:
// the README lies outside the package, and a packaged build never reads it.
#[cfg(all(
    doctest,
    feature = "mcp",
    feature = "proxy",
    feature = "oauth",
    feature = "redis",
    feature = "otel",
    feature = "playground",
    feature = "skills"
))]
#[doc = include_str!("../../README.md")]
mod readme {}

pub use backoff::Backoff;
pub use value::{card, event, path, wire_keys};

pub use pipeline::spill::DEFAULT_MAX_RESULT_CHARS;
pub use pipeline::{ToolCall, layer, post_execute};
pub use pool::{ScopedTool, Subscription, ToolHandle};
pub use registry::{CallerView, Registry, RegistryBuilder};
pub use tool::{
    DynamicTool, Exec, ExecBuilder, Icon, IconError, IconTheme, MarkedPresent, MarkedRender,
    MissingState, PresentCallFn, PresentFn, RegisterError, RenderFn, ResultShape, SchemaRole,
    State, TaskSupport, Tool, ToolDef, ToolDefBuilder, ToolError, ToolInfo, Unmarked, Validation,
    client, elicit,
};
pub use value::content::{ContentBlock, EmbeddedResource, joined_text, render_default};
pub use value::names::{Category, OutputType};
pub use value::path::ToolPath;
pub use value::principal::{Caller, Principal};
pub use value::result::{Cause, Failure, MAX_SUMMARY_DATA, Status, ToolResult};
pub use value::schema::header::{HeaderProblem, MAX_SAFE_INTEGER};
pub use value::schema::read_back::ReadBackProblem;
pub use value::schema::{SchemaError, Violation, limits};

pub use dsh_kit_macros::{present, render, tool};

/// The token that cancels a call ([`ToolCall::cancel_on`],
/// [`Exec::cancellation`]), re-exported so a host needs no `tokio-util` of its own.
pub use tokio_util::sync::CancellationToken;

// The contract of a tool fn's types, each a trait and, for the args and the
// output, a derive of the same name.
pub use dsh_kit_macros::{ToolArgs, ToolFailure, ToolOutput};
pub use tool::{
    HeaderParam, IntoBlocks, IntoCard, ToolArgs, ToolContext, ToolFailure, ToolField, ToolOutput,
    ToolReturn,
};

/// `anyhow`, re-exported: a tool may return `anyhow::Result<T>` with nothing
/// but `dsh-kit` in its Cargo.toml.
pub use anyhow;

/// What a tool author needs, in one import: the macros and derives, the
/// call's context and error, what a render and a present build, and the
/// serde and schemars derives an args or output type uses.
///
/// A host's items (`Registry`, `ToolCall`, `ToolResult`, the export
/// formats, the permission rules) are imported by name.
pub mod prelude {
    pub use crate::elicit::{Elicit, Elicitable};
    pub use crate::value::card::{self, Card};
    pub use crate::{
        Category, ContentBlock, Exec, OutputType, Tool, ToolArgs, ToolDef, ToolError, ToolFailure,
        ToolOutput, ToolPath, Validation, present, render, tool,
    };
    pub use serde_json::json;

    // `Serialize`, `Deserialize` and `JsonSchema`: the traits are serde's
    // and schemars'; the derives of the same names are dsh-kit's, which
    // reach serde and schemars through this crate, so a tool crate needs
    // neither as a dependency of its own.
    pub use dsh_kit_macros::{Deserialize, JsonSchema, Serialize};
    pub use serde::de::Deserialize;
    pub use serde::ser::Serialize;
    // schemars has no path to its trait alone: a glob brings the trait,
    // and its derive is shadowed by the one above.
    pub use self::schema_trait::*;
    mod schema_trait {
        pub use schemars::JsonSchema;
    }
}
