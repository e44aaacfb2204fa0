//! [`Exec`]: what a tool's body knows about the call it is serving.

use std::any::{Any, TypeId, type_name};
use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

use tokio_util::sync::CancellationToken;
use uuid::Uuid;

use crate::tool::ToolError;
use crate::tool::client::{
    Client, ClientError, ElicitRequest, Elicitation, ElicitationId, Elicited, LogLevel, LogMessage,
    Root, RootsRequest, Sample, SampleRequest, UrlElicitError, UrlElicitRequest,
    elicitation_schema, elicitation_url, no_client,
};
use crate::tool::elicit::Elicitable;
use crate::value::event::{Progress, StreamChunk, StreamType};
use crate::value::principal::Principal;

/// The execution context of one call: its identity, its cancellation token,
/// the host's shared state, and the channel for progress and output chunks.
///
/// Take it as `exec: &Exec` in a `#[tool]` fn:
///
/// ```
/// use dsh_kit::prelude::*;
///
/// struct Greeting(&'static str);
///
/// /// Greet someone with the host's greeting.
/// #[tool]
/// async fn greet(
///     /// The name to greet
///     name: String,
///     exec: &Exec,
/// ) -> Result<String, ToolError> {
///     let greeting = exec.state::<Greeting>()?;
///     exec.progress("greeting");
///     Ok(format!("{}, {name}!", greeting.0))
/// }
/// ```
#[derive(Clone)]
pub struct Exec {
    inner: Arc<ExecInner>,
}

struct ExecInner {
    invocation_id: Uuid,
    tool_name: Cow<'static, str>,
    /// Made on first use when the host handed in no token: a call nobody
    /// outside can cancel pays nothing for one unless its tool asks. Made
    /// as a child of the batch's token when the call runs in a batch.
    cancel: OnceLock<CancellationToken>,
    /// The token of the batch the call runs in, if any.
    batch: Option<CancellationToken>,
    /// What the call shares with every other call of its registry.
    shared: Arc<Surroundings>,
    sequence: AtomicU64,
    client: Option<Arc<dyn Client>>,
    /// Who makes the call.
    principal: Arc<Principal>,
    /// The session the call came through, opaque here: `pipeline/` reads
    /// it back (the deferred tools its tool search loaded). `None`: the
    /// principal's own.
    session: Option<Session>,
}

/// What every call of one registry shares, made once per registry: a
/// call's context holds it behind one reference count, not one for each.
pub(crate) struct Surroundings {
    /// The host's typed values.
    pub(crate) state: State,
    /// The pipeline the call runs in, not kept alive: `pipeline/` reads it
    /// back (`Pipeline::of`, for tool search and the caller's view), so the
    /// call context need not know the pool. `None` outside a registry.
    pub(crate) pipeline: Option<WeakPipeline>,
    /// Where the chunks a tool streams go.
    pub(crate) sink: Option<StreamSink>,
}

/// A pipeline a call runs in, as its context holds it. A tool sits below
/// the pipeline that runs it, so this names it by what the context does
/// with it: nothing but hand it back to `pipeline/`, whose `Pipeline` is
/// the one type that implements it.
pub(crate) trait RunsCalls: Any + Send + Sync {}

/// The pipeline a call runs in, not kept alive, as `pipeline/` hands it in.
pub(crate) type WeakPipeline = std::sync::Weak<dyn RunsCalls>;

/// A caller's session, as `pipeline/` hands it in.
pub(crate) type Session = Arc<dyn Any + Send + Sync>;

/// Receives the stream chunks a tool sends through [`Exec`].
pub(crate) type StreamSink = Arc<dyn Fn(StreamChunk) + Send + Sync>;

impl Exec {
    /// A context for one call. Hosts get one from the registry; tests can build one.
    pub fn new(tool_name: impl Into<String>) -> Self {
        Exec::builder(tool_name).build()
    }

    /// The context handed to a tool that reads none (see
    /// `Tool::READS_EXEC`): made once, belonging to no call and no registry.
    pub(crate) fn detached() -> &'static Exec {
        static DETACHED: OnceLock<Exec> = OnceLock::new();
        DETACHED.get_or_init(|| Exec::builder("").invocation_id(Uuid::nil()).build())
    }

    /// Starts a context with every part configurable.
    pub fn builder(tool_name: impl Into<String>) -> ExecBuilder {
        ExecBuilder {
            invocation_id: Uuid::new_v4(),
            tool_name: tool_name.into(),
            cancel: None,
            state: State::default(),
            sink: None,
            client: None,
            principal: None,
        }
    }

    /// The context of a call the registry runs.
    pub(crate) fn for_call(
        tool_name: Cow<'static, str>,
        invocation_id: Uuid,
        tokens: CallTokens,
        shared: Arc<Surroundings>,
        client: Option<Arc<dyn Client>>,
        principal: Arc<Principal>,
        session: Option<Session>,
    ) -> Exec {
        Exec {
            inner: Arc::new(ExecInner {
                invocation_id,
                tool_name,
                cancel: tokens.own.map_or_else(OnceLock::new, OnceLock::from),
                batch: tokens.batch,
                shared,
                sequence: AtomicU64::new(0),
                client,
                principal,
                session,
            }),
        }
    }

    /// This call's id (UUID v4), as in `tool.invoke.*` events.
    pub fn invocation_id(&self) -> Uuid {
        self.inner.invocation_id
    }

    /// The name of the tool being called.
    pub fn tool_name(&self) -> &str {
        &self.inner.tool_name
    }

    /// Cancelled when the host cancels this call or its batch.
    ///
    /// Long-running tools should pass it on or select on
    /// [`cancelled`](CancellationToken::cancelled); a call whose tool ignores it
    /// is dropped all the same.
    pub fn cancellation(&self) -> &CancellationToken {
        self.inner.cancel.get_or_init(|| match &self.inner.batch {
            Some(batch) => batch.child_token(),
            None => CancellationToken::new(),
        })
    }

    /// Whether the call has been cancelled.
    pub fn is_cancelled(&self) -> bool {
        let own = self.inner.cancel.get();
        own.is_some_and(CancellationToken::is_cancelled)
            || self
                .inner
                .batch
                .as_ref()
                .is_some_and(CancellationToken::is_cancelled)
    }

    /// A value of type `T` the host handed in (a database pool, an HTTP client).
    ///
    /// Missing state is a [`MissingState`] error naming the type: a
    /// `std::error::Error`, so `?` takes it into whatever error the tool
    /// returns (`ToolError`, `anyhow::Error`, `Box<dyn Error>`, or an enum
    /// of the tool's own with a `#[from] MissingState` variant).
    ///
    /// ```
    /// use dsh_kit::{Exec, MissingState};
    ///
    /// #[derive(Debug, thiserror::Error)]
    /// enum LookupError {
    ///     #[error(transparent)]
    ///     Setup(#[from] MissingState),
    /// }
    ///
    /// fn pool(exec: &Exec) -> Result<&String, LookupError> {
    ///     Ok(exec.state::<String>()?)
    /// }
    ///
    /// let exec = Exec::builder("lookup").build();
    /// assert_eq!(
    ///     pool(&exec).unwrap_err().to_string(),
    ///     "the host provided no `alloc::string::String` to this tool"
    /// );
    /// ```
    pub fn state<T: Any + Send + Sync>(&self) -> Result<&T, MissingState> {
        self.inner.shared.state.get::<T>().ok_or(MissingState {
            type_name: type_name::<T>(),
        })
    }

    /// The pipeline the call runs in, as handed in.
    pub(crate) fn pipeline(&self) -> Option<&WeakPipeline> {
        self.inner.shared.pipeline.as_ref()
    }

    /// Sends a progress message.
    pub fn progress(&self, message: impl Into<String>) {
        self.send(StreamType::Progress, message.into(), None);
    }

    /// Sends how far the call has come: `progress` of `total` when the total
    /// is known, with a message (MCP `notifications/progress` with
    /// `progress`, `total` and `message`). A number that is not finite is
    /// left out and the message still sent.
    ///
    /// ```
    /// use dsh_kit::Exec;
    ///
    /// let exec = Exec::new("copy");
    /// for (done, file) in ["a.txt", "b.txt"].iter().enumerate() {
    ///     exec.report_progress(done as f64 + 1.0, Some(2.0), format!("copied {file}"));
    /// }
    /// ```
    pub fn report_progress(&self, progress: f64, total: Option<f64>, message: impl Into<String>) {
        self.send(
            StreamType::Progress,
            message.into(),
            Progress::new(progress, total),
        );
    }

    /// Sends a chunk of standard output.
    pub fn stdout(&self, chunk: impl Into<String>) {
        self.send(StreamType::Stdout, chunk.into(), None);
    }

    /// Sends a chunk of standard error.
    pub fn stderr(&self, chunk: impl Into<String>) {
        self.send(StreamType::Stderr, chunk.into(), None);
    }

    /// Who makes the call: the principal an authenticator vouched for, or
    /// [`Principal::host`] for a call the host made without naming one.
    ///
    /// ```
    /// use dsh_kit::{Exec, Principal};
    ///
    /// let exec = Exec::builder("whoami").principal(Principal::new("ada")).build();
    /// assert_eq!(exec.principal().subject(), "ada");
    /// assert!(Exec::new("whoami").principal().is_host());
    /// ```
    pub fn principal(&self) -> &Principal {
        &self.inner.principal
    }

    /// [`principal`](Self::principal), shared, for the calls this one makes.
    pub(crate) fn principal_shared(&self) -> &Arc<Principal> {
        &self.inner.principal
    }

    /// The session the call came through, as handed in.
    pub(crate) fn session(&self) -> Option<&Session> {
        self.inner.session.as_ref()
    }

    /// The client the call came from, when it can be reached (an MCP client).
    pub fn client(&self) -> Option<&Arc<dyn Client>> {
        self.inner.client.as_ref()
    }

    /// Sends a log message to the client (MCP `notifications/message`),
    /// logged as this tool. A call with no client logs nowhere; a client
    /// that asked for a higher level does not get it.
    pub async fn log(&self, level: LogLevel, message: impl Into<String>) {
        let Some(client) = self.client() else { return };
        let message = LogMessage {
            level,
            logger: self.tool_name().to_owned(),
            data: serde_json::Value::String(message.into()),
        };
        // A log line that cannot be delivered is no reason to fail the call.
        let _ = client.log(message).await;
    }

    /// Asks the user for a `T` through the client (MCP elicitation), with
    /// `message` saying what and why.
    ///
    /// `T` is a form, checked at compile time: `#[derive(Elicit)]` refuses a
    /// field that is not a string, number, integer, boolean or choice
    /// ([`Elicitable`]). Its schema is checked again here, for forms
    /// implemented by hand ([`elicitation_schema`]): anything else is an
    /// error naming the property. The answer is checked against `T` as it
    /// is deserialized.
    ///
    /// ```
    /// use dsh_kit::client::Elicited;
    /// use dsh_kit::prelude::*;
    ///
    /// #[derive(Deserialize, JsonSchema, Elicit)]
    /// struct Confirm {
    ///     /// Type the branch name to confirm
    ///     branch: String,
    /// }
    ///
    /// /// Delete a branch, once the user confirms it.
    /// #[tool(destructive)]
    /// async fn delete_branch(
    ///     /// The branch
    ///     branch: String,
    ///     exec: &Exec,
    /// ) -> Result<String, ToolError> {
    ///     match exec.elicit::<Confirm>(format!("Delete `{branch}`?")).await? {
    ///         Elicited::Accepted(confirm) if confirm.branch == branch => Ok(format!("deleted {branch}")),
    ///         Elicited::Accepted(_) => Err(ToolError::new("the confirmation did not match")),
    ///         Elicited::Declined | Elicited::Cancelled => Err(ToolError::new("the user said no")),
    ///     }
    /// }
    /// ```
    pub async fn elicit<T: Elicitable>(
        &self,
        message: impl Into<String>,
    ) -> Result<Elicited<T>, ToolError> {
        self.ask_form(None, message.into()).await
    }

    /// [`elicit`](Self::elicit), its answer named `key` when the client
    /// answers it on a retry of the call (MCP 2026-07-28's multi-round-trip
    /// input), rather than by kind and order (`elicitation-0`).
    pub async fn elicit_keyed<T: Elicitable>(
        &self,
        key: impl Into<String>,
        message: impl Into<String>,
    ) -> Result<Elicited<T>, ToolError> {
        self.ask_form(Some(key.into()), message.into()).await
    }

    async fn ask_form<T: Elicitable>(
        &self,
        key: Option<String>,
        message: String,
    ) -> Result<Elicited<T>, ToolError> {
        let schema =
            elicitation_schema::<T>().map_err(|error| ToolError::new(error.to_string()))?;
        let client = self
            .client()
            .ok_or_else(|| client_error(no_client("elicit from")))?;
        let request = ElicitRequest {
            message,
            schema,
            key,
        };
        match client.elicit(request).await.map_err(client_error)? {
            Elicitation::Accept(content) => serde_json::from_value(content.into())
                .map(Elicited::Accepted)
                .map_err(|error| {
                    ToolError::new(format!(
                        "the user's answer does not fit `{}`: {error}",
                        type_name::<T>()
                    ))
                }),
            Elicitation::Decline => Ok(Elicited::Declined),
            Elicitation::Cancel => Ok(Elicited::Cancelled),
        }
    }

    /// Sends the user to `url` through the client (MCP URL-mode
    /// elicitation), with `message` saying why: a third-party sign-in, a
    /// payment, an API key the client must not see. The answer is whether
    /// the user agreed to go, with the elicitation's id; what they do there
    /// reaches the host by its own way (the page's callback), and
    /// [`elicitation_complete`](Self::elicitation_complete) tells the client
    /// when it is over.
    ///
    /// `url` must be an absolute `https:` URL, or `http:` on a loopback host
    /// in development, without credentials ([`elicitation_url`]); a client
    /// that did not declare URL elicitation is
    /// [`ClientError::Unsupported`], typed, so a tool can fall back:
    ///
    /// ```
    /// use dsh_kit::client::{ClientError, Elicited, UrlElicitError};
    /// use dsh_kit::prelude::*;
    ///
    /// /// Read the user's calendar, once they signed in to it.
    /// #[tool(read_only)]
    /// async fn calendar(exec: &Exec) -> Result<String, ToolError> {
    ///     let sign_in = "https://calendar.example.com/connect?state=8f2a";
    ///     match exec.elicit_url(sign_in, "Sign in to Example Calendar").await {
    ///         Ok(Elicited::Accepted(id)) => {
    ///             // … wait for the sign-in page's callback, then:
    ///             exec.elicitation_complete(&id).await;
    ///             Ok("signed in".to_owned())
    ///         }
    ///         Ok(Elicited::Declined | Elicited::Cancelled) => Err(ToolError::new("not signed in")),
    ///         Err(UrlElicitError::Client(ClientError::Unsupported { .. })) => {
    ///             Ok(format!("open {sign_in} to sign in, then ask again"))
    ///         }
    ///         Err(error) => Err(error.into()),
    ///     }
    /// }
    /// ```
    pub async fn elicit_url(
        &self,
        url: impl AsRef<str>,
        message: impl Into<String>,
    ) -> Result<Elicited<ElicitationId>, UrlElicitError> {
        let given = url.as_ref();
        let url = elicitation_url(given).map_err(|problem| UrlElicitError::Url {
            url: given.chars().take(200).collect(),
            problem,
        })?;
        let client = self.client().ok_or_else(|| no_client("elicit from"))?;
        let id = ElicitationId::new();
        let request = UrlElicitRequest {
            message: message.into(),
            url,
            id: id.clone(),
        };
        Ok(match client.elicit_url(request).await? {
            Elicitation::Accept(_) => Elicited::Accepted(id),
            Elicitation::Decline => Elicited::Declined,
            Elicitation::Cancel => Elicited::Cancelled,
        })
    }

    /// Tells the client that the interaction at the URL of
    /// [`elicit_url`](Self::elicit_url)'s elicitation `id` is over (MCP
    /// `notifications/elicitation/complete`, on the 2025 protocols). A
    /// notice that cannot be delivered is no reason to fail the call, so it
    /// is dropped, as a client with no use for it does.
    pub async fn elicitation_complete(&self, id: &ElicitationId) {
        if let Some(client) = self.client() {
            let _ = client.elicitation_complete(id).await;
        }
    }

    /// Asks the client's model for a completion (MCP sampling).
    pub async fn sample(&self, request: SampleRequest) -> Result<Sample, ToolError> {
        let client = self
            .client()
            .ok_or_else(|| client_error(no_client("sample from")))?;
        client.sample(request).await.map_err(client_error)
    }

    /// The client's roots: the directories and files it lets the tool work
    /// in (MCP `roots/list`). `key` names the answer on a retry of the call,
    /// as [`elicit_keyed`](Self::elicit_keyed)'s; `None` names it `roots-N`.
    pub async fn roots(&self, key: Option<&str>) -> Result<Vec<Root>, ToolError> {
        let client = self
            .client()
            .ok_or_else(|| client_error(no_client("list the roots of")))?;
        let request = RootsRequest {
            key: key.map(str::to_owned),
        };
        client.roots(request).await.map_err(client_error)
    }

    fn send(&self, stream_type: StreamType, chunk: String, progress: Option<Progress>) {
        let Some(sink) = &self.inner.shared.sink else {
            return;
        };
        let sequence = self.inner.sequence.fetch_add(1, Ordering::Relaxed);
        sink(StreamChunk {
            invocation_id: self.inner.invocation_id,
            tool_name: self.inner.tool_name.clone().into_owned(),
            stream_type,
            chunk,
            sequence,
            progress,
        });
    }
}

impl fmt::Debug for Exec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Exec")
            .field("invocation_id", &self.inner.invocation_id)
            .field("tool_name", &self.inner.tool_name)
            .field("cancelled", &self.is_cancelled())
            .finish_non_exhaustive()
    }
}

/// The tokens that cancel a call the registry runs: the host's own for
/// the call, and its batch's.
#[derive(Default)]
pub(crate) struct CallTokens {
    pub(crate) own: Option<CancellationToken>,
    pub(crate) batch: Option<CancellationToken>,
}

/// Builds an [`Exec`].
pub struct ExecBuilder {
    invocation_id: Uuid,
    tool_name: String,
    cancel: Option<CancellationToken>,
    state: State,
    sink: Option<StreamSink>,
    client: Option<Arc<dyn Client>>,
    principal: Option<Arc<Principal>>,
}

impl ExecBuilder {
    /// Sets the invocation id.
    pub fn invocation_id(mut self, id: Uuid) -> Self {
        self.invocation_id = id;
        self
    }

    /// Sets the cancellation token.
    pub fn cancellation(mut self, token: CancellationToken) -> Self {
        self.cancel = Some(token);
        self
    }

    /// Sets the shared state.
    pub fn state(mut self, state: State) -> Self {
        self.state = state;
        self
    }

    /// Receives the chunks the tool streams.
    pub fn on_stream(mut self, sink: impl Fn(StreamChunk) + Send + Sync + 'static) -> Self {
        self.sink = Some(Arc::new(sink));
        self
    }

    /// Sets who makes the call (else [`Principal::host`]).
    pub fn principal(mut self, principal: impl Into<Arc<Principal>>) -> Self {
        self.principal = Some(principal.into());
        self
    }

    /// Sets the client the call came from (see [`crate::tool::client`]).
    pub fn client(mut self, client: Arc<dyn Client>) -> Self {
        self.client = Some(client);
        self
    }

    /// Builds the context.
    pub fn build(self) -> Exec {
        Exec {
            inner: Arc::new(ExecInner {
                invocation_id: self.invocation_id,
                tool_name: Cow::Owned(self.tool_name),
                cancel: self.cancel.map_or_else(OnceLock::new, OnceLock::from),
                batch: None,
                shared: Arc::new(Surroundings {
                    state: self.state,
                    // Built outside a registry: `Pipeline::of` finds none.
                    pipeline: None,
                    sink: self.sink,
                }),
                sequence: AtomicU64::new(0),
                client: self.client,
                principal: self
                    .principal
                    .unwrap_or_else(|| Principal::shared_host().clone()),
                session: None,
            }),
        }
    }
}

fn client_error(error: ClientError) -> ToolError {
    ToolError::new(error.to_string())
}

/// Typed values the host shares with every tool, one per type.
///
/// A plain type map: the few lines it takes are not worth a dependency.
///
/// ```
/// use dsh_kit::State;
///
/// let state = State::default().with(42_u32);
/// assert_eq!(state.get::<u32>(), Some(&42));
/// assert_eq!(state.get::<u64>(), None);
/// ```
#[derive(Clone, Default)]
pub struct State {
    values: Arc<HashMap<TypeId, Arc<dyn Any + Send + Sync>>>,
}

impl State {
    /// Adds a value, replacing any earlier value of the same type.
    pub fn with<T: Any + Send + Sync>(mut self, value: T) -> Self {
        Arc::make_mut(&mut self.values).insert(TypeId::of::<T>(), Arc::new(value));
        self
    }

    /// The value of type `T`, if any.
    pub fn get<T: Any + Send + Sync>(&self) -> Option<&T> {
        self.values
            .get(&TypeId::of::<T>())
            .and_then(|value| value.downcast_ref::<T>())
    }
}

impl fmt::Debug for State {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("State")
            .field("values", &self.values.len())
            .finish()
    }
}

/// The state a tool asked for with [`Exec::state`] that the host did not
/// provide: a plain error, so it converts into any error type the tool returns.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("the host provided no `{type_name}` to this tool")]
pub struct MissingState {
    type_name: &'static str,
}

impl MissingState {
    /// The name of the type that was asked for.
    pub fn type_name(&self) -> &'static str {
        self.type_name
    }
}
