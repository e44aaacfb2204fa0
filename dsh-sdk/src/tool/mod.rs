//! What a tool is: the [`Tool`] trait and its [`ToolDef`], the context a call
//! runs in ([`Exec`]), what a tool fails with ([`ToolError`], typed
//! failures), tools made at run time ([`DynamicTool`]), and the erased form
//! the pool keeps (`erased/`: one shape for typed and dynamic tools, and the
//! projections computed from a call's canonical value).
//!
//! Everything above (the permission engine, the pool, the pipeline, the
//! export formats, the front ends) depends on this module; it depends only
//! on the value types (content, cards, results, schemas).

pub mod client;
mod contract;
mod definition;
mod dynamic;
pub mod elicit;
mod erased;
mod error;
mod exec;
mod executed;
pub(crate) mod fixed;
mod icon;
mod project;
pub(crate) mod sync;
pub mod testing;

pub use contract::{
    HeaderParam, IntoBlocks, IntoCard, ToolArgs, ToolContext, ToolFailure, ToolField, ToolOutput,
    ToolReturn,
};
pub use definition::{ResultShape, TaskSupport, Tool, ToolDef, ToolDefBuilder, Validation};
pub use dynamic::{DynamicTool, TOOL_SHADOWED};
pub use erased::ToolInfo;
pub(crate) use erased::{
    Enforced, Entry, FieldProbe, Handler, PrepareError, Prepared, ProjectError, Projection,
    ReadError, RegistryLimits, Typed, accepted_fields, probe_fields, project, running_card,
    unnamed_field,
};
pub use error::{RegisterError, SchemaRole, ToolError};
pub(crate) use error::{hook_panicked, panic_message, with_sources};
pub(crate) use exec::{CallTokens, RunsCalls, Session, StreamSink, Surroundings, WeakPipeline};
pub use exec::{Exec, ExecBuilder, MissingState, State};
pub use executed::Executed;
pub(crate) use executed::Remote;
pub use icon::{Icon, IconError, IconTheme};
pub use project::{MarkedPresent, MarkedRender, PresentCallFn, PresentFn, RenderFn, Unmarked};
