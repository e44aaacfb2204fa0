//! [`Registry`]: the pool of tools a model can call.

use std::any::Any;
use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::marker::PhantomData;
use std::panic::AssertUnwindSafe;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock, PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard, Weak};
use std::time::Duration;

use futures_util::future::BoxFuture;
use serde::Deserialize;
use serde_json::Value;

use tower::retry::RetryLayer;
use tower::{Layer, Service, ServiceBuilder};

use crate::card::Card;
use crate::catalog::CatalogState;
use crate::content::ContentBlock;
use crate::definition::{Tool, ToolDef, Validation};
use crate::error::{RegisterError, ToolError};
use crate::event::Event;
use crate::exec::{Exec, State, StreamSink};
use crate::layer::{
    ExecError, ExecRequest, ExecService, Execute, MetricsLayer, RetryPolicy, TimeoutLayer,
};
use crate::limits::{Limits, MAX_DEPTH};
use crate::permission::{Approver, Guard, Permissions, PreExecute, Rule};
use crate::post_execute::PostExecute;
use crate::rawp::{Diagnostic, Severity};
use crate::schema::{self, Compiled};
use crate::spill::{DEFAULT_MAX_RESULT_CHARS, SpillConfig};

/// The longest name [`Registry::closest`] compares: twice the longest valid
/// tool name.
const CLOSEST_MAX_CHARS: usize = 128;

/// The tools a model can call, cheap to clone and shared across tasks.
///
/// Registering returns a [`ToolHandle`]: the tool stays registered until the
/// handle's [`unregister`](ToolHandle::unregister), or until the
/// [`scoped`](ToolHandle::scoped) guard made from it is dropped.
///
/// ```
/// use dsh_sdk::prelude::*;
///
/// /// Greet someone by name.
/// #[tool(aliases = ["hello"])]
/// async fn greet(
///     /// The name to greet
///     name: String,
/// ) -> String {
///     format!("Hello, {name}!")
/// }
///
/// let registry = Registry::new();
/// let handle = registry.register::<greet>().unwrap();
/// assert!(registry.get("hello").is_some());
/// handle.unregister();
/// assert!(registry.get("greet").is_none());
/// ```
#[derive(Clone, Default)]
pub struct Registry {
    pub(crate) inner: Arc<Inner>,
}

pub(crate) struct Inner {
    tools: RwLock<Tools>,
    pub(crate) state: State,
    pub(crate) config: Config,
    /// Copied on write, so that emitting takes a snapshot for one atomic
    /// increment and calls the subscribers outside the lock.
    subscribers: RwLock<Arc<Vec<(u64, Subscriber)>>>,
    /// How many subscribers there are, read without a lock on the hot path.
    listened: AtomicUsize,
    /// Forwards a tool's stream chunks to the subscribers; made once, on first use.
    pub(crate) sink: OnceLock<StreamSink>,
    /// Each tool's status and the diagnostics (`catalog.rs`).
    pub(crate) catalog: RwLock<CatalogState>,
    /// Deferred tools loaded by tool search, in the order they were loaded.
    loaded: RwLock<Vec<String>>,
    /// Marked changed whenever a tool comes or goes, for those who wait on it
    /// ([`Registry::watch_tools`]).
    changed: tokio::sync::watch::Sender<()>,
    /// The index over the deferred tools (`search/`), updated with the pool.
    pub(crate) search: crate::search::Index,
    next_id: AtomicU64,
}

impl Default for Inner {
    fn default() -> Self {
        Registry::builder().into_inner()
    }
}

type Subscriber = Arc<dyn Fn(&Event) + Send + Sync>;

/// The settings every call reads, fixed when the registry is built.
pub(crate) struct Config {
    pub(crate) timeout: Option<Duration>,
    pub(crate) max_result_chars: usize,
    pub(crate) spill: SpillConfig,
    pub(crate) permissions: Permissions,
    pub(crate) approver: Option<Arc<dyn Approver>>,
    pub(crate) post_execute: Vec<Arc<dyn PostExecute>>,
    /// What a call may carry in and out (`limits.rs`).
    pub(crate) limits: Limits,
    /// The execute stack when it has retries or host layers; `None` runs
    /// the built-in stack directly.
    pub(crate) service: Option<ExecService>,
}

#[derive(Default)]
struct Tools {
    by_name: BTreeMap<String, Arc<Entry>>,
    /// Alias → the name of the tool that holds it.
    aliases: HashMap<String, String>,
}

/// A registered tool: its definition, compiled schemas and erased body.
pub(crate) struct Entry {
    id: u64,
    pub(crate) def: ToolDef,
    pub(crate) input: Compiled,
    pub(crate) output: Compiled,
    /// The JSON Schema of the tool's declared failure shapes, if it has one.
    pub(crate) failure: Option<Value>,
    pub(crate) handler: Box<dyn Handler>,
}

/// Arguments after serde, ready for `validate_input` and `execute`.
pub(crate) type Prepared = Box<dyn Any + Send>;

/// A tool with its types erased to JSON, so typed and dynamic tools share one pool.
pub(crate) trait Handler: Send + Sync + 'static {
    /// Deserializes arguments that passed the input schema.
    fn prepare(&self, args: &Value) -> Result<Prepared, String>;
    /// The tool's own check of its arguments.
    fn validate(&self, args: &Prepared, exec: &Exec) -> Validation;
    /// Runs the tool and serializes its output to the canonical value.
    fn execute(&self, args: Prepared, exec: Exec) -> BoxFuture<'static, Result<Value, ToolError>>;
    /// Renders, and presents when `present` is set, from the raw args and the canonical value.
    fn project(&self, args: &Value, value: &Value, present: bool) -> Result<Projection, String>;
    /// The card shown while a call runs, from the raw args; `None` for the generic card.
    fn present_call(&self, args: &Value) -> Result<Option<Card>, String> {
        let _ = args;
        Ok(None)
    }
    /// Whether the tool was made at run time (`dynamic.rs`) rather than by a type.
    fn is_dynamic(&self) -> bool {
        false
    }
    /// Whether the tool presents its own card.
    fn presents(&self) -> bool {
        false
    }

    /// The JSON Schema of the tool's declared failure shapes, if it has one.
    fn failure_schema(&self) -> Option<Value> {
        None
    }
}

/// What render and present made of a value.
pub(crate) struct Projection {
    pub(crate) content: Vec<ContentBlock>,
    pub(crate) card: Option<Card>,
}

struct Typed<T>(PhantomData<fn() -> T>);

// The code here is compiled once per registered tool, in the tool's own
// crate: a crate of a hundred tools builds it a hundred times. It stays
// small: each method does only what needs `T`, and hands the rest to
// helpers that are generic over one type only (compiled once per args or
// output type; a hundred tools returning `String` share one) or not at all.
impl<T: Tool> Handler for Typed<T> {
    fn prepare(&self, args: &Value) -> Result<Prepared, String> {
        // The schema caught every shape error it can; what serde still
        // refuses (a custom `Deserialize`, say) is reported in its words.
        match T::Args::deserialize(args) {
            Ok(args) => Ok(Box::new(args)),
            Err(error) => Err(error.to_string()),
        }
    }

    fn validate(&self, args: &Prepared, exec: &Exec) -> Validation {
        match args.downcast_ref::<T::Args>() {
            Some(args) => T::validate_input(args, exec),
            None => Validation::invalid(WRONG_ARGS, -1),
        }
    }

    fn execute(&self, args: Prepared, exec: Exec) -> BoxFuture<'static, Result<Value, ToolError>> {
        match args.downcast::<T::Args>() {
            Ok(args) => Box::pin(async move { canonical(T::execute(*args, &exec).await?) }),
            Err(_) => Box::pin(std::future::ready(Err(ToolError::new(WRONG_ARGS)))),
        }
    }

    fn project(&self, args: &Value, value: &Value, present: bool) -> Result<Projection, String> {
        if T::DEFAULT_PROJECTIONS {
            return project_default::<T::Output>(value);
        }
        let args = args_again::<T::Args>(args, "no longer deserialize")?;
        let value = output_again::<T::Output>(value)?;
        let content = T::render(&args, &value);
        let card = if present {
            // Told apart from a panic in render by its payload.
            std::panic::catch_unwind(AssertUnwindSafe(|| T::present(&args, &value)))
                .unwrap_or_else(|panic| resume_present_panic(panic))
        } else {
            None
        };
        Ok(Projection { content, card })
    }

    fn presents(&self) -> bool {
        T::PRESENTS
    }

    fn failure_schema(&self) -> Option<Value> {
        T::failure_schema()
    }

    fn present_call(&self, args: &Value) -> Result<Option<Card>, String> {
        if T::DEFAULT_PROJECTIONS {
            return Ok(None);
        }
        let args = args_again::<T::Args>(args, "do not deserialize")?;
        Ok(T::present_call(&args))
    }
}

/// What a typed tool says when the pipeline hands it another tool's arguments.
const WRONG_ARGS: &str = "internal: arguments of the wrong type";

/// A tool's output as its canonical value. A `Value` is its own canonical
/// value: taken as is, it reaches the output limits unwalked, however deep
/// (serializing would recurse once per level).
fn canonical<O: serde::Serialize + 'static>(mut output: O) -> Result<Value, ToolError> {
    if let Some(value) = (&mut output as &mut dyn Any).downcast_mut::<Value>() {
        return Ok(std::mem::take(value));
    }
    serde_json::to_value(&output).map_err(unserializable)
}

fn unserializable(error: serde_json::Error) -> ToolError {
    ToolError::new(format!("the output could not be serialized: {error}"))
}

/// The default projection of a canonical value: no card, the default render.
fn project_default<O: serde::de::DeserializeOwned + serde::Serialize>(
    value: &Value,
) -> Result<Projection, String> {
    let value = output_again::<O>(value)?;
    Ok(Projection {
        content: crate::content::render_default(&value),
        card: None,
    })
}

/// The arguments again, from their raw value, for a projection.
fn args_again<A: serde::de::DeserializeOwned>(args: &Value, failed: &str) -> Result<A, String> {
    A::deserialize(args).map_err(|error| format!("the arguments {failed}: {error}"))
}

/// The output again, from its canonical value, for a projection.
fn output_again<O: serde::de::DeserializeOwned>(value: &Value) -> Result<O, String> {
    O::deserialize(value).map_err(|error| format!("the output does not deserialize: {error}"))
}

/// Unwinds again with a panic in `present` marked as one.
fn resume_present_panic(panic: Box<dyn Any + Send>) -> ! {
    let message = crate::pipeline::panic_message(panic.as_ref());
    std::panic::resume_unwind(Box::new(crate::pipeline::PresentPanic(message)))
}

impl Registry {
    /// An empty registry with no shared state.
    pub fn new() -> Self {
        Registry::default()
    }

    /// Starts a registry with shared state and settings.
    pub fn builder() -> RegistryBuilder {
        RegistryBuilder {
            state: State::default(),
            timeout: None,
            max_result_chars: DEFAULT_MAX_RESULT_CHARS,
            spill: SpillConfig::default(),
            permissions: Permissions::default(),
            approver: None,
            post_execute: Vec::new(),
            retry: RetryPolicy::default(),
            layers: Vec::new(),
            limits: Limits::default(),
        }
    }

    /// Calls `subscriber` with every event from now on: requests, stream
    /// chunks and results, errors included. Dropping the [`Subscription`]
    /// stops it.
    pub fn subscribe(&self, subscriber: impl Fn(&Event) + Send + Sync + 'static) -> Subscription {
        let id = self.inner.next_id.fetch_add(1, Ordering::Relaxed);
        let mut subscribers = self
            .inner
            .subscribers
            .write()
            .unwrap_or_else(PoisonError::into_inner);
        Arc::make_mut(&mut subscribers).push((id, Arc::new(subscriber)));
        drop(subscribers);
        self.inner.listened.fetch_add(1, Ordering::Relaxed);
        Subscription {
            registry: Arc::downgrade(&self.inner),
            id,
        }
    }

    /// Whether anyone subscribed.
    pub(crate) fn listening(&self) -> bool {
        self.inner.listened.load(Ordering::Relaxed) > 0
    }

    /// Builds and emits an event only when someone listens.
    pub(crate) fn emit_with(&self, event: impl FnOnce() -> Event) {
        if self.inner.listened.load(Ordering::Relaxed) > 0 {
            self.inner.emit(&event());
        }
    }

    /// Registers the tool `T`, as generated by `#[tool]`: `registry.register::<read_file>()`.
    ///
    /// Builds and checks its schemas once, here; calls reuse the compiled validators.
    /// Refused when its name or an alias is taken, naming both tools. The
    /// tool stays registered until [`ToolHandle::unregister`] (or the drop of
    /// its [`scoped`](ToolHandle::scoped) guard).
    pub fn register<T: Tool>(&self) -> Result<ToolHandle, RegisterError> {
        // Only what needs `T` is here: this fn is compiled once per tool.
        self.register_typed(
            T::DEFINITION,
            schema::input_schema::<T::Args>(),
            schema::output_schema::<T::Output>(),
            probe_fields::<T::Args>,
            Box::new(Typed::<T>(PhantomData)),
        )
    }

    /// [`register`](Self::register) past what needs the tool's type.
    fn register_typed(
        &self,
        def: ToolDef,
        input: Value,
        output: Value,
        probe: fn(FieldProbe<'_>),
        handler: Box<dyn Handler>,
    ) -> Result<ToolHandle, RegisterError> {
        if let Some(name) = unnamed_field(&input, probe) {
            return Err(RegisterError::UnnamedField {
                tool: def.name().to_owned(),
                name,
            });
        }
        self.insert(def, input, output, handler)
    }

    pub(crate) fn insert(
        &self,
        def: ToolDef,
        input: Value,
        output: Value,
        handler: Box<dyn Handler>,
    ) -> Result<ToolHandle, RegisterError> {
        let name = def.name().to_owned();
        for candidate in std::iter::once(def.name()).chain(def.alias_names()) {
            if !crate::names::is_valid_tool_name(candidate) {
                return Err(RegisterError::InvalidName {
                    name: candidate.to_owned(),
                });
            }
        }
        if let Some(found) = schema::root_kind(&input) {
            return Err(RegisterError::ArgsNotObject { tool: name, found });
        }
        let mut input = input;
        if !def.accepts_unknown_args() {
            schema::close_objects(&mut input);
        }
        let compile = |which, schema| {
            Compiled::new(schema).map_err(|reason| RegisterError::InvalidSchema {
                tool: name.clone(),
                which,
                reason,
            })
        };
        let input = compile("input", input)?;
        let output = compile("output", output)?;

        let id = self.inner.next_id.fetch_add(1, Ordering::Relaxed);
        let dynamic = handler.is_dynamic();
        let mut tools = self.write();
        let names: Vec<&str> = std::iter::once(def.name())
            .chain(def.alias_names())
            .collect();
        // Built-in tools keep their names whatever the order tools arrive in
        // (so the prompt prefix stays stable): a dynamic tool holding one steps
        // aside for a built-in tool, and a dynamic tool asking for one is refused.
        let mut shadowed: Vec<String> = Vec::new();
        for (index, candidate) in names.iter().enumerate() {
            let duplicate = |existing: String| RegisterError::Duplicate {
                tool: name.clone(),
                name: (*candidate).to_owned(),
                existing,
            };
            if names[..index].contains(candidate) {
                return Err(duplicate(name.clone()));
            }
            let Some(existing) = tools.resolve_name(candidate).map(str::to_owned) else {
                continue;
            };
            let existing_is_dynamic = tools
                .by_name
                .get(&existing)
                .is_some_and(|entry| entry.handler.is_dynamic());
            if !dynamic && existing_is_dynamic {
                if !shadowed.contains(&existing) {
                    shadowed.push(existing);
                }
                continue;
            }
            drop(tools);
            if dynamic && !existing_is_dynamic {
                self.add_diagnostic(shadowed_diagnostic(&name, &existing));
            }
            return Err(duplicate(existing));
        }
        for hidden in &shadowed {
            tools.by_name.remove(hidden);
            tools.aliases.retain(|_, owner| owner != hidden);
            self.inner.search.remove(hidden);
        }
        for alias in def.alias_names() {
            tools.aliases.insert(alias.to_owned(), name.clone());
        }
        let failure = handler.failure_schema();
        let entry = Entry {
            id,
            def,
            input,
            output,
            failure,
            handler,
        };
        let entry = Arc::new(entry);
        self.inner.search.insert(&entry);
        tools.by_name.insert(name.clone(), entry);
        drop(tools);
        self.inner.changed.send_replace(());
        for hidden in shadowed {
            self.add_diagnostic(shadowed_diagnostic(&hidden, &name));
        }
        Ok(ToolHandle {
            registry: Arc::downgrade(&self.inner),
            name,
            id,
        })
    }

    /// The tool registered under `name` or one of its aliases.
    pub fn get(&self, name: &str) -> Option<ToolInfo> {
        self.entry(name).map(|entry| ToolInfo { entry })
    }

    /// Every registered tool, in pool order: the built-in (typed)
    /// tools sorted by name as one block, then the dynamic tools sorted by
    /// name. Names are unique, and the order depends on nothing but the
    /// names, so the same tools give the same list whatever the order they
    /// were registered or their servers connected in: the built-in block stays
    /// a stable prompt prefix when dynamic tools come and go.
    pub fn tools(&self) -> Vec<ToolInfo> {
        let (mut pool, dynamic): (Vec<ToolInfo>, Vec<ToolInfo>) = self
            .read()
            .by_name
            .values()
            .map(|entry| ToolInfo {
                entry: Arc::clone(entry),
            })
            .partition(|tool| !tool.is_dynamic());
        pool.extend(dynamic);
        pool
    }

    /// A receiver marked changed each time a tool is registered or
    /// unregistered, or a deferred tool is loaded: what an MCP server sends
    /// `notifications/tools/list_changed` from.
    ///
    /// ```
    /// # use dsh_sdk::prelude::*;
    /// /// Greet someone by name.
    /// #[tool]
    /// async fn greet(
    ///     /// The name to greet
    ///     name: String,
    /// ) -> String {
    ///     format!("Hello, {name}!")
    /// }
    ///
    /// let registry = Registry::new();
    /// let mut changes = registry.watch_tools();
    /// assert!(!changes.has_changed().unwrap());
    /// let greet = registry.register::<greet>().unwrap();
    /// assert!(changes.has_changed().unwrap());
    /// changes.mark_unchanged();
    /// greet.unregister();
    /// assert!(changes.has_changed().unwrap());
    /// ```
    pub fn watch_tools(&self) -> tokio::sync::watch::Receiver<()> {
        self.inner.changed.subscribe()
    }

    /// The tools the model sees, in the order it sees them: every tool that
    /// is not deferred (or is marked `always_load`), in pool order, then the
    /// deferred tools tool search has loaded, in the order they were loaded.
    pub fn visible_tools(&self) -> Vec<ToolInfo> {
        let mut visible: Vec<ToolInfo> = self
            .tools()
            .into_iter()
            .filter(|tool| {
                let def = tool.definition();
                !def.is_deferred() || def.is_always_loaded()
            })
            .collect();
        let loaded = self
            .inner
            .loaded
            .read()
            .unwrap_or_else(PoisonError::into_inner);
        visible.extend(loaded.iter().filter_map(|name| self.get(name)));
        visible
    }

    /// Loads deferred tools into the exported list, after everything already
    /// there. Names that are not deferred, not registered, or already loaded
    /// are skipped.
    pub fn load_deferred<'a>(&self, names: impl IntoIterator<Item = &'a str>) {
        let mut loaded = self
            .inner
            .loaded
            .write()
            .unwrap_or_else(PoisonError::into_inner);
        for name in names {
            let Some(tool) = self.get(name) else { continue };
            let def = tool.definition();
            let hidden = def.is_deferred() && !def.is_always_loaded();
            if hidden && !loaded.iter().any(|loaded| loaded == tool.name()) {
                loaded.push(tool.name().to_owned());
                self.inner.changed.send_replace(());
            }
        }
    }

    /// The names of the registered tools closest to `name`, best first.
    ///
    /// A name longer than 128 characters, far beyond any
    /// valid tool name, is close to none: the comparison costs time in
    /// proportion to the name's length.
    pub fn closest(&self, name: &str) -> Vec<String> {
        if name.chars().nth(CLOSEST_MAX_CHARS).is_some() {
            return Vec::new();
        }
        let tools = self.read();
        let candidates = tools
            .by_name
            .keys()
            .map(String::as_str)
            .chain(tools.aliases.keys().map(String::as_str));
        let mut names: Vec<String> = Vec::new();
        for candidate in crate::suggest::closest(name, candidates) {
            let canonical = tools
                .resolve_name(candidate)
                .unwrap_or(candidate)
                .to_owned();
            if !names.contains(&canonical) {
                names.push(canonical);
            }
        }
        names.truncate(3);
        names
    }

    /// The state shared with every tool.
    pub fn state(&self) -> &State {
        &self.inner.state
    }

    pub(crate) fn entry(&self, name: &str) -> Option<Arc<Entry>> {
        let tools = self.read();
        if let Some(entry) = tools.by_name.get(name) {
            return Some(Arc::clone(entry));
        }
        tools.by_name.get(tools.aliases.get(name)?).cloned()
    }

    fn read(&self) -> RwLockReadGuard<'_, Tools> {
        self.inner
            .tools
            .read()
            .unwrap_or_else(PoisonError::into_inner)
    }

    fn write(&self) -> RwLockWriteGuard<'_, Tools> {
        self.inner
            .tools
            .write()
            .unwrap_or_else(PoisonError::into_inner)
    }
}

impl Inner {
    pub(crate) fn emit(&self, event: &Event) {
        let subscribers = Arc::clone(
            &self
                .subscribers
                .read()
                .unwrap_or_else(PoisonError::into_inner),
        );
        for (_, subscriber) in subscribers.iter() {
            // A panicking subscriber must not take the call down with it.
            let _ = std::panic::catch_unwind(AssertUnwindSafe(|| subscriber(event)));
        }
    }
}

/// Keeps a subscriber subscribed; dropping it unsubscribes.
#[must_use = "dropping the subscription unsubscribes at once"]
pub struct Subscription {
    registry: Weak<Inner>,
    id: u64,
}

impl Drop for Subscription {
    fn drop(&mut self) {
        if let Some(inner) = self.registry.upgrade() {
            let mut subscribers = inner
                .subscribers
                .write()
                .unwrap_or_else(PoisonError::into_inner);
            Arc::make_mut(&mut subscribers).retain(|(id, _)| *id != self.id);
            drop(subscribers);
            inner.listened.fetch_sub(1, Ordering::Relaxed);
        }
    }
}

impl fmt::Debug for Subscription {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Subscription")
            .field("id", &self.id)
            .finish()
    }
}

impl Tools {
    /// The canonical name for a name or alias.
    fn resolve_name<'a>(&'a self, name: &'a str) -> Option<&'a str> {
        if self.by_name.contains_key(name) {
            Some(name)
        } else {
            self.aliases.get(name).map(String::as_str)
        }
    }
}

impl fmt::Debug for Registry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Registry")
            .field("tools", &self.read().by_name.keys().collect::<Vec<_>>())
            .finish_non_exhaustive()
    }
}

/// Builds a [`Registry`]: shared state, limits, permissions, hooks and layers.
///
/// ```
/// use std::time::Duration;
/// use dsh_sdk::Registry;
/// use dsh_sdk::permission::{PlanMode, Rule};
///
/// let registry = Registry::builder()
///     .state(String::from("a database pool, say"))
///     .timeout(Duration::from_secs(60))
///     .rule(Rule::deny("bash").when("command", "rm *").unwrap())
///     .guard(PlanMode)
///     .build();
/// # drop(registry);
/// ```
pub struct RegistryBuilder {
    state: State,
    timeout: Option<Duration>,
    max_result_chars: usize,
    spill: SpillConfig,
    permissions: Permissions,
    approver: Option<Arc<dyn Approver>>,
    post_execute: Vec<Arc<dyn PostExecute>>,
    retry: RetryPolicy,
    layers: Vec<Box<dyn FnOnce(ExecService) -> ExecService + Send>>,
    limits: Limits,
}

impl RegistryBuilder {
    /// Shares `value` with every tool, as `exec.state::<T>()`.
    pub fn state<T: Any + Send + Sync>(mut self, value: T) -> Self {
        self.state = self.state.with(value);
        self
    }

    /// How long a call may run when its tool sets no timeout of its own.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// Content longer than this spills to a file when the tool sets no limit
    /// of its own. Defaults to [`DEFAULT_MAX_RESULT_CHARS`].
    pub fn max_result_chars(mut self, chars: usize) -> Self {
        self.max_result_chars = chars;
        self
    }

    /// Where oversized results are written.
    pub fn spill_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.spill.dir = dir.into();
        self
    }

    /// How many characters of a spilled result the model sees.
    pub fn spill_preview_chars(mut self, chars: usize) -> Self {
        self.spill.preview_chars = chars;
        self
    }

    /// Replaces the permission rules, gates and guards.
    pub fn permissions(mut self, permissions: Permissions) -> Self {
        self.permissions = permissions;
        self
    }

    /// Adds a permission rule.
    pub fn rule(mut self, rule: Rule) -> Self {
        self.permissions = self.permissions.rule(rule);
        self
    }

    /// Adds a pre-execute gate; gates run in the order they are added.
    pub fn gate(mut self, gate: impl PreExecute) -> Self {
        self.permissions = self.permissions.gate(gate);
        self
    }

    /// Adds a monotone guard: it can only tighten a decision.
    pub fn guard(mut self, guard: impl Guard) -> Self {
        self.permissions = self.permissions.guard(guard);
        self
    }

    /// Settles `ask` decisions. Without one, `ask` means deny.
    pub fn approver(mut self, approver: impl Approver) -> Self {
        self.approver = Some(Arc::new(approver));
        self
    }

    /// Adds a post-execute hook; hooks run in the order they are added.
    pub fn post_execute(mut self, hook: impl PostExecute) -> Self {
        self.post_execute.push(Arc::new(hook));
        self
    }

    /// Refuses calls whose arguments are larger than `bytes` as compact JSON,
    /// before anything else reads them, the session log included. Defaults
    /// to [`DEFAULT_MAX_ARG_BYTES`](crate::limits::DEFAULT_MAX_ARG_BYTES), 1 MiB.
    pub fn max_arg_bytes(mut self, bytes: usize) -> Self {
        self.limits.max_arg_bytes = bytes;
        self
    }

    /// Refuses calls whose arguments nest more than `depth` arrays and
    /// objects, before anything else reads them. Defaults to
    /// [`DEFAULT_MAX_DEPTH`](crate::limits::DEFAULT_MAX_DEPTH), 64; at most
    /// [`MAX_DEPTH`](crate::limits::MAX_DEPTH), 100 (higher is lowered to it),
    /// so the session log stays readable.
    pub fn max_arg_depth(mut self, depth: usize) -> Self {
        self.limits.max_arg_depth = depth.min(MAX_DEPTH);
        self
    }

    /// Fails calls whose canonical output value is larger than `bytes` as
    /// compact JSON. Defaults to
    /// [`DEFAULT_MAX_OUTPUT_BYTES`](crate::limits::DEFAULT_MAX_OUTPUT_BYTES), 16 MiB.
    pub fn max_output_bytes(mut self, bytes: usize) -> Self {
        self.limits.max_output_bytes = bytes;
        self
    }

    /// Fails calls whose canonical output value nests more than `depth`
    /// arrays and objects. Defaults to
    /// [`DEFAULT_MAX_DEPTH`](crate::limits::DEFAULT_MAX_DEPTH), 64; at most
    /// [`MAX_DEPTH`](crate::limits::MAX_DEPTH), 100 (higher is lowered to it).
    pub fn max_output_depth(mut self, depth: usize) -> Self {
        self.limits.max_output_depth = depth.min(MAX_DEPTH);
        self
    }

    /// How long a call waits for the approver's answer before it ends with
    /// status `timeout`, without running. Defaults to
    /// [`DEFAULT_APPROVAL_TIMEOUT`](crate::limits::DEFAULT_APPROVAL_TIMEOUT),
    /// 10 minutes; the registry's call [`timeout`](Self::timeout) counts only
    /// once the tool runs.
    pub fn approval_timeout(mut self, timeout: Duration) -> Self {
        self.limits.approval_timeout = timeout;
        self
    }

    /// Retries failed calls of idempotent and read-only tools.
    pub fn retry(mut self, policy: RetryPolicy) -> Self {
        self.retry = policy;
        self
    }

    /// Wraps the execute stage in a `tower` layer, outside the built-in ones;
    /// the last layer added is the outermost.
    pub fn layer<L>(mut self, layer: L) -> Self
    where
        L: Layer<ExecService> + Send + 'static,
        L::Service: Service<ExecRequest, Response = Value, Error = ExecError>
            + Clone
            + Send
            + Sync
            + 'static,
        <L::Service as Service<ExecRequest>>::Future: Send + 'static,
    {
        self.layers
            .push(Box::new(move |inner| ExecService::new(layer.layer(inner))));
        self
    }

    /// Builds the registry.
    pub fn build(self) -> Registry {
        Registry {
            inner: Arc::new(self.into_inner()),
        }
    }

    fn into_inner(self) -> Inner {
        // The built-in stack alone is called as a concrete type, with no
        // boxing; retries or host layers need the type-erased stack.
        let service = if self.retry.max_attempts() > 1 || !self.layers.is_empty() {
            let retry = (self.retry.max_attempts() > 1).then(|| RetryLayer::new(self.retry));
            let mut service = ExecService::new(
                ServiceBuilder::new()
                    .layer(MetricsLayer)
                    .option_layer(retry)
                    .layer(TimeoutLayer)
                    .service(Execute),
            );
            for layer in self.layers {
                service = layer(service);
            }
            Some(service)
        } else {
            None
        };
        Inner {
            tools: RwLock::default(),
            state: self.state,
            config: Config {
                timeout: self.timeout,
                max_result_chars: self.max_result_chars,
                spill: self.spill,
                permissions: self.permissions,
                approver: self.approver,
                post_execute: self.post_execute,
                limits: self.limits,
                service,
            },
            subscribers: RwLock::default(),
            listened: AtomicUsize::new(0),
            sink: OnceLock::new(),
            catalog: RwLock::default(),
            loaded: RwLock::default(),
            changed: tokio::sync::watch::Sender::new(()),
            search: crate::search::Index::default(),
            next_id: AtomicU64::new(0),
        }
    }
}

impl fmt::Debug for RegistryBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RegistryBuilder")
            .field("state", &self.state)
            .field("timeout", &self.timeout)
            .field("max_result_chars", &self.max_result_chars)
            .field("limits", &self.limits)
            .finish_non_exhaustive()
    }
}

/// A registered tool: its name, and the way to unregister it.
///
/// Dropping the handle leaves the tool registered, for as long as the
/// registry lives: `registry.register::<greet>()?;` is the whole of
/// registering, and no way of ignoring the handle (`let _ = …`) takes the
/// tool away by accident. To take it away, call
/// [`unregister`](Self::unregister); to tie it to a scope, turn the handle
/// into a guard with [`scoped`](Self::scoped).
///
/// ```
/// use dsh_sdk::prelude::*;
///
/// /// Greet someone by name.
/// #[tool]
/// async fn greet(name: String) -> String {
///     format!("Hello, {name}!")
/// }
///
/// let registry = Registry::new();
/// let _ = registry.register::<greet>();
/// assert!(registry.get("greet").is_some());
/// ```
pub struct ToolHandle {
    registry: Weak<Inner>,
    name: String,
    id: u64,
}

impl ToolHandle {
    /// The tool's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Lets go of the handle, leaving the tool registered: the same as
    /// dropping it, said out loud.
    pub fn keep(self) {}

    /// Unregisters the tool now. `false` if it was no longer registered (or
    /// its name now belongs to a tool registered since).
    pub fn unregister(self) -> bool {
        self.remove()
    }

    fn remove(&self) -> bool {
        let Some(inner) = self.registry.upgrade() else {
            return false;
        };
        let mut tools = inner.tools.write().unwrap_or_else(PoisonError::into_inner);
        let registered_here = tools
            .by_name
            .get(&self.name)
            .is_some_and(|entry| entry.id == self.id);
        if registered_here {
            tools.by_name.remove(&self.name);
            inner.search.remove(&self.name);
            tools.aliases.retain(|_, owner| *owner != self.name);
            drop(tools);
            inner.changed.send_replace(());
        }
        registered_here
    }

    /// A guard that unregisters the tool when it is dropped: a tool that
    /// lives exactly as long as a scope, a connection or a test.
    ///
    /// ```
    /// use dsh_sdk::prelude::*;
    ///
    /// /// Greet someone by name.
    /// #[tool]
    /// async fn greet(name: String) -> String {
    ///     format!("Hello, {name}!")
    /// }
    ///
    /// let registry = Registry::new();
    /// {
    ///     let _greet = registry.register::<greet>().unwrap().scoped();
    ///     assert!(registry.get("greet").is_some());
    /// }
    /// assert!(registry.get("greet").is_none());
    /// ```
    pub fn scoped(self) -> ScopedTool {
        ScopedTool(self)
    }
}

impl fmt::Debug for ScopedTool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("ScopedTool").field(&self.0).finish()
    }
}

/// Keeps a tool registered until it is dropped: see [`ToolHandle::scoped`].
#[must_use = "dropping a `ScopedTool` unregisters the tool at once: bind it to a name"]
pub struct ScopedTool(ToolHandle);

impl ScopedTool {
    /// The tool's name.
    pub fn name(&self) -> &str {
        self.0.name()
    }
}

impl Drop for ScopedTool {
    fn drop(&mut self) {
        self.0.remove();
    }
}

impl fmt::Debug for ToolHandle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolHandle")
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

/// A registered tool as the host sees it: its definition and schemas.
#[derive(Clone)]
pub struct ToolInfo {
    pub(crate) entry: Arc<Entry>,
}

impl ToolInfo {
    /// The contract hash of the tool's definition
    /// ([`contract_hash`](crate::digest::contract_hash) of its MCP export):
    /// what a host pins to notice the tool changing.
    pub fn contract_hash(&self) -> String {
        crate::digest::contract_hash(&crate::export::export_tool(
            self,
            crate::export::Format::Mcp,
        ))
    }

    /// Name, description and flags.
    pub fn definition(&self) -> &ToolDef {
        &self.entry.def
    }

    /// The name the model calls.
    pub fn name(&self) -> &str {
        self.entry.def.name()
    }

    /// Whether the tool was made at run time ([`DynamicTool`](crate::DynamicTool))
    /// rather than by a type.
    pub fn is_dynamic(&self) -> bool {
        self.entry.handler.is_dynamic()
    }

    /// The JSON Schema (2020-12) of the arguments.
    pub fn input_schema(&self) -> &Value {
        &self.entry.input.schema
    }

    /// The JSON Schema (2020-12) of the canonical output: `true` (any
    /// value) for a dynamic tool given none.
    pub fn output_schema(&self) -> &Value {
        &self.entry.output.schema
    }

    /// Whether the tool presents its own card (`#[tool(present = …)]`);
    /// otherwise its results show the generic card.
    pub fn presents(&self) -> bool {
        self.entry.handler.presents()
    }

    /// Every way `args` break the input schema, sorted by JSON pointer: the
    /// check the pipeline's input stage makes first, with the same compiled
    /// schema, for a form that shows each violation at its field.
    pub fn violations(&self, args: &Value) -> Vec<crate::Violation> {
        self.entry.input.violations(args)
    }

    /// The JSON Schema of the tool's declared failure shapes
    /// ([`Tool::failure_schema`]), if it has one.
    pub fn failure_schema(&self) -> Option<&Value> {
        self.entry.failure.as_ref()
    }

    /// The card a UI shows while a call with `args` runs: the tool's
    /// `present_call`, or else the generic card (title = tool name, input =
    /// `args`, no output). Arguments the tool cannot read, or a
    /// `present_call` that panics, also give the generic card.
    pub fn present_call(&self, args: &Value) -> Card {
        let presented =
            std::panic::catch_unwind(AssertUnwindSafe(|| self.entry.handler.present_call(args)));
        match presented {
            Ok(Ok(Some(card))) => card,
            _ => Card::generic(self.name(), args.clone(), None),
        }
    }
}

impl fmt::Debug for ToolInfo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolInfo")
            .field("definition", &self.entry.def)
            .finish_non_exhaustive()
    }
}

/// Says that the dynamic tool `dynamic` is out of the pool because the built-in `builtin` won.
fn shadowed_diagnostic(dynamic: &str, builtin: &str) -> Diagnostic {
    Diagnostic::new(
        Severity::Warning,
        crate::dynamic::TOOL_SHADOWED,
        format!(
            "the dynamic tool `{dynamic}` is left out of the pool: the built-in tool `{builtin}` has the same name, and built-in tools win"
        ),
    )
    .tool(dynamic)
}

/// A name the arguments' `Deserialize` accepts at the top level that the
/// input schema does not name: a `#[serde(alias = "…")]`, or a field the
/// schema skips.
///
/// Permission rules, gates and guards read the arguments by the names the
/// schema gives; a value under another name reaches the tool unseen, so such
/// a tool is refused at registration. serde's derive lists every name a
/// struct accepts, aliases included, in the `fields` it hands
/// `deserialize_struct`: a deserializer that only records them finds them
/// without deserializing anything. Structs with `#[serde(flatten)]`, enums
/// and hand-written impls do not list their fields and are not checked.
///
/// `probe` runs the arguments' `Deserialize` on the probe ([`probe_fields`]).
fn unnamed_field(schema: &Value, probe: fn(FieldProbe<'_>)) -> Option<String> {
    let properties = schema.get("properties")?.as_object()?;
    let fields = std::cell::Cell::new(None);
    let probed = std::panic::catch_unwind(AssertUnwindSafe(|| {
        probe(FieldProbe { fields: &fields });
    }));
    if probed.is_err() {
        return None;
    }
    let fields: &[&str] = fields.get()?;
    fields
        .iter()
        .find(|field| !properties.contains_key(**field))
        .map(|field| (*field).to_owned())
}

/// Runs `A`'s `Deserialize` on `probe`: the one part of [`unnamed_field`]
/// that needs the type.
fn probe_fields<A: serde::de::DeserializeOwned>(probe: FieldProbe<'_>) {
    let _ = A::deserialize(probe);
}

/// Records the fields `deserialize_struct` is given, and fails.
struct FieldProbe<'a> {
    fields: &'a std::cell::Cell<Option<&'static [&'static str]>>,
}

impl<'de> serde::Deserializer<'de> for FieldProbe<'_> {
    type Error = serde::de::value::Error;

    fn deserialize_any<V: serde::de::Visitor<'de>>(self, _: V) -> Result<V::Value, Self::Error> {
        Err(serde::de::Error::custom("probing for field names"))
    }

    fn deserialize_struct<V: serde::de::Visitor<'de>>(
        self,
        _name: &'static str,
        fields: &'static [&'static str],
        _visitor: V,
    ) -> Result<V::Value, Self::Error> {
        self.fields.set(Some(fields));
        Err(serde::de::Error::custom("probing for field names"))
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf option unit unit_struct newtype_struct seq tuple
        tuple_struct map enum identifier ignored_any
    }
}
