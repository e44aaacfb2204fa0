//! Opening a [`ToolPath`](super::ToolPath) without following a symbolic
//! link: on Unix one component at a time, each relative to the directory
//! handle before it, with `O_NOFOLLOW`.

#[cfg(not(unix))]
use std::fs::File;
use std::io;
use std::path::Path;

/// How to open a [`ToolPath`](super::ToolPath): the options of
/// [`std::fs::OpenOptions`] that [`ToolPath::open_with`](super::ToolPath::open_with)
/// can carry out relative to a directory handle.
///
/// ```
/// use dsh_kit::ToolPath;
/// use dsh_kit::path::PathOpenOptions;
/// use std::io::Write;
///
/// # fn main() -> std::io::Result<()> {
/// let dir = tempfile::tempdir()?;
/// let path = ToolPath::new(dir.path().canonicalize()?.join("log.txt"));
/// let mut file = path.open_with(PathOpenOptions::new().append(true).create(true))?;
/// file.write_all(b"one\n")?;
/// assert_eq!(path.read_to_string()?, "one\n");
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PathOpenOptions {
    read: bool,
    write: bool,
    append: bool,
    truncate: bool,
    create: bool,
    create_new: bool,
}

impl PathOpenOptions {
    /// Nothing set: set at least one of read, write or append.
    pub fn new() -> PathOpenOptions {
        PathOpenOptions::default()
    }

    /// Open for reading.
    pub fn read(&mut self, yes: bool) -> &mut Self {
        self.read = yes;
        self
    }

    /// Open for writing.
    pub fn write(&mut self, yes: bool) -> &mut Self {
        self.write = yes;
        self
    }

    /// Open for writing at the end.
    pub fn append(&mut self, yes: bool) -> &mut Self {
        self.append = yes;
        self
    }

    /// Empty the file on opening it for writing.
    pub fn truncate(&mut self, yes: bool) -> &mut Self {
        self.truncate = yes;
        self
    }

    /// Create the file if it is missing.
    pub fn create(&mut self, yes: bool) -> &mut Self {
        self.create = yes;
        self
    }

    /// Create the file, failing if it exists.
    pub fn create_new(&mut self, yes: bool) -> &mut Self {
        self.create_new = yes;
        self
    }
}

/// The error of a symbolic link met at `name` on the way to `path`.
#[cfg(unix)]
fn link_met(path: &Path, name: &std::ffi::OsStr) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidInput,
        format!(
            "`{}`: `{}` is a symbolic link, which was not there when the path was checked; not followed",
            path.display(),
            Path::new(name).display()
        ),
    )
}

#[cfg(unix)]
mod unix {
    use std::ffi::OsStr;
    use std::fs::File;
    use std::io;
    use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
    use std::path::{Component, Path};

    use rustix::fs::{AtFlags, CWD, FileType, Mode, OFlags, openat, statat, unlinkat};
    use rustix::io::Errno;

    use super::{PathOpenOptions, link_met};

    /// How each directory on the way is opened: only to look names up in.
    #[cfg(any(target_os = "linux", target_os = "android"))]
    const DIR: OFlags = OFlags::PATH
        .union(OFlags::DIRECTORY)
        .union(OFlags::CLOEXEC)
        .union(OFlags::NOFOLLOW);
    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    const DIR: OFlags = OFlags::RDONLY
        .union(OFlags::DIRECTORY)
        .union(OFlags::CLOEXEC)
        .union(OFlags::NOFOLLOW);

    /// The directory holding the last component of `path`, reached through
    /// no symbolic link, and that component.
    fn parent(path: &Path) -> io::Result<(Option<OwnedFd>, &OsStr)> {
        let mut dir: Option<OwnedFd> = None;
        let mut names: Vec<&OsStr> = Vec::new();
        for component in path.components() {
            match component {
                Component::RootDir => dir = Some(openat(CWD, "/", DIR, Mode::empty())?),
                Component::CurDir => {}
                Component::Normal(name) => names.push(name),
                Component::ParentDir | Component::Prefix(_) => {
                    return Err(io::Error::new(
                        io::ErrorKind::InvalidInput,
                        format!("`{}` is not resolved: it holds `..`", path.display()),
                    ));
                }
            }
        }
        let Some((last, on_the_way)) = names.split_last() else {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("`{}` names no file", path.display()),
            ));
        };
        for name in on_the_way {
            let next = openat(at(&dir), *name, DIR, Mode::empty())
                .map_err(|errno| refused(errno, at(&dir), path, name))?;
            dir = Some(next);
        }
        Ok((dir, last))
    }

    fn at(dir: &Option<OwnedFd>) -> BorrowedFd<'_> {
        dir.as_ref().map_or(CWD, AsFd::as_fd)
    }

    /// A symbolic link where `O_NOFOLLOW` forbids one said plainly: `ELOOP`,
    /// or, for a directory opened `O_PATH`, `ENOTDIR` on what is a link.
    fn refused(errno: Errno, dir: BorrowedFd<'_>, path: &Path, name: &OsStr) -> io::Error {
        let is_link = errno == Errno::LOOP
            || (errno == Errno::NOTDIR
                && statat(dir, name, AtFlags::SYMLINK_NOFOLLOW)
                    .is_ok_and(|stat| FileType::from_raw_mode(stat.st_mode) == FileType::Symlink));
        if is_link {
            link_met(path, name)
        } else {
            errno.into()
        }
    }

    pub(in crate::value::path) fn open(path: &Path, options: &PathOpenOptions) -> io::Result<File> {
        let (dir, name) = parent(path)?;
        let writes = options.write || options.append;
        let mut flags = match (options.read, writes) {
            (true, true) => OFlags::RDWR,
            (false, true) => OFlags::WRONLY,
            _ => OFlags::RDONLY,
        };
        flags |= OFlags::NOFOLLOW | OFlags::CLOEXEC;
        if options.append {
            flags |= OFlags::APPEND;
        }
        if options.truncate && writes {
            flags |= OFlags::TRUNC;
        }
        if options.create_new {
            flags |= OFlags::CREATE | OFlags::EXCL;
        } else if options.create {
            flags |= OFlags::CREATE;
        }
        let fd = openat(at(&dir), name, flags, Mode::from_raw_mode(0o666))
            .map_err(|errno| refused(errno, at(&dir), path, name))?;
        Ok(File::from(fd))
    }

    /// Opens the directory `path` to read its entries, through no symbolic
    /// link: neither on the way nor the directory itself.
    pub(in crate::value::path) fn open_dir(path: &Path) -> io::Result<OwnedFd> {
        const LIST: OFlags = OFlags::RDONLY
            .union(OFlags::DIRECTORY)
            .union(OFlags::CLOEXEC)
            .union(OFlags::NOFOLLOW);
        let is_root = path.has_root()
            && path
                .components()
                .all(|component| matches!(component, Component::RootDir | Component::CurDir));
        if is_root {
            return Ok(openat(CWD, "/", LIST, Mode::empty())?);
        }
        let (dir, name) = parent(path)?;
        openat(at(&dir), name, LIST, Mode::empty())
            .map_err(|errno| refused(errno, at(&dir), path, name))
    }

    pub(in crate::value::path) fn remove_file(path: &Path) -> io::Result<()> {
        let (dir, name) = parent(path)?;
        unlinkat(at(&dir), name, AtFlags::empty())
            .map_err(|errno| refused(errno, at(&dir), path, name))
    }
}

#[cfg(unix)]
pub(super) use unix::{open, open_dir, remove_file};

/// Off Unix: the standard library, which follows links.
#[cfg(not(unix))]
pub(super) fn open(path: &Path, options: &PathOpenOptions) -> io::Result<File> {
    std::fs::OpenOptions::new()
        .read(options.read)
        .write(options.write)
        .append(options.append)
        .truncate(options.truncate)
        .create(options.create)
        .create_new(options.create_new)
        .open(path)
}

/// Off Unix: the standard library.
#[cfg(not(unix))]
pub(super) fn remove_file(path: &Path) -> io::Result<()> {
    std::fs::remove_file(path)
}
