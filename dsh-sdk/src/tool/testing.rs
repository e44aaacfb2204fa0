//! [`assert_pure`], shown in [`crate::testing`] with what it checks.

use std::fmt;
use std::panic::AssertUnwindSafe;
use std::time::Duration;

use serde::Deserialize;
use serde_json::Value;

use crate::tool::Tool;
use crate::tool::panic_message;

/// Asserts that `T`'s `render`, `present` and `present_call` give the same
/// bytes on every run for `args` and `output`, under the perturbations of
/// the [module docs](crate::testing); panics with the first difference otherwise.
///
/// `args` is the arguments as the model sends them (JSON); `output` is the
/// tool's output, which goes through its canonical JSON value as in the
/// pipeline.
#[track_caller]
pub fn assert_pure<T: Tool>(args: Value, output: &T::Output) {
    PurityCheck::new().assert::<T>(args, output);
}

/// A purity check with its settings: how many runs, and the pause before the last.
///
/// ```
/// use std::time::Duration;
/// use dsh_kit::testing::PurityCheck;
///
/// let check = PurityCheck::new().runs(8).clock_gap(Duration::from_millis(20));
/// # drop(check);
/// ```
#[derive(Clone, Debug)]
pub struct PurityCheck {
    runs: usize,
    clock_gap: Duration,
}

impl Default for PurityCheck {
    fn default() -> Self {
        PurityCheck {
            runs: 24,
            clock_gap: Duration::from_millis(1100),
        }
    }
}

impl PurityCheck {
    /// 24 runs, the last after a pause of 1.1 s.
    pub fn new() -> Self {
        PurityCheck::default()
    }

    /// How many times the projections run (at least 2).
    pub fn runs(mut self, runs: usize) -> Self {
        self.runs = runs.max(2);
        self
    }

    /// How long to wait before the last run, so that a projection reading the
    /// clock shows it. `Duration::ZERO` skips the pause.
    pub fn clock_gap(mut self, gap: Duration) -> Self {
        self.clock_gap = gap;
        self
    }

    /// Panics with the [`Impure`] report unless the projections are pure.
    #[track_caller]
    pub fn assert<T: Tool>(&self, args: Value, output: &T::Output) {
        if let Err(impure) = self.check::<T>(args, output) {
            panic!("{impure}");
        }
    }

    /// Runs `T`'s projections on `args` and `output` and compares every run
    /// with the first, byte for byte.
    pub fn check<T: Tool>(&self, args: Value, output: &T::Output) -> Result<(), Impure> {
        let tool = T::DEFINITION.name().to_owned();
        let value = serde_json::to_value(output).map_err(|error| Impure {
            tool: tool.clone(),
            reason: Reason::Setup(format!("the output does not serialize: {error}")),
        })?;
        let project = || project::<T>(&args, &value);
        let first = project().map_err(|reason| Impure {
            tool: tool.clone(),
            reason,
        })?;
        let compare = |run: usize, projected: Result<Projected, Reason>| -> Result<(), Impure> {
            let projected = projected.map_err(|reason| Impure {
                tool: tool.clone(),
                reason,
            })?;
            match first.first_difference(&projected) {
                None => Ok(()),
                Some((which, first, other)) => Err(Impure {
                    tool: tool.clone(),
                    reason: Reason::Differs {
                        which,
                        run,
                        first,
                        other,
                    },
                }),
            }
        };

        // Runs on this thread, each after allocations of another size.
        let mut run = 1;
        let on_this_thread = (self.runs - 1) / 3;
        let mut ballast: Vec<Vec<u8>> = Vec::new();
        for _ in 0..on_this_thread {
            ballast.push(vec![0; 24 * run + 7]);
            compare(run, project())?;
            run += 1;
        }
        drop(ballast);
        // Runs on fresh threads, a few at a time.
        let last = self.runs - 1;
        while run < last {
            let batch: Vec<usize> = (run..last.min(run + 4)).collect();
            let results: Vec<(usize, Result<Projected, Reason>)> = std::thread::scope(|scope| {
                let handles: Vec<_> = batch
                    .iter()
                    .map(|&run| {
                        let project = &project;
                        (
                            run,
                            scope.spawn(move || {
                                let _ballast = vec![0u8; 40 * run + 3];
                                project()
                            }),
                        )
                    })
                    .collect();
                handles
                    .into_iter()
                    .map(|(run, handle)| {
                        let projected = handle.join().unwrap_or_else(|panic| {
                            Err(Reason::Panicked(panic_message(panic.as_ref())))
                        });
                        (run, projected)
                    })
                    .collect()
            });
            for (run, projected) in results {
                compare(run, projected)?;
            }
            run += batch.len();
        }
        // The last run, later, on another thread.
        if !self.clock_gap.is_zero() {
            std::thread::sleep(self.clock_gap);
        }
        let projected = std::thread::scope(|scope| {
            scope
                .spawn(project)
                .join()
                .unwrap_or_else(|panic| Err(Reason::Panicked(panic_message(panic.as_ref()))))
        });
        compare(last, projected)
    }
}

/// What one run produced, as JSON text.
struct Projected {
    render: String,
    present: String,
    present_call: String,
}

impl Projected {
    fn first_difference(&self, other: &Projected) -> Option<(&'static str, String, String)> {
        [
            ("render", &self.render, &other.render),
            ("present", &self.present, &other.present),
            ("present_call", &self.present_call, &other.present_call),
        ]
        .into_iter()
        .find(|(_, a, b)| a != b)
        .map(|(which, a, b)| (which, a.clone(), b.clone()))
    }
}

/// One run: deserialize afresh, project, serialize.
fn project<T: Tool>(args: &Value, value: &Value) -> Result<Projected, Reason> {
    let args = T::Args::deserialize(args)
        .map_err(|error| Reason::Setup(format!("the arguments do not deserialize: {error}")))?;
    let value = T::Output::deserialize(value).map_err(|error| {
        Reason::Setup(format!(
            "the output does not deserialize from its own JSON: {error}"
        ))
    })?;
    let projected = std::panic::catch_unwind(AssertUnwindSafe(|| {
        (
            T::render(&args, &value),
            T::present(&args, &value),
            T::present_call(&args),
        )
    }))
    .map_err(|panic| Reason::Panicked(panic_message(panic.as_ref())))?;
    let text = |value: &dyn erased::Json| value.json();
    Ok(Projected {
        render: text(&projected.0),
        present: text(&projected.1),
        present_call: text(&projected.2),
    })
}

mod erased {
    /// Serializes to JSON text, whatever the type.
    pub(super) trait Json {
        fn json(&self) -> String;
    }

    impl<T: serde::Serialize> Json for T {
        fn json(&self) -> String {
            serde_json::to_string(self)
                .unwrap_or_else(|error| format!("(does not serialize: {error})"))
        }
    }
}

/// Why a purity check failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Impure {
    tool: String,
    reason: Reason,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Reason {
    /// The inputs could not be prepared.
    Setup(String),
    /// A projection panicked.
    Panicked(String),
    /// A run's bytes differ from the first run's.
    Differs {
        which: &'static str,
        run: usize,
        first: String,
        other: String,
    },
}

impl Impure {
    /// The projection that differed (`render`, `present` or
    /// `present_call`), `None` when the check could not run it or it panicked.
    pub fn projection(&self) -> Option<&str> {
        match &self.reason {
            Reason::Differs { which, .. } => Some(which),
            _ => None,
        }
    }
}

impl fmt::Display for Impure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let tool = &self.tool;
        match &self.reason {
            Reason::Setup(message) => write!(f, "cannot check `{tool}`: {message}"),
            Reason::Panicked(message) => {
                write!(f, "a projection of `{tool}` panicked: {message}")
            }
            Reason::Differs {
                which,
                run,
                first,
                other,
            } => {
                let at = first
                    .char_indices()
                    .zip(other.chars())
                    .find(|((_, a), b)| a != b)
                    .map_or(first.len().min(other.len()), |((at, _), _)| at);
                let window = |text: &str| {
                    let start = text.floor_char_boundary(at.saturating_sub(30));
                    let end = text.ceil_char_boundary((at + 50).min(text.len()));
                    text[start..end].to_owned()
                };
                write!(
                    f,
                    "`{tool}`'s {which} is not pure: run {run} gave other bytes than run 0 for the same inputs, from byte {at}:\n  run 0: …{}…\n  run {run}: …{}…\n\
                     a projection must not depend on hash order (sort a `HashMap`'s entries, or use a `BTreeMap`), \
                     the clock, randomness, addresses, threads or anything outside its arguments",
                    window(first),
                    window(other),
                )
            }
        }
    }
}

impl std::error::Error for Impure {}
