//! File-system paths in a tool's arguments: [`ToolPath`], the type a tool
//! declares one with, and [`Roots`], the directories the host lets them reach.
//!
//! A model writes paths as text, and text is not what the file system
//! resolves: `/tmp/../etc/hostname`, `//etc/hostname`, `./x`, a symbolic
//! link planted inside an allowed directory all name other files than a
//! string match on them suggests. So a tool declares which of its arguments
//! are paths, and the pipeline resolves each one before anything decides
//! on the call:
//!
//! 1. **declared**: a [`ToolPath`] parameter or field (its schema is
//!    `{"type": "string", "format": "path"}`), or, for a dynamic tool, any
//!    string in its input schema with `"format": "path"`, however deep
//!    (object properties, array items, map values, `anyOf`, local `$ref`s);
//! 2. **checked**: after the input schema, refused when empty, holding a NUL
//!    byte or longer than [`MAX_PATH_BYTES`], or when a call carries more
//!    than [`MAX_PATH_ARGS`] of them;
//! 3. **made absolute and lexical**: a relative path is taken against the
//!    first root (the current directory when there is none); `.`, empty
//!    segments (`//`) and a trailing `/` go, `..` removes the name before it;
//! 4. **resolved through links**: the longest part of it that exists is
//!    replaced by what the file system says it is (`canonicalize`), and the
//!    rest is appended as it is; a symbolic link that points nowhere is
//!    refused, as is a name the file system gives that is not UTF-8;
//! 5. **confined**: with roots set
//!    ([`RegistryBuilder::path_root`](crate::RegistryBuilder::path_root)), a
//!    path that resolves outside every root is refused, with an error naming
//!    the argument, the path as given and as resolved, and the roots;
//! 6. **rewritten**: the resolved path replaces the argument, so permission
//!    rules, gates, guards, the approver, the running card, the session log
//!    and the tool itself all see one value: what was decided is what runs.
//!    (The [`Request`](crate::value::event::Event::Request) event keeps the
//!    arguments the model sent, as it records every request before anything
//!    reads it.)
//!
//! Permission rules then match the resolved form; [`Rule::when_path`]
//! writes them as gitignore-style globs relative to the roots.
//!
//! The tool opens the path with [`ToolPath::open`] (or
//! [`open_with`](ToolPath::open_with), [`remove_file`](ToolPath::remove_file)):
//! on Unix one component at a time, each relative to the directory handle
//! before it and with `O_NOFOLLOW`, so a symbolic link swapped in anywhere
//! along the path after the check is refused rather than followed. Every
//! component of a resolved path is a real directory or file, so nothing
//! legitimate is refused. What remains:
//!
//! - a directory renamed or replaced by another real directory between the
//!   check and the open is walked into: the name decided on is the one
//!   opened, whatever it holds at that moment;
//! - a hard link inside a root to a file outside it is that file, and no
//!   path check can tell;
//! - off Unix, [`ToolPath::open`] opens the path with the standard library,
//!   which follows links.
//!
//! On a case-insensitive file system (macOS, Windows) the existing part of a
//! resolved path is spelt as the file system spells it, so `/Users/Me/X`
//! given as `/users/me/x` resolves to the former; the part that does not
//! exist yet keeps the case it was given, and path rules match ignoring
//! case there.
//!
//! [`Rule::when_path`]: crate::permission::Rule::when_path

mod list;
mod open;
mod resolve;
pub(crate) mod slots;

use std::borrow::Cow;
use std::fmt;
use std::fs::File;
use std::io;
use std::ops::Deref;
use std::path::{Path, PathBuf};

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

pub use list::{EntryKind, PathEntry, TooManyEntries};
pub use open::PathOpenOptions;
pub use resolve::{MAX_PATH_ARGS, MAX_PATH_BYTES, PathError, Roots};

/// The `format` that marks a string in an input schema as a file-system
/// path: `{"type": "string", "format": "path"}`, what [`ToolPath`]'s schema
/// says and what a dynamic tool writes for the same effect.
pub const PATH_FORMAT: &str = "path";

/// A file-system path argument, resolved and checked by the pipeline before
/// the call is decided (see [the module](crate::value::path)).
///
/// Use it as a `#[tool]` parameter or a field of an args struct; its schema
/// is `{"type": "string", "format": "path"}`. By the time the tool runs it
/// holds the resolved absolute path, inside the registry's roots, and the
/// tool opens it with [`open`](ToolPath::open) and its siblings, which
/// follow no symbolic link.
///
/// ```
/// use dsh_kit::prelude::*;
/// use dsh_kit::{Registry, ToolPath};
/// use serde_json::json;
///
/// /// Count the bytes of a file.
/// #[tool(read_only)]
/// async fn size(
///     /// The file
///     path: ToolPath,
/// ) -> Result<u64, ToolError> {
///     Ok(path.open()?.metadata()?.len())
/// }
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> std::io::Result<()> {
/// let dir = tempfile::tempdir()?;
/// std::fs::write(dir.path().join("a.txt"), "hello")?;
/// let registry = Registry::builder().path_root(dir.path()).build();
/// registry.register::<size>().unwrap();
///
/// let result = registry.call("size", json!({ "path": "./sub/../a.txt" })).await;
/// assert_eq!(result.value, Some(json!(5)));
///
/// // Outside the root: refused before anything decides on it.
/// let result = registry.call("size", json!({ "path": "../../../etc/hostname" })).await;
/// assert!(result.is_error());
/// assert!(result.text().contains("outside"), "{}", result.text());
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ToolPath(PathBuf);

impl ToolPath {
    /// A path, as is. The pipeline resolves the ones a model sends; this is
    /// for tests and for tools calling one another.
    pub fn new(path: impl Into<PathBuf>) -> ToolPath {
        ToolPath(path.into())
    }

    /// The path.
    pub fn as_path(&self) -> &Path {
        &self.0
    }

    /// The path, owned.
    pub fn into_path_buf(self) -> PathBuf {
        self.0
    }

    /// Opens the file for reading, following no symbolic link (see
    /// [`open_with`](ToolPath::open_with)).
    ///
    /// # Errors
    ///
    /// What opening it says, or that a component is a symbolic link.
    pub fn open(&self) -> io::Result<File> {
        self.open_with(PathOpenOptions::new().read(true))
    }

    /// Opens the file for writing, created if missing and truncated if not,
    /// following no symbolic link.
    ///
    /// # Errors
    ///
    /// What opening it says, or that a component is a symbolic link.
    pub fn create(&self) -> io::Result<File> {
        self.open_with(
            PathOpenOptions::new()
                .write(true)
                .create(true)
                .truncate(true),
        )
    }

    /// The file's whole text, read without following a symbolic link.
    ///
    /// # Errors
    ///
    /// What opening or reading it says; text that is not UTF-8.
    pub fn read_to_string(&self) -> io::Result<String> {
        let mut text = String::new();
        io::Read::read_to_string(&mut self.open()?, &mut text)?;
        Ok(text)
    }

    /// Opens the file as `options` say. On Unix each directory on the way
    /// is opened relative to the one before it and the last component
    /// relative to its directory, all with `O_NOFOLLOW`: a symbolic link
    /// anywhere along the path is refused, not followed. A path the pipeline
    /// resolved has none, so one found here was put there after the check.
    /// Elsewhere, the standard library opens the path.
    ///
    /// # Errors
    ///
    /// What opening it says; a symbolic link on the way
    /// ([`io::ErrorKind::InvalidInput`], naming it); a path with `..` in it
    /// or that names no file.
    pub fn open_with(&self, options: &PathOpenOptions) -> io::Result<File> {
        open::open(&self.0, options)
    }

    /// The entries of the directory, sorted by name, at most `max_entries`
    /// of them, following no symbolic link: on Unix the directory is opened
    /// as [`open_with`](ToolPath::open_with) opens a file, one component at
    /// a time with `O_NOFOLLOW`, and an entry that is a symbolic link is
    /// listed as [`EntryKind::Symlink`], never followed, wherever it points.
    /// (`Path::read_dir`, which a `ToolPath` also has through `Deref`,
    /// follows links.)
    ///
    /// ```
    /// use dsh_kit::ToolPath;
    /// use dsh_kit::path::EntryKind;
    ///
    /// # fn main() -> std::io::Result<()> {
    /// let dir = tempfile::tempdir()?;
    /// std::fs::write(dir.path().join("a.txt"), "")?;
    /// std::fs::create_dir(dir.path().join("sub"))?;
    /// let entries = ToolPath::new(dir.path().canonicalize()?).list_dir(100)?;
    /// let listed: Vec<_> = entries.iter().map(|entry| (entry.name.to_str().unwrap(), entry.kind)).collect();
    /// assert_eq!(listed, [("a.txt", EntryKind::File), ("sub", EntryKind::Dir)]);
    /// # Ok(())
    /// # }
    /// ```
    ///
    /// # Errors
    ///
    /// What opening or reading it says; a symbolic link on the way to it or
    /// as it ([`io::ErrorKind::InvalidInput`], naming it); more than
    /// `max_entries` entries ([`TooManyEntries`] inside the error).
    pub fn list_dir(&self, max_entries: usize) -> io::Result<Vec<PathEntry>> {
        list::list(&self.0, max_entries)
    }

    /// Removes the file, through no symbolic link (the last component, if
    /// it is one, is the link removed, as with `unlink`).
    ///
    /// # Errors
    ///
    /// What removing it says; a symbolic link on the way to it.
    pub fn remove_file(&self) -> io::Result<()> {
        open::remove_file(&self.0)
    }
}

impl Deref for ToolPath {
    type Target = Path;

    fn deref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<Path> for ToolPath {
    fn as_ref(&self) -> &Path {
        &self.0
    }
}

impl From<PathBuf> for ToolPath {
    fn from(path: PathBuf) -> Self {
        ToolPath(path)
    }
}

impl From<&str> for ToolPath {
    fn from(path: &str) -> Self {
        ToolPath(path.into())
    }
}

impl fmt::Display for ToolPath {
    /// The path, as `Path::display` shows it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.display().fmt(f)
    }
}

impl<'de> Deserialize<'de> for ToolPath {
    /// From a JSON string (always UTF-8).
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        String::deserialize(deserializer).map(|text| ToolPath(text.into()))
    }
}

impl Serialize for ToolPath {
    /// As a string; a path that is not UTF-8 is an error, as for `PathBuf`.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(serializer)
    }
}

impl JsonSchema for ToolPath {
    fn inline_schema() -> bool {
        true
    }

    fn schema_name() -> Cow<'static, str> {
        "ToolPath".into()
    }

    /// `{"type": "string", "format": "path"}`.
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({ "type": "string", "format": PATH_FORMAT })
    }
}
