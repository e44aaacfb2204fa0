//! RAWP-DPS tool events: request, stream, result and catalog publish.

pub mod rawp;
pub(crate) mod stream;

use std::borrow::Cow;

use serde::{Deserialize, Serialize};

pub use stream::{Progress, StreamChunk, StreamType};

/// What a subscriber observes as calls happen: the request, each streamed
/// chunk, and the result; and the catalog when it changes. Subscribers get a
/// shared reference: they observe and cannot change anything.
///
/// [`Event::to_rawp`] gives the RAWP-DPS wire form of the events the spec names.
#[derive(Clone, Debug, PartialEq)]
pub enum Event {
    /// A call was asked for, before anything ran.
    Request {
        /// The call's id (UUID v4).
        invocation_id: uuid::Uuid,
        /// The name the model called (maybe an alias, maybe unknown);
        /// borrowed when it is the name of a tool known at compile time.
        tool_name: Cow<'static, str>,
        /// The called tool's declared version, when it has one.
        tool_version: Option<String>,
        /// The raw arguments, shared with the call rather than copied.
        input: std::sync::Arc<serde_json::Value>,
        /// The batch the call belongs to, if any.
        parallel_group_id: Option<uuid::Uuid>,
        /// Who made the call, without the token's claims; `None` for the
        /// host's own calls ([`Principal::host`](crate::Principal::host)).
        principal: Option<crate::Caller>,
    },
    /// The permission stage decided a call, on its arguments as they run:
    /// path arguments resolved against the host's roots, a JSON string
    /// parsed, an approver's substitute read and decided again. Comes after
    /// the request, which holds the arguments as the model spelt them,
    /// whenever the request alone does not tell what was decided: for a
    /// refusal, an approval, and an allow of rewritten arguments. A plain
    /// allow of the arguments as sent, and a call stopped before it was
    /// decided (an unknown tool, invalid arguments), have none.
    Decided {
        /// The call's id.
        invocation_id: uuid::Uuid,
        /// The tool's canonical name, borrowed for a tool whose name is
        /// known at compile time.
        tool_name: Cow<'static, str>,
        /// The arguments the decision was made on, shared with the call
        /// rather than copied.
        args: std::sync::Arc<serde_json::Value>,
        /// What was decided; a refusal's reason is in the call's result.
        verdict: Verdict,
    },
    /// A tool streamed a chunk.
    Stream(StreamChunk),
    /// A value passed the output gate and every post-execute hook: what
    /// replay needs to project the same content and card again.
    Executed {
        /// The call's id.
        invocation_id: uuid::Uuid,
        /// The tool's canonical name, borrowed for a tool whose name is
        /// known at compile time.
        tool_name: Cow<'static, str>,
        /// The validated arguments (an approver's override, if it gave one),
        /// shared with the call rather than copied.
        args: std::sync::Arc<serde_json::Value>,
        /// The canonical value render and present receive, shared with the
        /// call rather than copied.
        value: std::sync::Arc<serde_json::Value>,
        /// Whether `execute` or a post-execute hook produced the value.
        source: ValueSource,
        /// Whether the call is top-level, so present runs and the result has a card.
        top_level: bool,
        /// The content a post-execute hook put in place of the render's, if one did.
        replaced_content: Option<Vec<crate::value::content::ContentBlock>>,
        /// The context blocks post-execute hooks added after the content.
        context: Vec<crate::value::content::ContentBlock>,
        /// The card the value was presented with where the tool really ran:
        /// a proxied dsh server's own card, read from its result's `_meta`
        /// and checked, which present shows in place of the generic card.
        /// Recorded here, with the value, so the card stays a function of
        /// what was recorded and a replay shows it without the server.
        /// `None` for every other call, and when a post-execute hook
        /// replaced the value (the remote card shows the value it replaced).
        remote_card: Option<std::sync::Arc<crate::value::card::Card>>,
        /// The content a proxied server rendered the structured value as
        /// (its text beside its `structuredContent`), which the model sees
        /// in place of the value's default rendering. Recorded, like the
        /// card, so a replay gives it without the server. `None` for every
        /// other call, and when a post-execute hook replaced the value.
        remote_content: Option<Vec<crate::value::content::ContentBlock>>,
    },
    /// A call ended, whatever its status.
    Result(std::sync::Arc<crate::value::result::ToolResult>),
    /// Content over its tool's limit could not be saved to its spill file:
    /// the model got the preview and why the rest is missing. Comes before
    /// the call's result; a replay, which writes nothing, skips the call.
    SpillFailed {
        /// The call's id.
        invocation_id: uuid::Uuid,
        /// The tool's canonical name, borrowed for a tool whose name is
        /// known at compile time.
        tool_name: Cow<'static, str>,
        /// Why the file could not be saved.
        error: String,
    },
    /// A top-level call passed its checks and is about to run: the card a UI
    /// shows while it runs (the tool's `present_call`, or the generic card
    /// without an output).
    Running {
        /// The call's id.
        invocation_id: uuid::Uuid,
        /// The tool's canonical name, borrowed for a tool whose name is
        /// known at compile time.
        tool_name: Cow<'static, str>,
        /// The card to show until the result's card replaces it.
        card: crate::value::card::Card,
    },
    /// The tool catalog, published at session start and again whenever a
    /// tool's status or the diagnostics change (`tool.catalog.publish`).
    Catalog(crate::value::event::rawp::CatalogPublish),
}

/// What the permission stage decided about a call ([`Event::Decided`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// The call runs: the default, the rules, the gates and the guards
    /// allowed it.
    Allowed,
    /// The call runs because the host's approver approved it.
    Approved,
    /// The call does not run: denied, rejected by the approver, or asking
    /// with no approver to answer. The result says which and why.
    Refused,
}

/// Where a call's canonical value came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ValueSource {
    /// The tool's `execute`.
    Execute,
    /// A post-execute hook's `AcceptValue`.
    PostExecute,
}
