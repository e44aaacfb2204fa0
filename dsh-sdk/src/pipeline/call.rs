//! [`ToolCall`]: one call a model asked for, with the host's options.

use std::sync::Arc;

use serde_json::Value;
use tokio_util::sync::CancellationToken;
use uuid::Uuid;

use crate::pool::Loaded;
use crate::tool::Entry;
use crate::tool::client::Client;
use crate::value::id::new_id;
use crate::value::principal::Principal;

/// One call a model asked for: a tool name and its raw arguments.
///
/// ```
/// use dsh_kit::ToolCall;
/// use serde_json::json;
/// use dsh_kit::CancellationToken;
///
/// let cancel = CancellationToken::new();
/// let call = ToolCall::new("read_file", json!({ "path": "/etc/hosts" })).cancel_on(cancel.clone());
/// // later: cancel.cancel() ends the call with status `cancelled`.
/// # drop(call);
/// ```
#[derive(Clone, Debug)]
pub struct ToolCall {
    pub(super) name: CallName,
    /// Shared, from here on, with whatever observes the call (its
    /// request event, its card) rather than copied.
    pub(super) args: Arc<Value>,
    pub(super) invocation_id: Uuid,
    /// The host's token for this call, if it handed one in.
    pub(super) cancel: Option<CancellationToken>,
    /// The token of the batch the call runs in, if any.
    pub(super) batch_cancel: Option<CancellationToken>,
    pub(super) parallel_group_id: Option<Uuid>,
    pub(super) top_level: bool,
    /// The client the call came from, when it can be reached.
    pub(super) client: Option<CallClient>,
    /// Who makes the call; the host when nobody said.
    pub(super) principal: Option<Arc<Principal>>,
    /// The session the call comes through, when its caller has one: where
    /// its tool search loads tools. `None`: the principal's own set.
    pub(super) session: Option<Arc<Loaded>>,
    /// The tool, when whoever made the call already looked it up.
    pub(super) resolved: Option<Resolved>,
}

/// A call's tool, looked up when the call was made ([`Registry::call`]), so
/// the pipeline does not look it up again; shown by name only in `Debug`.
///
/// [`Registry::call`]: crate::Registry::call
#[derive(Clone)]
pub(super) struct Resolved(pub(super) Arc<Entry>);

impl std::fmt::Debug for Resolved {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("Resolved").field(&self.0.def.name()).finish()
    }
}

/// The name a call asks for: borrowed when it is the name of a registered
/// tool known at compile time, so calling one by its name allocates nothing
/// for it; else shared.
#[derive(Clone, Debug)]
pub(super) enum CallName {
    Static(&'static str),
    Shared(Arc<str>),
}

impl std::ops::Deref for CallName {
    type Target = str;

    fn deref(&self) -> &str {
        match self {
            CallName::Static(name) => name,
            CallName::Shared(name) => name,
        }
    }
}

/// A call's [`Client`], shown by name only in `Debug`.
#[derive(Clone)]
pub(super) struct CallClient(pub(super) Arc<dyn Client>);

impl std::fmt::Debug for CallClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Client(..)")
    }
}

impl ToolCall {
    /// A top-level call of `name` with `args`, with a fresh invocation id.
    pub fn new(name: impl Into<Arc<str>>, args: Value) -> Self {
        Self::named(CallName::Shared(name.into()), args)
    }

    /// A top-level call of the tool `name` with `args`.
    pub(super) fn named(name: CallName, args: Value) -> Self {
        Self::resolved(name, args, None)
    }

    /// A top-level call of the tool `name` with `args`, whose tool, when
    /// `resolved`, was looked up already.
    pub(super) fn resolved(name: CallName, args: Value, resolved: Option<Resolved>) -> Self {
        ToolCall {
            name,
            args: Arc::new(args),
            invocation_id: new_id(),
            cancel: None,
            batch_cancel: None,
            parallel_group_id: None,
            top_level: true,
            client: None,
            principal: None,
            session: None,
            resolved,
        }
    }

    /// The client the call came from, for the tool to log to, ask its user
    /// (elicitation) or its model (sampling) through [`Exec`](crate::Exec).
    pub fn client(mut self, client: Arc<dyn Client>) -> Self {
        self.client = Some(CallClient(client));
        self
    }

    /// Who makes the call, as an authenticator vouched for it; a call
    /// given none is the host's own ([`Principal::host`]).
    pub fn principal(mut self, principal: impl Into<Arc<Principal>>) -> Self {
        self.principal = Some(principal.into());
        self
    }

    /// Who makes the call: the principal given, else the host.
    pub(super) fn caller(&self) -> &Principal {
        self.principal
            .as_deref()
            .unwrap_or_else(|| Principal::shared_host())
    }

    /// Cancels the call when `token` is cancelled.
    pub fn cancel_on(mut self, token: CancellationToken) -> Self {
        self.cancel = Some(token);
        self
    }

    /// Uses this invocation id instead of a fresh one.
    pub fn invocation_id(mut self, id: Uuid) -> Self {
        self.invocation_id = id;
        self
    }

    /// The call, made by `principal` through `session` unless it names a
    /// principal already (then through that principal's own set).
    pub(crate) fn made_by(
        mut self,
        principal: &Arc<Principal>,
        session: Option<&Arc<Loaded>>,
    ) -> Self {
        if self.principal.is_none() {
            self.principal = Some(Arc::clone(principal));
            self.session = session.cloned();
        }
        self
    }

    /// Marks a nested call (made by another tool): it gets no card.
    pub fn nested(mut self) -> Self {
        self.top_level = false;
        self
    }

    /// The invocation id the call will carry.
    pub fn id(&self) -> Uuid {
        self.invocation_id
    }
}
