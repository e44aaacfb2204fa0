//! [`Executed`]: what a tool's execute gave, the value with what it was
//! shown with where the tool really ran.

use std::sync::Arc;

use serde_json::Value;

use crate::value::card::Card;
use crate::value::content::ContentBlock;

/// What a call's execute gave: the tool's canonical value and, for a
/// proxied MCP server's tool, what the server showed that value with. The
/// response of the execute stage and of every layer around it
/// ([`layer`](crate::layer)).
///
/// A layer that reads the value uses [`value`](Executed::value); one that
/// puts another value in its place builds the response from it
/// (`Executed::from(value)`), which leaves out what the server showed, as
/// that showed the value the tool returned, not the new one.
///
/// ```
/// use dsh_kit::layer::Executed;
/// use serde_json::json;
///
/// let executed = Executed::from(json!({ "sum": 3 }));
/// assert_eq!(executed.value()["sum"], 3);
/// assert_eq!(executed.into_value(), json!({ "sum": 3 }));
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Executed {
    value: Value,
    /// Boxed: nearly every tool runs where it is called, and its value
    /// comes with nothing else.
    remote: Option<Box<Remote>>,
}

/// What a value was shown with where its tool really ran, a proxied MCP
/// server.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Remote {
    /// The card a dsh server presented the value with.
    pub(crate) card: Option<Arc<Card>>,
    /// The content the server rendered a structured value as, which the
    /// model sees in place of the value's default rendering.
    pub(crate) content: Option<Vec<ContentBlock>>,
}

impl Executed {
    /// The tool's canonical value.
    pub fn value(&self) -> &Value {
        &self.value
    }

    /// The tool's canonical value, owned.
    pub fn into_value(self) -> Value {
        self.value
    }

    /// `value`, with what the server the tool really ran on showed it with.
    #[cfg(feature = "proxy")]
    pub(crate) fn shown_remotely(value: Value, remote: Remote) -> Self {
        let shown = remote.card.is_some() || remote.content.is_some();
        Executed {
            value,
            remote: shown.then(|| Box::new(remote)),
        }
    }

    /// The value, and what it was shown with where the tool really ran
    /// (nothing, for a tool that ran here).
    pub(crate) fn into_parts(self) -> (Value, Remote) {
        (
            self.value,
            self.remote.map(|remote| *remote).unwrap_or_default(),
        )
    }
}

impl From<Value> for Executed {
    fn from(value: Value) -> Self {
        Executed {
            value,
            remote: None,
        }
    }
}
