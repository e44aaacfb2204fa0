//! Post-execute hooks: inspect a validated value, then pass, replace the
//! content, replace the value, or block with feedback.
//!
//! Replacing the content and the value at once cannot be written: a content
//! replacement is a presentation decision (the value stays, only the text the
//! model reads changes), a value replacement is a data decision (the new value
//! goes through the output schema, render and present again, so all three
//! projections come from one source).

use serde_json::Value;

use crate::content::ContentBlock;

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
/// use dsh_sdk::post_execute::{PostCall, PostDecision, PostExecute, PostOutcome};
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
