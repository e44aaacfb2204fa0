//! Stages 8 and 9, project and finalize: render and present the settled
//! value, then spill content over its tool's limit to a file. The one path
//! from a settled value to content and card, for a live call and a replay
//! alike: a replay plans the spill and writes nothing.

use std::path::PathBuf;
use std::sync::Arc;

use serde_json::Value;
use uuid::Uuid;

use super::Config;
use super::stop::Stop;
use crate::pipeline::spill::{SpillError, Spilled, plan, spill, spilled_message};
use crate::tool::with_sources;
use crate::tool::{Entry, project};
use crate::value::card::Card;
use crate::value::content::{ContentBlock, render_value};
use crate::value::event::Event;
use crate::value::result::CardSlot;
use crate::value::schema::limits;

/// What project and finalize start from: a value that passed the output gate
/// and every post-execute hook. A live call builds it from the hooks'
/// decisions; a replay reads it from the session log's `executed` record.
pub(crate) struct Settled<'a> {
    pub(crate) invocation_id: Uuid,
    /// The call's arguments, handed on to the generic card, which keeps
    /// them until it is read.
    pub(crate) args: Arc<Value>,
    pub(crate) value: &'a Value,
    pub(crate) top_level: bool,
    pub(crate) replaced_content: Option<Vec<ContentBlock>>,
    pub(crate) context: Vec<ContentBlock>,
    /// The card a proxied tool's server presented the value with, as
    /// recorded with the value: present shows it in place of the generic
    /// card (see [`project`]).
    pub(crate) remote_card: Option<&'a Card>,
    /// The content a proxied tool's server rendered the value as, as
    /// recorded with the value: the model sees it in place of the value's
    /// default rendering, unless a post-execute hook replaced the content.
    pub(crate) remote_content: Option<Vec<ContentBlock>>,
}

/// The content and card of a successful call, after finalize.
pub(crate) struct Finished {
    /// `None` for the default rendering of the value, within its limit,
    /// made when the result's content is read.
    pub(crate) content: Option<Vec<ContentBlock>>,
    pub(crate) card: CardSlot,
    /// Where the whole text goes, when it was over the limit. Boxed: it is
    /// rare, and the finished content is moved on every call.
    pub(crate) spill: Option<Box<Overflow>>,
}

/// Content over its tool's limit: the file it spills to and what goes there.
pub(crate) struct Overflow {
    /// The planned file, the text's length and its preview.
    pub(crate) spilled: Spilled,
    /// The whole text.
    pub(crate) full: String,
    /// Its length in characters.
    pub(crate) chars: usize,
    /// The limit it broke.
    pub(crate) limit: usize,
}

/// Render and present, then plan the spill of oversized content, which a
/// live call then writes (see [`write`]).
pub(crate) fn finish(
    config: &Config,
    entry: &Entry,
    settled: Settled<'_>,
) -> Result<Finished, Stop> {
    let projected = project(
        entry,
        settled.args,
        settled.value,
        settled.top_level,
        settled.remote_card,
    )
    .map_err(|error| Stop::RenderFailed {
        tool: entry.def.name().to_owned(),
        error,
    })?;
    let limit = entry.enforced.max_result_chars;
    // The default rendering of the value is made here only when it must
    // be: when it may be over the limit (made, its characters are counted
    // below), or to add the hooks' context after it. Otherwise the result
    // makes it when its content is read.
    let made = (settled.replaced_content)
        .or(settled.remote_content)
        .or(projected.content);
    let mut content = match made {
        Some(content) => content,
        None if settled.context.is_empty() && !rendering_may_be_over(settled.value, limit) => {
            return Ok(Finished {
                content: None,
                card: projected.card,
                spill: None,
            });
        }
        None => render_value(settled.value),
    };
    // Counted only past the cheap bound: a text of n bytes has at most n characters.
    let text_bytes: usize = content
        .iter()
        .filter_map(ContentBlock::as_text)
        .map(str::len)
        .sum();
    let mut spilled_to = None;
    if text_bytes > limit {
        let text_chars: usize = content
            .iter()
            .filter_map(ContentBlock::as_text)
            .map(|text| text.chars().count())
            .sum();
        if text_chars > limit {
            let full = crate::value::content::joined_text(&content);
            let spilled = plan(&config.spill, settled.invocation_id, &full);
            content.retain(|block| block.as_text().is_none());
            content.insert(0, ContentBlock::text(spilled_message(&spilled)));
            spilled_to = Some(Box::new(Overflow {
                spilled,
                full,
                chars: text_chars,
                limit,
            }));
        }
    }
    content.extend(settled.context);
    Ok(Finished {
        content: Some(content),
        card: projected.card,
        spill: spilled_to,
    })
}

/// Whether the text [`render_value`] makes of `value` may be over `limit`
/// characters, told without making it: a text has at most as many
/// characters as bytes, so a string within the limit in bytes, or any other
/// value whose JSON is (by the output limits' own count, which reads a value
/// well within it by its size alone), is within it.
fn rendering_may_be_over(value: &Value, limit: usize) -> bool {
    match value {
        Value::String(text) => text.len() > limit,
        other => limits::check(other, usize::MAX, limit).is_err(),
    }
}

/// Why a planned spill file was not written.
#[derive(Debug, thiserror::Error)]
enum WriteError {
    /// Writing failed.
    #[error("{}", with_sources(.0))]
    Spill(#[from] SpillError),
    /// The blocking task that wrote stopped before it finished.
    #[error("the write did not finish: {0}")]
    Stopped(#[from] tokio::task::JoinError),
}

/// Writes the planned spill file of `finished`, if any, and points its
/// message at the file written, or, when the write failed, says so and
/// keeps the preview: the output stays the call's.
pub(super) async fn write(
    config: &Config,
    tool: &str,
    invocation_id: Uuid,
    finished: &mut Finished,
) {
    let Some(overflow) = &mut finished.spill else {
        return;
    };
    // Boxed: the rare spill must not grow every call's future.
    let written = Box::pin(write_file(config, invocation_id, overflow)).await;
    // The message is the first block (see `finish`).
    let message = finished
        .content
        .as_mut()
        .and_then(|content| content.first_mut());
    match written {
        // Another call with this invocation id took the planned name.
        Ok(path) if path != overflow.spilled.path => {
            overflow.spilled.path = path;
            if let Some(message) = message {
                *message = ContentBlock::text(spilled_message(&overflow.spilled));
            }
        }
        Ok(_) => {}
        Err(error) => {
            tracing::warn!(tool, "{error}");
            if let Some(message) = message {
                *message = ContentBlock::text(unsaved_message(overflow, &error));
            }
            config.emit_with(|| Event::SpillFailed {
                invocation_id,
                tool_name: tool.to_owned().into(),
                error: error.to_string(),
            });
        }
    }
}

/// Writes a planned spill file, on tokio's blocking pool when there is a
/// runtime: the write is synced to disk, which can take a while, and must
/// not hold up the other calls on this thread. Gives the path written.
async fn write_file(
    config: &Config,
    invocation_id: Uuid,
    overflow: &Overflow,
) -> Result<PathBuf, WriteError> {
    let Ok(runtime) = tokio::runtime::Handle::try_current() else {
        return Ok(spill(&config.spill, invocation_id, &overflow.full)?);
    };
    let spill_config = config.spill.clone();
    let full = overflow.full.clone();
    let writing = runtime.spawn_blocking(move || spill(&spill_config, invocation_id, &full));
    Ok(writing.await??)
}

/// What the model gets when oversized content could not be saved: the
/// preview it would have had, and why the rest is missing.
fn unsaved_message(overflow: &Overflow, error: &WriteError) -> String {
    let Overflow {
        spilled,
        chars,
        limit,
        ..
    } = overflow;
    let mut message = format!(
        "Output too large ({chars} characters, over the limit of {limit}), and the full output could not be saved: {error}."
    );
    if !spilled.preview.is_empty() {
        message.push_str(&format!(
            " Preview (first {} characters):\n{}",
            spilled.preview.chars().count(),
            spilled.preview
        ));
    }
    message
}

/// For a log written before spill failures were recorded (the
/// `spill_failed` record, from [`Event::SpillFailed`]): whether `logged`
/// content is what [`write`] says when a spill could not be saved, the
/// first block starting with the sentence [`unsaved_message`] writes. Such
/// a log holds nothing else that tells; every newer log has the record.
pub(crate) fn is_unsaved(content: &[ContentBlock]) -> bool {
    content
        .first()
        .and_then(ContentBlock::as_text)
        .is_some_and(|text| {
            text.starts_with("Output too large (")
                && text.contains("), and the full output could not be saved: ")
        })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// The bound never lets a rendering over the limit pass as within it,
    /// and lets through, unmade, every rendering within it in bytes.
    #[test]
    fn a_rendering_over_its_limit_is_never_taken_for_one_within_it() {
        let rendered = |value: &Value| match &render_value(value)[..] {
            [ContentBlock::Text { text }] => text.clone(),
            other => panic!("one text block, not {other:?}"),
        };
        for value in [
            json!("héllo"),
            json!("ééééé"),
            json!({ "text": "日本語\n", "n": [1, 2, 3] }),
            json!([true, null, 1.5, "x"]),
            json!(12345),
        ] {
            let text = rendered(&value);
            let chars = text.chars().count();
            assert!(rendering_may_be_over(&value, chars - 1), "{value}");
            assert!(!rendering_may_be_over(&value, text.len()), "{value}");
        }
        // A large value is told over its limit.
        assert!(rendering_may_be_over(&json!(vec!["word"; 100_000]), 10));
    }
}
