//! Cache hints on the lists a server returns (`tools/list`, `prompts/list`,
//! `resources/list`, `resources/templates/list`).
//!
//! Protocol 2026-07-28 requires two fields on each: `ttlMs`, how long a
//! client may treat the result as fresh, and `cacheScope`, whether a cached
//! copy may be shared across authorization contexts. A dsh server says
//! `ttlMs: 0` and `cacheScope: "private"`: a list changes whenever a tool is
//! registered, dropped or loaded, and `list_changed`, not a clock, is what
//! tells a client so. Older clients ignore the two fields.
//!
//! What a client can cache on is the list's version: `tools/list` carries
//! `_meta["dsh/listVersion"]` ([`LIST_VERSION_META_KEY`]), the SHA-256 of the
//! canonical JSON of the tools it lists (`sha256:HEX`). The tools are sorted
//! by name with their keys in a fixed order, so the same tools give the same
//! version in any session, on any replica, whatever the order they were
//! registered in: a client that holds a list of that version holds this one.

use rmcp::model::{CacheScope, ListToolsResult, MetaObject, Tool};

/// The `_meta` key of a `tools/list` result's version: the SHA-256 of the
/// canonical JSON of the tools it lists (`sha256:HEX`). The same tools give
/// the same version in any session, on any replica, whatever the order they
/// were registered in, so a client that holds a list of that version holds
/// this one. The result's `ttlMs` is 0 and its `cacheScope` `private`: a
/// list changes when tools are registered, dropped or loaded, and
/// `list_changed` is what says so.
pub use crate::value::wire_keys::META_LIST_VERSION as LIST_VERSION_META_KEY;

/// How long a list may be treated as fresh: not at all (see the module docs).
pub(crate) const TTL_MS: u64 = 0;

/// Who may share a cached list: only the caller it was sent to.
pub(crate) const SCOPE: CacheScope = CacheScope::Private;

/// The `tools/list` result for `tools` (sorted by name), with its cache
/// hints and version.
pub(crate) fn tools_list(tools: Vec<Tool>) -> ListToolsResult {
    let listed = serde_json::to_value(&tools).unwrap_or_default();
    let mut meta = MetaObject::default();
    meta.0.insert(
        LIST_VERSION_META_KEY.to_owned(),
        crate::export::digest::canonical_hash(&listed).into(),
    );
    let mut result = ListToolsResult::with_all_items(tools)
        .with_ttl_ms(TTL_MS)
        .with_cache_scope(SCOPE);
    result.meta = Some(meta);
    result
}
