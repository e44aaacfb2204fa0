//! [`Roots`] and [`Roots::resolve`]: a path as a model gave it, made
//! absolute, lexical, resolved through links and confined to the roots.

use std::fs;
use std::io;
use std::path::{Component, Path, PathBuf};

/// The longest path accepted, in bytes: Linux's `PATH_MAX`. Longer ones are
/// refused before the file system is asked anything.
pub const MAX_PATH_BYTES: usize = 4096;

/// The most path arguments one call may carry: each costs the file system
/// a few lookups, and no tool needs more.
pub const MAX_PATH_ARGS: usize = 1024;

/// How much of a refused path an error repeats, in characters.
const SHOWN_CHARS: usize = 200;

/// The directories paths may reach: the host sets them
/// ([`RegistryBuilder::path_root`](crate::RegistryBuilder::path_root)),
/// the pipeline resolves every path argument against them.
///
/// Each root is kept as the file system resolves it when added (its own
/// symbolic links followed), so a path checked against it later compares
/// like with like. With no root, paths are still resolved (relative ones
/// against the current directory) but may lead anywhere.
///
/// ```
/// use dsh_kit::path::{PathError, Roots};
///
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let dir = tempfile::tempdir()?;
/// let root = dir.path().canonicalize()?;
/// let roots = Roots::new().with(&root);
/// assert_eq!(roots.resolve("a/./b//c/")?, root.join("a/b/c"));
/// assert_eq!(roots.resolve("a/../../x").unwrap_err().to_string(), format!(
///     "`a/../../x` resolves to `{}`, outside the allowed roots (`{}`)",
///     root.parent().unwrap().join("x").display(),
///     root.display(),
/// ));
/// assert!(matches!(roots.resolve("a\0b"), Err(PathError::Nul { .. })));
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Roots {
    dirs: Vec<PathBuf>,
}

impl Roots {
    /// No roots: paths are resolved but not confined.
    pub fn new() -> Roots {
        Roots::default()
    }

    /// Adds a root. A relative one is taken against the current directory;
    /// it is then resolved through its links, or, when it does not exist
    /// (yet), kept in lexical form.
    #[must_use]
    pub fn with(mut self, dir: impl AsRef<Path>) -> Roots {
        self.push(dir.as_ref());
        self
    }

    /// Adds a root, as [`with`](Roots::with) does.
    pub fn push(&mut self, dir: &Path) {
        let absolute = match std::env::current_dir() {
            Ok(current) => current.join(dir),
            Err(_) => dir.to_path_buf(),
        };
        let lexical = lexical(&absolute);
        let dir = fs::canonicalize(&lexical).unwrap_or(lexical);
        if !self.dirs.contains(&dir) {
            self.dirs.push(dir);
        }
    }

    /// The roots, as resolved when added.
    pub fn dirs(&self) -> &[PathBuf] {
        &self.dirs
    }

    /// Whether no root is set.
    pub fn is_empty(&self) -> bool {
        self.dirs.is_empty()
    }

    /// Whether `path` (resolved) is one of the roots or inside one; with no
    /// root, every path is.
    pub fn contains(&self, path: &Path) -> bool {
        self.dirs.is_empty() || self.dirs.iter().any(|root| path.starts_with(root))
    }

    /// `given` resolved as the [module](crate::value::path) says: refused when
    /// empty, with a NUL byte or over [`MAX_PATH_BYTES`]; made absolute
    /// against the first root (or the current directory); made lexical
    /// (`.`, `//`, `..`, a trailing `/`); its existing part resolved through
    /// symbolic links; then refused when it leaves every root, or when the
    /// file system's names for it are not UTF-8.
    ///
    /// # Errors
    ///
    /// A [`PathError`] saying which of those it broke, with the path as
    /// given and, once known, as resolved.
    pub fn resolve(&self, given: &str) -> Result<PathBuf, PathError> {
        if given.is_empty() {
            return Err(PathError::Empty);
        }
        if given.len() > MAX_PATH_BYTES {
            return Err(PathError::TooLong {
                given: shown(given),
                bytes: given.len(),
            });
        }
        if given.contains('\0') {
            return Err(PathError::Nul {
                given: shown(given),
            });
        }
        let base = match self.dirs.first() {
            Some(root) => root.clone(),
            None => std::env::current_dir().map_err(|error| PathError::Io {
                given: given.to_owned(),
                at: PathBuf::from("."),
                message: error.to_string(),
            })?,
        };
        let lexical = lexical(&base.join(given));
        let (resolved, existed) = through_links(given, &lexical)?;
        if given.ends_with(std::path::is_separator) && existed && !resolved.is_dir() {
            return Err(PathError::NotADirectory {
                given: given.to_owned(),
                resolved,
            });
        }
        if resolved.to_str().is_none() {
            return Err(PathError::NotUtf8 {
                given: given.to_owned(),
                resolved,
            });
        }
        if !self.contains(&resolved) {
            return Err(PathError::OutsideRoots {
                given: given.to_owned(),
                resolved,
                roots: self.dirs.clone(),
            });
        }
        Ok(resolved)
    }
}

/// Why a path argument is refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PathError {
    /// The empty string names no file.
    #[error("an empty path names no file")]
    Empty,
    /// Longer than [`MAX_PATH_BYTES`].
    #[error("`{given}` is {bytes} bytes long; a path may be at most {MAX_PATH_BYTES}")]
    TooLong {
        /// The path, cut short.
        given: String,
        /// Its length in bytes.
        bytes: usize,
    },
    /// More path arguments in one call than [`MAX_PATH_ARGS`].
    #[error("the call carries more than {MAX_PATH_ARGS} paths, the most a call may carry")]
    TooMany,
    /// Holds a NUL byte, which no file name can.
    #[error("{given:?} holds a NUL byte, which no file name can")]
    Nul {
        /// The path, cut short.
        given: String,
    },
    /// Resolves outside every root.
    #[error(
        "`{given}` resolves to `{}`, outside the allowed roots ({})",
        resolved.display(),
        listed(roots)
    )]
    OutsideRoots {
        /// The path as given.
        given: String,
        /// The path as resolved.
        resolved: PathBuf,
        /// The roots it was checked against.
        roots: Vec<PathBuf>,
    },
    /// Passes through a symbolic link that points nowhere, or into a loop:
    /// where it leads cannot be checked.
    #[error(
        "`{given}` passes through the symbolic link `{}`, which points nowhere (or into a loop), so where it leads cannot be checked",
        link.display()
    )]
    DanglingLink {
        /// The path as given.
        given: String,
        /// The link.
        link: PathBuf,
    },
    /// Ends in `/` but resolves to something that is not a directory.
    #[error("`{given}` ends in `/` but `{}` is not a directory", resolved.display())]
    NotADirectory {
        /// The path as given.
        given: String,
        /// The path as resolved.
        resolved: PathBuf,
    },
    /// The file system names it with bytes that are not UTF-8 (through a
    /// link), which no JSON string can carry to the tool.
    #[error(
        "`{given}` resolves to `{}`, whose name is not UTF-8",
        resolved.display()
    )]
    NotUtf8 {
        /// The path as given.
        given: String,
        /// The path as resolved.
        resolved: PathBuf,
    },
    /// The file system could not be asked (a directory that may not be
    /// read, say).
    #[error("`{given}` cannot be resolved: `{}`: {message}", at.display())]
    Io {
        /// The path as given.
        given: String,
        /// Where resolving it failed.
        at: PathBuf,
        /// What the file system said.
        message: String,
    },
}

/// `path` made lexical: `.` and empty components gone, each `..` removing
/// the name before it (and none above the root).
pub(crate) fn lexical(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                if matches!(out.components().next_back(), Some(Component::Normal(_))) {
                    out.pop();
                } else if !out.has_root() {
                    out.push("..");
                }
            }
            other => out.push(other),
        }
    }
    out
}

/// `lexical` with its longest existing part resolved through links and the
/// rest appended; whether all of it exists.
///
/// The longest existing part is found by bisection: if a path exists, so
/// does each of its ancestors, so a path thousands of names deep costs a
/// dozen `lstat`s, not one per name.
fn through_links(given: &str, lexical: &Path) -> Result<(PathBuf, bool), PathError> {
    let ancestors: Vec<&Path> = lexical.ancestors().collect();
    // `ancestors[found]` exists, and every one before `missing` does not.
    let (mut missing, mut found) = (0, ancestors.len() - 1);
    let exists = |path: &Path| match fs::symlink_metadata(path) {
        Ok(_) => Ok(true),
        Err(error)
            if matches!(
                error.kind(),
                io::ErrorKind::NotFound | io::ErrorKind::NotADirectory
            ) =>
        {
            Ok(false)
        }
        Err(error) => Err(io_error(given, path, &error)),
    };
    if !exists(ancestors[found])? {
        return Err(io_error(
            given,
            ancestors[found],
            &io::Error::from(io::ErrorKind::NotFound),
        ));
    }
    if exists(ancestors[0])? {
        found = 0;
    }
    while found > missing + 1 {
        let middle = missing + (found - missing) / 2;
        if exists(ancestors[middle])? {
            found = middle;
        } else {
            missing = middle;
        }
    }
    let existing = ancestors[found];
    let mut resolved = match fs::canonicalize(existing) {
        Ok(resolved) => resolved,
        Err(error) => {
            let is_link = fs::symlink_metadata(existing).is_ok_and(|meta| meta.is_symlink());
            return Err(if is_link {
                PathError::DanglingLink {
                    given: given.to_owned(),
                    link: existing.to_path_buf(),
                }
            } else {
                io_error(given, existing, &error)
            });
        }
    };
    if let Ok(rest) = lexical.strip_prefix(existing)
        && !rest.as_os_str().is_empty()
    {
        resolved.push(rest);
    }
    Ok((resolved, found == 0))
}

fn io_error(given: &str, at: &Path, error: &io::Error) -> PathError {
    PathError::Io {
        given: given.to_owned(),
        at: at.to_path_buf(),
        message: error.to_string(),
    }
}

/// `text`, cut to [`SHOWN_CHARS`] characters with an ellipsis.
fn shown(text: &str) -> String {
    match text.char_indices().nth(SHOWN_CHARS) {
        None => text.to_owned(),
        Some((end, _)) => format!("{}…", &text[..end]),
    }
}

/// "`/a`, `/b`", or "none" for no roots.
fn listed(roots: &[PathBuf]) -> String {
    if roots.is_empty() {
        return "none".to_owned();
    }
    let roots: Vec<String> = (roots.iter())
        .map(|root| format!("`{}`", root.display()))
        .collect();
    roots.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lexical_form_drops_dots_empty_segments_and_the_trailing_slash() {
        assert_eq!(lexical(Path::new("/a/./b//c/")), Path::new("/a/b/c"));
        assert_eq!(lexical(Path::new("/a/b/../../../c")), Path::new("/c"));
        assert_eq!(
            lexical(Path::new("//etc/hostname")),
            Path::new("/etc/hostname")
        );
        assert_eq!(lexical(Path::new("a/../../b")), Path::new("../b"));
    }

    #[test]
    fn the_longest_existing_part_is_resolved_and_the_rest_appended() {
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path().canonicalize().unwrap();
        std::fs::create_dir_all(base.join("a/b")).unwrap();
        let deep = base.join("a/b").join("x/".repeat(2000));
        assert_eq!(
            through_links("deep", &lexical(&deep)).unwrap(),
            (lexical(&deep), false)
        );
        // Compared as text: `Path` equality would not see a trailing `/`.
        let (whole, existed) = through_links("b", &base.join("a/b")).unwrap();
        assert_eq!(whole.to_str(), base.join("a/b").to_str());
        assert!(existed);
        // A file in the middle: nothing below it exists.
        std::fs::write(base.join("a/f"), "").unwrap();
        assert_eq!(
            through_links("f", &base.join("a/f/g")).unwrap(),
            (base.join("a/f/g"), false)
        );
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(base.join("a/b"), base.join("link")).unwrap();
            assert_eq!(
                through_links("l", &base.join("link/new/file")).unwrap(),
                (base.join("a/b/new/file"), false)
            );
            std::os::unix::fs::symlink(base.join("nowhere"), base.join("dangling")).unwrap();
            assert!(matches!(
                through_links("d", &base.join("dangling/x")),
                Err(PathError::DanglingLink { link, .. }) if link == base.join("dangling")
            ));
        }
    }
}
