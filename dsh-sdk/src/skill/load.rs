//! [`load_dir`]: a directory of skills, read into memory once.

use std::collections::{BTreeMap, HashMap};
use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::{MAX_SKILL_BYTES, MAX_SKILL_FILES, SKILL_MD, Skill, SkillError};

/// The most directory levels below the root that loading descends.
pub const MAX_DIR_DEPTH: usize = 16;

/// The most entries (files and directories) loading looks at.
pub const MAX_DIR_ENTRIES: usize = 100_000;

/// The most skills one directory may hold.
pub const MAX_SKILLS: usize = 1024;

/// The most bytes the skills of one directory may hold together, 256 MiB.
pub const MAX_DIR_BYTES: u64 = 256 * 1024 * 1024;

/// Why [`load_dir`] failed: the file or directory, and what is wrong there.
#[derive(Debug, thiserror::Error)]
#[error("{}: {problem}", path.display())]
pub struct LoadError {
    /// The file or directory at fault.
    pub path: PathBuf,
    /// What is wrong with it.
    pub problem: LoadProblem,
}

/// What is wrong with a file or directory of a directory of skills.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LoadProblem {
    /// The file system refused (missing, unreadable, a dangling link).
    #[error("{0}")]
    Io(#[from] std::io::Error),
    /// A name that is not UTF-8.
    #[error("the name is not UTF-8")]
    NotUtf8Name,
    /// A `SKILL.md` that is not UTF-8 text.
    #[error("`SKILL.md` is not UTF-8 text")]
    NotUtf8Text,
    /// A symbolic link to somewhere outside the directory.
    #[error("a symbolic link to `{}`, outside the directory of skills: it is not followed", target.display())]
    LinkEscapes {
        /// Where it leads.
        target: PathBuf,
    },
    /// A symbolic link to a directory.
    #[error(
        "a symbolic link to a directory: only links to files inside the directory of skills are followed"
    )]
    LinkToDirectory,
    /// Neither a file, a directory nor a link (a FIFO, a socket, a device).
    #[error("not a regular file or directory")]
    NotAFile,
    /// Deeper than [`MAX_DIR_DEPTH`] below the root.
    #[error("more than {MAX_DIR_DEPTH} directory levels below the root")]
    TooDeep,
    /// More than [`MAX_DIR_ENTRIES`] entries.
    #[error("more than {MAX_DIR_ENTRIES} files and directories")]
    TooManyEntries,
    /// More than [`MAX_SKILLS`] skills.
    #[error("more than {MAX_SKILLS} skills")]
    TooManySkills,
    /// A skill whose files hold more than [`MAX_SKILL_BYTES`], or skills
    /// that hold more than [`MAX_DIR_BYTES`] together.
    #[error(
        "over the size limit: a skill's files may hold {MAX_SKILL_BYTES} bytes, a directory's skills {MAX_DIR_BYTES}"
    )]
    TooLarge,
    /// A skill with more than [`MAX_SKILL_FILES`] files.
    #[error("the skill has more than {MAX_SKILL_FILES} files")]
    TooManyFiles,
    /// `SKILL.md` directly in the root.
    #[error(
        "a `SKILL.md` directly in the directory of skills: each skill is a directory of its own in it"
    )]
    SkillAtRoot,
    /// The front matter names the skill otherwise than its directory.
    #[error(
        "the front matter names the skill `{name}`, its directory is `{directory}`: they must be equal"
    )]
    NameMismatch {
        /// The name in the front matter.
        name: String,
        /// The directory's name.
        directory: String,
    },
    /// The skill itself is malformed (front matter, name, a file path).
    #[error(transparent)]
    Skill(#[from] SkillError),
}

/// One file found under the root.
struct Found {
    /// Where to read it (the link's target for a link).
    real: PathBuf,
    /// Where it was found.
    path: PathBuf,
    size: u64,
}

/// The skills in the directory `root`: each directory under it (at any
/// depth, `.`-hidden ones left out) that holds a `SKILL.md` is one, served
/// at its path from the root, with every file under it (a skill nested in
/// another is a file of it too, and a skill of its own).
///
/// Fails, naming the file, on a `SKILL.md` whose front matter does not read
/// or names the skill otherwise than its directory, on a symbolic link that
/// leads out of `root` or to a directory, on anything neither file nor
/// directory, and past the limits: [`MAX_SKILL_FILES`] files and
/// [`MAX_SKILL_BYTES`] per skill, [`MAX_SKILLS`] skills, [`MAX_DIR_BYTES`],
/// [`MAX_DIR_DEPTH`] levels and [`MAX_DIR_ENTRIES`] entries in all.
///
/// ```no_run
/// # fn main() -> Result<(), dsh_kit::skill::LoadError> {
/// let registry = dsh_kit::Registry::builder()
///     .skills(dsh_kit::skill::load_dir("skills")?)
///     .build();
/// # drop(registry); Ok(()) }
/// ```
pub fn load_dir(root: impl AsRef<Path>) -> Result<Vec<Skill>, LoadError> {
    let root = root.as_ref();
    let at = |path: &Path| {
        let path = path.to_path_buf();
        move |problem: LoadProblem| LoadError { path, problem }
    };
    let real_root = fs::canonicalize(root).map_err(|error| at(root)(error.into()))?;
    let files = walk(root, &real_root)?;
    if files.contains_key(SKILL_MD) {
        return Err(at(&root.join(SKILL_MD))(LoadProblem::SkillAtRoot));
    }
    let skill_dirs: Vec<&str> = files
        .keys()
        .filter_map(|path| path.strip_suffix(SKILL_MD)?.strip_suffix('/'))
        .collect();
    if skill_dirs.len() > MAX_SKILLS {
        return Err(at(root)(LoadProblem::TooManySkills));
    }
    let mut read = HashMap::new();
    let mut total = 0;
    let mut skills = Vec::with_capacity(skill_dirs.len());
    for dir in skill_dirs {
        skills.push(load_skill(root, dir, &files, &mut read, &mut total)?);
    }
    Ok(skills)
}

/// The skill in the directory `dir` (relative to the root).
fn load_skill(
    root: &Path,
    dir: &str,
    files: &BTreeMap<String, Found>,
    read: &mut HashMap<PathBuf, Arc<[u8]>>,
    total: &mut u64,
) -> Result<Skill, LoadError> {
    let inside = format!("{dir}/");
    let own: Vec<(&str, &Found)> = files
        .iter()
        .filter_map(|(path, found)| Some((path.strip_prefix(&inside)?, found)))
        .collect();
    let skill_md = &files[&format!("{dir}/{SKILL_MD}")];
    let fail = |path: &Path, problem| LoadError {
        path: path.to_path_buf(),
        problem,
    };
    if own.len() > MAX_SKILL_FILES {
        return Err(fail(&root.join(dir), LoadProblem::TooManyFiles));
    }
    let size: u64 = own.iter().map(|(_, found)| found.size).sum();
    if size > MAX_SKILL_BYTES {
        return Err(fail(&root.join(dir), LoadProblem::TooLarge));
    }
    let bytes = read_bounded(skill_md, read, total)?;
    let markdown =
        std::str::from_utf8(&bytes).map_err(|_| fail(&skill_md.path, LoadProblem::NotUtf8Text))?;
    let (prefix, directory) = dir.rsplit_once('/').unwrap_or(("", dir));
    let skill = Skill::from_markdown(markdown)
        .and_then(|skill| skill.prefix(prefix))
        .map_err(|error| fail(&skill_md.path, error.into()))?;
    if skill.name() != directory {
        return Err(fail(
            &skill_md.path,
            LoadProblem::NameMismatch {
                name: skill.name().to_owned(),
                directory: directory.to_owned(),
            },
        ));
    }
    let mut skill = skill;
    for (path, found) in own {
        if path == SKILL_MD {
            continue;
        }
        let bytes = read_bounded(found, read, total)?;
        skill = skill
            .with_file(path.to_owned(), bytes)
            .map_err(|error| fail(&found.path, error.into()))?;
    }
    Ok(skill)
}

/// The bytes of `found`, read once however many skills hold it, no more
/// than its size said.
fn read_bounded(
    found: &Found,
    read: &mut HashMap<PathBuf, Arc<[u8]>>,
    total: &mut u64,
) -> Result<Arc<[u8]>, LoadError> {
    if let Some(bytes) = read.get(&found.real) {
        return Ok(Arc::clone(bytes));
    }
    let fail = |problem| LoadError {
        path: found.path.clone(),
        problem,
    };
    *total += found.size;
    if *total > MAX_DIR_BYTES {
        return Err(fail(LoadProblem::TooLarge));
    }
    let mut bytes = Vec::with_capacity(usize::try_from(found.size).unwrap_or(0));
    fs::File::open(&found.real)
        .and_then(|file| file.take(found.size + 1).read_to_end(&mut bytes))
        .map_err(|error| fail(error.into()))?;
    if bytes.len() as u64 > found.size {
        // It grew since it was looked at: not what was counted.
        return Err(fail(LoadProblem::TooLarge));
    }
    let bytes: Arc<[u8]> = Arc::from(bytes);
    read.insert(found.real.clone(), Arc::clone(&bytes));
    Ok(bytes)
}

/// Every file under `root` by its `/`-separated path from it, following no
/// link out of `real_root` (the root, resolved) nor to a directory.
fn walk(root: &Path, real_root: &Path) -> Result<BTreeMap<String, Found>, LoadError> {
    let mut files = BTreeMap::new();
    let mut entries = 0;
    let mut pending = vec![(root.to_path_buf(), String::new(), 0)];
    while let Some((dir, relative, depth)) = pending.pop() {
        let fail = |path: &Path, problem| LoadError {
            path: path.to_path_buf(),
            problem,
        };
        let listing = fs::read_dir(&dir).map_err(|error| fail(&dir, error.into()))?;
        for entry in listing {
            let entry = entry.map_err(|error| fail(&dir, error.into()))?;
            let path = entry.path();
            entries += 1;
            if entries > MAX_DIR_ENTRIES {
                return Err(fail(root, LoadProblem::TooManyEntries));
            }
            let Some(name) = entry.file_name().to_str().map(str::to_owned) else {
                return Err(fail(&path, LoadProblem::NotUtf8Name));
            };
            if name.starts_with('.') {
                continue;
            }
            let key = if relative.is_empty() {
                name
            } else {
                format!("{relative}/{name}")
            };
            let kind = entry
                .file_type()
                .map_err(|error| fail(&path, error.into()))?;
            if kind.is_dir() {
                if depth + 1 > MAX_DIR_DEPTH {
                    return Err(fail(&path, LoadProblem::TooDeep));
                }
                pending.push((path, key, depth + 1));
            } else if kind.is_file() {
                let size = entry
                    .metadata()
                    .map_err(|error| fail(&path, error.into()))?
                    .len();
                files.insert(
                    key,
                    Found {
                        real: path.clone(),
                        path,
                        size,
                    },
                );
            } else if kind.is_symlink() {
                let target = fs::canonicalize(&path).map_err(|error| fail(&path, error.into()))?;
                if !target.starts_with(real_root) {
                    return Err(fail(&path, LoadProblem::LinkEscapes { target }));
                }
                let metadata = fs::metadata(&target).map_err(|error| fail(&path, error.into()))?;
                if metadata.is_dir() {
                    return Err(fail(&path, LoadProblem::LinkToDirectory));
                }
                if !metadata.is_file() {
                    return Err(fail(&path, LoadProblem::NotAFile));
                }
                files.insert(
                    key,
                    Found {
                        real: target,
                        path,
                        size: metadata.len(),
                    },
                );
            } else {
                return Err(fail(&path, LoadProblem::NotAFile));
            }
        }
    }
    Ok(files)
}
