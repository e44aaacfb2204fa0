//! [`McpServer`]: a registry served to MCP clients.
//!
//! rmcp's `ServerHandler` has one method per MCP request; `handler` answers
//! each in a line or two from the concept it belongs to: the tools and the
//! tasks a call becomes (`tools`), what is offered beside them (`offers`:
//! resources, prompts, completions), and a session's life (`lifecycle`:
//! `initialize`, `list_changed`, requests rmcp could not read). `serve`
//! holds the transports, and `http` their socket side (connections,
//! session admission, the shape of a reply). The wire shapes are in
//! `mcp::wire`, a call's client side in `mcp::session`, tasks in
//! `mcp::tasks`, and the state replicas share in `mcp::stores`.

mod caller;
mod definitions;
mod handler;
pub(crate) mod http;
mod lifecycle;
pub(crate) mod offers;
mod rounds;
mod serve;
mod tools;
mod trace;

use std::fmt;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::model::Implementation;

use crate::pool::Loaded;
use crate::registry::Registry;
use crate::tool::ResultShape;

use super::apps;
use super::request_state::StateKey;
use super::session::Session;
use crate::mcp::server::http::HttpSettings;
use crate::mcp::server::offers::prompts::{Prompt, Prompts};
use crate::mcp::server::offers::resources::{ResourceProvider, ResourceUpdates, Resources};
use crate::mcp::server::offers::skills;
use crate::mcp::stores::bus::{BusSlot, EventBus};
use crate::mcp::tasks::store::TaskStore;
use crate::mcp::tasks::{MemoryTaskStore, Tasks};

use lifecycle::ListChanged;
use offers::Offers;

/// A [`Registry`] as an MCP server: an rmcp [`ServerHandler`](rmcp::ServerHandler), with
/// [`serve_stdio`](Self::serve_stdio) and [`serve_http`](Self::serve_http)
/// for the two standard transports. Any other rmcp transport works through
/// rmcp's [`ServiceExt::serve`](rmcp::ServiceExt::serve).
///
/// - `tools/list` is [`Registry::export`] in [`Format::Mcp`](crate::export::Format::Mcp), the very list a
///   model would see (deferred tools only once tool search loaded them):
///   `inputSchema` (declaring its dialect, JSON Schema 2020-12, in `$schema`), `outputSchema`, `title`, and `annotations` from the flags
///   (`read_only` → `readOnlyHint`, `destructive` → `destructiveHint`,
///   `idempotent` → `idempotentHint`, `open_world` → `openWorldHint`, left
///   out when the tool did not say). Clients on a protocol older than
///   2026-07-28 do not get output schemas whose root is not an object, which
///   they cannot read.
/// - `tools/call` runs [`Registry::call_with`], the full pipeline. `content`
///   is what the tool's render made (a call that rendered nothing says so, so
///   the text is never empty). Its shape is the tool's
///   [`ResultShape`], or else the server's ([`result_shape`](Self::result_shape)):
///   by default ([`ResultShape::Render`]) a tool with a render of its own
///   sends the render alone, and lists no `outputSchema`, so every host's
///   model reads the render once; a tool whose content is its value sends
///   the value as `structuredContent` too, under its `outputSchema`: any
///   JSON value from 2026-07-28 on, an object only before (a string or an
///   array is then left to `content`). Every failure the pipeline reports —
///   invalid arguments with every violation, a refusal, the tool's own error,
///   a timeout — is a result with `isError: true` and its message, for the
///   model to act on; a typed failure's kind and data follow the message as
///   one more text block ([`Failure::summary`](crate::Failure::summary)),
///   since hosts hand their models no `_meta`. Only an unknown tool is a
///   protocol error (`-32602`), as
///   the MCP spec asks, and its message names the closest tools.
/// - Each tool's `_meta` carries its [contract hash](crate::export::digest) under
///   [`CONTRACT_META_KEY`](super::CONTRACT_META_KEY): SHA-256 of its canonical definition, for a client
///   to pin. [`McpProxy`](super::McpProxy) checks it.
/// - MCP Apps: a tool that presents its own card (`#[tool(present = …)]`)
///   links, in its `_meta.ui.resourceUri`, to a `ui://dsh/cards/TOOL`
///   resource (`resources/list`, `resources/read`, MIME type
///   `text/html;profile=mcp-app`) that draws the card of each of its results
///   ([`card_app_html`](crate::value::card::web::card_app_html)); its results carry the
///   card in `_meta["dsh/card"]` for a client that declared MCP Apps
///   (the [`MCP_APPS_EXTENSION`](super::MCP_APPS_EXTENSION) extension) and
///   for no other, since a host that hands `_meta` to its model would show
///   it the value once more. Hosts without MCP Apps get `content` (and
///   `structuredContent` where the shape has it).
/// - Skills: when the registry has [skills](crate::skill), the server
///   declares the Skills extension (`io.modelcontextprotocol/skills`, with
///   no optional feature) and answers `skills/list` (a page of 100 in URI
///   order; `nextCursor` leads on) and `skills/get` (`-32602` for a URI that
///   names no skill), both with the cache hints; each skill's files are
///   resources (`resources/read`), and each `SKILL.md` is in
///   `resources/list`, named and described by its front matter.
/// - `notifications/cancelled` from the client cancels the call.
/// - Tasks: a tool flagged `task` (or `task_required`) answers a client that
///   declared the tasks extension with a task at once and runs the call in
///   the background; `tasks/get`, `tasks/cancel`, and MCP 2025-11-25's
///   `tasks/result` and `tasks/list` follow it in the
///   [task store](Self::task_store). Its task support is in `tools/list`
///   `_meta` under [`TASK_SUPPORT_META_KEY`](super::TASK_SUPPORT_META_KEY), and in the registry's MCP export
///   as `execution.taskSupport`.
/// - On 2026-07-28, a tool's elicitation, sampling and roots are
///   multi-round-trip input: the client gets an `InputRequiredResult` with
///   every request the tool made before it waited (keyed as the tool named
///   them, [`Exec::elicit_keyed`](crate::Exec::elicit_keyed), else
///   `elicitation-0`…), answers, and retries with them and the
///   `requestState`: the answers of the earlier rounds, sealed with
///   HMAC-SHA256 under the server's [`state_key`](Self::state_key) and bound
///   to the call, so an altered or misplaced one is refused (-32602). The
///   tool runs again from the start and finds its answers. A call whose
///   tool needed a capability the client did not declare on the request,
///   and failed for it, is answered `-32021` naming it (HTTP 400).
/// - On 2026-07-28, a tool's log messages go out only when the request
///   asked for a level (`_meta` `io.modelcontextprotocol/logLevel`); the
///   methods that revision removed (`initialize`, `ping`,
///   `logging/setLevel`, `resources/subscribe`, `resources/unsubscribe`)
///   are unknown methods to its requests (-32601, HTTP 404).
/// - [`Exec::elicit_url`](crate::Exec::elicit_url) is `elicitation/create`
///   with `mode: "url"` and an `elicitationId`, for a client that declared
///   `elicitation.url`; on the 2025 protocols,
///   [`Exec::elicitation_complete`](crate::Exec::elicitation_complete)
///   sends `notifications/elicitation/complete` with that id (2026-07-28
///   has no such notice, and a retried call asks again with a new id).
/// - Over HTTP on 2026-07-28, a `tools/call` must carry, as `Mcp-Param-*`
///   headers, the arguments its tool marks `x-mcp-header`, equal to the
///   body's (SEP-2243); a missing or contradicting one is answered with HTTP
///   400 and a JSON-RPC error (`-32020`) naming the header and both values.
/// - A call whose request carries a `progressToken` gets each `progress`
///   chunk the tool sends through [`Exec::progress`](crate::Exec::progress)
///   as `notifications/progress`, with the chunk as its message.
/// - Registering or dropping a tool sends
///   `notifications/tools/list_changed` to every session that began with
///   `initialize`, and, from 2026-07-28 on, on every `subscriptions/listen`
///   stream that asked for it: the sessions of this process, and of every
///   replica sharing its [event bus](Self::event_bus).
/// - Each session has its own set of deferred tools loaded by tool search:
///   a `tool_search` call loads into the list of the session it came
///   through alone, which alone is sent `list_changed`. The set lives in
///   the memory of the replica that holds the session (a stateless request
///   starts with none); a deferred tool can be called whether or not it
///   was loaded.
/// - Every request is answered as its caller, a
///   [`Principal`](crate::Principal): the one an authenticating layer in
///   front of the HTTP server put, as an `Arc<Principal>`, into the
///   extensions of the HTTP request (rmcp hands the request's
///   [`Parts`](axum::http::request::Parts) to the server), else
///   [`Principal::host`](crate::Principal::host) (stdio, or HTTP with no
///   authenticator). `tools/list` lists, `tool_search` finds and
///   `resources/list` shows the card views of only the tools the caller may
///   see (its [`CallerView`](crate::CallerView)); `tools/call` runs with
///   [`ToolCall::principal`](crate::ToolCall::principal) set, and a tool
///   hidden from the caller is an unknown tool, word for word.
///
/// Cloning gives a handler for another session: it shares the registry.
pub struct McpServer {
    registry: Registry,
    /// Shared by every handler cloned from this one: a stateless server
    /// clones one per request.
    info: Arc<Implementation>,
    instructions: Option<Arc<str>>,
    /// This session's `list_changed` notifications: the changes since
    /// `initialize`, then what stops the sender when the session, and so
    /// this handler, ends.
    list_changed: Mutex<ListChanged>,
    /// Timeouts, caps and allowed origins of [`serve_http`](Self::serve_http),
    /// shared by every handler cloned from this one.
    http: Arc<HttpSettings>,
    /// Each tool's MCP definition, made once per registration.
    definitions: Arc<definitions::Definitions>,
    /// Resources and prompts, shared by every session.
    offers: Arc<Offers>,
    /// This session's log level and resource subscriptions.
    session: Session,
    /// The deferred tools this session's tool search loaded: its own, so
    /// that one session's search changes no other session's list.
    searches: Arc<Loaded>,
    /// Tasks: their store, and the calls this process runs.
    tasks: Arc<Tasks>,
    /// Serve HTTP with no session: any replica answers any request.
    stateless: bool,
    /// How results cross, for tools that chose no shape of their own.
    result_shape: ResultShape,
    /// Where `list_changed`, resource updates and task changes go, to the
    /// sessions of every replica.
    bus: BusSlot,
    /// Starts, once, the forwarding of the registry's tool changes to the bus.
    forwarding: Arc<std::sync::Once>,
    /// Seals the `requestState` of multi-round-trip input.
    state_key: Arc<StateKey>,
}

impl McpServer {
    /// Serves `registry`, naming itself `dsh-kit` with this crate's version.
    pub fn new(registry: Registry) -> Self {
        let card_views = apps::CardViews(registry.clone());
        let skill_files = skills::files(registry.skills());
        let bus = BusSlot::default();
        McpServer {
            registry,
            info: Arc::new(Implementation::new("dsh-kit", env!("CARGO_PKG_VERSION"))),
            instructions: None,
            list_changed: Mutex::default(),
            http: Arc::default(),
            definitions: Arc::default(),
            offers: Arc::new(Offers {
                resources: {
                    let mut resources = Resources::default();
                    resources.add(Arc::new(card_views));
                    resources.add(skill_files);
                    resources
                },
                prompts: Prompts::default(),
            }),
            session: Session::default(),
            searches: Arc::default(),
            tasks: Arc::new(Tasks::new(
                Arc::new(MemoryTaskStore::default()),
                bus.clone(),
            )),
            stateless: false,
            result_shape: ResultShape::default(),
            bus,
            forwarding: Arc::new(std::sync::Once::new()),
            state_key: Arc::new(StateKey::random()),
        }
    }

    /// The secret that seals the `requestState` a client carries between
    /// the rounds of a call that needs its input (MCP 2026-07-28), any
    /// length, at least 32 random bytes to be worth it. Random per server
    /// unless set: replicas behind a load balancer that is not sticky share
    /// one, so each opens the states of the others.
    pub fn state_key(mut self, secret: impl AsRef<[u8]>) -> Self {
        self.state_key = Arc::new(StateKey::from_secret(secret.as_ref()));
        self
    }

    /// Where the server announces what its sessions must hear: tool list
    /// changes, resource updates, task status changes (see [`EventBus`]).
    /// The default reaches the sessions of this process; replicas of a
    /// server share one across processes, such as a
    /// `mcp::redis::RedisEventBus`, so that a client
    /// connected to any replica hears what happened on another.
    pub fn event_bus(self, bus: impl EventBus) -> Self {
        self.bus.replace(Arc::new(bus));
        self
    }

    /// Where tasks are kept (see [`TaskStore`]). The default keeps them in
    /// this process's memory; replicas of a server behind a load balancer
    /// share one store, such as a [`FileTaskStore`](super::FileTaskStore)
    /// on a directory they all see, so a task started through one replica
    /// is polled, fetched and cancelled through any.
    pub fn task_store(mut self, store: impl TaskStore) -> Self {
        self.tasks = Arc::new(self.tasks.with_store(Arc::new(store)));
        Arc::make_mut(&mut self.http).hosts_task_store = true;
        self
    }

    /// Shares this server's state with its other replicas through `redis`:
    /// tasks ([`Redis::task_store`](crate::mcp::redis::Redis::task_store)), the
    /// events sessions hear ([`Redis::event_bus`](crate::mcp::redis::Redis::event_bus)),
    /// and HTTP sessions with their stream events
    /// ([`Redis::session_store`](crate::mcp::redis::Redis::session_store),
    /// [`Redis::event_store`](crate::mcp::redis::Redis::event_store)), so replicas
    /// sit behind a load balancer that is not sticky. Needs the `redis`
    /// feature; see [`mcp::redis`](crate::mcp::redis).
    ///
    /// A replica then also ends a session deleted on any other at once, and
    /// a request that needs Redis while it is down or frozen gets `503`
    /// with `Retry-After` within [`Redis::wait`](crate::mcp::redis::Redis::wait);
    /// see [When Redis is down or frozen](crate::mcp::redis#when-redis-is-down-or-frozen).
    #[cfg(feature = "redis")]
    pub fn redis(self, redis: &crate::mcp::redis::Redis) -> Self {
        let mut server = self
            .task_store(redis.task_store())
            .event_bus(redis.event_bus())
            .session_store(Arc::new(redis.session_store()))
            .event_store(Arc::new(redis.event_store()));
        Arc::make_mut(&mut server.http).shared_sessions = Some(Arc::new(redis.clone()));
        server
    }

    /// How long a task is kept after it starts; defaults to
    /// [`DEFAULT_TASK_TTL`](super::DEFAULT_TASK_TTL), 1 hour.
    pub fn task_ttl(mut self, ttl: Duration) -> Self {
        let store = Arc::clone(self.tasks.store());
        self.tasks = Arc::new(self.tasks.with_store(store).with_ttl(ttl));
        self
    }

    /// How often clients are asked to poll a task, and how often a task's
    /// runner looks for a cancel asked for on another replica; defaults to
    /// [`DEFAULT_TASK_POLL_INTERVAL`](super::DEFAULT_TASK_POLL_INTERVAL), 250 ms.
    pub fn task_poll_interval(mut self, poll: Duration) -> Self {
        let store = Arc::clone(self.tasks.store());
        self.tasks = Arc::new(self.tasks.with_store(store).with_poll_interval(poll));
        self
    }

    /// Serves streamable HTTP with no sessions (`false` by default): every
    /// request stands alone, so N replicas of the server sit behind a plain
    /// round-robin load balancer. Clients on the 2026-07-28 protocol are
    /// served this way in any case; clients on the 2025 protocols get no
    /// `Mcp-Session-Id`, no stream for notifications outside a request, and
    /// no requests from the server between their own. Put tasks in a shared
    /// [`task_store`](Self::task_store).
    pub fn stateless(mut self, stateless: bool) -> Self {
        self.stateless = stateless;
        self
    }

    /// Serves a resource, or a family of them: a [`StaticResource`](super::StaticResource),
    /// a [`ResourceTemplate`](super::ResourceTemplate), or any
    /// [`ResourceProvider`]. Providers are asked in the order they were
    /// added, after the card views of the tools that present a card and the
    /// files of the registry's skills.
    pub fn resource(mut self, provider: impl ResourceProvider) -> Self {
        Arc::make_mut(&mut self.offers)
            .resources
            .add(Arc::new(provider));
        self
    }

    /// Offers a prompt (`prompts/list`, `prompts/get`, `completion/complete`).
    /// A prompt of the same name replaces the earlier one.
    pub fn prompt(mut self, prompt: Prompt) -> Self {
        Arc::make_mut(&mut self.offers).prompts.add(prompt);
        self
    }

    /// Where to announce that a resource changed, so sessions subscribed to
    /// it (`resources/subscribe`) get `notifications/resources/updated`.
    pub fn resource_updates(&mut self) -> ResourceUpdates {
        ResourceUpdates(Arc::make_mut(&mut self.offers).resources.updates(&self.bus))
    }

    /// The name and version the server gives clients (`serverInfo`).
    pub fn named(mut self, name: impl Into<String>, version: impl Into<String>) -> Self {
        self.info = Arc::new(Implementation::new(name, version));
        self
    }

    /// What the server tells clients about using its tools (`instructions`).
    pub fn instructions(mut self, instructions: impl Into<String>) -> Self {
        self.instructions = Some(Arc::from(instructions.into()));
        self
    }

    /// How the results of tools that chose no [`ResultShape`] of their own
    /// cross: [`ResultShape::Render`] unless set, which puts a rendering
    /// tool's render, once, in front of every host's model (see
    /// [`ResultShape`] for what each host reads and the spec's rules).
    /// Set it before serving: `tools/list` and every result follow it.
    pub fn result_shape(mut self, shape: ResultShape) -> Self {
        self.result_shape = shape;
        self
    }

    /// The registry served.
    pub fn registry(&self) -> &Registry {
        &self.registry
    }
}

impl Clone for McpServer {
    /// A handler for another session, on the same registry.
    fn clone(&self) -> Self {
        McpServer {
            registry: self.registry.clone(),
            info: Arc::clone(&self.info),
            instructions: self.instructions.clone(),
            list_changed: Mutex::default(),
            http: Arc::clone(&self.http),
            definitions: Arc::clone(&self.definitions),
            offers: Arc::clone(&self.offers),
            session: Session::default(),
            searches: Arc::default(),
            tasks: Arc::clone(&self.tasks),
            stateless: self.stateless,
            result_shape: self.result_shape,
            bus: self.bus.clone(),
            forwarding: Arc::clone(&self.forwarding),
            state_key: Arc::clone(&self.state_key),
        }
    }
}

impl fmt::Debug for McpServer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("McpServer")
            .field("registry", &self.registry)
            .field("info", &self.info)
            .finish_non_exhaustive()
    }
}
