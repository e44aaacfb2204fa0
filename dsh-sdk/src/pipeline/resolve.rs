//! Stage 1, resolve: the name or alias to a registered tool the caller may
//! see (a tool hidden from it is refused as one that does not exist); a
//! tool the catalog marks `unavailable`, or with a `fatal` diagnostic, is
//! refused.

use std::borrow::Cow;
use std::sync::Arc;

use super::Pipeline;
use super::stop::Stop;
use crate::tool::Entry;
use crate::value::event::rawp::Diagnostic;
use crate::value::principal::Principal;

/// The longest tool name echoed back whole; no valid name comes close.
const SHOWN_NAME_CHARS: usize = 128;

/// The tool called `name` that `principal` may see, or why there is none.
pub(super) fn entry(
    pipeline: &Pipeline,
    name: &str,
    principal: &Principal,
) -> Result<Arc<Entry>, Stop> {
    match pipeline.pool.entry(name) {
        Some(entry) => shown(pipeline, entry, name, principal),
        None => Err(unknown(pipeline, name, principal)),
    }
}

/// `entry`, looked up as `name`, if `principal` may see it; else the very
/// refusal of a name no tool has, so a caller cannot tell a tool hidden
/// from it from one that does not exist.
pub(super) fn shown(
    pipeline: &Pipeline,
    entry: Arc<Entry>,
    name: &str,
    principal: &Principal,
) -> Result<Arc<Entry>, Stop> {
    if pipeline.config.permissions.shows(&entry.def, principal) {
        Ok(entry)
    } else {
        Err(unknown(pipeline, name, principal))
    }
}

/// No tool `principal` may see is called `name`: the closest it may see.
fn unknown(pipeline: &Pipeline, name: &str, principal: &Principal) -> Stop {
    Stop::UnknownTool {
        name: shown_name(name).into_owned(),
        closest: closest(pipeline, name, principal),
    }
}

/// The names of the tools `principal` may see closest to `name`, best
/// first.
pub(crate) fn closest(pipeline: &Pipeline, name: &str, principal: &Principal) -> Vec<String> {
    let permissions = &pipeline.config.permissions;
    (pipeline.pool).closest_where(name, |entry| permissions.shows(&entry.def, principal))
}

/// The catalog's severity rules: `unavailable` or a `fatal` diagnostic
/// blocks the tool; `degraded` or an `error` diagnostic gives warnings for
/// the user, streamed once the call runs.
pub(super) fn warnings(pipeline: &Pipeline, entry: &Entry) -> Result<Vec<Diagnostic>, Stop> {
    pipeline
        .pool
        .catalog()
        .check(entry.def.name())
        .map_err(|refusal| Stop::Unavailable(Box::new(refusal)))
}

/// `name`, cut to [`SHOWN_NAME_CHARS`] characters with an ellipsis: an
/// unknown name of megabytes is not echoed into results and the log.
pub(super) fn shown_name(name: &str) -> Cow<'_, str> {
    match name.char_indices().nth(SHOWN_NAME_CHARS) {
        None => Cow::Borrowed(name),
        Some((end, _)) => Cow::Owned(format!("{}…", &name[..end])),
    }
}

/// The tool's own name for `name`, or `name` as shown when none matches
/// (or the tool is hidden from `principal`).
pub(super) fn tool_name(pipeline: &Pipeline, name: &str, principal: &Principal) -> String {
    match pipeline.pool.entry(name) {
        Some(entry) if pipeline.config.permissions.shows(&entry.def, principal) => {
            entry.def.name().to_owned()
        }
        _ => shown_name(name).into_owned(),
    }
}
