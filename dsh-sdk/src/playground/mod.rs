//! A local web playground for any [`Registry`](crate::Registry): browse the catalog, call
//! tools from forms generated from their input schemas, see what the model
//! sees beside the card a UI shows, watch every call's events live, answer
//! approvals, and open and replay session logs.
//!
//! Needs the `playground` cargo feature.
//!
//! ```no_run
//! use dsh_kit::playground::{PageApprover, Playground};
//! use dsh_kit::prelude::*;
//! use dsh_kit::Registry;
//!
//! /// Greet someone by name.
//! #[tool(read_only)]
//! async fn greet(
//!     /// The name to greet
//!     name: String,
//! ) -> String {
//!     format!("Hello, {name}!")
//! }
//!
//! #[tokio::main]
//! async fn main() -> Result<(), Box<dyn std::error::Error>> {
//!     // Calls that ask for approval ask in the page.
//!     let approver = PageApprover::new();
//!     let registry = Registry::builder().approver(approver.clone()).build();
//!     registry.register::<greet>()?.keep();
//!     let server = Playground::new(registry)
//!         .approver(approver)
//!         .serve("127.0.0.1:3080".parse()?)
//!         .await?;
//!     println!("open {}", server.url());
//!     server.wait().await?;
//!     Ok(())
//! }
//! ```
//!
//! The page:
//!
//! - **Catalog**: every tool with its description, flags, category, status
//!   and diagnostics, refreshed whenever the pool or the catalog changes.
//! - **Call form**, generated from the tool's input schema: required fields,
//!   enums as selects, numbers with their bounds, nested objects and arrays.
//!   The page checks what it can; the server then reports the violations
//!   the pipeline's own schema check finds ([`ToolInfo::violations`]), each
//!   shown at its field, and runs the call through the pipeline.
//! - **Result**: the content the model sees beside the card, with the status,
//!   the duration and the kind of error, and the call's trace as a
//!   waterfall: its `execute_tool` span and the spans and events inside it
//!   (the permission decision, an approval, execute, what stopped it),
//!   recorded by a `tracing` subscriber of the call's own.
//! - **Events**: `tool.invoke.request`, `tool.invoke.stream`,
//!   `tool.invoke.result` and `tool.catalog.publish` (server-sent events) for
//!   every call of the registry, from the page or from anywhere else (a test,
//!   an MCP client of the same registry), with the running call's card.
//! - **Approvals**: a [`PageApprover`] parks each call that asks until the
//!   page answers, or its timeout rejects it.
//! - **Session log**: open a JSONL [session log](crate::log) by path or
//!   upload, step through its calls with their cards, [replay](crate::log::replay)
//!   it, and see every difference highlighted.
//!
//! The server listens on loopback only, answers only requests whose `Host`
//! (and `Origin`, when sent) names a loopback address, and takes changes only
//! as `application/json`, so another web site cannot drive it.
//!
//! [`ToolInfo::violations`]: crate::ToolInfo::violations

mod approve;
mod server;
mod trace;

pub use approve::{PageApprover, PendingApproval};
pub use server::{Playground, PlaygroundError, PlaygroundServer};
