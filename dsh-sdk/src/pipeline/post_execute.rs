//! Stage 7, post-execute: the host's hooks, in the order they were added,
//! each able to pass, replace the content or the value, add context, or block.

use std::panic::AssertUnwindSafe;

use serde_json::Value;

use super::output;
use super::stop::Stop;
use crate::content::ContentBlock;
use crate::error::panic_message;
use crate::event::ValueSource;
use crate::post_execute::{PostCall, PostDecision};
use crate::registry::Config;
use crate::tool::Entry;

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
    config: &Config,
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
    for (index, hook) in config.post_execute.iter().enumerate() {
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
                hooked.value = output::gate(&config.limits, entry, new_value).map_err(|error| {
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
