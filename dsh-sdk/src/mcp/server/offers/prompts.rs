//! Prompts an [`McpServer`](crate::mcp::McpServer) offers: templates of messages
//! a user picks, with typed arguments.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

use futures_util::future::BoxFuture;

use rmcp::ErrorData;
use rmcp::model::{
    CompletionInfo, GetPromptResult, ListPromptsResult, Prompt as McpPrompt, PromptArgument,
    PromptMessage,
};
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};

use crate::tool::{Exec, ToolError};

use crate::mcp::server::offers::cache;

/// Makes the messages from the arguments, asking the client through the
/// [`Exec`] when it must; fails when they do not deserialize, or the asking
/// fails.
type GetFn = dyn Fn(Map<String, Value>, Exec) -> BoxFuture<'static, Result<Vec<PromptMessage>, GetError>>
    + Send
    + Sync;

/// Why a prompt made no messages.
#[derive(Debug)]
pub(crate) enum GetError {
    /// Its arguments do not deserialize.
    Args(serde_json::Error),
    /// It asked the client, and that failed.
    Failed(ToolError),
}

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
            Arc::new(move |_, _| Box::pin(std::future::ready(Ok(messages.clone())))),
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
        let get = move |args: Map<String, Value>, _: Exec| -> BoxFuture<'static, _> {
            let made = serde_json::from_value::<A>(Value::Object(args))
                .map(&messages)
                .map_err(GetError::Args);
            Box::pin(std::future::ready(made))
        };
        Prompt::from_parts(
            McpPrompt::new(name, Some(description), Some(arguments::<A>())),
            Arc::new(get),
        )
    }

    /// A prompt whose arguments are the fields of `A`, whose `messages` may
    /// ask the client first, through the [`Exec`] it gets, as a tool does:
    /// [`elicit`](Exec::elicit) the user, [`sample`](Exec::sample) the
    /// model, list the [`roots`](Exec::roots). On MCP 2026-07-28 that is
    /// multi-round-trip input, as for a tool: `prompts/get` answers with the
    /// requests, and the retry with the answers runs `messages` again.
    ///
    /// ```
    /// use dsh_kit::client::Elicited;
    /// use dsh_kit::mcp::Prompt;
    /// use dsh_kit::mcp::rmcp::model::{PromptMessage, Role};
    /// use dsh_kit::prelude::*;
    ///
    /// #[derive(Deserialize, JsonSchema)]
    /// struct Plan {
    ///     /// What to plan
    ///     goal: String,
    /// }
    ///
    /// #[derive(Deserialize, JsonSchema, Elicit)]
    /// struct Budget {
    ///     /// How much may be spent, in euros
    ///     euros: u32,
    /// }
    ///
    /// let plan = Prompt::asking("plan", "Plan within the user's budget", |args: Plan, exec: Exec| async move {
    ///     let budget = match exec.elicit_keyed::<Budget>("budget", "What is the budget?").await? {
    ///         Elicited::Accepted(budget) => format!("{} euros", budget.euros),
    ///         Elicited::Declined | Elicited::Cancelled => "no fixed budget".to_owned(),
    ///     };
    ///     Ok(vec![PromptMessage::new_text(
    ///         Role::User,
    ///         format!("Plan {} with {budget}.", args.goal),
    ///     )])
    /// });
    /// # drop(plan);
    /// ```
    pub fn asking<A, F, Fut>(
        name: impl Into<String>,
        description: impl Into<String>,
        messages: F,
    ) -> Self
    where
        A: JsonSchema + DeserializeOwned + Send + 'static,
        F: Fn(A, Exec) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Vec<PromptMessage>, ToolError>> + Send + 'static,
    {
        let get = move |args: Map<String, Value>, exec: Exec| -> BoxFuture<'static, _> {
            match serde_json::from_value::<A>(Value::Object(args)) {
                Ok(args) => {
                    let made = messages(args, exec);
                    Box::pin(async move { made.await.map_err(GetError::Failed) })
                }
                Err(error) => Box::pin(std::future::ready(Err(GetError::Args(error)))),
            }
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
pub(crate) struct Prompts(BTreeMap<String, Prompt>);

impl Prompts {
    pub(crate) fn add(&mut self, prompt: Prompt) {
        self.0.insert(prompt.name().to_owned(), prompt);
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// `prompts/list`, sorted by name.
    pub(crate) fn list(&self) -> ListPromptsResult {
        ListPromptsResult::with_all_items(self.0.values().map(|p| p.prompt.clone()).collect())
            .with_ttl_ms(cache::TTL_MS)
            .with_cache_scope(cache::SCOPE)
    }

    /// `prompts/get`: the prompt named `name` making its messages from
    /// `args`, asking the client through `exec` if it must.
    pub(crate) fn get(
        &self,
        name: &str,
        args: Map<String, Value>,
        exec: Exec,
    ) -> Result<impl Future<Output = Result<GetPromptResult, ErrorData>> + use<>, ErrorData> {
        let prompt = self.find(name)?;
        let making = (prompt.get)(args, exec);
        let description = prompt.prompt.description.clone();
        let name = name.to_owned();
        Ok(async move {
            let messages = making.await.map_err(|error| match error {
                GetError::Args(error) => ErrorData::invalid_params(
                    format!("the arguments of prompt `{name}` are invalid: {error}"),
                    Some(json!({ "prompt": name })),
                ),
                GetError::Failed(error) => ErrorData::internal_error(
                    format!("prompt `{name}` failed: {error}"),
                    Some(json!({ "prompt": name })),
                ),
            })?;
            let mut result = GetPromptResult::new(messages);
            result.description = description;
            Ok(result)
        })
    }

    /// `completion/complete` for one argument of a prompt.
    pub(crate) fn complete(
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
