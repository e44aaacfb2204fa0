//! [`RegistryBuilder`]: the shared state and the settings every call reads,
//! fixed when the registry is built.

use std::any::Any;
use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use tower::retry::RetryLayer;
use tower::{Layer, Service, ServiceBuilder};

use super::Registry;
use crate::permission::{Approver, Guard, Permissions, PreExecute, Rule};
use crate::pipeline::layer::{
    ExecError, ExecRequest, ExecService, ExecSpanLayer, Execute, Executed, RetryPolicy,
    TimeoutLayer,
};
use crate::pipeline::post_execute::PostExecute;
use crate::pipeline::spill::{DEFAULT_MAX_RESULT_CHARS, SpillConfig};
use crate::pipeline::{Config, Pipeline};
use crate::pool::Pool;
use crate::skill::{Skill, Skills};
use crate::tool::{RegistryLimits, State};
use crate::value::path::Roots;
use crate::value::schema::limits::{Limits, MAX_DEPTH};

/// Builds a [`Registry`]: shared state, limits, permissions, hooks and layers.
///
/// ```
/// use std::time::Duration;
/// use dsh_kit::Registry;
/// use dsh_kit::permission::{PlanMode, Rule};
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
    /// Whether [`max_result_chars`](Self::max_result_chars) was called: a
    /// limit set is said in every tool's description, the default is not.
    max_result_chars_set: bool,
    spill: SpillConfig,
    permissions: Permissions,
    approver: Option<Arc<dyn Approver>>,
    post_execute: Vec<Arc<dyn PostExecute>>,
    retry: RetryPolicy,
    layers: Vec<Box<dyn FnOnce(ExecService) -> ExecService + Send>>,
    limits: Limits,
    roots: Roots,
    time_calls: bool,
    trace_payloads: bool,
    skills: Skills,
}

impl RegistryBuilder {
    /// A builder with no shared state and the default settings:
    /// [`Registry::builder`].
    pub fn new() -> RegistryBuilder {
        RegistryBuilder {
            state: State::default(),
            timeout: None,
            max_result_chars: DEFAULT_MAX_RESULT_CHARS,
            max_result_chars_set: false,
            spill: SpillConfig::default(),
            permissions: Permissions::default(),
            approver: None,
            post_execute: Vec::new(),
            retry: RetryPolicy::default(),
            layers: Vec::new(),
            limits: Limits::default(),
            roots: Roots::new(),
            time_calls: false,
            trace_payloads: false,
            skills: Skills::default(),
        }
    }
}

impl Default for RegistryBuilder {
    fn default() -> Self {
        RegistryBuilder::new()
    }
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
        self.max_result_chars_set = true;
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
    /// to [`DEFAULT_MAX_ARG_BYTES`](crate::value::schema::limits::DEFAULT_MAX_ARG_BYTES), 1 MiB.
    pub fn max_arg_bytes(mut self, bytes: usize) -> Self {
        self.limits.max_arg_bytes = bytes;
        self
    }

    /// Refuses calls whose arguments nest more than `depth` arrays and
    /// objects, before anything else reads them. Defaults to
    /// [`DEFAULT_MAX_DEPTH`](crate::value::schema::limits::DEFAULT_MAX_DEPTH), 64; at most
    /// [`MAX_DEPTH`](crate::value::schema::limits::MAX_DEPTH), 100 (higher is lowered to it),
    /// so the session log stays readable.
    pub fn max_arg_depth(mut self, depth: usize) -> Self {
        self.limits.max_arg_depth = depth.min(MAX_DEPTH);
        self
    }

    /// Fails calls whose canonical output value is larger than `bytes` as
    /// compact JSON. Defaults to
    /// [`DEFAULT_MAX_OUTPUT_BYTES`](crate::value::schema::limits::DEFAULT_MAX_OUTPUT_BYTES), 16 MiB.
    pub fn max_output_bytes(mut self, bytes: usize) -> Self {
        self.limits.max_output_bytes = bytes;
        self
    }

    /// Fails calls whose canonical output value nests more than `depth`
    /// arrays and objects. Defaults to
    /// [`DEFAULT_MAX_DEPTH`](crate::value::schema::limits::DEFAULT_MAX_DEPTH), 64; at most
    /// [`MAX_DEPTH`](crate::value::schema::limits::MAX_DEPTH), 100 (higher is lowered to it).
    pub fn max_output_depth(mut self, depth: usize) -> Self {
        self.limits.max_output_depth = depth.min(MAX_DEPTH);
        self
    }

    /// How long a call waits for the approver's answer before it ends with
    /// status `timeout`, without running. Defaults to
    /// [`DEFAULT_APPROVAL_TIMEOUT`](crate::value::schema::limits::DEFAULT_APPROVAL_TIMEOUT),
    /// 10 minutes; the registry's call [`timeout`](Self::timeout) counts only
    /// once the tool runs.
    pub fn approval_timeout(mut self, timeout: Duration) -> Self {
        self.limits.approval_timeout = timeout;
        self
    }

    /// Adds a directory that path arguments ([`ToolPath`](crate::ToolPath),
    /// `"format": "path"`) may reach; call it again for more. Every path
    /// argument is resolved (relative ones against the first root, through
    /// `.`, `..`, `//` and symbolic links) before the call is decided, and
    /// one that resolves outside every root is refused; see
    /// [`dsh_kit::path`](crate::value::path). Relative [`Rule::when_path`] globs
    /// are taken against the roots.
    ///
    /// The directory is resolved through its own links now; with no root,
    /// paths are resolved against the current directory and not confined.
    ///
    /// ```
    /// use dsh_kit::Registry;
    ///
    /// let registry = Registry::builder().path_root(std::env::temp_dir()).build();
    /// # drop(registry);
    /// ```
    pub fn path_root(mut self, dir: impl AsRef<std::path::Path>) -> Self {
        self.roots.push(dir.as_ref());
        self
    }

    /// Retries failed calls of idempotent and read-only tools.
    pub fn retry(mut self, policy: RetryPolicy) -> Self {
        self.retry = policy;
        self
    }

    /// Times every call ([`ToolResult::duration`](crate::ToolResult::duration)).
    /// Without it, a call is timed only while something observes the
    /// registry (a subscriber, a session log): with nothing observing, a
    /// call reads no clock, and its duration is zero.
    pub fn time_calls(mut self, yes: bool) -> Self {
        self.time_calls = yes;
        self
    }

    /// Puts each call's arguments and the text of its result on its
    /// `execute_tool` span, as OpenTelemetry's opt-in
    /// `gen_ai.tool.call.arguments` and `gen_ai.tool.call.result`: JSON
    /// and text cut to [`PAYLOAD_ATTRIBUTE_LIMIT`](crate::otel::semconv::PAYLOAD_ATTRIBUTE_LIMIT)
    /// bytes, every argument the input schema marks secret
    /// (`writeOnly: true`, or `format: "password"`) replaced with
    /// `[redacted]`. Off by default: arguments and results may hold what a
    /// trace store should not keep.
    pub fn trace_payloads(mut self, yes: bool) -> Self {
        self.trace_payloads = yes;
        self
    }

    /// Wraps the execute stage in a `tower` layer, outside the built-in ones;
    /// the last layer added is the outermost.
    pub fn layer<L>(mut self, layer: L) -> Self
    where
        L: Layer<ExecService> + Send + 'static,
        L::Service: Service<ExecRequest, Response = Executed, Error = ExecError>
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

    /// Serves `skill` beside the tools (over MCP, the Skills extension), in
    /// place of any skill at its URI; see [`skill`](crate::skill).
    ///
    /// ```
    /// use dsh_kit::Registry;
    /// use dsh_kit::skill::Skill;
    ///
    /// # fn main() -> Result<(), dsh_kit::skill::SkillError> {
    /// let registry = Registry::builder()
    ///     .skill(Skill::new("greeting", "How to greet a user", "Say hello by name.")?)
    ///     .build();
    /// assert_eq!(registry.skills().entries()[0].uri, "skill://greeting/SKILL.md");
    /// # Ok(()) }
    /// ```
    pub fn skill(self, skill: Skill) -> Self {
        self.skills.serve(Arc::new(skill));
        self
    }

    /// Serves each of `skills`, as [`skill`](Self::skill) does: the skills
    /// of a directory (`skill::load_dir`, with the `skills` feature), say.
    pub fn skills(mut self, skills: impl IntoIterator<Item = Skill>) -> Self {
        for skill in skills {
            self = self.skill(skill);
        }
        self
    }

    /// Builds the registry.
    pub fn build(self) -> Registry {
        // The built-in stack alone is called as a concrete type, with no
        // boxing; retries or host layers need the type-erased stack.
        let service = if self.retry.max_attempts() > 1 || !self.layers.is_empty() {
            let retry = (self.retry.max_attempts() > 1).then(|| RetryLayer::new(self.retry));
            let mut service = ExecService::new(
                ServiceBuilder::new()
                    .layer(ExecSpanLayer)
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
        let pool = Pool::new(
            self.state,
            RegistryLimits {
                timeout: self.timeout,
                max_result_chars: self.max_result_chars,
                max_result_chars_set: self.max_result_chars_set,
                confines_paths: !self.roots.is_empty(),
            },
        );
        let mut permissions = self.permissions;
        permissions.anchor_paths(&self.roots);
        let config = Config {
            spill: self.spill,
            permissions,
            approver: self.approver,
            post_execute: self.post_execute,
            limits: self.limits,
            roots: self.roots,
            time_calls: self.time_calls,
            trace_payloads: self.trace_payloads,
            service,
            pool: Arc::downgrade(&pool.inner),
        };
        Registry::from_pipeline(Pipeline::new(pool, config), self.skills)
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
