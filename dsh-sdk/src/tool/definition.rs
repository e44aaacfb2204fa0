//! The [`Tool`] trait: what `#[tool]` implements, and what a hand-written tool implements.
//!
//! One file, past the usual length: much of it is the trait's documentation
//! (each item with its example), which authors read in one place.

use std::borrow::Cow;
use std::future::Future;
use std::mem::ManuallyDrop;
use std::time::Duration;

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::tool::Exec;
use crate::tool::Icon;
use crate::tool::ToolError;
use crate::tool::fixed::{self, StrList};
use crate::value::card::Card;
use crate::value::content::ContentBlock;
use crate::value::names::{Category, OutputType};
use serde_json::Value;

/// A tool: typed arguments, a typed output, static metadata and an async body.
///
/// `#[tool]` implements this trait on a zero-sized type named after the fn, so
/// most authors never write it by hand. Writing it by hand is equivalent:
///
/// ```
/// use dsh_kit::prelude::*;
/// use dsh_kit::Registry;
///
/// #[derive(Deserialize, JsonSchema)]
/// struct GreetArgs {
///     /// The name to greet
///     name: String,
/// }
///
/// struct Greet;
///
/// impl Tool for Greet {
///     type Args = GreetArgs;
///     type Output = String;
///     const DEFINITION: ToolDef = ToolDef::builder("greet", "Greet someone by name.").read_only(true).build();
///
///     async fn execute(args: GreetArgs, _exec: &Exec) -> Result<String, ToolError> {
///         Ok(format!("Hello, {}!", args.name))
///     }
/// }
///
/// let registry = Registry::new();
/// let _handle = registry.register::<Greet>().unwrap();
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a tool",
    label = "not a tool",
    note = "annotate an async fn with `#[tool]`, then register it by its name: `registry.register::<my_tool>()`"
)]
pub trait Tool: Send + Sync + 'static {
    /// The arguments the model sends, validated against their JSON Schema before
    /// they are deserialized.
    type Args: DeserializeOwned + JsonSchema + Send + 'static;
    /// The canonical output: serialized to one JSON value, validated against its
    /// schema, then rendered.
    type Output: Serialize + DeserializeOwned + JsonSchema + Send + 'static;

    /// Name, description and flags.
    const DEFINITION: ToolDef;

    /// Whether `render`, `present` and `present_call` are all the defaults,
    /// none of which reads the arguments: the registry then projects without
    /// deserializing them again. `#[tool]` sets it; a hand-written impl
    /// leaves it `false` (correct whatever it overrides, only slower).
    #[doc(hidden)]
    const DEFAULT_PROJECTIONS: bool = false;

    /// Whether [`execute`](Tool::execute) or
    /// [`validate_input`](Tool::validate_input) read the [`Exec`] they are
    /// handed. `#[tool]` says `false` for a fn that takes no context and
    /// names no `validate`: a call of it that nothing else needs a context
    /// for (no host layer, no approval, no catalog warning) gets none made.
    #[doc(hidden)]
    const READS_EXEC: bool = true;

    /// Whether the tool presents its own card ([`present`](Tool::present)),
    /// so a host can offer a card view for it (an MCP Apps UI resource, say).
    /// `#[tool(present = …)]` sets it; a hand-written impl that overrides
    /// `present` sets it too.
    const PRESENTS: bool = false;

    /// Whether the tool renders its own content ([`render`](Tool::render)),
    /// rather than showing the model its value. `#[tool(render = …)]` sets
    /// it; a hand-written impl that overrides `render` sets it too.
    const RENDERS: bool = false;

    /// The tool's body.
    fn execute(
        args: Self::Args,
        exec: &Exec,
    ) -> impl Future<Output = Result<Self::Output, ToolError>> + Send;

    /// Checks arguments that passed their schema, before any permission is asked.
    ///
    /// The default accepts everything.
    fn validate_input(args: &Self::Args, exec: &Exec) -> Validation {
        let _ = (args, exec);
        Validation::Ok
    }

    /// The JSON Schema of the tool's declared failure shapes, if its error
    /// type has one (a `Serialize + JsonSchema` enum): exported with the
    /// definition so hosts and the model know how a call can fail.
    ///
    /// `#[tool]` fills it from the fn's error type; the default is `None`.
    fn failure_schema() -> Option<serde_json::Value> {
        None
    }

    /// Projects the output into what the model sees. Must be pure.
    ///
    /// The default renders a string as itself and anything else as compact JSON.
    fn render(args: &Self::Args, value: &Self::Output) -> Vec<ContentBlock> {
        let _ = args;
        crate::value::content::render_default(value)
    }

    /// Projects the output into a card for a UI. Must be pure.
    ///
    /// `None`, the default, means the generic card.
    fn present(args: &Self::Args, value: &Self::Output) -> Option<Card> {
        let _ = (args, value);
        None
    }

    /// Projects the arguments into the card a UI shows while the call runs,
    /// before there is an output. Must be pure.
    ///
    /// `None`, the default, means the generic card without an output.
    fn present_call(args: &Self::Args) -> Option<Card> {
        let _ = args;
        None
    }
}

/// The outcome of a tool's own [`Tool::validate_input`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Validation {
    /// The arguments are acceptable.
    Ok,
    /// The arguments are refused; the message reaches the model with the code.
    Invalid {
        /// What is wrong, for the model to act on.
        message: String,
        /// A numeric code the host can switch on.
        code: i32,
    },
}

impl Validation {
    /// Refuses the arguments with a message for the model and a numeric code.
    pub fn invalid(message: impl Into<String>, code: i32) -> Self {
        Validation::Invalid {
            message: message.into(),
            code,
        }
    }
}

/// A tool's name, description and flags: what the model, the host and the
/// pipeline read. Built with [`ToolDef::builder`], in `const` context:
///
/// ```
/// use dsh_kit::{Category, ToolDef};
///
/// const DEF: ToolDef = ToolDef::builder("read_file", "Read a file from disk.")
///     .read_only(true)
///     .concurrency_safe(true)
///     .category(Category::Filesystem)
///     .aliases(&["cat"])
///     .build();
/// assert!(DEF.read_only());
/// assert_eq!(DEF.aliases().collect::<Vec<_>>(), ["cat"]);
/// ```
///
/// Every flag defaults fail-closed: not read-only, not concurrency-safe, not
/// idempotent, and not exempt from anything.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolDef {
    pub(crate) name: Cow<'static, str>,
    pub(crate) description: Cow<'static, str>,
    pub(crate) title: Option<Cow<'static, str>>,
    pub(crate) aliases: StrList,
    /// The OAuth scopes a caller needs, every one of them, to see and call the tool.
    pub(crate) scopes: StrList,
    /// Example calls, each the JSON text of its arguments; checked against
    /// the input schema when the tool is registered.
    pub(crate) examples: StrList,
    pub(crate) icons: Cow<'static, [Icon]>,
    pub(crate) read_only: bool,
    pub(crate) concurrency_safe: bool,
    pub(crate) destructive: bool,
    pub(crate) idempotent: bool,
    /// Whether the tool reaches an open world (the web, other people's
    /// systems); `None` when not declared.
    pub(crate) open_world: Option<bool>,
    pub(crate) requires_approval: bool,
    pub(crate) defer: bool,
    pub(crate) always_load: bool,
    pub(crate) category: Option<Category>,
    pub(crate) output_type: Option<OutputType>,
    pub(crate) max_result_chars: Option<usize>,
    pub(crate) timeout: Option<Duration>,
    pub(crate) version: Option<Cow<'static, str>>,
    pub(crate) allow_unknown_args: bool,
    /// How a result crosses MCP; `None` leaves it to the server.
    pub(crate) result_shape: Option<ResultShape>,
    pub(crate) task_support: TaskSupport,
    /// Whether a task tool asks for its input in the request, before it
    /// becomes a task.
    pub(crate) ask_first: bool,
    /// The tool's own MCP `_meta`, as the JSON text of an object; checked
    /// when the tool is registered.
    pub(crate) meta: Option<Cow<'static, str>>,
}

impl ToolDef {
    /// Starts a definition fixed at compile time, every flag off.
    pub const fn builder(name: &'static str, description: &'static str) -> ToolDefBuilder {
        ToolDefBuilder {
            def: ManuallyDrop::new(ToolDef {
                name: Cow::Borrowed(name),
                description: Cow::Borrowed(description),
                title: None,
                aliases: StrList::EMPTY,
                scopes: StrList::EMPTY,
                examples: StrList::EMPTY,
                icons: Cow::Borrowed(&[]),
                read_only: false,
                concurrency_safe: false,
                destructive: false,
                idempotent: false,
                open_world: None,
                requires_approval: false,
                defer: false,
                always_load: false,
                category: None,
                output_type: None,
                max_result_chars: None,
                timeout: None,
                version: None,
                allow_unknown_args: false,
                result_shape: None,
                task_support: TaskSupport::Forbidden,
                ask_first: false,
                meta: None,
            }),
        }
    }

    /// Starts a definition given at run time, for dynamic tools.
    ///
    /// ```
    /// use dsh_kit::ToolDef;
    ///
    /// let def = ToolDef::builder_owned(format!("echo_{}", 2), "Echo.").build();
    /// assert_eq!(def.name(), "echo_2");
    /// ```
    pub fn builder_owned(
        name: impl Into<String>,
        description: impl Into<String>,
    ) -> ToolDefBuilder {
        let mut builder = ToolDef::builder("", "");
        builder.def.name = Cow::Owned(name.into());
        builder.def.description = Cow::Owned(description.into());
        builder
    }

    /// The name the model calls.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// What the model reads to decide when to call the tool.
    pub fn description(&self) -> &str {
        &self.description
    }

    /// The human-readable title for UIs (MCP `title`), if any.
    pub fn title(&self) -> Option<&str> {
        self.title.as_deref()
    }

    /// The other names the tool answers to, in the order given.
    pub fn aliases(&self) -> impl Iterator<Item = &str> {
        self.aliases.iter()
    }

    /// The tool's example calls, each the JSON text of its arguments (see
    /// [`ToolDefBuilder::examples_json`]).
    pub fn examples(&self) -> impl Iterator<Item = &str> {
        self.examples.iter()
    }

    /// The tool's example calls, as JSON: the ones that parse, in order
    /// (registration refuses a tool with one that does not).
    pub fn example_values(&self) -> Vec<serde_json::Value> {
        self.examples()
            .filter_map(|text| serde_json::from_str(text).ok())
            .collect()
    }

    /// The OAuth scopes a caller needs, every one of them, to see and call
    /// the tool, in the order given; none for a tool anyone may call.
    pub fn scopes(&self) -> impl Iterator<Item = &str> {
        self.scopes.iter()
    }

    /// The icons a host may show beside the tool, in the order given.
    pub fn icons(&self) -> &[Icon] {
        &self.icons
    }

    /// Whether the tool changes nothing.
    pub fn read_only(&self) -> bool {
        self.read_only
    }

    /// Whether calls may run beside other calls of the same batch.
    pub fn concurrency_safe(&self) -> bool {
        self.concurrency_safe
    }

    /// Whether the tool may destroy data (it asks for approval by default).
    pub fn destructive(&self) -> bool {
        self.destructive
    }

    /// Whether calling twice with the same arguments has the effect of
    /// calling once.
    pub fn idempotent(&self) -> bool {
        self.idempotent
    }

    /// Whether the tool reaches an open world of entities (a web search,
    /// other people's systems: `Some(true)`) or a closed one (a local file,
    /// its own store: `Some(false)`); `None` when the tool did not say, which
    /// MCP clients read as open (`openWorldHint` left out).
    pub fn open_world(&self) -> Option<bool> {
        self.open_world
    }

    /// The tool's own entries of its MCP `_meta`, beside the `dsh/` ones
    /// dsh-kit writes; `None` when it gave none.
    ///
    /// ```
    /// use dsh_kit::ToolDef;
    ///
    /// let def = ToolDef::builder("lookup", "Look a word up.")
    ///     .meta_json(r#"{"com.example/owner": "search-team"}"#)
    ///     .build();
    /// assert_eq!(def.meta().unwrap()["com.example/owner"], "search-team");
    /// ```
    pub fn meta(&self) -> Option<serde_json::Map<String, serde_json::Value>> {
        serde_json::from_str(self.meta.as_deref()?).ok()
    }

    /// The JSON text of [`meta`](Self::meta), as given.
    pub(crate) fn meta_text(&self) -> Option<&str> {
        self.meta.as_deref()
    }

    /// Whether every call asks the host's approver first.
    pub fn requires_approval(&self) -> bool {
        self.requires_approval
    }

    /// Whether the tool is left out of the exported list until tool search
    /// finds it.
    pub fn defer(&self) -> bool {
        self.defer
    }

    /// Whether a deferred tool stays in the exported list all the same.
    pub fn always_load(&self) -> bool {
        self.always_load
    }

    /// The RAWP-DPS category, if declared.
    pub fn category(&self) -> Option<Category> {
        self.category
    }

    /// The declared RAWP-DPS `output_type`, if any: the first step of
    /// [`resolve_output_type`](Self::resolve_output_type).
    pub fn output_type(&self) -> Option<OutputType> {
        self.output_type
    }

    /// The content limit in characters past which a result spills to a
    /// file, if the tool sets one of its own.
    pub fn max_result_chars(&self) -> Option<usize> {
        self.max_result_chars
    }

    /// How long one call may run, if the tool sets it.
    pub fn timeout(&self) -> Option<Duration> {
        self.timeout
    }

    /// The declared version (`"1.2.0"`), if any.
    pub fn version(&self) -> Option<&str> {
        self.version.as_deref()
    }

    /// Whether argument properties the input schema does not name are
    /// accepted (and ignored) rather than reported as violations.
    pub fn allow_unknown_args(&self) -> bool {
        self.allow_unknown_args
    }

    /// How this tool's results cross MCP, when the tool chose
    /// ([`ToolDefBuilder::result_shape`]); `None` leaves it to the server
    /// (`McpServer::result_shape`, [`ResultShape::Render`] unless set).
    pub fn result_shape(&self) -> Option<ResultShape> {
        self.result_shape
    }

    /// Whether calls may, or must, run as MCP tasks.
    pub fn task_support(&self) -> TaskSupport {
        self.task_support
    }

    /// Whether this task tool asks for its input in the request, before it
    /// becomes a task ([`ToolDefBuilder::ask_first`]).
    pub fn asks_first(&self) -> bool {
        self.ask_first
    }
}

/// Builds a [`ToolDef`]: [`ToolDef::builder`] in `const` context, or
/// [`ToolDef::builder_owned`] at run time, then a method per setting and
/// [`build`](Self::build).
///
/// The methods taking `&'static` values are `const`; each has a `with_`
/// twin taking values made at run time, for dynamic tools.
#[derive(Clone, Debug)]
#[must_use = "a builder does nothing until `build` is called"]
pub struct ToolDefBuilder {
    // `ManuallyDrop`, so that the `const fn` `build` can move the definition
    // out: a `const fn` cannot move a field out of a value that has a
    // destructor. A builder dropped without `build` frees no strings given
    // at run time; one made in `const` context holds none.
    def: ManuallyDrop<ToolDef>,
}

impl ToolDefBuilder {
    /// The definition.
    pub const fn build(self) -> ToolDef {
        self.into_def()
    }

    /// A human-readable title for UIs (MCP `title`).
    pub const fn title(self, title: &'static str) -> Self {
        let mut def = self.into_def();
        fixed::set(&mut def.title, Some(Cow::Borrowed(title)));
        ToolDefBuilder::of(def)
    }

    /// A title given at run time, for dynamic tools.
    pub fn with_title(mut self, title: impl Into<String>) -> Self {
        self.def.title = Some(Cow::Owned(title.into()));
        self
    }

    /// Other names the tool answers to.
    pub const fn aliases(self, aliases: &'static [&'static str]) -> Self {
        let mut def = self.into_def();
        fixed::set(&mut def.aliases, StrList::Static(aliases));
        ToolDefBuilder::of(def)
    }

    /// Other names, given at run time.
    pub fn with_aliases(mut self, aliases: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.def.aliases = StrList::owned(aliases);
        self
    }

    /// Example calls, each the JSON text of an arguments object
    /// (`#[tool(example(path = "src/lib.rs", limit = 10))]` writes one per
    /// `example`). Registration checks each against the input schema
    /// ([`RegisterError::InvalidExample`](crate::RegisterError::InvalidExample));
    /// they are exported as Anthropic's `input_examples` and in MCP `_meta`
    /// under [`META_INPUT_EXAMPLES`](crate::export::META_INPUT_EXAMPLES), and
    /// [`testing::run_examples`](crate::testing::run_examples) runs them.
    pub const fn examples_json(self, examples: &'static [&'static str]) -> Self {
        let mut def = self.into_def();
        fixed::set(&mut def.examples, StrList::Static(examples));
        ToolDefBuilder::of(def)
    }

    /// [`examples_json`](Self::examples_json), given at run time.
    pub fn with_examples(mut self, examples: impl IntoIterator<Item = serde_json::Value>) -> Self {
        self.def.examples = StrList::owned(examples.into_iter().map(|example| example.to_string()));
        self
    }

    /// The OAuth scopes a caller needs, every one of them, to see and call
    /// the tool (`#[tool(scopes = ["files:write"])]`).
    pub const fn scopes(self, scopes: &'static [&'static str]) -> Self {
        let mut def = self.into_def();
        fixed::set(&mut def.scopes, StrList::Static(scopes));
        ToolDefBuilder::of(def)
    }

    /// The scopes a caller needs, given at run time.
    pub fn with_scopes(mut self, scopes: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.def.scopes = StrList::owned(scopes);
        self
    }

    /// Icons a host may show beside the tool (MCP `icons`). They are
    /// presentation only: no part of the contract hash.
    pub const fn icons(self, icons: &'static [Icon]) -> Self {
        let mut def = self.into_def();
        fixed::set(&mut def.icons, Cow::Borrowed(icons));
        ToolDefBuilder::of(def)
    }

    /// Icons given at run time, for dynamic tools.
    pub fn with_icons(mut self, icons: impl IntoIterator<Item = Icon>) -> Self {
        self.def.icons = Cow::Owned(icons.into_iter().collect());
        self
    }

    /// The tool's version (`"1.2.0"`), recorded in its definition, the
    /// catalog and each request event.
    pub const fn version(self, version: &'static str) -> Self {
        let mut def = self.into_def();
        fixed::set(&mut def.version, Some(Cow::Borrowed(version)));
        ToolDefBuilder::of(def)
    }

    /// A version given at run time, for dynamic tools.
    pub fn with_version(mut self, version: impl Into<String>) -> Self {
        self.def.version = Some(Cow::Owned(version.into()));
        self
    }

    /// The tool changes nothing.
    pub const fn read_only(self, yes: bool) -> Self {
        let mut def = self.into_def();
        def.read_only = yes;
        ToolDefBuilder::of(def)
    }

    /// The tool reaches an open world (`true`: the web, other people's
    /// systems) or only a closed one (`false`: local files, its own store).
    /// Left unset, MCP clients assume an open world.
    pub const fn open_world(self, yes: bool) -> Self {
        let mut def = self.into_def();
        def.open_world = Some(yes);
        ToolDefBuilder::of(def)
    }

    /// The tool's own MCP `_meta` entries, as the JSON text of an object
    /// (what `#[tool(meta(…))]` writes). Each key follows MCP's rule (an
    /// optional `com.example/` prefix, then a name), outside the prefixes
    /// MCP keeps and dsh-kit's `dsh/`; registering refuses anything else.
    pub const fn meta_json(self, json: &'static str) -> Self {
        let mut def = self.into_def();
        fixed::set(&mut def.meta, Some(Cow::Borrowed(json)));
        ToolDefBuilder::of(def)
    }

    /// [`meta_json`](Self::meta_json), given at run time.
    pub fn with_meta(mut self, meta: serde_json::Map<String, serde_json::Value>) -> Self {
        self.def.meta = Some(Cow::Owned(serde_json::Value::Object(meta).to_string()));
        self
    }

    /// Calls may run beside other calls of the same batch.
    pub const fn concurrency_safe(self, yes: bool) -> Self {
        let mut def = self.into_def();
        def.concurrency_safe = yes;
        ToolDefBuilder::of(def)
    }

    /// The tool may destroy data; it asks for approval by default.
    pub const fn destructive(self, yes: bool) -> Self {
        let mut def = self.into_def();
        def.destructive = yes;
        ToolDefBuilder::of(def)
    }

    /// Calling twice with the same arguments has the effect of calling once.
    pub const fn idempotent(self, yes: bool) -> Self {
        let mut def = self.into_def();
        def.idempotent = yes;
        ToolDefBuilder::of(def)
    }

    /// Every call asks the host's approver first.
    pub const fn requires_approval(self, yes: bool) -> Self {
        let mut def = self.into_def();
        def.requires_approval = yes;
        ToolDefBuilder::of(def)
    }

    /// Left out of the exported tool list until found through tool search.
    pub const fn defer(self, yes: bool) -> Self {
        let mut def = self.into_def();
        def.defer = yes;
        ToolDefBuilder::of(def)
    }

    /// Kept in the exported tool list even when deferred.
    pub const fn always_load(self, yes: bool) -> Self {
        let mut def = self.into_def();
        def.always_load = yes;
        ToolDefBuilder::of(def)
    }

    /// Accept argument properties the input schema does not name (they are
    /// ignored). By default an unknown property is a violation.
    pub const fn allow_unknown_args(self, yes: bool) -> Self {
        let mut def = self.into_def();
        def.allow_unknown_args = yes;
        ToolDefBuilder::of(def)
    }

    /// Over MCP, send the render's blocks alone as `content` and the value
    /// as `structuredContent`, under a declared `outputSchema`:
    /// [`ResultShape::Structured`]. `false` leaves the shape to the server.
    pub const fn render_only(self, yes: bool) -> Self {
        let mut def = self.into_def();
        def.result_shape = if yes {
            Some(ResultShape::Structured)
        } else {
            None
        };
        ToolDefBuilder::of(def)
    }

    /// How this tool's results cross MCP, whatever the server's default.
    pub const fn result_shape(self, shape: ResultShape) -> Self {
        let mut def = self.into_def();
        def.result_shape = Some(shape);
        ToolDefBuilder::of(def)
    }

    /// The RAWP-DPS category.
    pub const fn category(self, category: Category) -> Self {
        let mut def = self.into_def();
        def.category = Some(category);
        ToolDefBuilder::of(def)
    }

    /// The declared RAWP-DPS `output_type`.
    pub const fn output_type(self, output_type: OutputType) -> Self {
        let mut def = self.into_def();
        def.output_type = Some(output_type);
        ToolDefBuilder::of(def)
    }

    /// Content longer than this many characters spills to a file.
    pub const fn max_result_chars(self, chars: usize) -> Self {
        let mut def = self.into_def();
        def.max_result_chars = Some(chars);
        ToolDefBuilder::of(def)
    }

    /// How long one call may run.
    pub const fn timeout(self, timeout: Duration) -> Self {
        let mut def = self.into_def();
        def.timeout = Some(timeout);
        ToolDefBuilder::of(def)
    }

    /// Whether calls may, or must, run as MCP tasks.
    pub const fn task_support(self, support: TaskSupport) -> Self {
        let mut def = self.into_def();
        def.task_support = support;
        ToolDefBuilder::of(def)
    }

    /// Calls may run as MCP tasks: started, then polled, fetched or
    /// cancelled later (`execution.taskSupport: "optional"`).
    pub const fn task(self, yes: bool) -> Self {
        self.task_flag(TaskSupport::Optional, yes)
    }

    /// Calls must run as MCP tasks (`execution.taskSupport: "required"`): an
    /// MCP client that cannot take a task is refused.
    pub const fn task_required(self, yes: bool) -> Self {
        self.task_flag(TaskSupport::Required, yes)
    }

    /// A task tool that asks for its input first: on MCP 2026-07-28, to a
    /// client that takes tasks, a call runs in the request while it asks,
    /// each question going back as an `InputRequiredResult`, and becomes
    /// a task on the round that brings the answers, running again from the
    /// start with them (as every multi-round-trip call does). A call that
    /// asks nothing answers with its result. Without `task` or
    /// `task_required` it changes nothing; the `#[tool]` macro refuses it
    /// there.
    ///
    /// ```
    /// use dsh_kit::ToolDef;
    ///
    /// let def = ToolDef::builder("greet_later", "Asks a name, then greets in the background.")
    ///     .task_required(true)
    ///     .ask_first(true)
    ///     .build();
    /// assert!(def.asks_first());
    /// ```
    pub const fn ask_first(self, yes: bool) -> Self {
        let mut def = self.into_def();
        def.ask_first = yes;
        ToolDefBuilder::of(def)
    }

    /// Turns on `support`, or turns it off: back to `Forbidden` only when
    /// it is what is set, so `.task_required(true).task(false)` stays required.
    const fn task_flag(self, support: TaskSupport, yes: bool) -> Self {
        let mut def = self.into_def();
        if yes {
            def.task_support = support;
        } else if def.task_support as u8 == support as u8 {
            def.task_support = TaskSupport::Forbidden;
        }
        ToolDefBuilder::of(def)
    }

    /// A builder of `def`.
    const fn of(def: ToolDef) -> Self {
        ToolDefBuilder {
            def: ManuallyDrop::new(def),
        }
    }

    /// The definition so far, out of the builder.
    const fn into_def(self) -> ToolDef {
        let ToolDefBuilder { def } = self;
        ManuallyDrop::into_inner(def)
    }
}

/// Whether a tool's calls run as MCP tasks (MCP `execution.taskSupport`): a
/// long-running tool is started, answered with a task at once, then polled,
/// fetched and cancelled by task id.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TaskSupport {
    /// Every call answers with its result (the default).
    #[default]
    Forbidden,
    /// A client that takes tasks gets one; others get the result.
    Optional,
    /// Every call must run as a task.
    Required,
}

impl TaskSupport {
    /// The MCP spelling: `forbidden`, `optional` or `required`.
    pub fn as_str(self) -> &'static str {
        match self {
            TaskSupport::Forbidden => "forbidden",
            TaskSupport::Optional => "optional",
            TaskSupport::Required => "required",
        }
    }
}

impl ToolDef {
    /// Resolves a call's `output_type` by the protocol's three steps: the catalog's
    /// declaration, else the category's default, else `text`.
    ///
    /// `value` is the call's canonical value (`None` when it failed), which
    /// some rows of the category table look at:
    ///
    /// | category | tool | `output_type` |
    /// |---|---|---|
    /// | `filesystem`, `notebook` | writes or edits (not `read_only`) | `diff` when a change happened, else `empty`; `text` for a message that is no diff, `structured` for an object or a list |
    /// | `filesystem`, `notebook` | reads (`read_only`) | `file_content` (a `filesystem` tool's value that is not text: `structured`) |
    /// | `filesystem`, `notebook` | lists (`read_only`, value a list of strings) | `file_list` |
    /// | `shell` | | `text` |
    /// | `search` | | `file_list` when the value is a list of strings, else `text` |
    /// | `web` | | `web_content` |
    /// | `task_management` | | `structured` |
    /// | `agent` | | `agent_result` |
    /// | `planning`, `mcp`, `custom` | | no default: `text` |
    ///
    /// The table tells reading from writing by the tool's `read_only` flag,
    /// and listing from reading by what the tool returned: a list of strings
    /// is a list of paths (what Glob, LS and a files-only Grep return). A
    /// writing tool's value *is* its change, so an empty value (`null`,
    /// `false`, `""`, `[]` or `{}`, such as the `()` or `None` of a write that
    /// changed nothing, or a failed call) means no change happened. The spec
    /// lists NotebookRead and NotebookEdit in the filesystem rows, so a
    /// `notebook` tool resolves as a `filesystem` one.
    ///
    /// ```
    /// use dsh_kit::{Category, OutputType, ToolDef};
    /// use serde_json::json;
    ///
    /// const WRITE: ToolDef = ToolDef::builder("write_file", "Write a file.").category(Category::Filesystem).build();
    /// assert_eq!(WRITE.resolve_output_type(Some(&json!("--- a\n+++ a\n@@ -1 +1 @@\n-x\n+y\n"))), OutputType::Diff);
    /// assert_eq!(WRITE.resolve_output_type(Some(&json!(null))), OutputType::Empty);
    ///
    /// const DECLARED: ToolDef = ToolDef::builder("write_file", "Write a file.")
    ///     .category(Category::Filesystem)
    ///     .output_type(OutputType::Structured)
    ///     .build();
    /// assert_eq!(DECLARED.resolve_output_type(Some(&json!(null))), OutputType::Structured);
    /// ```
    pub fn resolve_output_type(&self, value: Option<&Value>) -> OutputType {
        self.output_type
            .or_else(|| {
                self.category
                    .and_then(|category| category.default_output_type(self.read_only, value))
            })
            .unwrap_or(OutputType::Text)
    }
}

/// How a call's result crosses MCP: where the render goes, and whether the
/// value travels beside it as `structuredContent`.
///
/// Hosts turn a `CallToolResult` into the model's message in different
/// ways, and a shape that gives one host the render once gives another the
/// same thing twice, or no render at all:
///
/// - pydantic-ai hands its model `structuredContent` alone whenever it is
///   present and every block of `content` is text;
/// - the Vercel AI SDK (`@ai-sdk/mcp`), openai-agents (by default) and
///   langchain-mcp-adapters hand it every block of `content`, and never
///   `structuredContent`;
/// - every one of them drops `_meta`.
///
/// MCP (2025-06-18, 2025-11-25 and 2026-07-28 alike) says: "If an output
/// schema is provided: Servers MUST provide structured results that conform
/// to this schema", and "for backwards compatibility, a tool that returns
/// structured content SHOULD also return the serialized JSON in a
/// TextContent block". The JSON text block is a SHOULD, the structured
/// result a MUST only where an output schema is declared.
///
/// So for a tool with its own render, the one shape that puts the render,
/// once, in front of every one of those models is the render alone in
/// `content`, with no `structuredContent` and so no `outputSchema`:
/// [`Render`](Self::Render), the default in every protocol version. A tool
/// whose content is its value already (no render of its own, or a render
/// whose text is the value's JSON or the string itself) keeps its
/// `outputSchema` and `structuredContent` in every shape: each host then
/// hands its model one copy, whichever field it reads.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ResultShape {
    /// `content` is the render; the value goes as `structuredContent`, under
    /// a declared `outputSchema`, only where the content is the value
    /// already. Every host's model reads the render once; a client that
    /// wants the typed value of a rendering tool does not get it.
    #[default]
    Render,
    /// `content` is the render, `structuredContent` the value, under a
    /// declared `outputSchema`. Hosts that read `content` get the render
    /// once; pydantic-ai's model gets the value instead of the render.
    Structured,
    /// `content` is the render followed by the value's JSON when the
    /// render's text does not carry it, and `structuredContent` the value
    /// (MCP's backwards-compatible shape). Hosts that read `content` give
    /// their model both.
    RenderAndJson,
}

impl ResultShape {
    /// Whether a rendering tool's results carry `structuredContent`, and so
    /// its definition an `outputSchema`.
    pub fn structures_renders(self) -> bool {
        !matches!(self, ResultShape::Render)
    }
}
