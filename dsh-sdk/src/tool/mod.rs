//! The tool at run time: a registered tool with its types erased to JSON
//! ([`Entry`], [`Handler`]), the host's view of it ([`ToolInfo`]), and its
//! projections (render, present, the running card), computed from the
//! canonical value whenever a caller asks, by a live call and a replay alike.
//!
//! `registry`, `pipeline`, `layer`, `dynamic` and `replay` all depend on this
//! module, and on none of each other's internals.

use std::any::Any;

use futures_util::future::BoxFuture;
use serde_json::Value;

use crate::card::Card;
use crate::content::ContentBlock;
use crate::definition::{ToolDef, Validation};
use crate::error::ToolError;
use crate::exec::Exec;
use crate::schema::Compiled;

mod info;
mod projection;
mod typed;

pub use info::ToolInfo;
pub(crate) use projection::{ProjectError, project, running_card};
pub(crate) use typed::{FieldProbe, Typed, probe_fields, unnamed_field};

/// A registered tool: its definition, compiled schemas and erased body.
pub(crate) struct Entry {
    /// Told apart from a tool registered later under the same name.
    pub(crate) id: u64,
    pub(crate) def: ToolDef,
    pub(crate) input: Compiled,
    pub(crate) output: Compiled,
    /// The JSON Schema of the tool's declared failure shapes, if it has one.
    pub(crate) failure: Option<Value>,
    pub(crate) handler: Box<dyn Handler>,
}

/// Arguments after serde, ready for `validate_input` and `execute`.
pub(crate) type Prepared = Box<dyn Any + Send>;

/// Why arguments that passed the input schema still did not deserialize (a
/// custom `Deserialize`, say), in serde's words. The schema has already
/// named, with a pointer, every shape error it can see.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub(crate) struct PrepareError(pub(crate) serde_json::Error);

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
    /// Deserializes arguments that passed the input schema.
    fn prepare(&self, args: &Value) -> Result<Prepared, PrepareError>;
    /// The tool's own check of its arguments.
    fn validate(&self, args: &Prepared, exec: &Exec) -> Validation;
    /// Runs the tool and serializes its output to the canonical value.
    fn execute(&self, args: Prepared, exec: Exec) -> BoxFuture<'static, Result<Value, ToolError>>;
    /// Renders, and presents when `present` is set, from the raw args and the canonical value.
    fn project(&self, args: &Value, value: &Value, present: bool) -> Result<Projection, ReadError>;
    /// The card shown while a call runs, from the raw args; `None` for the
    /// generic card, also when the arguments do not deserialize.
    fn present_call(&self, args: &Value) -> Option<Card> {
        let _ = args;
        None
    }
    /// Whether the tool was made at run time (`dynamic.rs`) rather than by a type.
    fn is_dynamic(&self) -> bool {
        false
    }
    /// Whether the tool presents its own card.
    fn presents(&self) -> bool {
        false
    }
    /// The JSON Schema of the tool's declared failure shapes, if it has one.
    fn failure_schema(&self) -> Option<Value> {
        None
    }
}

/// What render and present made of a value.
pub(crate) struct Projection {
    pub(crate) content: Vec<ContentBlock>,
    pub(crate) card: Option<Card>,
}
