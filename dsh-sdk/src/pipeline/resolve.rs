//! Stage 1, resolve: the name or alias to a registered tool; a tool the
//! catalog marks `unavailable`, or with a `fatal` diagnostic, is refused.

use std::borrow::Cow;
use std::sync::Arc;

use super::Pipeline;
use super::stop::Stop;
use crate::event::rawp::Diagnostic;
use crate::tool::Entry;

/// The longest tool name echoed back whole; no valid name comes close.
const SHOWN_NAME_CHARS: usize = 128;

/// The tool called `name`, or why there is none.
pub(super) fn entry(registry: &Pipeline, name: &str) -> Result<Arc<Entry>, Stop> {
    registry.pool.entry(name).ok_or_else(|| Stop::UnknownTool {
        name: shown_name(name).into_owned(),
        closest: registry.pool.closest(name),
    })
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

/// The tool's own name for `name`, or `name` as shown when none matches.
pub(super) fn tool_name(registry: &Pipeline, name: &str) -> String {
    match registry.pool.entry(name) {
        Some(entry) => entry.def.name().to_owned(),
        None => shown_name(name).into_owned(),
    }
}
