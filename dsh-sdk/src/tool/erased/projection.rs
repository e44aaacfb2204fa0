//! The projections of a canonical value: render (what the model sees) and
//! present (the card a UI shows), pure functions of the arguments and the
//! value, so a replay of a logged value goes through this same code.

use std::panic::AssertUnwindSafe;
use std::sync::Arc;

use serde_json::Value;

use super::{Entry, ReadError};
use crate::tool::panic_message;
use crate::value::card::Card;
use crate::value::content::ContentBlock;
use crate::value::result::CardSlot;

/// The payload a panic in `present` is resumed with, to tell it from a
/// panic in render: its message.
pub(crate) struct PresentPanic(pub(crate) String);

/// Why a value could not be projected.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ProjectError {
    /// The arguments or the value do not fit the tool's types.
    #[error("could not render its output: {0}")]
    Read(#[from] ReadError),
    /// Render panicked.
    #[error("could not render its output: the render panicked: {0}")]
    RenderPanicked(String),
    /// Present panicked.
    #[error("could not present its output: the present panicked: {0}")]
    PresentPanicked(String),
}

/// What render and present made of a value, the card settled.
pub(crate) struct Projected {
    /// `None` for the default rendering of the value (see
    /// [`Projection`](super::Projection)).
    pub(crate) content: Option<Vec<ContentBlock>>,
    pub(crate) card: CardSlot,
}

/// Render and present: a panic in either is an error; a top-level call of a
/// tool that presents nothing gets the `remote` card when its value came
/// with one, else the generic card, built only when read; a nested call
/// gets none.
///
/// `remote` is the card a proxied tool's server presented the value with
/// (its own present ran there, not here). It is recorded with the value
/// ([`Event::Executed`](crate::value::event::Event::Executed), the session log's
/// `executed` record), never fetched, so the card stays a function of what
/// was recorded, and a replay projects the same card without the server. A
/// tool that presents its own card keeps it.
pub(crate) fn project(
    entry: &Entry,
    args: Arc<Value>,
    value: &Value,
    top_level: bool,
    remote: Option<&Card>,
) -> Result<Projected, ProjectError> {
    let projected = std::panic::catch_unwind(AssertUnwindSafe(|| {
        entry.handler.project(&args, value, top_level)
    }));
    match projected {
        Ok(Ok(projection)) => {
            let card = match projection
                .card
                .or_else(|| remote.filter(|_| top_level).cloned())
            {
                Some(card) if top_level => CardSlot::ready(Some(card)),
                None if top_level => CardSlot::generic(args),
                _ => CardSlot::default(),
            };
            Ok(Projected {
                content: projection.content,
                card,
            })
        }
        Ok(Err(error)) => Err(ProjectError::Read(error)),
        Err(panic) => match panic.downcast::<PresentPanic>() {
            Ok(present) => Err(ProjectError::PresentPanicked(present.0)),
            Err(panic) => Err(ProjectError::RenderPanicked(panic_message(panic.as_ref()))),
        },
    }
}

/// The card a UI shows while a call with `args` runs: the tool's
/// `present_call`, else (unreadable arguments, a panic) the generic card,
/// which holds the arguments as `shared` gives them.
pub(crate) fn running_card(
    entry: &Entry,
    args: &Value,
    shared: impl FnOnce() -> Arc<Value>,
) -> Card {
    let presented = std::panic::catch_unwind(AssertUnwindSafe(|| entry.handler.present_call(args)));
    match presented {
        Ok(Some(card)) => card,
        _ => Card::generic(entry.def.name.clone(), shared(), None),
    }
}
