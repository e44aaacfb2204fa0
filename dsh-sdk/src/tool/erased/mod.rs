//! The tool at run time: a registered tool with its types erased to JSON
//! ([`Entry`], [`Handler`]), the host's view of it ([`ToolInfo`]), and its
//! projections (render, present, the running card), computed from the
//! canonical value whenever a caller asks, by a live call and a replay alike.
//!
//! `registry`, `pipeline`, `layer`, `dynamic` and `replay` all depend on this
//! module, and on none of each other's internals.

use futures_util::future::BoxFuture;
use serde_json::Value;

use crate::tool::Exec;
use crate::tool::Executed;
use crate::tool::ToolDef;
use crate::tool::ToolError;
use crate::value::card::Card;
use crate::value::content::ContentBlock;
use crate::value::path::slots::PathSlots;
use crate::value::schema::Compiled;

mod enforced;
mod info;
mod projection;
mod typed;

pub(crate) use enforced::{Enforced, RegistryLimits};
pub use info::ToolInfo;
pub(crate) use projection::{ProjectError, project, running_card};
pub(crate) use typed::{FieldProbe, Typed, accepted_fields, probe_fields, unnamed_field};

/// A registered tool: its definition, compiled schemas and erased body.
pub(crate) struct Entry {
    /// Told apart from a tool registered later under the same name.
    pub(crate) id: u64,
    pub(crate) def: ToolDef,
    pub(crate) input: Compiled,
    /// Where the input schema declares file-system paths, resolved before
    /// the call is decided.
    pub(crate) paths: PathSlots,
    /// The limits its calls are held to, said in its exported description.
    pub(crate) enforced: Enforced,
    pub(crate) output: Compiled,
    /// The JSON Schema of the tool's declared failure shapes, if it has one.
    pub(crate) failure: Option<Value>,
    pub(crate) handler: Box<dyn Handler>,
}

/// A call of a tool, its arguments read and checked, not started: the
/// tool's future, which runs nothing until it is polled. Made whole when
/// the arguments are read, so a call allocates once for its arguments and
/// its future together.
pub(crate) type Prepared = BoxFuture<'static, Result<Executed, ToolError>>;

/// Why arguments that passed the input schema still do not make a call.
#[derive(Debug, thiserror::Error)]
pub(crate) enum PrepareError {
    /// serde refused them (a custom `Deserialize`, say), in its words: the
    /// schema has already named, with a pointer, every shape error it can see.
    #[error("{0}")]
    Deserialize(serde_json::Error),
    /// The tool's `validate_input` refused them.
    #[error("{message}")]
    Invalid { message: String, code: i32 },
    /// The tool's `validate_input` panicked.
    #[error("its `validate_input` panicked: {0}")]
    ValidatePanicked(String),
}

/// Why a tool's projection could not read what it projects.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ReadError {
    /// The logged or live canonical value does not fit the output type.
    #[error("the output does not deserialize: {0}")]
    Output(serde_json::Error),
    /// The arguments do not fit the arguments' type any more.
    #[error("the arguments no longer deserialize: {0}")]
    Args(serde_json::Error),
}

/// A tool with its types erased to JSON, so typed and dynamic tools share one pool.
pub(crate) trait Handler: Send + Sync + 'static {
    /// Reads arguments that passed the input schema, runs the tool's own
    /// check of them, and makes the call that runs the tool with them and
    /// serializes its output to the canonical value. A panic in the
    /// arguments' `Deserialize` goes on to the caller; one in the check is
    /// [`PrepareError::ValidatePanicked`].
    fn prepare(&self, args: &Value, exec: &Exec) -> Result<Prepared, PrepareError>;
    /// Renders, and presents when `present` is set, from the raw args and the canonical value.
    fn project(&self, args: &Value, value: &Value, present: bool) -> Result<Projection, ReadError>;
    /// The card shown while a call runs, from the raw args; `None` for the
    /// generic card, also when the arguments do not deserialize.
    fn present_call(&self, args: &Value) -> Option<Card> {
        let _ = args;
        None
    }
    /// Whether the tool's call reads the context it is handed; a tool
    /// that does not is prepared with [`Exec::detached`].
    fn reads_exec(&self) -> bool {
        true
    }
    /// Whether the tool was made at run time (`dynamic.rs`) rather than by a type.
    fn is_dynamic(&self) -> bool {
        false
    }
    /// Whether the tool presents its own card.
    fn presents(&self) -> bool {
        false
    }
    /// Whether the tool renders its own content.
    fn renders(&self) -> bool {
        false
    }
    /// The JSON Schema of the tool's declared failure shapes, if it has one.
    fn failure_schema(&self) -> Option<Value> {
        None
    }
}

/// What render and present made of a value.
pub(crate) struct Projection {
    /// The tool's own rendering; `None` for the default rendering of the
    /// value, made only when the result's content is read
    /// ([`ToolResult::content`](crate::ToolResult::content)).
    pub(crate) content: Option<Vec<ContentBlock>>,
    pub(crate) card: Option<Card>,
}
