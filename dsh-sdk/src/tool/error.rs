//! Errors: [`ToolError`], what a tool's body fails with, and [`RegisterError`].

use std::error::Error as StdError;
use std::fmt;

use serde_json::Value;

use crate::value::schema::failure::FailureShape;

/// A tool's failure; its message reaches the model.
///
/// Any error type converts into it with `?`, keeping its message and the
/// messages of its sources. A conversion guesses no kind: a failure kind is
/// set explicitly with [`with_kind`](Self::with_kind) (`#[tool]` sets it from
/// the variant of a `Serialize + JsonSchema` error enum), and reaches hosts in
/// [`ToolResult::failure`](crate::ToolResult#structfield.failure):
///
/// ```
/// use dsh_kit::ToolError;
///
/// #[derive(Debug, thiserror::Error)]
/// enum EditError {
///     #[error("`old` is empty: give the text to replace")]
///     InvalidInput,
///     #[error("no match for `{0}` in the file")]
///     NoMatchesFound(String),
/// }
///
/// let error: ToolError = EditError::NoMatchesFound("fn main".into()).into();
/// assert_eq!(error.message(), "no match for `fn main` in the file");
/// assert_eq!(error.kind(), None);
/// assert_eq!(error.with_kind("NoMatchesFound").kind(), Some("NoMatchesFound"));
/// ```
///
/// `ToolError` does not implement [`std::error::Error`] itself, the way
/// `anyhow::Error` does not: that is what lets every error convert into it.
#[derive(Clone, PartialEq)]
pub struct ToolError {
    message: String,
    kind: Option<String>,
    data: Option<Value>,
}

impl ToolError {
    /// An error with a message for the model.
    pub fn new(message: impl Into<String>) -> Self {
        ToolError {
            message: message.into(),
            kind: None,
            data: None,
        }
    }

    /// Names the failure shape (`"NoMatchesFound"`), for hosts that switch on it.
    pub fn with_kind(mut self, kind: impl Into<String>) -> Self {
        self.kind = Some(kind.into());
        self
    }

    /// Attaches structured data for hosts and logs.
    pub fn with_data(mut self, data: Value) -> Self {
        self.data = Some(data);
        self
    }

    /// A declared failure shape, as `#[tool]` converts one: `message` for
    /// the model; for an error enum (serde's default, externally tagged),
    /// its variant as the kind and what the variant holds as the data
    /// (none for a unit variant); for any other type, its whole value as the
    /// data.
    ///
    /// ```
    /// use dsh_kit::ToolError;
    /// use dsh_kit::prelude::*;
    ///
    /// #[derive(Serialize, JsonSchema)]
    /// enum EditError {
    ///     NoMatchesFound { old: String },
    ///     Busy,
    /// }
    ///
    /// let error = ToolError::typed(
    ///     "no match for `fn main`",
    ///     &EditError::NoMatchesFound { old: "fn main".into() },
    /// );
    /// assert_eq!(error.kind(), Some("NoMatchesFound"));
    /// assert_eq!(error.data(), Some(&json!({ "old": "fn main" })));
    /// let busy = ToolError::typed("busy", &EditError::Busy);
    /// assert_eq!((busy.kind(), busy.data()), (Some("Busy"), None));
    /// ```
    pub fn typed<E: serde::Serialize + schemars::JsonSchema>(
        message: impl Into<String>,
        error: &E,
    ) -> Self {
        let tool_error = ToolError::new(message);
        let Ok(value) = serde_json::to_value(error) else {
            return tool_error;
        };
        let shape = FailureShape::of(crate::value::schema::output_schema::<E>());
        let (kind, data) = shape.kind_and_data(value);
        ToolError {
            kind,
            data,
            ..tool_error
        }
    }

    /// The failure schema of the error type `E`, as `#[tool]` exports it
    /// ([`Tool::failure_schema`](crate::Tool::failure_schema)): for an error
    /// enum, one branch per variant, each `{"kind": …, "data": …}` as
    /// [`typed`](Self::typed) makes it; for any other type, its own schema.
    ///
    /// ```
    /// use dsh_kit::ToolError;
    /// use dsh_kit::prelude::*;
    ///
    /// #[derive(Serialize, JsonSchema)]
    /// enum LookupError {
    ///     Missing(String),
    /// }
    ///
    /// let schema = ToolError::failure_schema::<LookupError>();
    /// assert_eq!(schema["oneOf"][0]["properties"]["kind"]["const"], "Missing");
    /// ```
    pub fn failure_schema<E: schemars::JsonSchema>() -> Value {
        FailureShape::of(crate::value::schema::output_schema::<E>()).schema
    }

    /// The message the model sees.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The failure shape, if named.
    pub fn kind(&self) -> Option<&str> {
        self.kind.as_deref()
    }

    /// The attached data, if any.
    pub fn data(&self) -> Option<&Value> {
        self.data.as_ref()
    }
}

impl fmt::Display for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl fmt::Debug for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut debug = f.debug_struct("ToolError");
        debug.field("message", &self.message);
        if let Some(kind) = &self.kind {
            debug.field("kind", kind);
        }
        if let Some(data) = &self.data {
            debug.field("data", data);
        }
        debug.finish()
    }
}

impl<E: StdError + Send + Sync + 'static> From<E> for ToolError {
    fn from(error: E) -> Self {
        ToolError {
            message: with_sources(&error),
            kind: None,
            data: None,
        }
    }
}

/// An error's message followed by its sources' messages, `: `-separated,
/// leaving out a source whose text the message already holds.
pub(crate) fn with_sources(error: &dyn StdError) -> String {
    let mut message = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        let text = cause.to_string();
        if !message.contains(&text) {
            message.push_str(": ");
            message.push_str(&text);
        }
        source = cause.source();
    }
    message
}

/// Which of a tool's schemas: what its arguments or its output must be.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum SchemaRole {
    /// The schema of the arguments.
    Input,
    /// The schema of the output.
    Output,
}

impl std::fmt::Display for SchemaRole {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            SchemaRole::Input => "input",
            SchemaRole::Output => "output",
        })
    }
}

/// Why a tool could not be registered.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RegisterError {
    /// The name or alias is taken.
    #[error("cannot register `{tool}`: the name `{name}` is already taken by `{existing}`")]
    Duplicate {
        /// The tool being registered.
        tool: String,
        /// The contested name or alias.
        name: String,
        /// The registered tool that holds it.
        existing: String,
    },
    /// The name is outside `^[a-zA-Z0-9_-]{1,64}$`.
    #[error(
        "cannot register `{name}`: a tool name must be {}",
        crate::value::names::TOOL_NAME_RULE
    )]
    InvalidName {
        /// The rejected name.
        name: String,
    },
    /// A scope the tool needs is not an RFC 6749 scope-token.
    #[error(
        "cannot register `{tool}`: its scope `{}` is not an OAuth scope: a scope is {}",
        scope.escape_debug(),
        crate::value::names::SCOPE_RULE
    )]
    InvalidScope {
        /// The tool.
        tool: String,
        /// The rejected scope.
        scope: String,
    },
    /// The tool's own `_meta` is not a JSON object, or one of its keys
    /// breaks MCP's rule or takes a reserved prefix.
    #[error("cannot register `{tool}`: its `_meta` {problem}")]
    InvalidMeta {
        /// The tool.
        tool: String,
        /// What is wrong, naming the key when one is.
        problem: String,
    },
    /// An example call ([`ToolDefBuilder::examples_json`](crate::ToolDefBuilder::examples_json))
    /// is not JSON, or breaks the input schema.
    #[error("cannot register `{tool}`: its example {index} {problem}")]
    InvalidExample {
        /// The tool.
        tool: String,
        /// The example's place among the tool's, from 0.
        index: usize,
        /// What is wrong: the JSON error, or each violation at its JSON pointer.
        problem: String,
    },
    /// An `x-mcp-header` annotation of the input schema breaks MCP's rules
    /// (see [`HeaderProblem`](crate::HeaderProblem)): a client would drop the tool.
    #[error("cannot register `{tool}`: {problem}")]
    InvalidHeader {
        /// The tool.
        tool: String,
        /// What is wrong, naming the property.
        problem: crate::value::schema::header::HeaderProblem,
    },
    /// The input schema's root is not an object.
    #[error(
        "cannot register `{tool}`: its arguments must be an object with named fields, but their schema is {found}"
    )]
    ArgsNotObject {
        /// The tool.
        tool: String,
        /// What the schema's root is instead.
        found: String,
    },
    /// A schema is not valid JSON Schema 2020-12.
    #[error("cannot register `{tool}`: its {which} schema is not valid JSON Schema: {reason}")]
    InvalidSchema {
        /// The tool.
        tool: String,
        /// Which of its schemas.
        which: SchemaRole,
        /// What is wrong with it.
        reason: crate::value::schema::SchemaError,
    },
    /// The output type's `Serialize` writes what its `Deserialize` does not
    /// read back (a `rename(serialize = "…")` alone, `skip_serializing_if`
    /// without `default`, …): every call would fail, or lose a field, when
    /// its output is read back. `#[derive(ToolOutput)]` refuses these at
    /// compile time.
    #[error(
        "cannot register `{tool}`: its output `{output}` does not read back as it is written: {problem}; or derive `ToolOutput` on it, which checks this at compile time"
    )]
    OutputNotReadBack {
        /// The tool.
        tool: String,
        /// The output type, as Rust names it.
        output: String,
        /// Where the written and the read forms disagree.
        problem: crate::value::schema::read_back::ReadBackProblem,
    },
    /// The arguments accept a top-level name the input schema does not
    /// give: a `#[serde(alias = "…")]`, or a field the schema skips.
    /// Permission rules, gates and guards see the arguments by the schema's
    /// names, so a value under another name would reach the tool unchecked.
    #[error(
        "cannot register `{tool}`: its arguments accept `{name}`, which the input schema does not name (a `#[serde(alias)]`, or a field the schema skips); permission rules and the schema check see arguments only by the schema's names, so remove the alias, or name the field in the schema"
    )]
    UnnamedField {
        /// The tool.
        tool: String,
        /// The name accepted but not in the schema.
        name: String,
    },
}

/// The message a panic carried, or "(no message)".
pub(crate) fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    if let Some(message) = panic.downcast_ref::<&str>() {
        (*message).to_owned()
    } else if let Some(message) = panic.downcast_ref::<String>() {
        message.clone()
    } else {
        "(no message)".to_owned()
    }
}

/// "the approver panicked: …", what a panic in a host hook becomes.
pub(crate) fn hook_panicked(hook: &str, panic: Box<dyn std::any::Any + Send>) -> String {
    format!("{hook} panicked: {}", panic_message(panic.as_ref()))
}
