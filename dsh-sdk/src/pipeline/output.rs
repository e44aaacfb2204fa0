//! Stage 6, the output gate: a value over the output limits, or that breaks
//! the output schema, never reaches the model.

use serde_json::Value;

use super::stop::OutputError;
use crate::tool::Entry;
use crate::value::schema::limits::{self, Limits, drop_deep};

/// `value`, if it is within the limits and passes the output schema.
pub(super) fn gate(limits: &Limits, entry: &Entry, value: Value) -> Result<Value, OutputError> {
    if let Err(exceeded) = limits::check(&value, limits.max_output_depth, limits.max_output_bytes) {
        drop_deep(value);
        return Err(OutputError::Exceeded(exceeded));
    }
    let violations = entry.output.violations(&value);
    if violations.is_empty() {
        Ok(value)
    } else {
        Err(OutputError::Schema(violations))
    }
}
