//! Every name dsh-kit writes into other people's protocols: the `_meta`
//! keys of MCP tools and results, and the `ui://` addresses of the card
//! views. One prefix, [`PREFIX`] (`dsh/`), one style (camelCase after the
//! prefix), and nothing else: a client switches on these names, so they
//! live here and nowhere else.
//!
//! The MCP Apps keys are the extension's own (SEP-1865,
//! `io.modelcontextprotocol/ui`), written as its specification writes them.
//!
//! | key | where | what |
//! |-----|-------|------|
//! | [`META_VERSION`] `dsh/version` | tool | the tool's version |
//! | [`META_SCOPES`] `dsh/scopes` | tool | the OAuth scopes a caller needs |
//! | [`META_FAILURE_SCHEMA`] `dsh/failureSchema` | tool | the schema of its declared failures |
//! | [`META_INPUT_EXAMPLES`] `dsh/inputExamples` | tool | its example calls |
//! | [`META_CONTRACT`] `dsh/contract` | tool | its [contract hash](crate::export::digest) |
//! | [`META_TASK_SUPPORT`] `dsh/taskSupport` | tool | whether its calls run as tasks |
//! | [`META_STATUS`] `dsh/status` | tool | its status when not `available` |
//! | [`META_STATUS_DESCRIPTION`] `dsh/statusDescription` | tool | why |
//! | [`META_LIST_VERSION`] `dsh/listVersion` | `tools/list` | the list's version |
//! | [`META_FAILURE`] `dsh/failure` | call result | the failure of a failed call |
//! | [`META_CARD`] `dsh/card` | call result | the call's card |
//! | [`VALUES_EXTENSION`] `dsh/values` | client capability | the client reads values as data |
//! | [`CARD_VIEW_URI_PREFIX`] `ui://dsh/cards/` | resource | a tool's card view, `ui://dsh/cards/TOOL` |

/// The prefix of every `_meta` key dsh-kit writes; a tool's own `_meta`
/// keys may not use it.
pub const PREFIX: &str = "dsh/";

/// The `_meta` key of a tool's version.
pub const META_VERSION: &str = "dsh/version";

/// The `_meta` key of the OAuth scopes a caller needs to call the tool
/// (an array of strings; left out when it needs none), so a client can ask
/// its authorization server for them before the call.
pub const META_SCOPES: &str = "dsh/scopes";

/// The `_meta` key of a tool's failure schema: the JSON Schema of the
/// `{"kind", "data"}` of its declared failures.
pub const META_FAILURE_SCHEMA: &str = "dsh/failureSchema";

/// The `_meta` key of a tool's example calls: `[{"input": {…}}…]`, the
/// shape of the Vercel AI SDK's `inputExamples`.
pub const META_INPUT_EXAMPLES: &str = "dsh/inputExamples";

/// The `_meta` key of a failed call's [`Failure`](crate::Failure) in a
/// `CallToolResult`: `{"cause": …, "kind": …, "data": …}`.
pub const META_FAILURE: &str = "dsh/failure";

/// The `_meta` key of a listed tool's [contract hash](crate::export::digest).
pub const META_CONTRACT: &str = "dsh/contract";

/// The `_meta` key of a listed tool's task support (`optional` or
/// `required`; MCP 2025-11-25's `execution.taskSupport`), left out for a
/// tool whose calls never run as tasks.
pub const META_TASK_SUPPORT: &str = "dsh/taskSupport";

/// The `_meta` key of a listed tool's status (`"unavailable"`,
/// `"degraded"`), present only when the tool is not `available`; the reason
/// is under [`META_STATUS_DESCRIPTION`].
pub const META_STATUS: &str = "dsh/status";

/// The `_meta` key of why a listed tool has its status.
pub const META_STATUS_DESCRIPTION: &str = "dsh/statusDescription";

/// The `_meta` key of a `tools/list` result's version: the SHA-256 of the
/// canonical JSON of the tools it lists (`sha256:HEX`).
pub const META_LIST_VERSION: &str = "dsh/listVersion";

/// The `_meta` key of a call result's [`Card`](crate::card::Card), which
/// the card view draws and a dsh proxy passes on.
pub const META_CARD: &str = "dsh/card";

/// The extension a dsh client (a [`McpProxy`](crate::mcp::McpProxy), the
/// `dsh` command) declares in `capabilities.extensions`: it reads results'
/// values as data and hands no model both a value and its render, so every
/// tool's results carry `structuredContent` under a listed `outputSchema`
/// for it, whatever the server's
/// [`ResultShape`](crate::ResultShape), which decides for the hosts
/// that put `content` and `structuredContent` both before a model.
pub const VALUES_EXTENSION: &str = "dsh/values";

/// Where the card views are: `ui://dsh/cards/TOOL`.
pub const CARD_VIEW_URI_PREFIX: &str = "ui://dsh/cards/";

/// MCP Apps: the `_meta` key of a tool's UI metadata, an object whose
/// [`APPS_RESOURCE_URI`] names the tool's view (`_meta.ui.resourceUri`).
pub const APPS_UI: &str = "ui";

/// MCP Apps: the key, inside [`APPS_UI`], of the view's `ui://` address.
pub const APPS_RESOURCE_URI: &str = "resourceUri";

/// MCP Apps: the flat `_meta["ui/resourceUri"]` the extension first
/// specified. Its reference host library (`@modelcontextprotocol/ext-apps`,
/// `getToolUiResourceUri`) still reads it, as deprecated, and hosts built
/// before the nested [`APPS_UI`] form read only it, so a dsh server writes
/// both, with the same address.
pub const APPS_DEPRECATED_RESOURCE_URI: &str = "ui/resourceUri";
