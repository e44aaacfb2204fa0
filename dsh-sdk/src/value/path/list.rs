//! Listing a directory a [`ToolPath`](super::ToolPath) names without
//! following a symbolic link: the directory is opened as
//! [`ToolPath::open`](super::ToolPath::open) opens a file, and each entry is
//! reported as the directory holds it, a link as a link.

use std::ffi::OsString;
use std::io;
use std::path::{Path, PathBuf};

use schemars::JsonSchema;
use serde::Serialize;

/// What a directory entry is, as the directory says, a symbolic link
/// reported as one and never followed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum EntryKind {
    /// A regular file.
    File,
    /// A directory.
    Dir,
    /// A symbolic link, wherever it points.
    Symlink,
    /// Anything else: a socket, a FIFO, a device.
    Other,
}

/// One entry of a directory listed by [`ToolPath::list_dir`](super::ToolPath::list_dir).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PathEntry {
    /// Its name in the directory (neither `.` nor `..`).
    pub name: OsString,
    /// What it is, a symbolic link not followed.
    pub kind: EntryKind,
}

/// A directory holds more entries than a listing takes: inside the
/// [`io::Error`] [`ToolPath::list_dir`](super::ToolPath::list_dir) returns
/// (`error.get_ref()` and `downcast_ref`).
#[derive(Debug, thiserror::Error)]
#[error(
    "`{}` holds more than {max} entries, the most one listing takes: list a directory further down",
    path.display()
)]
pub struct TooManyEntries {
    /// The directory.
    pub path: PathBuf,
    /// The most entries the listing took.
    pub max: usize,
}

/// The entries of the directory `path`, sorted by name; more than `max` is
/// an error ([`TooManyEntries`]).
pub(super) fn list(path: &Path, max: usize) -> io::Result<Vec<PathEntry>> {
    let mut entries = Vec::new();
    let mut push = |entry: PathEntry| {
        if entries.len() == max {
            return Err(io::Error::other(TooManyEntries {
                path: path.to_owned(),
                max,
            }));
        }
        entries.push(entry);
        Ok(())
    };
    read(path, &mut push)?;
    entries.sort();
    Ok(entries)
}

/// On Unix: the directory opened through no link ([`super::open::open_dir`]),
/// its entries read from that handle, and an entry whose kind the file
/// system does not say looked at relative to it, not followed.
#[cfg(unix)]
fn read(path: &Path, push: &mut impl FnMut(PathEntry) -> io::Result<()>) -> io::Result<()> {
    use std::os::unix::ffi::OsStrExt;

    use rustix::fs::{AtFlags, Dir, FileType, statat};

    let mut dir = Dir::new(super::open::open_dir(path)?)?;
    while let Some(entry) = dir.read() {
        let entry = entry?;
        let name = entry.file_name();
        if matches!(name.to_bytes(), b"." | b"..") {
            continue;
        }
        let file_type = match entry.file_type() {
            FileType::Unknown => {
                FileType::from_raw_mode(statat(dir.fd()?, name, AtFlags::SYMLINK_NOFOLLOW)?.st_mode)
            }
            known => known,
        };
        let kind = match file_type {
            FileType::RegularFile => EntryKind::File,
            FileType::Directory => EntryKind::Dir,
            FileType::Symlink => EntryKind::Symlink,
            _ => EntryKind::Other,
        };
        push(PathEntry {
            name: std::ffi::OsStr::from_bytes(name.to_bytes()).to_owned(),
            kind,
        })?;
    }
    Ok(())
}

/// Off Unix: the standard library, whose entries' kinds follow no link
/// (the directory itself is opened through any).
#[cfg(not(unix))]
fn read(path: &Path, push: &mut impl FnMut(PathEntry) -> io::Result<()>) -> io::Result<()> {
    for entry in std::fs::read_dir(path)? {
        let entry = entry?;
        let file_type = entry.file_type()?;
        let kind = if file_type.is_symlink() {
            EntryKind::Symlink
        } else if file_type.is_dir() {
            EntryKind::Dir
        } else if file_type.is_file() {
            EntryKind::File
        } else {
            EntryKind::Other
        };
        push(PathEntry {
            name: entry.file_name(),
            kind,
        })?;
    }
    Ok(())
}
