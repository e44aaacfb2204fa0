//! Path conditions of a [`Rule`](super::Rule): gitignore-style globs on a
//! path argument's resolved form, relative ones taken against the roots.

use std::path::{Path, PathBuf};

use globset::{GlobSet, GlobSetBuilder};
use serde_json::Value;

use super::pattern::{self, PatternError};
use crate::value::path::Roots;

/// Whether globs ignore case: where the file system usually does.
const CASE_INSENSITIVE: bool = cfg!(any(target_os = "macos", target_os = "windows"));

/// A rule's condition on a path argument.
#[derive(Debug, Clone)]
pub(super) struct PathCondition {
    pub(super) arg: String,
    /// The glob as written.
    pub(super) pattern: String,
    /// The directories a relative glob is taken against.
    bases: Vec<PathBuf>,
    set: GlobSet,
}

impl PartialEq for PathCondition {
    fn eq(&self, other: &Self) -> bool {
        (&self.arg, &self.pattern, &self.bases) == (&other.arg, &other.pattern, &other.bases)
    }
}

impl Eq for PathCondition {}

impl PathCondition {
    /// A condition on `arg`, a relative `pattern` taken against the current
    /// directory until [`anchor`](Self::anchor)ed.
    pub(super) fn new(arg: String, pattern: &str) -> Result<Self, PatternError> {
        let bases: Vec<PathBuf> = std::env::current_dir().into_iter().collect();
        let set = compile(pattern, &bases)?;
        Ok(PathCondition {
            arg,
            pattern: pattern.to_owned(),
            bases,
            set,
        })
    }

    /// Takes a relative glob against `roots` (the current directory when
    /// there is none). The glob compiled once already, so it compiles again.
    pub(super) fn anchor(&mut self, roots: &Roots) {
        if roots.is_empty() || is_absolute(&self.pattern) {
            return;
        }
        let bases = roots.dirs().to_vec();
        if let Ok(set) = compile(&self.pattern, &bases) {
            self.bases = bases;
            self.set = set;
        }
    }

    /// Whether the argument is a string that the glob matches, or that is
    /// inside a directory it matches. A missing or non-string argument
    /// never matches.
    pub(super) fn matches(&self, args: &Value) -> bool {
        match args.get(&self.arg) {
            Some(Value::String(path)) => self.set.is_match(path),
            _ => false,
        }
    }
}

fn is_absolute(pattern: &str) -> bool {
    Path::new(pattern).is_absolute() || pattern.starts_with('/')
}

/// The glob set of `pattern`: `pattern` and `pattern/**` (a directory
/// covers what it holds), absolute as written or else under each base, a
/// glob without `/` at any depth there (as in `.gitignore`).
fn compile(pattern: &str, bases: &[PathBuf]) -> Result<GlobSet, PatternError> {
    let error = |message: &str| PatternError {
        pattern: pattern.to_owned(),
        message: message.to_owned(),
    };
    let trimmed = match pattern.trim_end_matches('/') {
        "" if pattern.starts_with('/') => "/",
        "" => return Err(error("it is empty")),
        trimmed => trimmed,
    };
    pattern::check_path(pattern)?;
    let forms: Vec<String> = if is_absolute(trimmed) {
        vec![trimmed.to_owned()]
    } else {
        let relative = trimmed.trim_start_matches("./");
        let relative = if relative.contains('/') {
            relative.to_owned()
        } else {
            format!("**/{relative}")
        };
        (bases.iter())
            .filter_map(|base| base.to_str())
            .map(|base| format!("{}/{relative}", globset::escape(base.trim_end_matches('/'))))
            .collect()
    };
    let mut set = GlobSetBuilder::new();
    for form in forms {
        let inside = if form.ends_with('/') {
            format!("{form}**")
        } else {
            format!("{form}/**")
        };
        for glob in [form, inside] {
            set.add(pattern::path(pattern, &glob, CASE_INSENSITIVE)?);
        }
    }
    set.build().map_err(|e| error(&e.to_string()))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn relative_globs_are_anchored_at_the_roots() {
        let mut condition = PathCondition::new("path".into(), "tmp/").unwrap();
        condition.anchor(&Roots::new().with("/r/oot"));
        assert!(condition.matches(&json!({ "path": "/r/oot/tmp/a.txt" })));
        assert!(condition.matches(&json!({ "path": "/r/oot/x/tmp" })));
        assert!(!condition.matches(&json!({ "path": "/r/oot/tmpfile" })));
        assert!(!condition.matches(&json!({ "path": "/elsewhere/tmp/a" })));
    }
}
