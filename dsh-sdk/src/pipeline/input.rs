//! Stage 2, input: the arguments within the limits, against the input
//! schema (every violation at once), their path arguments resolved (and
//! rewritten to the resolved form, `crate::value::path`), through serde, then the
//! tool's own `validate_input`. A panic in the arguments' `Deserialize` or
//! in `validate_input` refuses them too.

use std::panic::AssertUnwindSafe;
use std::sync::Arc;

use serde_json::Value;

use super::stop::{InputError, Stop};
use crate::tool::Exec;
use crate::tool::panic_message;
use crate::tool::{Entry, PrepareError, Prepared};
use crate::value::path::Roots;
use crate::value::schema::limits::{self, Limits, drop_deep};

/// The arguments as a tool reads them, within the registry's limits: a
/// JSON string holding an object is parsed (see [`normalize_args`]), and
/// checked again, since parsing can nest deeper than the string was.
pub(super) fn bounded(limits: &Limits, args: Value) -> Result<Value, InputError> {
    let args = refuse_over(limits, args)?;
    if !args.is_string() {
        return Ok(args);
    }
    refuse_over(limits, crate::value::schema::normalize_args(args))
}

/// `args`, unless they break the argument limits: then they are dropped
/// without recursion, however deep.
pub(super) fn refuse_over(limits: &Limits, args: Value) -> Result<Value, InputError> {
    match limits::check(&args, limits.max_arg_depth, limits.max_arg_bytes) {
        Ok(()) => Ok(args),
        Err(exceeded) => {
            drop_deep(args);
            Err(InputError::Exceeded(exceeded))
        }
    }
}

/// How `args` break the argument limits, if they do.
pub(super) fn over_limits(limits: &Limits, args: &Value) -> Option<limits::Exceeded> {
    limits::check(args, limits.max_arg_depth, limits.max_arg_bytes).err()
}

/// The arguments a call was read into.
pub(super) struct Read {
    /// What the tool will read.
    pub(super) args: Arc<Value>,
    /// The tool's arguments, deserialized.
    pub(super) prepared: Prepared,
    /// Whether `args` differ from what the model sent: a JSON string
    /// parsed, a path resolved.
    pub(super) rewritten: bool,
}

/// Arguments within the limits, parsed when sent as a string, then
/// checked, their paths resolved: what the tool will read.
pub(super) fn read(
    limits: &Limits,
    roots: &Roots,
    entry: &Entry,
    args: Arc<Value>,
    exec: &Exec,
) -> Result<Read, Stop> {
    let invalid = |error| Stop::InvalidArguments {
        tool: entry.def.name().to_owned(),
        error,
        approved: false,
    };
    // Within the limits already (the spine checked them first): only a
    // string the model sent in place of an object is parsed and checked.
    let parsed = args.is_string();
    let mut args = if parsed {
        Arc::new(bounded(limits, Arc::unwrap_or_clone(args)).map_err(invalid)?)
    } else {
        args
    };
    let (prepared, resolved) = check(entry, roots, &mut args, exec).map_err(invalid)?;
    Ok(Read {
        args,
        prepared,
        rewritten: parsed || resolved,
    })
}

/// Schema, paths resolved (`args` rewritten to their resolved form), serde,
/// then the tool's own check: the call, ready to run, and whether a path
/// was rewritten.
pub(super) fn check(
    entry: &Entry,
    roots: &Roots,
    args: &mut Arc<Value>,
    exec: &Exec,
) -> Result<(Prepared, bool), InputError> {
    let violations = entry.input.violations(args);
    if !violations.is_empty() {
        return Err(InputError::Schema(violations));
    }
    let mut resolved_any = false;
    if !entry.paths.is_empty()
        && let Some(resolved) = entry
            .paths
            .resolve(roots, args)
            .map_err(|error| InputError::Path(Box::new(error)))?
    {
        *args = Arc::new(resolved);
        resolved_any = true;
    }
    let args: &Value = args;
    let prepared = std::panic::catch_unwind(AssertUnwindSafe(|| entry.handler.prepare(args, exec)))
        .map_err(|panic| InputError::DeserializePanicked(panic_message(panic.as_ref())))?;
    let prepared = prepared.map_err(|error| match error {
        PrepareError::Deserialize(error) => InputError::Deserialize(error),
        PrepareError::Invalid { message, code } => InputError::Invalid { message, code },
        PrepareError::ValidatePanicked(message) => InputError::ValidatePanicked(message),
    })?;
    Ok((prepared, resolved_any))
}
