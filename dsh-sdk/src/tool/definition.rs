//! The [`Tool`] trait: what `#[tool]` implements, and what a hand-written tool implements.

use std::borrow::Cow;
use std::future::Future;
use std::time::Duration;

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::card::Card;
use crate::content::ContentBlock;
use crate::names::{Category, OutputType};
use crate::tool::Exec;
use crate::tool::Icon;
use crate::tool::ToolError;
use crate::tool::fixed::StrList;
use serde_json::Value;

/// A tool: typed arguments, a typed output, static metadata and an async body.
///
/// `#[tool]` implements this trait on a zero-sized type named after the fn, so
/// most authors never write it by hand. Writing it by hand is equivalent:
///
/// ```
/// use dsh_sdk::prelude::*;
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
///     const DEFINITION: ToolDef = ToolDef::new("greet", "Greet someone by name.").read_only(true);
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
        crate::content::render_default(value)
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

/// A tool's name, description and flags. Built in `const` context:
///
/// ```
/// use dsh_sdk::{Category, ToolDef};
///
/// const DEF: ToolDef = ToolDef::new("read_file", "Read a file from disk.")
///     .read_only(true)
///     .concurrency_safe(true)
///     .category(Category::Filesystem)
///     .aliases(&["cat"]);
/// assert!(DEF.is_read_only());
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
    pub(crate) icons: Cow<'static, [Icon]>,
    pub(crate) read_only: bool,
    pub(crate) concurrency_safe: bool,
    pub(crate) destructive: bool,
    pub(crate) idempotent: bool,
    pub(crate) requires_approval: bool,
    pub(crate) defer: bool,
    pub(crate) always_load: bool,
    pub(crate) category: Option<Category>,
    pub(crate) output_type: Option<OutputType>,
    pub(crate) max_result_chars: Option<usize>,
    pub(crate) timeout: Option<Duration>,
    pub(crate) version: Option<Cow<'static, str>>,
    pub(crate) allow_unknown_args: bool,
    pub(crate) task_support: TaskSupport,
}

impl ToolDef {
    /// A definition with every flag off.
    pub const fn new(name: &'static str, description: &'static str) -> Self {
        ToolDef {
            name: Cow::Borrowed(name),
            description: Cow::Borrowed(description),
            title: None,
            aliases: StrList::EMPTY,
            icons: Cow::Borrowed(&[]),
            read_only: false,
            concurrency_safe: false,
            destructive: false,
            idempotent: false,
            requires_approval: false,
            defer: false,
            always_load: false,
            category: None,
            output_type: None,
            max_result_chars: None,
            timeout: None,
            version: None,
            allow_unknown_args: false,
            task_support: TaskSupport::Forbidden,
        }
    }

    /// A definition built at run time, for dynamic tools.
    pub fn owned(name: impl Into<String>, description: impl Into<String>) -> Self {
        ToolDef {
            name: Cow::Owned(name.into()),
            description: Cow::Owned(description.into()),
            ..ToolDef::new("", "")
        }
    }

    setters! {
        /// A human-readable title for UIs (MCP `title`).
        const title(title: &'static str) => title = Some(Cow::Borrowed(title));

        /// A title given at run time, for dynamic tools.
        with_title(title: impl Into<String>) => title = Some(Cow::Owned(title.into()));

        /// Other names the tool answers to.
        const aliases(aliases: &'static [&'static str]) => aliases = StrList::Static(aliases);

        /// Other names, given at run time.
        with_aliases(aliases: impl IntoIterator<Item = impl Into<String>>) => aliases = StrList::owned(aliases);

        /// Icons a host may show beside the tool (MCP `icons`). They are
        /// presentation only: no part of the contract hash.
        const icons(icons: &'static [Icon]) => icons = Cow::Borrowed(icons);

        /// Icons given at run time, for dynamic tools.
        with_icons(icons: impl IntoIterator<Item = Icon>) => icons = Cow::Owned(icons.into_iter().collect());
    }

    /// The tool's icons, in the order given.
    pub fn icon_list(&self) -> &[Icon] {
        &self.icons
    }

    setters! {
        /// The tool's version (`"1.2.0"`), recorded in its definition, the
        /// catalog and each request event.
        const version(version: &'static str) => version = Some(Cow::Borrowed(version));

        /// A version given at run time, for dynamic tools.
        with_version(version: impl Into<String>) => version = Some(Cow::Owned(version.into()));
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

    /// Turns on `support`, or turns it off: back to `Forbidden` only when
    /// it is what is set, so `.task_required(true).task(false)` stays required.
    const fn task_flag(mut self, support: TaskSupport, yes: bool) -> Self {
        if yes {
            self.task_support = support;
        } else if self.task_support as u8 == support as u8 {
            self.task_support = TaskSupport::Forbidden;
        }
        self
    }

    setters! {
        /// Whether calls may, or must, run as MCP tasks.
        const task_support(support: TaskSupport) => task_support = support;
    }

    /// Whether calls may, or must, run as MCP tasks.
    pub fn tasks(&self) -> TaskSupport {
        self.task_support
    }

    /// The name the model calls.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// What the model reads to decide when to call the tool.
    pub fn description(&self) -> &str {
        &self.description
    }

    /// The title for UIs, if any.
    pub fn title_text(&self) -> Option<&str> {
        self.title.as_deref()
    }

    /// The other names the tool answers to.
    pub fn alias_names(&self) -> impl Iterator<Item = &str> {
        self.aliases.iter()
    }

    /// The declared version, if any.
    pub fn version_text(&self) -> Option<&str> {
        self.version.as_deref()
    }
}

/// Writes the builder setter of each flag (`const fn read_only(self, yes)`)
/// and of each optional setting (`const fn timeout(self, value)`), and the
/// reader of each (`is_read_only`, `call_timeout`): the same few lines a
/// dozen times, written once.
macro_rules! settings {
    (
        flags { $($(#[doc = $set:literal])* $flag:ident; $(#[doc = $get:literal])* $is:ident;)* }
        options { $($(#[doc = $oset:literal])* $option:ident: $ty:ty; $(#[doc = $oget:literal])* $read:ident;)* }
    ) => {
        impl ToolDef {
            $(
                $(#[doc = $set])*
                pub const fn $flag(mut self, yes: bool) -> Self {
                    self.$flag = yes;
                    self
                }

                $(#[doc = $get])*
                pub fn $is(&self) -> bool {
                    self.$flag
                }
            )*
            $(
                $(#[doc = $oset])*
                pub const fn $option(mut self, value: $ty) -> Self {
                    self.$option = Some(value);
                    self
                }

                $(#[doc = $oget])*
                pub fn $read(&self) -> Option<$ty> {
                    self.$option
                }
            )*
        }
    };
}

settings! {
    flags {
        /// The tool changes nothing.
        read_only;
        /// Whether the tool changes nothing.
        is_read_only;

        /// Calls may run beside other calls of the same batch.
        concurrency_safe;
        /// Whether calls may run beside others.
        is_concurrency_safe;

        /// The tool may destroy data; it asks for approval by default.
        destructive;
        /// Whether the tool may destroy data.
        is_destructive;

        /// Calling twice with the same arguments has the effect of calling once.
        idempotent;
        /// Whether repeating a call has no further effect.
        is_idempotent;

        /// Every call asks the host's approver first.
        requires_approval;
        /// Whether every call asks for approval.
        is_approval_required;

        /// Left out of the exported tool list until found through tool search.
        defer;
        /// Whether the tool is left out of the exported list.
        is_deferred;

        /// Kept in the exported tool list even when deferred.
        always_load;
        /// Whether a deferred tool stays in the exported list.
        is_always_loaded;

        /// Accept argument properties the input schema does not name (they are
        /// ignored). By default an unknown property is a violation.
        allow_unknown_args;
        /// Whether argument properties the schema does not name are accepted.
        accepts_unknown_args;
    }
    options {
        /// The RAWP-DPS category.
        category: Category;
        /// The RAWP-DPS category, if declared.
        category_kind;

        /// The declared RAWP-DPS `output_type`.
        output_type: OutputType;
        /// The declared `output_type`, if any.
        declared_output_type;

        /// Content longer than this many characters spills to a file.
        max_result_chars: usize;
        /// The declared content limit, if any.
        result_char_limit;

        /// How long one call may run.
        timeout: Duration;
        /// The declared timeout, if any.
        call_timeout;
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
    /// | `filesystem`, `notebook` | writes or edits (not `read_only`) | `diff` when a change happened, else `empty` |
    /// | `filesystem`, `notebook` | reads (`read_only`) | `file_content` |
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
    /// use dsh_sdk::{Category, OutputType, ToolDef};
    /// use serde_json::json;
    ///
    /// const WRITE: ToolDef = ToolDef::new("write_file", "Write a file.").category(Category::Filesystem);
    /// assert_eq!(WRITE.resolve_output_type(Some(&json!("--- a\n+++ a\n@@ -1 +1 @@\n-x\n+y\n"))), OutputType::Diff);
    /// assert_eq!(WRITE.resolve_output_type(Some(&json!(null))), OutputType::Empty);
    ///
    /// const DECLARED: ToolDef = WRITE.output_type(OutputType::Structured);
    /// assert_eq!(DECLARED.resolve_output_type(Some(&json!(null))), OutputType::Structured);
    /// ```
    pub fn resolve_output_type(&self, value: Option<&Value>) -> OutputType {
        self.declared_output_type()
            .or_else(|| {
                self.category_kind()
                    .and_then(|category| category.default_output_type(self.is_read_only(), value))
            })
            .unwrap_or(OutputType::Text)
    }
}
