//! Prompts an [`McpServer`](super::McpServer) offers: templates of messages
//! a user picks, with typed arguments.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

use rmcp::ErrorData;
use rmcp::model::{
    CompletionInfo, GetPromptResult, ListPromptsResult, Prompt as McpPrompt, PromptArgument,
    PromptMessage,
};
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};

use super::cache;

/// Makes the messages from the arguments; fails when they do not deserialize.
type GetFn =
    dyn Fn(Map<String, Value>) -> Result<Vec<PromptMessage>, serde_json::Error> + Send + Sync;

/// A prompt: a name, a description, its arguments, and the messages it makes.
///
/// The arguments of [`with_args`](Self::with_args) come from a Rust type, as
/// a tool's do: each field is an argument (MCP prompt arguments are
/// strings), its doc comment the argument's description, required unless it
/// is an `Option`.
///
/// ```
/// use dsh_kit::mcp::Prompt;
/// use dsh_kit::mcp::rmcp::model::{PromptMessage, Role};
/// use dsh_kit::prelude::*;
///
/// #[derive(Deserialize, JsonSchema)]
/// struct Review {
///     /// The language of the code
///     language: String,
///     /// What to look at first
///     focus: Option<String>,
/// }
///
/// let review = Prompt::with_args("review", "Review code", |args: Review| {
///     let focus = args.focus.unwrap_or_else(|| "correctness".into());
///     vec![PromptMessage::new_text(
///         Role::User,
///         format!("Review this {} code, looking at {focus} first.", args.language),
///     )]
/// })
/// .complete("language", ["rust", "python", "go"]);
/// # drop(review);
/// ```
#[derive(Clone)]
pub struct Prompt {
    prompt: McpPrompt,
    get: Arc<GetFn>,
    completions: BTreeMap<String, Vec<String>>,
}

impl Prompt {
    /// A prompt with no arguments and fixed messages.
    pub fn new(
        name: impl Into<String>,
        description: impl Into<String>,
        messages: impl IntoIterator<Item = PromptMessage>,
    ) -> Self {
        let messages: Vec<PromptMessage> = messages.into_iter().collect();
        Prompt::from_parts(
            McpPrompt::new(name, Some(description), None),
            Arc::new(move |_| Ok(messages.clone())),
        )
    }

    /// A prompt whose arguments are the fields of `A`; `messages` makes the
    /// messages from them.
    pub fn with_args<A, F>(
        name: impl Into<String>,
        description: impl Into<String>,
        messages: F,
    ) -> Self
    where
        A: JsonSchema + DeserializeOwned,
        F: Fn(A) -> Vec<PromptMessage> + Send + Sync + 'static,
    {
        let get = move |args: Map<String, Value>| {
            serde_json::from_value::<A>(Value::Object(args)).map(&messages)
        };
        Prompt::from_parts(
            McpPrompt::new(name, Some(description), Some(arguments::<A>())),
            Arc::new(get),
        )
    }

    /// A prompt listed as `prompt`, whose messages `get` makes, with no
    /// completions yet.
    fn from_parts(prompt: McpPrompt, get: Arc<GetFn>) -> Self {
        Prompt {
            prompt,
            get,
            completions: BTreeMap::new(),
        }
    }

    /// Sets the name people see (`title`).
    #[must_use]
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.prompt.title = Some(title.into());
        self
    }

    /// Suggests `values` for `argument` (`completion/complete`): those that
    /// start with what the user typed, in the order given.
    #[must_use]
    pub fn complete<I: IntoIterator<Item = S>, S: Into<String>>(
        mut self,
        argument: &str,
        values: I,
    ) -> Self {
        self.completions.insert(
            argument.to_owned(),
            values.into_iter().map(Into::into).collect(),
        );
        self
    }

    /// The prompt's name.
    pub fn name(&self) -> &str {
        &self.prompt.name
    }
}

impl fmt::Debug for Prompt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Prompt")
            .field("name", &self.prompt.name)
            .finish_non_exhaustive()
    }
}

/// The prompt arguments of `A`: its properties.
fn arguments<A: JsonSchema>() -> Vec<PromptArgument> {
    let schema = schemars::SchemaGenerator::default().into_root_schema_for::<A>();
    let schema = schema.to_value();
    let required: Vec<&str> = schema["required"]
        .as_array()
        .map(|names| names.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let Some(properties) = schema["properties"].as_object() else {
        return Vec::new();
    };
    properties
        .iter()
        .map(|(name, property)| {
            let mut argument =
                PromptArgument::new(name.as_str()).with_required(required.contains(&name.as_str()));
            if let Some(description) = property["description"].as_str() {
                argument = argument.with_description(description);
            }
            argument
        })
        .collect()
}

/// Every prompt of a server, by name.
#[derive(Clone, Default)]
pub(super) struct Prompts(BTreeMap<String, Prompt>);

impl Prompts {
    pub(super) fn add(&mut self, prompt: Prompt) {
        self.0.insert(prompt.name().to_owned(), prompt);
    }

    pub(super) fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// `prompts/list`, sorted by name.
    pub(super) fn list(&self) -> ListPromptsResult {
        ListPromptsResult::with_all_items(self.0.values().map(|p| p.prompt.clone()).collect())
            .with_ttl_ms(cache::TTL_MS)
            .with_cache_scope(cache::SCOPE)
    }

    /// `prompts/get`.
    pub(super) fn get(
        &self,
        name: &str,
        args: Option<Map<String, Value>>,
    ) -> Result<GetPromptResult, ErrorData> {
        let prompt = self.find(name)?;
        let messages = (prompt.get)(args.unwrap_or_default()).map_err(|error| {
            ErrorData::invalid_params(
                format!("the arguments of prompt `{name}` are invalid: {error}"),
                Some(json!({ "prompt": name })),
            )
        })?;
        let mut result = GetPromptResult::new(messages);
        result.description = prompt.prompt.description.clone();
        Ok(result)
    }

    /// `completion/complete` for one argument of a prompt.
    pub(super) fn complete(
        &self,
        name: &str,
        argument: &str,
        typed: &str,
    ) -> Result<CompletionInfo, ErrorData> {
        let prompt = self.find(name)?;
        let values: Vec<String> = prompt
            .completions
            .get(argument)
            .into_iter()
            .flatten()
            .filter(|value| value.starts_with(typed))
            .take(CompletionInfo::MAX_VALUES)
            .cloned()
            .collect();
        CompletionInfo::new(values).map_err(|error| ErrorData::internal_error(error, None))
    }

    fn find(&self, name: &str) -> Result<&Prompt, ErrorData> {
        self.0.get(name).ok_or_else(|| {
            let known: Vec<&str> = self.0.keys().map(String::as_str).collect();
            ErrorData::invalid_params(
                format!(
                    "no prompt named `{name}`; the prompts are: {}",
                    known.join(", ")
                ),
                Some(json!({ "prompt": name })),
            )
        })
    }
}
