//! [`Enforced`]: the limits the pipeline holds the calls of one registered
//! tool to, fixed when it is registered (its own, else the registry's).
//! The pipeline reads them to enforce them and every export reads them to
//! say them, so a model is told each limit it can meet: a call valid by
//! the schema is not refused by surprise.

use std::time::Duration;

use crate::tool::ToolDef;
use crate::value::path::slots::PathSlots;

/// What a registry holds every tool to unless the tool says otherwise,
/// given to the pool when the registry is built.
#[derive(Clone, Debug, Default)]
pub(crate) struct RegistryLimits {
    /// [`RegistryBuilder::timeout`](crate::RegistryBuilder::timeout).
    pub(crate) timeout: Option<Duration>,
    /// [`RegistryBuilder::max_result_chars`](crate::RegistryBuilder::max_result_chars):
    /// the limit, and whether the builder was told it (a default one is
    /// enforced as well, but not said in every tool's description).
    pub(crate) max_result_chars: usize,
    pub(crate) max_result_chars_set: bool,
    /// Whether [`RegistryBuilder::path_root`](crate::RegistryBuilder::path_root)
    /// was called: path arguments are confined.
    pub(crate) confines_paths: bool,
}

/// The limits the pipeline enforces on one tool's calls.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Enforced {
    /// How long one attempt may run.
    pub(crate) timeout: Option<Duration>,
    /// Content longer than this spills to a file.
    pub(crate) max_result_chars: usize,
    /// Whether the tool or the registry declared `max_result_chars` (else
    /// it is the default, not said to the model).
    pub(crate) max_result_chars_declared: bool,
    /// Whether every path argument must resolve inside the registry's
    /// roots: the tool takes a path and the registry has roots. Which
    /// directories is not said: a description (and so a contract hash)
    /// does not change with the machine it is served from.
    pub(crate) confined: bool,
}

impl Enforced {
    /// The limits of a tool defined by `def`, whose arguments hold paths at
    /// `paths`, in a registry holding tools to `registry`.
    pub(crate) fn of(def: &ToolDef, paths: &PathSlots, registry: &RegistryLimits) -> Enforced {
        Enforced {
            timeout: def.timeout().or(registry.timeout),
            max_result_chars: def.max_result_chars().unwrap_or(registry.max_result_chars),
            max_result_chars_declared: def.max_result_chars().is_some()
                || registry.max_result_chars_set,
            confined: !paths.is_empty() && registry.confines_paths,
        }
    }

    /// The sentence a tool's description ends with to say these limits
    /// (`Limits: a call times out after 2 s; …`), or `None` when there is
    /// nothing to say.
    pub(crate) fn sentence(&self) -> Option<String> {
        let mut limits = Vec::new();
        if let Some(timeout) = self.timeout {
            let millis = timeout.as_millis();
            let said = if millis % 1000 == 0 {
                format!("{} s", millis / 1000)
            } else {
                format!("{millis} ms")
            };
            limits.push(format!("a call times out after {said}"));
        }
        if self.max_result_chars_declared {
            limits.push(format!(
                "a result over {} characters is cut to a preview, the rest saved to a file",
                self.max_result_chars
            ));
        }
        if self.confined {
            limits.push(
                "a relative path is taken against the working directory, and a path that resolves (links followed) outside the allowed directories is refused"
                    .to_owned(),
            );
        }
        (!limits.is_empty()).then(|| format!("Limits: {}.", limits.join("; ")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn def(timeout: Option<u64>, chars: Option<usize>) -> ToolDef {
        let mut builder = ToolDef::builder_owned("t".to_owned(), "T.".to_owned());
        if let Some(millis) = timeout {
            builder = builder.timeout(Duration::from_millis(millis));
        }
        if let Some(chars) = chars {
            builder = builder.max_result_chars(chars);
        }
        builder.build()
    }

    #[test]
    fn the_tool_s_own_limits_come_before_the_registry_s() {
        let registry = RegistryLimits {
            timeout: Some(Duration::from_secs(30)),
            max_result_chars: 10_000,
            max_result_chars_set: true,
            confines_paths: false,
        };
        let none = PathSlots::of(&json!({ "type": "object" }));
        let own = Enforced::of(&def(Some(1500), Some(200)), &none, &registry);
        assert_eq!(own.timeout, Some(Duration::from_millis(1500)));
        assert_eq!(
            own.sentence().as_deref(),
            Some(
                "Limits: a call times out after 1500 ms; a result over 200 characters is cut to a preview, the rest saved to a file."
            )
        );
        let inherited = Enforced::of(&def(None, None), &none, &registry);
        assert_eq!(
            inherited.sentence().as_deref(),
            Some(
                "Limits: a call times out after 30 s; a result over 10000 characters is cut to a preview, the rest saved to a file."
            )
        );
    }

    #[test]
    fn defaults_are_not_said_and_roots_only_to_tools_taking_paths() {
        let registry = RegistryLimits {
            timeout: None,
            max_result_chars: 50_000,
            max_result_chars_set: false,
            confines_paths: true,
        };
        let none = PathSlots::of(&json!({ "type": "object" }));
        assert_eq!(
            Enforced::of(&def(None, None), &none, &registry).sentence(),
            None
        );
        let paths = PathSlots::of(&json!({
            "type": "object",
            "properties": { "path": { "type": "string", "format": "path" } }
        }));
        assert_eq!(
            Enforced::of(&def(None, None), &paths, &registry)
                .sentence()
                .as_deref(),
            Some(
                "Limits: a relative path is taken against the working directory, and a path that resolves (links followed) outside the allowed directories is refused."
            )
        );
        let unconfined = RegistryLimits {
            confines_paths: false,
            ..registry
        };
        assert_eq!(
            Enforced::of(&def(None, None), &paths, &unconfined).sentence(),
            None
        );
    }
}
