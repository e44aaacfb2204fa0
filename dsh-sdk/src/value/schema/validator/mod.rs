//! A JSON Schema 2020-12 validator: the schemas `schemars` writes for tool
//! arguments and outputs, and the ones dynamic and proxied tools bring.
//!
//! Every keyword of the dialect's applicator, validation, unevaluated and
//! format-assertion vocabularies is checked; references resolve within the
//! schema (`$ref`, `$dynamicRef`, `$anchor`, `$id`), nothing is fetched. A
//! schema is first checked to be one ([`meta`]), then compiled once
//! ([`compile`]) and evaluated per value ([`eval`]). Messages say what
//! was found and what the keyword wanted: `-1 is less than the minimum of 0`.
//!
//! Patterns are Rust regular expressions (the `regex` crate, linear time):
//! the JSON Schema patterns models and `schemars` write read the same, and a
//! pattern that needs look-around or back-references is refused when the
//! schema is compiled, never run in exponential time.

mod compile;
pub(crate) mod error;
mod eval;
mod format;
pub(crate) mod meta;

use serde_json::Value;

pub(crate) use compile::BuildError;
pub(crate) use error::{ErrorKind, ValidationError};
pub(crate) use meta::MetaError;

/// Why a schema cannot be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Refusal {
    /// It breaks the 2020-12 dialect.
    Meta(MetaError),
    /// It is well formed but cannot be compiled.
    Build(BuildError),
}

/// A compiled schema.
#[derive(Debug)]
pub(crate) struct Validator {
    compiled: compile::Compiled,
}

impl Validator {
    /// Checks `schema` against the dialect, then compiles it.
    pub(crate) fn new(schema: &Value) -> Result<Self, Refusal> {
        meta::check(schema).map_err(Refusal::Meta)?;
        let compiled = compile::compile(schema).map_err(Refusal::Build)?;
        Ok(Validator { compiled })
    }

    /// Whether `instance` is valid, stopping at the first failure.
    pub(crate) fn is_valid(&self, instance: &Value) -> bool {
        eval::Run::new(&self.compiled.nodes, self.compiled.scoped).eval(
            self.compiled.root,
            instance,
            &eval::Path::Root,
            None,
            None,
        )
    }

    /// Every failure of `instance`.
    pub(crate) fn errors(&self, instance: &Value) -> Vec<ValidationError> {
        let mut errors = Vec::new();
        eval::Run::new(&self.compiled.nodes, self.compiled.scoped).eval(
            self.compiled.root,
            instance,
            &eval::Path::Root,
            Some(&mut errors),
            None,
        );
        errors
    }
}

#[cfg(test)]
mod tests;
