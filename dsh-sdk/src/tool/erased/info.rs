//! [`ToolInfo`]: a registered tool as the host sees it.

use std::fmt;
use std::sync::Arc;

use serde_json::Value;

use super::Entry;
use crate::tool::ToolDef;
use crate::value::card::Card;

/// A registered tool as the host sees it: its definition and schemas.
#[derive(Clone)]
pub struct ToolInfo {
    pub(crate) entry: Arc<Entry>,
}

impl ToolInfo {
    /// Name, description and flags.
    pub fn definition(&self) -> &ToolDef {
        &self.entry.def
    }

    /// The name the model calls.
    pub fn name(&self) -> &str {
        self.entry.def.name()
    }

    /// Whether the tool was made at run time ([`DynamicTool`](crate::DynamicTool))
    /// rather than by a type.
    pub fn is_dynamic(&self) -> bool {
        self.entry.handler.is_dynamic()
    }

    /// The JSON Schema (2020-12) of the arguments.
    pub fn input_schema(&self) -> &Value {
        &self.entry.input.schema
    }

    /// The JSON Schema (2020-12) of the canonical output: `true` (any
    /// value) for a dynamic tool given none.
    pub fn output_schema(&self) -> &Value {
        &self.entry.output.schema
    }

    /// Whether the tool presents its own card (`#[tool(present = …)]`);
    /// otherwise its results show the generic card.
    pub fn presents(&self) -> bool {
        self.entry.handler.presents()
    }

    /// Whether the tool renders its own content (`#[tool(render = …)]`)
    /// rather than showing the model its value.
    pub fn renders(&self) -> bool {
        self.entry.handler.renders()
    }

    /// Every way `args` break the input schema, sorted by JSON pointer: the
    /// check the pipeline's input stage makes first, with the same compiled
    /// schema, for a form that shows each violation at its field.
    pub fn violations(&self, args: &Value) -> Vec<crate::Violation> {
        self.entry.input.violations(args)
    }

    /// The JSON Schema of the tool's declared failure shapes
    /// ([`Tool::failure_schema`](crate::Tool::failure_schema)), if it has one.
    pub fn failure_schema(&self) -> Option<&Value> {
        self.entry.failure.as_ref()
    }

    /// The card a UI shows while a call with `args` runs: the tool's
    /// `present_call`, or else the generic card (title = tool name, input =
    /// `args`, no output). Arguments the tool cannot read, or a
    /// `present_call` that panics, also give the generic card.
    pub fn present_call(&self, args: &Value) -> Card {
        super::running_card(&self.entry, args, || Arc::new(args.clone()))
    }
}

impl fmt::Debug for ToolInfo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolInfo")
            .field("definition", &self.entry.def)
            .finish_non_exhaustive()
    }
}
