//! Procedural macros for [dsh-kit](https://docs.rs/dsh-kit): `#[tool]`,
//! `#[render]`, `#[present]`, and `#[derive(ToolArgs)]` and
//! `#[derive(ToolOutput)]` for the types a tool takes and returns.
//!
//! Use them through `dsh-kit`, which re-exports them (`use dsh_kit::prelude::*`):
//! the code they generate names the runtime as `::dsh_kit::__private::…`.
//!
//! Each macro keeps the annotated fn exactly as written, so a test calls it
//! directly, and adds a zero-sized type of the same name (types and fns live
//! in different namespaces). Mistakes are reported at compile time, all at
//! once, each at the token to change.

#![forbid(unsafe_code)]

mod ctxt;
mod derive;
mod doc;
mod elicit;
mod fallback;
mod header;
mod naming;
mod owned;
mod projection;
mod runtime;
mod span;
mod tool;
mod types;

use proc_macro::TokenStream;

use crate::projection::Kind;

/// Turns an `async fn` into a tool an LLM agent can call.
///
/// ```
/// use dsh_kit::prelude::*;
/// use dsh_kit::Registry;
///
/// /// Greet someone by name.
/// #[tool(read_only, concurrency_safe)]
/// async fn greet(
///     /// The name to greet
///     name: String,
/// ) -> String {
///     format!("Hello, {name}!")
/// }
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// let registry = Registry::new();
/// let _greet = registry.register::<greet>().unwrap();
/// assert_eq!(registry.call("greet", json!({ "name": "Ada" })).await.text(), "Hello, Ada!");
///
/// // The fn is still a fn.
/// assert_eq!(greet("Ada".into()).await, "Hello, Ada!");
/// # }
/// ```
///
/// The macro keeps the fn and adds what a hand-written tool would be: the
/// example above is this, give or take full paths.
///
/// ```
/// use dsh_kit::prelude::*;
///
/// async fn greet(name: String) -> String {
///     format!("Hello, {name}!")
/// }
///
/// /// The arguments of the tool `greet`, one field per parameter.
/// #[derive(Deserialize, JsonSchema)]
/// struct GreetArgs {
///     /// The name to greet
///     pub name: String,
/// }
///
/// /// The tool `greet`: register it with `registry.register::<greet>()`.
/// #[allow(non_camel_case_types)]
/// struct greet {}
///
/// impl Tool for greet {
///     type Args = GreetArgs;
///     type Output = String;
///     const DEFINITION: ToolDef = ToolDef::builder("greet", "Greet someone by name.")
///         .read_only(true)
///         .concurrency_safe(true)
///         .build();
///
///     async fn execute(args: GreetArgs, _: &Exec) -> Result<String, ToolError> {
///         Ok(greet(args.name).await)
///     }
/// }
/// ```
///
/// The type is a braced struct, so it lives only in the type namespace and
/// shares the fn's name: register the tool with
/// `registry.register::<greet>()`, call the fn with `greet(…)`. (For a fn
/// visible outside its module, the type also carries the fn's types as a
/// defaulted parameter; see "What does not compile".)
///
/// # Name and description
///
/// The tool's name is the fn's (without `r#`) unless `name = "…"` says
/// otherwise; either way it must match `^[a-zA-Z0-9_-]{1,64}$`. The
/// description is the fn's doc comment, its lines joined as rustdoc reads
/// them, unless `description = "…"` says otherwise. A tool without one does
/// not compile: the description is how the model decides to call it.
///
/// # Arguments
///
/// The model's arguments are a JSON object. A tool takes them in one of two forms.
///
/// **Parameters.** Every parameter other than the context is a field of an
/// args struct the macro generates, named after the fn in PascalCase
/// (`read_file` → `ReadFileArgs`, `fetch_url` → `FetchUrlArgs`) with the
/// fn's visibility; a render, present or validate fn names it so (the tool
/// type's doc comment says it too, and `<read_file as Tool>::Args` names it
/// whatever its form). Where the fn's own types name a type of yours called
/// so (`args: Option<ReadArgs>`, `options: ReadArgs`), yours is meant: the
/// generated struct takes another name, and `<read as Tool>::Args` names it.
/// Doc comments on a
/// parameter become the field's description in the schema; `#[serde(…)]` and
/// `#[schemars(…)]` attributes move onto the field. A fn with no parameters
/// is a tool with no arguments (an empty object).
///
/// ```
/// use dsh_kit::prelude::*;
///
/// /// Search the notes.
/// #[tool(read_only)]
/// async fn search_notes(
///     /// What to look for
///     query: String,
///     /// How many results to return at most
///     #[serde(default = "ten")]
///     #[schemars(range(min = 1, max = 100))]
///     limit: u32,
/// ) -> Vec<String> {
///     vec![format!("{query} ({limit})")]
/// }
///
/// fn ten() -> u32 {
///     10
/// }
/// ```
///
/// expands the parameters to
///
/// ```
/// # use dsh_kit::prelude::*;
/// # fn ten() -> u32 { 10 }
/// /// The arguments of the tool `search_notes`, one field per parameter.
/// #[derive(Deserialize, JsonSchema)]
/// struct SearchNotesArgs {
///     /// What to look for
///     pub query: String,
///     /// How many results to return at most
///     #[serde(default = "ten")]
///     #[schemars(range(min = 1, max = 100))]
///     pub limit: u32,
/// }
/// ```
///
/// **Header arguments.** `#[dsh(header = "Region")]` on a parameter (or on
/// a field of an args struct deriving [`ToolArgs`](derive@ToolArgs)) marks
/// an argument MCP clients also send as an `Mcp-Param-Region` HTTP header
/// on `tools/call` (MCP 2026-07-28's `x-mcp-header`), so a load balancer or
/// gateway can route on it without reading the body. The MCP server refuses
/// a call whose header says something other than the body, naming the
/// header and both values. Checked at compile time, each at the token to
/// change: the name is an HTTP token (`Region`, `Tenant-Id`; no spaces, no
/// `:`), no two arguments of a tool share one whatever its case, and the
/// argument's type is a string, an integer or a boolean, or an `Option` of
/// one (`dsh_kit::HeaderParam`, decided by the
/// type: a float is refused, as MCP permits no `number` header). The schema
/// carries the annotation for MCP alone; model providers never see it.
///
/// ```
/// use dsh_kit::prelude::*;
///
/// /// Look an order up in one region's store.
/// #[tool(read_only)]
/// async fn find_order(
///     /// The region the order was placed in
///     #[dsh(header = "Region")]
///     region: String,
///     /// The tenant, when the caller has several
///     #[dsh(header = "Tenant-Id")]
///     tenant: Option<u32>,
///     /// The order number
///     order: u64,
/// ) -> String {
///     format!("{order} in {region} for {tenant:?}")
/// }
/// ```
///
/// **An args struct.** A parameter named `args` (or `_args`), or one
/// destructured by a struct pattern (`ReadFileArgs { path, .. }: ReadFileArgs`),
/// is the whole args struct, which derives [`ToolArgs`](derive@ToolArgs) (or
/// `Deserialize` and `JsonSchema`). The tool then takes no other parameter
/// but the context.
///
/// ```
/// use dsh_kit::prelude::*;
///
/// #[derive(ToolArgs)]
/// struct ReadFileArgs {
///     /// Absolute path
///     path: String,
/// }
///
/// /// Read a file from disk.
/// #[tool(read_only)]
/// async fn read_file(args: ReadFileArgs) -> std::io::Result<String> {
///     std::fs::read_to_string(args.path)
/// }
/// ```
///
/// **The rule.** Which form a fn takes is decided by how each parameter is
/// written, never by a type's name: the one parameter taken by reference is
/// the context; a parameter named `args` is the whole args struct, unless
/// its type can never be an object (`args: String`, a number, a `bool`, a
/// tuple, a `Vec`, an `Option`, …), which makes it one field named `args`
/// like any other; any other parameter taken by value is one field of the
/// generated struct, whatever its type is called (`options: SearchArgs` is
/// a field named `options`; a type of your own named `Exec`, taken by value,
/// is a field too). To give the model a field called `args` of a struct
/// type, name the parameter otherwise and add `#[serde(rename = "args")]`.
///
/// The arguments must be an object. An args type deriving `ToolArgs` that
/// is not a struct with named fields is refused at compile time. A type
/// with serde's own derives that is not an object (a unit enum), or an
/// alias of `String` taken as `args`, gets past the macro, and the registry
/// refuses it when registering (`RegisterError::ArgsNotObject`).
///
/// # The context
///
/// The parameter taken by reference, in any position, receives the call's
/// context, `&Exec`, whatever it is imported as (`use dsh_kit::Exec as Ctx;`
/// then `ctx: &Ctx`): its id, cancellation, the host's state, and the stream
/// for progress and output. A reference to any other type is refused at that
/// type: arguments are taken by value.
///
/// ```
/// use dsh_kit::prelude::*;
///
/// /// Count to `n`, reporting progress.
/// #[tool]
/// async fn count(exec: &Exec, n: u32) -> u32 {
///     for i in 0..n {
///         exec.progress(format!("{i}"));
///     }
///     n
/// }
/// ```
///
/// # Output
///
/// What the fn returns is the tool's output, serialized to one JSON value and
/// checked against its schema on every call; so it must be
/// `Serialize + Deserialize + JsonSchema`.
///
/// | the fn returns | output | an error is |
/// |---|---|---|
/// | nothing | `()` | impossible |
/// | a type written with type arguments, or named `Result`: `Result<T, E>`, `io::Result<T>`, `anyhow::Result<T>`, a local `type Res<T> = Result<T, MyError>`, `Vec<T>`, `Option<T>` | what its type says (`ToolReturn`): `T` for a `Result` by any name, the type itself otherwise | `E` converted into `ToolError` |
/// | a type written without type arguments (`String`, `Report`) | the type itself | impossible |
///
/// Which it is, is decided by the type, so an alias works as what it names.
/// A generic output type of your own (`Page<Item>`) derives
/// [`ToolOutput`](derive@ToolOutput); an alias of `Result` written without
/// type arguments (`type Res = Result<String, E>`) is taken as the output
/// itself, so give it a parameter.
///
/// Any error converts, by its type: `ToolError` as it is; a
/// `Serialize + JsonSchema` error (typically an enum) as a declared failure
/// shape: its variant name, read from the serialized form (the string, or the
/// one key), is the error's `kind` and its serialized value the error's
/// `data`, and its schema is the tool's `failure_schema()`; any other
/// `std::error::Error` with its sources' messages; `anyhow::Error` and
/// `Box<dyn Error + Send + Sync>` (or `Box<dyn Error>`) likewise; and
/// `String`, `&str` or anything else `Display` as its text. A type that is
/// none of these is refused at the return type.
///
/// ```
/// use dsh_kit::prelude::*;
///
/// #[derive(Debug, Serialize, JsonSchema, thiserror::Error)]
/// enum LookupError {
///     #[error("no entry named `{0}`")]
///     NotFound(String),
/// }
///
/// /// Look up an entry.
/// #[tool(read_only)]
/// async fn lookup(key: String) -> Result<String, LookupError> {
///     Err(LookupError::NotFound(key))
/// }
///
/// assert!(<lookup as Tool>::failure_schema().is_some());
/// ```
///
/// # Keys
///
/// | key | sets | written by hand |
/// |---|---|---|
/// | `name = "read_file"` | the name, instead of the fn's | `ToolDef::builder("read_file", …).build()` |
/// | `description = "…"` | the description, instead of the doc comment | `ToolDef::builder(…, "…").build()` |
/// | `title = "Read file"` | a title for UIs | `.title("Read file")` |
/// | `version = "1.2.0"` | the tool's version, in its definition, the catalog and the request event | `.version("1.2.0")` |
/// | `aliases = ["cat", "read"]` | other names it answers to | `.aliases(&["cat", "read"])` |
/// | `icons = ["https://example.com/read.svg"]` | icons a host may show (MCP `icons`), each an `https:` or `data:` URI | `.icons(&[Icon::new("https://example.com/read.svg")])` |
/// | `read_only` | it changes nothing | `.read_only(true)` |
/// | `concurrency_safe` | it may run beside other calls | `.concurrency_safe(true)` |
/// | `destructive` | it may destroy data | `.destructive(true)` |
/// | `idempotent` | repeating a call has no further effect | `.idempotent(true)` |
/// | `open_world` | it reaches an open world (the web, other people's systems); `open_world = false` says it reaches only a closed one; left out, MCP clients assume open (`openWorldHint`) | `.open_world(true)` |
/// | `requires_approval` | every call asks the approver | `.requires_approval(true)` |
/// | `defer` | left out of the exported list until searched for | `.defer(true)` |
/// | `always_load` | kept in the exported list even when deferred | `.always_load(true)` |
/// | `allow_unknown_args` | argument names the schema does not know are accepted, not reported | `.allow_unknown_args(true)` |
/// | `render_only` | over MCP, `content` is the render's blocks alone and the value goes as `structuredContent` under the tool's `outputSchema`, whatever the server's shape (`ResultShape::Structured`) | `.render_only(true)` |
/// | `task` | over MCP, a client that takes tasks gets a task to poll, fetch or cancel (`execution.taskSupport: "optional"`) | `.task(true)` |
/// | `task_required` | over MCP, every call must run as a task (`execution.taskSupport: "required"`) | `.task_required(true)` |
/// | `ask_first` | with `task` or `task_required`: on MCP 2026-07-28, a call asks for its input in the request (an `InputRequiredResult` per round) and becomes a task on the round that brings the answers | `.ask_first(true)` |
/// | `scopes = ["files:read", "files:write"]` | the OAuth scopes a caller needs, every one, to see and call it (exported in MCP `_meta`); each an RFC 6749 scope-token | `.scopes(&["files:read", "files:write"])` |
/// | `meta(owner = "search-team", "com.example/tier" = 2)` | the tool's own MCP `_meta` entries: keys as names or strings, following MCP's rule (an optional `com.example/` prefix, then a name; not the prefixes MCP keeps, nor `dsh/`), values literal strings, numbers or bools | `.meta_json(r#"{"owner":"search-team","com.example/tier":2}"#)` |
/// | `example(path = "src/lib.rs", limit = 10)` | one example call (give `example` once per call), its arguments by name as literal strings, numbers or bools; a name that is no argument is refused at compile time (where the fn's inline parameters are all there is to read), and registration checks each example against the input schema, exports them (Anthropic `input_examples`, MCP `_meta["dsh/inputExamples"]`) and `dsh_kit::testing::run_examples` runs them | `.examples_json(&[r#"{"path":"src/lib.rs","limit":10}"#])` |
/// | `category = "filesystem"` | `filesystem`, `shell`, `search`, `web`, `notebook`, `task_management`, `agent`, `planning`, `mcp` or `custom` | `.category(Category::Filesystem)` |
/// | `output_type = "file_content"` | `text`, `structured`, `file_content`, `file_list`, `diff`, `web_content`, `empty`, `binary_ref` or `agent_result` | `.output_type(OutputType::FileContent)` |
/// | `max_result_chars = 30000` | content past this spills to a file | `.max_result_chars(30000)` |
/// | `timeout_ms = 5000` | how long a call may run | `.timeout(Duration::from_millis(5000))` |
/// | `validate = check_args` | a `fn(&Args, &Exec) -> Validation` run before execution | `fn validate_input(args: &Args, exec: &Exec) -> Validation { check_args(args, exec) }` |
/// | `render = read_text` | a [`#[render]`](macro@render) fn: what the model sees | `fn render(args: &Args, value: &Output) -> Vec<ContentBlock> { read_text(args, value) }` |
/// | `present = read_card` | a [`#[present]`](macro@present) fn: what a UI shows | `fn present(args: &Args, value: &Output) -> Option<Card> { Some(read_card(args, value)) }` |
/// | `present_call = running_card` | a [`#[present]`](macro@present) fn of the args alone: what a UI shows while the call runs | `fn present_call(args: &Args) -> Option<Card> { Some(running_card(args)) }` |
/// | `crate = "my_dsh"` | the path dsh-kit is reached by, when it is a dependency under another name | every generated path starts `my_dsh::__private` instead of `::dsh_kit::__private` |
///
/// Every flag is off unless given (fail-closed); `read_only = false` is the
/// same as leaving it out, except for `open_world`, where `false` is a claim
/// of its own (a closed world) and leaving it out says nothing. A misspelt key gets a "did you mean" suggestion.
///
/// ```
/// use dsh_kit::prelude::*;
///
/// #[derive(Deserialize, JsonSchema)]
/// struct EditArgs {
///     path: String,
///     old: String,
///     new: String,
/// }
///
/// #[derive(Serialize, Deserialize, JsonSchema)]
/// struct Edit {
///     replaced: usize,
/// }
///
/// /// Replace text in a file.
/// #[tool(
///     destructive,
///     aliases = ["replace"],
///     category = "filesystem",
///     output_type = "diff",
///     timeout_ms = 5000,
///     validate = not_empty,
///     render = edit_text,
/// )]
/// async fn edit(args: EditArgs) -> Result<Edit, ToolError> {
///     # let _ = (&args.path, &args.new);
///     Ok(Edit { replaced: 1 })
/// }
///
/// fn not_empty(args: &EditArgs, _: &Exec) -> Validation {
///     if args.old.is_empty() {
///         Validation::invalid("`old` is empty: give the text to replace", 1)
///     } else {
///         Validation::Ok
///     }
/// }
///
/// #[render]
/// fn edit_text(args: &EditArgs, value: &Edit) -> Vec<ContentBlock> {
///     vec![ContentBlock::text(format!("replaced {} in {}", value.replaced, args.path))]
/// }
/// ```
///
/// # What does not compile
///
/// Each of these is one error at the token to change, with the fix: a fn
/// that is not `async`, is `unsafe`, takes `self` or is generic; a `&mut`
/// parameter, a parameter by reference that is not the context, or two of
/// them; a parameter written as a pattern rather than a name; an `args`
/// struct beside inline parameters; args that cannot be an object; an args
/// type that is not `Deserialize + JsonSchema`; an output that is not
/// `Serialize + Deserialize + JsonSchema`, or is `!`, `impl Trait` or
/// `dyn Trait`; an error with no message; a `render`, `present`,
/// `present_call` or `validate` whose types do not fit the tool; `#[tool]`
/// applied twice; flags that contradict each other (`read_only` with
/// `destructive` or with `idempotent = false`, `destructive` with
/// `requires_approval = false`, `task` with `task_required`,
/// `task_required` with `task = false`), at the second; an `output_type`
/// its output contradicts (`"empty"` on a tool returning a value, a kind
/// of content on one returning `()` or another zero-sized type), decided by
/// the output's type; two parameters read under one JSON name (after
/// `rename` or `alias`), at the second; borrowed data in the arguments or
/// the output (`&str`, `&'a [T]`, `Cow<'a, str>`, `-> &'static str`), at
/// the `&` or the lifetime, as a tool owns both (`String`,
/// `Cow<'static, str>`, `Box<str>` and `Arc<str>` work; an error may borrow,
/// `Result<T, &'static str>`); a `render`, `present` or `present_call` that
/// names a fn not marked `#[render]` or `#[present]` (for a name written
/// bare; a path with `::` gets rustc's "expected type, found function". A
/// render brought in by a glob import, `use super::*;`, is named by its
/// path, `render = super::lines_text`, as the bare name would be
/// ambiguous);
/// an empty `title` or `version`; and two tools of one module answering to
/// the same name (a name, or another tool's alias), reported as a hidden
/// `tool_named_…` item defined twice, at the second name.
///
/// A `pub` tool whose args, a parameter's or the output's type is private
/// compiles, as the fn does (with rustc's `private_interfaces` lint). Its
/// `Tool` impl names the args through a type of the fn's visibility (the
/// generated struct, or a hidden wrapper of the args struct), so a tool
/// with private args registers from any module that can name the tool. The
/// output's type is named as written: the type of a fn visible outside its
/// module carries it as a defaulted parameter (`greet<Signature =
/// (Greeting,)>`), so its `Tool` impl is as visible as the output type, and
/// the tool registers wherever that type can be named.
#[proc_macro_attribute]
pub fn tool(args: TokenStream, item: TokenStream) -> TokenStream {
    tool::expand(args.into(), item.into()).into()
}

/// Marks a fn as a tool's render: the projection of its output into the
/// content the model sees.
///
/// The fn takes the tool's args and output by reference and returns
/// `Vec<ContentBlock>`; a tool names it with `render = …`.
///
/// ```
/// use dsh_kit::prelude::*;
///
/// /// Count the lines of a text.
/// #[tool(read_only, render = lines_text)]
/// async fn count_lines(text: String) -> usize {
///     text.lines().count()
/// }
///
/// #[render]
/// fn lines_text(_args: &CountLinesArgs, value: &usize) -> Vec<ContentBlock> {
///     vec![ContentBlock::text(format!("{value} lines"))]
/// }
/// ```
///
/// The macro keeps the fn and adds a hidden type of its name that the tool's
/// `render = lines_text` refers to:
///
/// ```
/// # use dsh_kit::prelude::*;
/// # struct CountLinesArgs;
/// # fn lines_text(_args: &CountLinesArgs, value: &usize) -> Vec<ContentBlock> { vec![] }
/// #[doc(hidden)]
/// #[allow(non_camel_case_types)]
/// struct lines_text {}
///
/// impl dsh_kit::RenderFn<CountLinesArgs, usize, Vec<ContentBlock>> for lines_text {
///     fn call(args: &CountLinesArgs, value: &usize) -> Vec<ContentBlock> {
///         lines_text(args, value)
///     }
/// }
/// ```
///
/// so a render whose types do not fit the tool fails to compile at the
/// tool's `render = …`, and so does a fn that is not marked `#[render]`. A
/// render returning anything but `Vec<ContentBlock>` is reported at its own
/// return type.
///
/// # What an MCP client sees
///
/// Over MCP the render's blocks are the result's `content`. By default
/// (`ResultShape::Render`) they are all the result carries: the tool lists
/// no `outputSchema` and sends no `structuredContent`, so every host hands
/// its model the render, once (a host that finds `structuredContent` beside
/// text blocks may show its model the value instead). A tool whose typed
/// value clients should get as well says `#[tool(render_only, render = …)]`:
/// its `content` is the render's blocks, and its value goes as
/// `structuredContent` under its `outputSchema`.
///
/// # Purity
///
/// A render must be pure: the same args and value give the same content,
/// byte for byte, because replaying a session log re-runs it on the logged
/// value. The fn receives the output as deserialized from its canonical JSON
/// value, on a live call and on a replay alike.
///
/// The macro refuses what it can certainly see of impurity in the fn's own
/// body: an `async` or `unsafe` fn, an `unsafe` block, a `&mut` parameter,
/// type or const generics (lifetimes are fine); a `static mut`, a `static`
/// of an atomic, lock, cell or lazy type, `thread_local!`, and any atomic
/// operation (seen by its `Ordering::SeqCst`-style memory ordering or a
/// `std::sync::atomic` path); paths through `std::fs`, `std::net`,
/// `std::process`, `std::env` or `std::thread` (but not the constants of
/// `std::env::consts`, nor the plain values those modules define: the
/// addresses of `std::net`, `Metadata`, `Permissions`, `ExitCode`,
/// `ExitStatus`, `Output`, `ThreadId`, `VarError`); `std::io::stdout`, `stderr` and `stdin`; any `tokio::`
/// path; `SystemTime::now` and `Instant::now`; `rand::…`, `thread_rng` and
/// `random()`; `println!`, `print!`, `eprintln!`, `eprint!` and `dbg!`; a
/// `{:p}` (an address) in a format string; iteration over a local or
/// parameter whose type is visibly a `HashMap` or `HashSet`; and a renaming
/// `use` (`use … as …`), which would hide a path from this check.
///
/// An impure std type imported at the top of the file and named bare in the
/// body (`use std::process::Command;` then `Command::new(…)`; likewise
/// `File`, `OpenOptions`, `DirBuilder`, `ReadDir`, `Child`, `Stdio`,
/// `TcpStream`, `TcpListener`, `UdpSocket`, `thread::Builder`, `Stdin`,
/// `Stdout`, `Stderr`) is refused at the name, decided by the type the name
/// resolves to: a type of your own called `Command` or `File` is fine.
///
/// A fn or module imported by name around the fn and named bare in its
/// body is refused at the name, as what it resolves to: after
/// `use std::fs::read_to_string;`, `use std::fs;`,
/// `use std::fs::{self, read}`, `use std::env::var as getenv;`,
/// `use std::fs::*;` or `use tokio::time::sleep;`, the body's
/// `read_to_string(…)`, `fs::read(…)`, `getenv(…)` or `sleep(…)` is an
/// error. To know what a name is bound to, the macro reads the file the fn
/// is written in and looks at the `use`s of the innermost `mod` holding it
/// (and of the blocks between): a fn or module of your own of the same
/// name is fine, as are the fn's own locals, parameters and closures named
/// so, a pure std import (`use std::fmt::Write;`), and an impure one used
/// only outside the fn. A glob counts for the fns the impure modules are
/// known to export.
///
/// What it cannot see, it does not guess at: when the file cannot be read
/// or the fn cannot be found in it (a fn another macro wrote, two fns of
/// the same name and body in one file), only what the body shows counts; a
/// helper fn the body calls, an import a glob of your own module re-exports,
/// a `static` named outside the body, or a field whose type is a `HashMap`
/// go unseen.
/// For those, the test helper in `dsh_kit` runs a projection many times
/// under perturbation and compares the bytes, and replaying a session log
/// re-runs it on the logged value and reports any difference.
#[proc_macro_attribute]
pub fn render(args: TokenStream, item: TokenStream) -> TokenStream {
    projection::expand(Kind::Render, args.into(), item.into()).into()
}

/// Marks a fn as a tool's present: the projection of its output into the
/// [`Card`](https://docs.rs/dsh-kit/latest/dsh_kit/card/enum.Card.html) a UI shows.
///
/// The fn takes the tool's args and output by reference and returns `Card`,
/// or one of its kinds (`ReadCard`, `SearchCard`, …: anything `Into<Card>`);
/// a tool names it with `present = …`. A tool without one shows the generic
/// card.
///
/// ```
/// use dsh_kit::card::ReadCard;
/// use dsh_kit::prelude::*;
///
/// /// Read a note.
/// #[tool(read_only, present = note_card)]
/// async fn read_note(
///     /// The note's title
///     title: String,
/// ) -> String {
///     format!("# {title}")
/// }
///
/// #[present]
/// fn note_card(args: &ReadNoteArgs, value: &String) -> Card {
///     Card::Read(ReadCard::new(args.title.clone(), value.clone()))
/// }
/// ```
///
/// It expands like [`#[render]`](macro@render), implementing
/// `dsh_kit::PresentFn<Args, Output, Card>`, and must be pure for the same
/// reason, under the same best-effort check.
///
/// # While the call runs
///
/// A `#[present]` fn that takes only the args gives the card a UI shows
/// while a call runs, before there is an output; a tool names it with
/// `present_call = …`, and it implements `dsh_kit::PresentCallFn<Args, Card>`.
/// Without one, a running call shows the generic card without an output.
///
/// ```
/// use dsh_kit::card::TerminalCard;
/// use dsh_kit::prelude::*;
///
/// /// Run a command (pretend).
/// #[tool(present_call = running, present = finished)]
/// async fn run(
///     /// The command line
///     command: String,
/// ) -> String {
///     format!("ran {command}")
/// }
///
/// #[present]
/// fn running(args: &RunArgs) -> Card {
///     Card::from(TerminalCard::new(args.command.clone()))
/// }
///
/// #[present]
/// fn finished(args: &RunArgs, value: &String) -> Card {
///     Card::from(TerminalCard::new(args.command.clone()).stdout(value.clone()).exit_code(0))
/// }
/// ```
#[proc_macro_attribute]
pub fn present(args: TokenStream, item: TokenStream) -> TokenStream {
    projection::expand(Kind::Present, args.into(), item.into()).into()
}

/// Derives what a tool's args struct needs, `Deserialize` and `JsonSchema`,
/// through `dsh_kit`'s own serde and schemars, so a tool crate needs no
/// serde or schemars dependency of its own; and refuses at compile time what
/// cannot be a tool's arguments.
///
/// ```
/// use dsh_kit::prelude::*;
///
/// #[derive(ToolArgs)]
/// struct SearchArgs {
///     /// What to look for
///     query: String,
///     /// How many results at most
///     #[serde(default)]
///     limit: Option<u32>,
/// }
/// ```
///
/// `#[dsh(header = "Region")]` on a field marks an argument MCP clients
/// also send as an `Mcp-Param-Region` HTTP header, checked as on a `#[tool]`
/// parameter (see [`tool`](macro@tool), *Header arguments*).
///
/// `#[serde(…)]` and `#[schemars(…)]` attributes work as with serde's and
/// schemars' derives, which the derive runs on a hidden copy of the type
/// (serde's `remote` form: a derive cannot emit the type again with more
/// derives on it). `#[derive(Deserialize, JsonSchema)]` still works; the
/// registry then refuses a non-object schema when registering.
///
/// # What does not compile
///
/// The arguments are one JSON object whose fields the model names, so the
/// derive refuses, each at the token to change: an enum (a string or a
/// choice of shapes), a tuple or newtype struct (an array, or the inner
/// value), a unit struct, a union, `#[serde(transparent)]`, an `alias` (a
/// name the args accept but their schema does not show, which registration
/// refuses), two fields read under one name after `rename` and
/// `rename_all`, and borrowed fields (`&'a str`, `Cow<'a, str>`), at the
/// borrow: the arguments outlive the JSON they are read from, so they own
/// their data (`String`, `Cow<'static, str>`). The args are only read, so
/// serde attributes that differ between writing and reading do no harm
/// here.
///
/// With dsh-kit under another name in Cargo.toml
/// (`tools = { package = "dsh-kit", … }`), say so once on the type:
/// `#[dsh(crate = "tools")]`; `#[tool]`, `#[render]` and `#[present]` take
/// the same `crate = "tools"`.
#[proc_macro_derive(ToolArgs, attributes(serde, schemars, dsh))]
pub fn derive_tool_args(input: TokenStream) -> TokenStream {
    derive::expand(derive::Derive::Args, input.into()).into()
}

/// Derives what a tool's output needs, `Serialize`, `Deserialize` and
/// `JsonSchema`, through `dsh_kit`'s own serde and schemars; and refuses at
/// compile time what could not be read back from what it writes.
///
/// ```
/// use dsh_kit::prelude::*;
///
/// #[derive(ToolOutput)]
/// struct Forecast {
///     /// Degrees Celsius
///     temperature: f64,
///     #[serde(default, skip_serializing_if = "Option::is_none")]
///     warning: Option<String>,
/// }
/// ```
///
/// A tool's output is serialized to one canonical JSON value, and render and
/// present read it back from that value (on a live call and on a replay
/// alike), so whatever it writes must read back the same. The derive refuses,
/// each at the attribute: a `rename` or `rename_all` with different
/// serialize and deserialize names, `skip_serializing` or
/// `skip_serializing_if` without a `default`, `skip_deserializing` alone,
/// `serialize_with` without `deserialize_with` (or the reverse), `into`
/// without `from` (or the reverse), two fields or variants written under
/// one name, and a variant of an `untagged` enum written in the same shape
/// as an earlier one (which reads back as that one). Borrowed fields
/// (`&'a str`, `Cow<'a, str>`) are refused at the borrow, as for
/// [`ToolArgs`](derive@ToolArgs): an output owns its data.
///
/// A field written through a module, `#[serde(with = "module")]`, says what
/// it is written as with `#[schemars(with = "T")]` (or
/// `#[schemars(schema_with = "f")]`) beside it, since its schema cannot see
/// what the module writes; without one the derive refuses the `with` (as do
/// [`ToolArgs`](derive@ToolArgs), [`ToolFailure`](derive@ToolFailure) and
/// [`JsonSchema`](derive@JsonSchema)).
///
/// ```
/// use std::time::Duration;
///
/// use dsh_kit::prelude::*;
///
/// mod seconds {
///     use std::time::Duration;
///
///     pub fn serialize<S: serde::Serializer>(value: &Duration, to: S) -> Result<S::Ok, S::Error> {
///         to.serialize_u64(value.as_secs())
///     }
///
///     pub fn deserialize<'de, D: serde::Deserializer<'de>>(from: D) -> Result<Duration, D::Error> {
///         <u64 as serde::Deserialize>::deserialize(from).map(Duration::from_secs)
///     }
/// }
///
/// #[derive(ToolOutput)]
/// struct Timing {
///     #[serde(with = "seconds")]
///     #[schemars(with = "u64")]
///     elapsed: Duration,
/// }
/// ```
///
/// It also implements `ToolReturn`, so a generic output type of your own
/// (`Page<Item>`) can be returned as it is. `#[dsh(crate = "tools")]` names
/// dsh-kit under another name, as for [`ToolArgs`](derive@ToolArgs).
#[proc_macro_derive(ToolOutput, attributes(serde, schemars, dsh))]
pub fn derive_tool_output(input: TokenStream) -> TokenStream {
    derive::expand(derive::Derive::Output, input.into()).into()
}

/// Makes a type a tool's typed failure, written once: its message for the
/// model (`Display`, from `#[error("…")]`), `std::error::Error`, and its
/// shape (`Serialize` and `JsonSchema`, through dsh-kit), with no error crate.
///
/// A tool returning `Result<T, E>` with such an `E` fails with the message
/// as its text, the variant as the failure's `kind`, the value as its
/// `data`, and `E`'s schema as the tool's declared failure shape.
///
/// ```
/// use dsh_kit::Registry;
/// use dsh_kit::prelude::*;
///
/// #[derive(ToolFailure, Debug)]
/// enum ConvertError {
///     #[error("cannot convert `{from}` to `{to}`")]
///     IncompatibleUnits { from: String, to: String },
///     #[error("`{0}` is not a unit")]
///     UnknownUnit(String),
/// }
///
/// /// Convert a length.
/// #[tool]
/// async fn convert(
///     /// The unit to convert from
///     from: String,
///     /// The unit to convert to
///     to: String,
/// ) -> Result<f64, ConvertError> {
///     Err(ConvertError::IncompatibleUnits { from, to })
/// }
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// let registry = Registry::new();
/// registry.register::<convert>().unwrap();
/// let result = registry.call("convert", json!({ "from": "m", "to": "kg" })).await;
/// assert_eq!(result.text(), "`convert` failed: cannot convert `m` to `kg`");
/// assert_eq!(result.failure.unwrap().kind.as_deref(), Some("IncompatibleUnits"));
/// # }
/// ```
///
/// Each variant (or the struct) has one `#[error("…")]`, which names the
/// fields it shows as a format string captures variables: `{from}`, or
/// `{0}` for a tuple variant's first field; `{from:?}` formats with `Debug`.
/// A field marked `#[source]` is the error's `source()` (keep it out of the
/// data with `#[serde(skip)]` when it has no shape, as `std::io::Error`).
/// Derive `Debug` beside it, as for any error type.
#[proc_macro_derive(ToolFailure, attributes(serde, schemars, dsh, error, source))]
pub fn derive_tool_failure(input: TokenStream) -> TokenStream {
    derive::expand(derive::Derive::Failure, input.into()).into()
}

/// serde's `Serialize`, reached through dsh-kit: what the prelude's
/// `#[derive(Serialize)]` is, so that a tool crate needs no serde of its
/// own. Every `#[serde(…)]` attribute works as with serde's derive, but
/// `remote` and `crate`; `#[dsh(crate = "…")]` names dsh-kit under
/// another name.
///
/// ```
/// use dsh_kit::prelude::*;
///
/// #[derive(Serialize, Deserialize, JsonSchema, Clone, Copy, PartialEq, Debug)]
/// #[serde(rename_all = "snake_case")]
/// enum Unit {
///     Celsius,
///     Fahrenheit,
/// }
///
/// assert_eq!(json!(Unit::Celsius), json!("celsius"));
/// ```
///
/// For a type a tool returns, [`ToolOutput`](derive@ToolOutput) derives
/// all three and checks that what is written reads back.
#[proc_macro_derive(Serialize, attributes(serde, dsh))]
pub fn derive_serialize(input: TokenStream) -> TokenStream {
    derive::expand(derive::Derive::Serialize, input.into()).into()
}

/// serde's `Deserialize`, reached through dsh-kit: what the prelude's
/// `#[derive(Deserialize)]` is. See [`Serialize`](derive@Serialize).
#[proc_macro_derive(Deserialize, attributes(serde, dsh))]
pub fn derive_deserialize(input: TokenStream) -> TokenStream {
    derive::expand(derive::Derive::Deserialize, input.into()).into()
}

/// schemars' `JsonSchema`, reached through dsh-kit: what the prelude's
/// `#[derive(JsonSchema)]` is. Doc comments become descriptions, and
/// `#[serde(…)]` and `#[schemars(…)]` attributes shape the schema as with
/// schemars' derive. See [`Serialize`](derive@Serialize).
#[proc_macro_derive(JsonSchema, attributes(serde, schemars, dsh))]
pub fn derive_json_schema(input: TokenStream) -> TokenStream {
    derive::expand(derive::Derive::JsonSchema, input.into()).into()
}

/// Derives `dsh_kit::Elicitable` on a struct, a form a tool can ask the
/// user to fill in with `exec.elicit::<T>()`, or `ElicitChoice` on an enum
/// of unit variants, a choice in one. Goes beside `Deserialize` and
/// `JsonSchema`, whose attributes (renames, defaults, doc comments as
/// descriptions) it leaves to them.
///
/// MCP elicitation asks for a flat object of primitive values, and the
/// derive checks each field's type: `String`, `bool`, the integer and float
/// types, an `Elicit` enum, a `Vec` of one (a multi-select), or an `Option`
/// of any of these. Any other type is an error at the field, as is a tuple
/// struct, a `#[serde(flatten)]` field or an enum variant with data. A type
/// of your own whose schema is a primitive (a newtype over `String`) can
/// implement `dsh_kit::elicit::ElicitField` by hand.
///
/// ```
/// use dsh_kit::prelude::*;
///
/// #[derive(Deserialize, JsonSchema, Elicit)]
/// enum Size {
///     Small,
///     Large,
/// }
///
/// #[derive(Deserialize, JsonSchema, Elicit)]
/// struct Order {
///     /// How many
///     count: u32,
///     /// Which size
///     size: Size,
///     /// Gift wrap it?
///     #[serde(default)]
///     wrap: Option<bool>,
/// }
/// ```
#[proc_macro_derive(Elicit, attributes(serde, schemars, dsh))]
pub fn derive_elicit(input: TokenStream) -> TokenStream {
    elicit::expand(input.into()).into()
}
