//! [`ToolResult`]: what one call produced.

use std::borrow::Cow;
use std::fmt;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use uuid::Uuid;

use crate::value::card::Card;
use crate::value::content::{ContentBlock, joined_text, render_value, rendered_text};
use crate::value::names::OutputType;

/// How a call ended (RAWP-DPS `tool.invoke.result` `status`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// The tool ran and its output passed every gate.
    Success,
    /// The call failed: bad arguments, a refusal, the tool's own error, a panic, a bad output.
    Error,
    /// The call ran out of time.
    Timeout,
    /// The host cancelled the call.
    Cancelled,
}

/// The outcome of one call: what the model sees, the canonical value, and the card.
///
/// The card is read with [`card`](ToolResult::card): the generic card of a
/// tool that presents nothing is built from the arguments and the value only
/// when someone reads it (a UI, the session log, a serializer), so a host
/// that never shows cards never pays for one.
///
/// The content is read with [`content`](ToolResult::content): the content
/// of a tool that renders nothing of its own is the default rendering of
/// its value, made from [`value`](ToolResult::value) when first read, so a
/// host that only reads the value never pays for a copy of it as text.
///
/// How the call ended is one fact, [`failure`](ToolResult::failure): `None`
/// on success; [`status`](ToolResult::status) and
/// [`is_error`](ToolResult::is_error) are read from it.
#[derive(Clone)]
pub struct ToolResult {
    /// The call's id, a UUID v4.
    pub invocation_id: Uuid,
    /// The tool's name, or the name that was asked for when none matched.
    /// Borrowed for a tool whose name is known at compile time.
    pub tool_name: Cow<'static, str>,
    /// What the model sees: see [`content`](ToolResult::content).
    pub(crate) content: ContentSlot,
    /// The canonical output, when the tool succeeded.
    pub value: Option<Value>,
    /// What a UI shows: see [`card`](ToolResult::card).
    pub(crate) card: CardSlot,
    /// How long the call took, when it was timed: a registry times its
    /// calls while something observes it (a subscriber, a session log), or
    /// always with [`time_calls`](crate::RegistryBuilder::time_calls);
    /// otherwise zero, the call having read no clock.
    pub duration: Duration,
    /// Whether the content was cut short (the full text spilled to a file).
    pub truncated: bool,
    /// How a receiver should read the output (RAWP-DPS `output_type`),
    /// resolved by [`ToolDef::resolve_output_type`](crate::ToolDef::resolve_output_type).
    pub output_type: OutputType,
    /// The batch the call ran in, if any.
    pub parallel_group_id: Option<Uuid>,
    /// Why the call failed, for a host to switch on: set on every failed
    /// result, `None` on success.
    pub failure: Option<Failure>,
}

/// Why a call failed, typed: the stage that stopped it and, when the tool's
/// own error stopped it, that error's kind and value.
///
/// Serializes as `{"cause": "tool", "kind": "NoMatchesFound", "data": …}`;
/// `kind` and `data` are left out when absent.
///
/// ```
/// use dsh_kit::{Cause, Failure};
///
/// let failure = Failure::tool(Some("NoMatchesFound".into()), Some(serde_json::json!({ "NoMatchesFound": "fn main" })));
/// assert_eq!(
///     serde_json::to_value(&failure).unwrap(),
///     serde_json::json!({ "cause": "tool", "kind": "NoMatchesFound", "data": { "NoMatchesFound": "fn main" } })
/// );
/// assert_eq!(Failure::new(Cause::InvalidArguments).kind, None);
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Failure {
    /// What stopped the call.
    pub cause: Cause,
    /// The tool's own failure kind: the variant name of its error
    /// (`NoMatchesFound`), when the error names one ([`ToolError::with_kind`]).
    ///
    /// [`ToolError::with_kind`]: crate::ToolError::with_kind
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// The tool's error value, serialized, when it carries one
    /// ([`ToolError::with_data`]).
    ///
    /// [`ToolError::with_data`]: crate::ToolError::with_data
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
}

impl Failure {
    /// A failure of the pipeline's own: no kind, no data.
    pub fn new(cause: Cause) -> Self {
        Failure {
            cause,
            kind: None,
            data: None,
        }
    }

    /// The tool's own error, with its kind and value if it has them.
    pub fn tool(kind: Option<String>, data: Option<Value>) -> Self {
        Failure {
            cause: Cause::Tool,
            kind,
            data,
        }
    }

    /// The failure's kind and data as one compact line for the model, put
    /// after the message in every format a model reads (MCP `content`, each
    /// provider's tool result), since hosts hand their models no `_meta`:
    /// `failure: NoMatchesFound {"path":"src/lib.rs"}`. The data of an
    /// externally tagged variant is written without the tag the kind
    /// already says, and cut at [`MAX_SUMMARY_DATA`] characters. `None` for
    /// a failure with neither kind nor data: the pipeline's own failures,
    /// whose message says all.
    ///
    /// ```
    /// use dsh_kit::Failure;
    /// use serde_json::json;
    ///
    /// let failure = Failure::tool(
    ///     Some("NoMatchesFound".into()),
    ///     Some(json!({ "NoMatchesFound": { "path": "src/lib.rs" } })),
    /// );
    /// assert_eq!(failure.summary().unwrap(), r#"failure: NoMatchesFound {"path":"src/lib.rs"}"#);
    /// let unit = Failure::tool(Some("Busy".into()), Some(json!("Busy")));
    /// assert_eq!(unit.summary().unwrap(), "failure: Busy");
    /// ```
    pub fn summary(&self) -> Option<String> {
        let data = match (&self.kind, &self.data) {
            (_, None) => None,
            (Some(kind), Some(Value::String(text))) if text == kind => None,
            (Some(kind), Some(Value::Object(tagged))) if tagged.len() == 1 => {
                match tagged.get(kind.as_str()) {
                    Some(inner) => Some(inner),
                    None => self.data.as_ref(),
                }
            }
            (_, Some(data)) => Some(data),
        };
        let data = data.map(|data| {
            let json = data.to_string();
            match json.char_indices().nth(MAX_SUMMARY_DATA) {
                Some((end, _)) => format!("{}…", &json[..end]),
                None => json,
            }
        });
        match (&self.kind, data) {
            (None, None) => None,
            (Some(kind), None) => Some(format!("failure: {kind}")),
            (None, Some(data)) => Some(format!("failure: {data}")),
            (Some(kind), Some(data)) => Some(format!("failure: {kind} {data}")),
        }
    }
}

/// The most characters of a failure's data its [summary](Failure::summary)
/// carries: the model gets the gist; the whole value is in the result.
pub const MAX_SUMMARY_DATA: usize = 1_000;

impl Cause {
    /// Every cause, in the order the enum declares them.
    ///
    /// ```
    /// use dsh_kit::Cause;
    ///
    /// assert!(Cause::ALL.contains(&Cause::Timeout));
    /// ```
    pub const ALL: [Cause; 13] = [
        Cause::UnknownTool,
        Cause::Unavailable,
        Cause::InvalidArguments,
        Cause::Denied,
        Cause::Rejected,
        Cause::Tool,
        Cause::Panicked,
        Cause::HookPanicked,
        Cause::Timeout,
        Cause::Cancelled,
        Cause::InvalidOutput,
        Cause::Blocked,
        Cause::RenderFailed,
    ];

    /// Its name in snake case, as it serializes (`invalid_arguments`): the
    /// `error.type` of the call's span and metrics.
    pub fn name(self) -> &'static str {
        match self {
            Cause::UnknownTool => "unknown_tool",
            Cause::Unavailable => "unavailable",
            Cause::InvalidArguments => "invalid_arguments",
            Cause::Denied => "denied",
            Cause::Rejected => "rejected",
            Cause::Tool => "tool",
            Cause::Panicked => "panicked",
            Cause::HookPanicked => "hook_panicked",
            Cause::Timeout => "timeout",
            Cause::Cancelled => "cancelled",
            Cause::InvalidOutput => "invalid_output",
            Cause::Blocked => "blocked",
            Cause::RenderFailed => "render_failed",
        }
    }

    /// Whether a call that failed this way was refused before its tool
    /// ran: unknown, unavailable, invalid arguments, denied or rejected.
    pub fn is_refusal(self) -> bool {
        matches!(
            self,
            Cause::UnknownTool
                | Cause::Unavailable
                | Cause::InvalidArguments
                | Cause::Denied
                | Cause::Rejected
        )
    }

    /// How a call that failed this way ended: `timeout` and `cancelled` for
    /// those causes, `error` for every other.
    pub fn status(self) -> Status {
        match self {
            Cause::Timeout => Status::Timeout,
            Cause::Cancelled => Status::Cancelled,
            _ => Status::Error,
        }
    }
}

/// What stopped a failed call: the tool's own error, or a stage of the pipeline.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Cause {
    /// No tool has the name that was called.
    UnknownTool,
    /// The catalog marks the tool `unavailable`, or has a `fatal` diagnostic for it.
    Unavailable,
    /// The arguments broke the input schema, did not deserialize, or failed
    /// the tool's own `validate_input` (an approver's override included).
    InvalidArguments,
    /// A permission rule or gate denied the call, or it needed an approval
    /// no one could give.
    Denied,
    /// The host's approver rejected the call.
    Rejected,
    /// The tool's body returned an error.
    Tool,
    /// The tool's body panicked.
    Panicked,
    /// A host hook panicked: a post-execute hook, the approver, or an execute
    /// layer. (A panicking gate or guard denies the call instead.)
    HookPanicked,
    /// The call ran out of time.
    Timeout,
    /// The host cancelled the call.
    Cancelled,
    /// The tool's output (or a post-execute hook's replacement) broke the output schema.
    InvalidOutput,
    /// A post-execute hook blocked the result.
    Blocked,
    /// Render or present failed or panicked.
    RenderFailed,
}

impl ToolResult {
    /// How the call ended, read from [`failure`](Self::failure): `success`
    /// without one, `timeout` and `cancelled` for those causes, `error`
    /// for every other.
    pub fn status(&self) -> Status {
        match &self.failure {
            None => Status::Success,
            Some(failure) => failure.cause.status(),
        }
    }

    /// Whether the call failed: the content reports the failure.
    pub fn is_error(&self) -> bool {
        self.failure.is_some()
    }

    /// What the model sees: the tool's rendering of the value, or, for a
    /// tool that renders nothing of its own, the value's default rendering
    /// (a string as it is, anything else as JSON), made from
    /// [`value`](ToolResult::value) when first read; for a failure, the
    /// message that says what went wrong.
    ///
    /// ```
    /// use dsh_kit::prelude::*;
    /// use dsh_kit::Registry;
    ///
    /// /// Count the words of a text.
    /// #[tool]
    /// async fn words(
    ///     /// The text
    ///     text: String,
    /// ) -> usize {
    ///     text.split_whitespace().count()
    /// }
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// let registry = Registry::new();
    /// registry.register::<words>().unwrap();
    /// let result = registry.call("words", json!({ "text": "one two three" })).await;
    /// assert_eq!(result.value, Some(json!(3)));
    /// assert_eq!(result.content(), [ContentBlock::text("3")]);
    /// # }
    /// ```
    pub fn content(&self) -> &[ContentBlock] {
        self.content
            .blocks
            .get_or_init(|| self.value.as_ref().map(render_value).unwrap_or_default())
    }

    /// Sets what the model sees, in place of the content the call made.
    pub fn set_content(&mut self, content: Vec<ContentBlock>) {
        self.content = ContentSlot::ready(content);
    }

    /// The content, owned; a string value's default rendering is the
    /// string itself, not a copy.
    pub fn into_content(self) -> Vec<ContentBlock> {
        let ToolResult { content, value, .. } = self;
        content.blocks.into_inner().unwrap_or_else(|| match value {
            Some(Value::String(text)) => vec![ContentBlock::text(text)],
            Some(value) => render_value(&value),
            None => Vec::new(),
        })
    }

    /// The text of every text block, joined by newlines.
    pub fn text(&self) -> String {
        match (self.content.blocks.get(), &self.value) {
            (Some(blocks), _) => joined_text(blocks),
            // Not made yet: the default rendering's one text block, read
            // without making the content.
            (None, Some(value)) => rendered_text(value).into_owned(),
            (None, None) => String::new(),
        }
    }

    /// What a UI shows for the call: the tool's own card, or the generic
    /// card of a top-level call of a tool that presents nothing; `None` for
    /// a nested call and for a failure.
    ///
    /// ```
    /// use dsh_kit::prelude::*;
    /// use dsh_kit::Registry;
    ///
    /// /// Echo the text back.
    /// #[tool]
    /// async fn echo(
    ///     /// The text
    ///     text: String,
    /// ) -> String {
    ///     text
    /// }
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// let registry = Registry::new();
    /// registry.register::<echo>().unwrap();
    /// let result = registry.call("echo", json!({ "text": "hi" })).await;
    /// let card = serde_json::to_value(result.card().unwrap()).unwrap();
    /// assert_eq!(card["card"], "generic");
    /// assert_eq!(card["output"], "hi");
    /// # }
    /// ```
    pub fn card(&self) -> Option<&Card> {
        self.card
            .shown
            .get_or_init(|| {
                let args = self.card.args.as_ref()?;
                Some(Box::new(Card::generic(
                    self.tool_name.clone(),
                    Arc::clone(args),
                    self.value.clone(),
                )))
            })
            .as_deref()
    }

    /// Sets the card a UI shows, in place of any other.
    pub fn set_card(&mut self, card: Option<Card>) {
        self.card = CardSlot::ready(card);
    }

    /// A failed call whose content is `message`.
    pub(crate) fn failed(
        invocation_id: Uuid,
        tool_name: impl Into<Cow<'static, str>>,
        failure: Failure,
        message: impl Into<String>,
        duration: Duration,
    ) -> Self {
        ToolResult {
            invocation_id,
            tool_name: tool_name.into(),
            content: ContentSlot::ready(vec![ContentBlock::text(message)]),
            value: None,
            card: CardSlot::default(),
            duration,
            truncated: false,
            output_type: OutputType::Text,
            parallel_group_id: None,
            failure: Some(failure),
        }
    }

    /// A result of nothing, cheap to make: what stands in a result's place
    /// while the result is lent out whole (to subscribers, say).
    pub(crate) fn vacant() -> Self {
        ToolResult {
            invocation_id: Uuid::nil(),
            tool_name: Cow::Borrowed(""),
            content: ContentSlot::default(),
            value: None,
            card: CardSlot::default(),
            duration: Duration::ZERO,
            truncated: false,
            output_type: OutputType::Text,
            parallel_group_id: None,
            failure: None,
        }
    }
}

/// A result's content: settled, or the default rendering of the result's
/// value, made on first read ([`ToolResult::content`]).
#[derive(Clone, Default)]
pub(crate) struct ContentSlot {
    blocks: OnceLock<Vec<ContentBlock>>,
}

impl ContentSlot {
    /// Content known already.
    pub(crate) fn ready(content: Vec<ContentBlock>) -> Self {
        ContentSlot {
            blocks: OnceLock::from(content),
        }
    }

    /// The content `made` gives: the blocks, or, for `None`, the default
    /// rendering of the result's value, made when read.
    pub(crate) fn of(made: Option<Vec<ContentBlock>>) -> Self {
        match made {
            Some(content) => ContentSlot::ready(content),
            None => ContentSlot::default(),
        }
    }
}

/// A result's card: settled, or the generic card, built on first read from
/// the arguments kept here and the result's tool name and value.
#[derive(Clone, Default)]
pub(crate) struct CardSlot {
    /// Boxed: a card is large, and most results are read for their content.
    shown: OnceLock<Option<Box<Card>>>,
    /// The arguments of the call whose generic card this is.
    args: Option<Arc<Value>>,
}

impl CardSlot {
    /// A card known already (or none).
    pub(crate) fn ready(card: Option<Card>) -> Self {
        CardSlot {
            shown: OnceLock::from(card.map(Box::new)),
            args: None,
        }
    }

    /// The generic card of the call with `args`, built when read.
    pub(crate) fn generic(args: Arc<Value>) -> Self {
        CardSlot {
            shown: OnceLock::new(),
            args: Some(args),
        }
    }
}

impl<'de> Deserialize<'de> for CardSlot {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Option::<Card>::deserialize(deserializer).map(CardSlot::ready)
    }
}

/// A [`ToolResult`] as it serializes: its card read.
#[derive(Serialize)]
struct Shown<'a> {
    invocation_id: Uuid,
    tool_name: &'a str,
    status: Status,
    content: &'a [ContentBlock],
    value: &'a Option<Value>,
    card: Option<&'a Card>,
    is_error: bool,
    #[serde(with = "duration_ms")]
    duration: Duration,
    truncated: bool,
    output_type: OutputType,
    #[serde(skip_serializing_if = "Option::is_none")]
    parallel_group_id: Option<Uuid>,
    #[serde(skip_serializing_if = "Option::is_none")]
    failure: &'a Option<Failure>,
}

impl ToolResult {
    fn shown(&self) -> Shown<'_> {
        Shown {
            invocation_id: self.invocation_id,
            tool_name: &self.tool_name,
            status: self.status(),
            content: self.content(),
            value: &self.value,
            card: self.card(),
            is_error: self.is_error(),
            duration: self.duration,
            truncated: self.truncated,
            output_type: self.output_type,
            parallel_group_id: self.parallel_group_id,
            failure: &self.failure,
        }
    }
}

/// A [`ToolResult`] as it deserializes: `status` and `is_error` are read
/// to give a failure to a result written without one.
#[derive(Deserialize)]
struct Stored {
    invocation_id: Uuid,
    tool_name: String,
    #[serde(default)]
    status: Option<Status>,
    content: Vec<ContentBlock>,
    #[serde(default)]
    value: Option<Value>,
    #[serde(default)]
    card: CardSlot,
    #[serde(default)]
    is_error: bool,
    #[serde(with = "duration_ms")]
    duration: Duration,
    truncated: bool,
    #[serde(default)]
    output_type: OutputType,
    #[serde(default)]
    parallel_group_id: Option<Uuid>,
    #[serde(default)]
    failure: Option<Failure>,
}

impl<'de> Deserialize<'de> for ToolResult {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let stored = Stored::deserialize(deserializer)?;
        // A failed result written without its failure keeps failing: the
        // cause its status tells, or the tool's own error.
        let failed = stored.is_error
            || stored
                .status
                .is_some_and(|status| status != Status::Success);
        let failure = stored.failure.or_else(|| {
            failed.then(|| {
                Failure::new(match stored.status {
                    Some(Status::Timeout) => Cause::Timeout,
                    Some(Status::Cancelled) => Cause::Cancelled,
                    _ => Cause::Tool,
                })
            })
        });
        Ok(ToolResult {
            invocation_id: stored.invocation_id,
            tool_name: Cow::Owned(stored.tool_name),
            content: ContentSlot::ready(stored.content),
            value: stored.value,
            card: stored.card,
            duration: stored.duration,
            truncated: stored.truncated,
            output_type: stored.output_type,
            parallel_group_id: stored.parallel_group_id,
            failure,
        })
    }
}

impl Serialize for ToolResult {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.shown().serialize(serializer)
    }
}

impl fmt::Debug for ToolResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let shown = self.shown();
        f.debug_struct("ToolResult")
            .field("invocation_id", &shown.invocation_id)
            .field("tool_name", &shown.tool_name)
            .field("status", &shown.status)
            .field("content", &shown.content)
            .field("value", shown.value)
            .field("card", &shown.card)
            .field("is_error", &shown.is_error)
            .field("duration", &shown.duration)
            .field("truncated", &shown.truncated)
            .field("output_type", &shown.output_type)
            .field("parallel_group_id", &shown.parallel_group_id)
            .field("failure", shown.failure)
            .finish()
    }
}

impl PartialEq for ToolResult {
    fn eq(&self, other: &Self) -> bool {
        let (a, b) = (self.shown(), other.shown());
        a.invocation_id == b.invocation_id
            && a.tool_name == b.tool_name
            && a.status == b.status
            && a.content == b.content
            && a.value == b.value
            && a.card == b.card
            && a.is_error == b.is_error
            && a.duration == b.duration
            && a.truncated == b.truncated
            && a.output_type == b.output_type
            && a.parallel_group_id == b.parallel_group_id
            && a.failure == b.failure
    }
}

mod duration_ms {
    use std::time::Duration;

    use serde::{Deserialize, Deserializer, Serializer};

    pub(super) fn serialize<S: Serializer>(duration: &Duration, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u64(u64::try_from(duration.as_millis()).unwrap_or(u64::MAX))
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Duration, D::Error> {
        u64::deserialize(d).map(Duration::from_millis)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_failure_summary_is_compact_bounded_and_only_for_typed_failures() {
        assert_eq!(Failure::new(Cause::Timeout).summary(), None);
        let untagged = Failure::tool(None, Some(json!({ "code": 7 })));
        assert_eq!(untagged.summary().unwrap(), r#"failure: {"code":7}"#);
        let kind_only = Failure::tool(Some("Busy".into()), None);
        assert_eq!(kind_only.summary().unwrap(), "failure: Busy");
        // A tag other than the kind is data like any other.
        let other = Failure::tool(Some("A".into()), Some(json!({ "B": 1 })));
        assert_eq!(other.summary().unwrap(), r#"failure: A {"B":1}"#);
        // Cut on a character, however wide, with the cut said.
        let long = Failure::tool(Some("Big".into()), Some(json!("é".repeat(5_000))));
        let summary = long.summary().unwrap();
        assert!(summary.ends_with('…'));
        assert_eq!(
            summary.chars().count(),
            "failure: Big ".chars().count() + MAX_SUMMARY_DATA + 1
        );
    }

    /// A cause's name is the text it serializes as: the `error.type` of a
    /// span and the `cause` of a serialized failure never disagree.
    #[test]
    fn a_causes_name_is_its_serialized_form() {
        for cause in Cause::ALL {
            assert_eq!(
                serde_json::to_value(cause).unwrap(),
                serde_json::Value::String(cause.name().to_owned())
            );
        }
    }

    fn stored(fields: Value) -> ToolResult {
        let mut result = json!({
            "invocation_id": "6f1c2a8e-55b4-4b1e-9a43-8f0d2b7c1e90",
            "tool_name": "greet",
            "content": [{ "type": "text", "text": "no" }],
            "duration": 3,
            "truncated": false,
        });
        for (key, value) in fields.as_object().expect("an object") {
            result[key] = value.clone();
        }
        serde_json::from_value(result).expect("a result")
    }

    /// A successful result of a tool that renders nothing of its own.
    fn rendered_later(value: Value) -> ToolResult {
        ToolResult {
            invocation_id: Uuid::nil(),
            tool_name: Cow::Borrowed("count"),
            content: ContentSlot::of(None),
            value: Some(value),
            card: CardSlot::default(),
            duration: Duration::ZERO,
            truncated: false,
            output_type: OutputType::Structured,
            parallel_group_id: None,
            failure: None,
        }
    }

    #[test]
    fn content_left_to_the_result_is_the_values_default_rendering() {
        let counted = rendered_later(json!({ "words": 3, "text": "é" }));
        assert_eq!(
            counted.content(),
            [ContentBlock::text(r#"{"text":"é","words":3}"#)]
        );
        assert_eq!(counted.text(), r#"{"text":"é","words":3}"#);
        // Read again, it is the same content, made once.
        assert!(std::ptr::eq(counted.content(), counted.content()));
        // A string is its own rendering, as text and owned.
        let greeted = rendered_later(json!("Hello, Ada!"));
        assert_eq!(greeted.text(), "Hello, Ada!");
        assert_eq!(
            greeted.clone().into_content(),
            [ContentBlock::text("Hello, Ada!")]
        );
        // It serializes, compares and clones as content made eagerly would.
        let mut made = greeted.clone();
        made.set_content(vec![ContentBlock::text("Hello, Ada!")]);
        assert_eq!(made, greeted);
        assert_eq!(
            serde_json::to_value(&greeted).unwrap()["content"],
            json!([{ "type": "text", "text": "Hello, Ada!" }])
        );
        // Content set in its place is what the model sees.
        made.set_content(vec![ContentBlock::text("hi")]);
        assert_eq!(made.text(), "hi");
        assert_eq!(made.into_content(), [ContentBlock::text("hi")]);
    }

    #[test]
    fn status_and_is_error_are_read_from_the_failure() {
        let ok = stored(json!({ "value": "hi" }));
        assert_eq!((ok.status(), ok.is_error()), (Status::Success, false));
        let timed_out = stored(json!({ "failure": { "cause": "timeout" } }));
        assert_eq!(timed_out.status(), Status::Timeout);
        assert!(timed_out.is_error());
        let cancelled = stored(json!({ "failure": { "cause": "cancelled" } }));
        assert_eq!(cancelled.status(), Status::Cancelled);
        let refused = stored(json!({ "failure": { "cause": "denied" } }));
        assert_eq!(refused.status(), Status::Error);
    }

    #[test]
    fn a_failed_result_written_without_its_failure_still_failed() {
        let failed = stored(json!({ "status": "error", "is_error": true }));
        assert!(failed.is_error());
        assert_eq!(failed.failure, Some(Failure::new(Cause::Tool)));
        let timed_out = stored(json!({ "status": "timeout", "is_error": true }));
        assert_eq!(timed_out.status(), Status::Timeout);
        let flagged = stored(json!({ "is_error": true }));
        assert_eq!(flagged.status(), Status::Error);
    }

    #[test]
    fn a_result_serializes_its_status_and_is_error() {
        let timed_out = stored(json!({ "failure": { "cause": "timeout" } }));
        let written = serde_json::to_value(&timed_out).expect("serializes");
        assert_eq!(written["status"], "timeout");
        assert_eq!(written["is_error"], true);
        let read: ToolResult = serde_json::from_value(written).expect("reads back");
        assert_eq!(read, timed_out);
    }
}
