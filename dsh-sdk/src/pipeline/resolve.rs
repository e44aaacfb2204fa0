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
    registry: &Pipeline,
    name: &str,
    principal: &Principal,
) -> Result<Arc<Entry>, Stop> {
    match registry.pool.entry(name) {
        Some(entry) => shown(registry, entry, name, principal),
        None => Err(unknown(registry, name, principal)),
    }
}

/// `entry`, looked up as `name`, if `principal` may see it; else the very
/// refusal of a name no tool has, so a caller cannot tell a tool hidden
/// from it from one that does not exist.
pub(super) fn shown(
    registry: &Pipeline,
    entry: Arc<Entry>,
    name: &str,
    principal: &Principal,
) -> Result<Arc<Entry>, Stop> {
    if registry.config.permissions.shows(&entry.def, principal) {
        Ok(entry)
    } else {
        Err(unknown(registry, name, principal))
    }
}

/// No tool `principal` may see is called `name`: the closest it may see.
fn unknown(registry: &Pipeline, name: &str, principal: &Principal) -> Stop {
    Stop::UnknownTool {
        name: shown_name(name).into_owned(),
        closest: closest(registry, name, principal),
    }
}

/// The names of the tools `principal` may see closest to `name`, best
/// first.
pub(crate) fn closest(registry: &Pipeline, name: &str, principal: &Principal) -> Vec<String> {
    let permissions = &registry.config.permissions;
    (registry.pool).closest_where(name, |entry| permissions.shows(&entry.def, principal))
}

/// The catalog's severity rules: `unavailable` or a `fatal` diagnostic
/// blocks the tool; `degraded` or an `error` diagnostic gives warnings for
/// the user, streamed once the call runs.
pub(super) fn warnings(registry: &Pipeline, entry: &Entry) -> Result<Vec<Diagnostic>, Stop> {
    registry
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
pub(super) fn tool_name(registry: &Pipeline, name: &str, principal: &Principal) -> String {
    match registry.pool.entry(name) {
        Some(entry) if registry.config.permissions.shows(&entry.def, principal) => {
            entry.def.name().to_owned()
        }
        _ => shown_name(name).into_owned(),
    }
}
