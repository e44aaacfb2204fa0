//! Post-execute hooks: inspect a validated value, then pass, replace the
//! content, replace the value, or block with feedback.
//!
//! Replacing the content and the value at once cannot be written: a content
//! replacement is a presentation decision (the value stays, only the text the
//! model reads changes), a value replacement is a data decision (the new value
//! goes through the output schema, render and present again, so all three
//! projections come from one source).
//!
//! The stage (stage 7 of the call) runs the host's hooks in the order they
//! were added, each able to pass, replace the content or the value, add
//! context, or block.

use std::sync::Arc;

use super::output;
use super::stop::Stop;
use crate::tool::Entry;
use crate::tool::panic_message;
use crate::value::content::ContentBlock;
use crate::value::event::ValueSource;
use crate::value::schema::limits::Limits;
use serde_json::Value;
use std::panic::AssertUnwindSafe;
/// What a post-execute hook decided.
#[derive(Clone, Debug, PartialEq)]
pub enum PostDecision {
    /// Keep the result as it is.
    Pass,
    /// Keep the value; show the model this content instead of the render's.
    AcceptContent(Vec<ContentBlock>),
    /// Replace the value; it is validated, rendered and presented again.
    AcceptValue(Value),
    /// Turn the result into an error carrying this feedback for the model.
    Block {
        /// What the model should do differently.
        feedback: String,
    },
}

/// A hook's decision, with context blocks to show the model after the content.
#[derive(Clone, Debug, PartialEq)]
pub struct PostOutcome {
    /// The decision.
    pub decision: PostDecision,
    /// Extra blocks for the model (a reminder, a related fact), kept whatever
    /// the decision.
    pub context: Vec<ContentBlock>,
}

impl PostOutcome {
    /// Keep the result.
    pub fn pass() -> Self {
        PostDecision::Pass.into()
    }

    /// Adds a context block for the model.
    pub fn with_context(mut self, block: ContentBlock) -> Self {
        self.context.push(block);
        self
    }
}

impl From<PostDecision> for PostOutcome {
    fn from(decision: PostDecision) -> Self {
        PostOutcome {
            decision,
            context: Vec::new(),
        }
    }
}

/// What a post-execute hook sees of a successful call.
#[derive(Debug)]
pub struct PostCall<'a> {
    /// The tool's name.
    pub tool: &'a str,
    /// The validated arguments.
    pub args: &'a Value,
    /// The canonical value, after any earlier hook replaced it.
    pub value: &'a Value,
}

/// A hook run after the output gate, in registration order.
///
/// ```
/// use dsh_kit::post_execute::{PostCall, PostDecision, PostExecute, PostOutcome};
///
/// /// Hides secrets from the model *and* from programs reading the value.
/// struct Redact;
///
/// impl PostExecute for Redact {
///     fn after(&self, call: &PostCall<'_>) -> PostOutcome {
///         match call.value.as_str() {
///             Some(text) if text.contains("SECRET") => {
///                 PostDecision::AcceptValue(text.replace("SECRET", "******").into()).into()
///             }
///             _ => PostOutcome::pass(),
///         }
///     }
/// }
/// ```
pub trait PostExecute: Send + Sync + 'static {
    /// Decides what becomes of the result.
    fn after(&self, call: &PostCall<'_>) -> PostOutcome;
}

impl<F> PostExecute for F
where
    F: Fn(&PostCall<'_>) -> PostOutcome + Send + Sync + 'static,
{
    fn after(&self, call: &PostCall<'_>) -> PostOutcome {
        self(call)
    }
}

/// A value that passed the output gate and every hook.
pub(super) struct Hooked {
    pub(super) value: Value,
    /// Whether the tool or a hook gave the value.
    pub(super) source: ValueSource,
    /// The content a hook gave instead of the rendered one.
    pub(super) replaced_content: Option<Vec<ContentBlock>>,
    /// What the hooks added after the content.
    pub(super) context: Vec<ContentBlock>,
}

/// Runs every hook on `value`.
pub(super) fn run(
    hooks: &[Arc<dyn PostExecute>],
    limits: &Limits,
    entry: &Entry,
    args: &Value,
    value: Value,
) -> Result<Hooked, Stop> {
    let mut hooked = Hooked {
        value,
        source: ValueSource::Execute,
        replaced_content: None,
        context: Vec::new(),
    };
    let tool = entry.def.name();
    for (index, hook) in hooks.iter().enumerate() {
        let post_call = PostCall {
            tool,
            args,
            value: &hooked.value,
        };
        let outcome = std::panic::catch_unwind(AssertUnwindSafe(|| hook.after(&post_call)))
            .map_err(|panic| Stop::HookPanicked {
                tool: tool.to_owned(),
                number: index + 1,
                message: panic_message(panic.as_ref()),
            })?;
        hooked.context.extend(outcome.context);
        match outcome.decision {
            PostDecision::Pass => {}
            PostDecision::AcceptContent(content) => hooked.replaced_content = Some(content),
            PostDecision::AcceptValue(new_value) => {
                hooked.value = output::gate(limits, entry, new_value).map_err(|error| {
                    Stop::InvalidOutput {
                        tool: tool.to_owned(),
                        error,
                        replaced: true,
                    }
                })?;
                hooked.source = ValueSource::PostExecute;
                hooked.replaced_content = None;
            }
            PostDecision::Block { feedback } => {
                return Err(Stop::Blocked {
                    tool: tool.to_owned(),
                    feedback,
                    context: hooked.context,
                });
            }
        }
    }
    Ok(hooked)
}
