//! Skills: instructions an agent loads when a task calls for them, served
//! beside a registry's tools (over MCP, the Skills extension,
//! `io.modelcontextprotocol/skills`).
//!
//! A skill is a directory of files in the Agent Skills format: a `SKILL.md`
//! that opens with YAML front matter (at least `name` and `description`),
//! then the instructions, and any supporting files beside it (references,
//! scripts, templates). A [`Skill`] is declared in code or loaded from disk:
//!
//! ```
//! use dsh_kit::Registry;
//! use dsh_kit::skill::Skill;
//!
//! # fn main() -> Result<(), dsh_kit::skill::SkillError> {
//! let release = Skill::new(
//!     "release-notes",
//!     "Write the release notes of a version from its merged changes",
//!     "# Release notes\n\nList the changes by kind, newest first; see `TEMPLATE.md`.\n",
//! )?
//! .field("license", "MIT")?
//! .file("TEMPLATE.md", "## Added\n\n## Fixed\n")?;
//! assert_eq!(release.uri(), "skill://release-notes/SKILL.md");
//!
//! let registry = Registry::builder().skill(release).build();
//! assert_eq!(registry.skills().len(), 1);
//! # Ok(()) }
//! ```
//!
//! With the `skills` feature, [`Skill::from_markdown`] reads a skill from the
//! text of its `SKILL.md`, and `load_dir` reads a directory of skills
//! (the declared kind above needs no feature): every directory under it that
//! holds a `SKILL.md` is one, named by its front matter, which must equal its
//! directory's name, at the path from the root (`skills/acme/refunds/` is
//! `skill://acme/refunds/SKILL.md`). Loading reads everything into memory
//! once, within the [limits](MAX_SKILL_BYTES), follows no symbolic link out of
//! the directory, and fails with an error naming the file and what is
//! wrong with it.
//!
//! What a server serves is a [`SkillSource`]: a [`Skill`] is one, and so is
//! a skill an MCP proxy re-serves from another server. The registry keeps
//! them in its [`Skills`].

mod front_matter;
#[cfg(feature = "skills")]
mod load;
mod set;
mod uri;

use std::fmt;
use std::sync::Arc;

use futures_util::future::BoxFuture;
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

#[cfg(feature = "skills")]
pub use load::{
    LoadError, LoadProblem, MAX_DIR_BYTES, MAX_DIR_DEPTH, MAX_DIR_ENTRIES, MAX_SKILLS, load_dir,
};
pub use set::{SkillHandle, Skills};

/// The string field `key` of a front matter; empty when it is not one.
fn text_field<'a>(front_matter: &'a Map<String, Value>, key: &str) -> &'a str {
    front_matter
        .get(key)
        .and_then(Value::as_str)
        .unwrap_or_default()
}

/// The file every skill holds at its root.
pub const SKILL_MD: &str = "SKILL.md";

/// The most files a skill may hold, `SKILL.md` included: what every host
/// that speaks the Skills extension accepts.
pub const MAX_SKILL_FILES: usize = 512;

/// The most bytes a skill's files may hold together, 16 MiB: what every host
/// that speaks the Skills extension accepts.
pub const MAX_SKILL_BYTES: u64 = 16 * 1024 * 1024;

/// The most bytes the YAML front matter of a `SKILL.md` may hold, 64 KiB.
pub const MAX_FRONT_MATTER_BYTES: usize = 64 * 1024;

/// A skill whose files this process holds: its `SKILL.md` (front matter and
/// instructions) and its supporting files, each with its SHA-256 digest.
///
/// Served at `skill://<prefix>/<name>/SKILL.md`, its files beside it
/// (`skill://<prefix>/<name>/<path>`). Cheap to clone.
#[derive(Clone)]
pub struct Skill {
    /// The organizational segments before the name, possibly none.
    prefix: Arc<[String]>,
    /// The front matter as JSON: `name` and `description` are strings.
    front_matter: Arc<Map<String, Value>>,
    /// `SKILL.md` first, then the others sorted by path.
    files: Arc<[SkillFile]>,
}

/// One file of a [`Skill`].
#[derive(Clone)]
struct SkillFile {
    /// Relative to the skill's directory, `/`-separated.
    path: String,
    bytes: Arc<[u8]>,
    digest: String,
}

impl SkillFile {
    fn new(path: String, bytes: Arc<[u8]>) -> Self {
        let digest = sha256_digest(&bytes);
        SkillFile {
            path,
            bytes,
            digest,
        }
    }
}

/// What is wrong with a skill declared in code or read from a `SKILL.md`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SkillError {
    /// The name breaks the Agent Skills naming rule.
    #[error(
        "the skill name `{0}` is not allowed: 1 to 64 lowercase ASCII letters, digits and `-`, neither first nor last nor twice in a row"
    )]
    Name(String),
    /// The description is empty or too long.
    #[error(
        "the description of the skill `{name}` must hold 1 to 1024 characters, not all blank; it holds {chars}"
    )]
    Description {
        /// The skill.
        name: String,
        /// How many characters it holds.
        chars: usize,
    },
    /// The `SKILL.md` has no front matter, or front matter that does not read.
    #[error("{0}")]
    FrontMatter(#[from] front_matter::FrontMatterError),
    /// A front-matter field that cannot be set this way.
    #[error("the front-matter field `{0}` is set by `Skill::new`, not by `field`")]
    ReservedField(String),
    /// A supporting file's path that is not a plain relative path.
    #[error("the skill file path `{path}` is not allowed: {why}")]
    FilePath {
        /// The path as given.
        path: String,
        /// What is wrong with it.
        why: &'static str,
    },
    /// Two files at one path.
    #[error("the skill `{name}` has two files at `{path}`")]
    DuplicateFile {
        /// The skill.
        name: String,
        /// The path.
        path: String,
    },
    /// A prefix segment that is not a plain URI segment.
    #[error(
        "the skill prefix segment `{0}` is not allowed: ASCII letters, digits, `-`, `.`, `_` and `~`, not `.` or `..` alone"
    )]
    Prefix(String),
    /// More files than hosts accept.
    #[error("the skill `{name}` has more than {MAX_SKILL_FILES} files")]
    TooManyFiles {
        /// The skill.
        name: String,
    },
    /// More bytes than hosts accept.
    #[error("the skill `{name}` holds more than {MAX_SKILL_BYTES} bytes in its files")]
    TooLarge {
        /// The skill.
        name: String,
    },
}

impl Skill {
    /// A skill named `name` (the Agent Skills rule: lowercase ASCII letters,
    /// digits and single inner `-`, at most 64), that says what it is for in
    /// `description` (what a model reads to choose it), with `instructions`
    /// as the body of its `SKILL.md`, after the front matter written from the
    /// two.
    pub fn new(
        name: impl Into<String>,
        description: impl Into<String>,
        instructions: impl Into<String>,
    ) -> Result<Skill, SkillError> {
        let name = name.into();
        let description = description.into();
        front_matter::check_name(&name)?;
        front_matter::check_description(&name, &description)?;
        let mut fields = Map::new();
        fields.insert("name".into(), Value::String(name));
        fields.insert("description".into(), Value::String(description));
        let markdown = front_matter::render(&fields, &instructions.into())?;
        Ok(Skill {
            prefix: Arc::from([]),
            front_matter: Arc::new(fields),
            files: Arc::from([SkillFile::new(
                SKILL_MD.into(),
                Arc::from(markdown.into_bytes()),
            )]),
        })
    }

    /// A skill from the whole text of its `SKILL.md`, front matter and all,
    /// kept byte for byte (the `skills` feature: it reads YAML).
    #[cfg(feature = "skills")]
    pub fn from_markdown(markdown: impl Into<String>) -> Result<Skill, SkillError> {
        let markdown = markdown.into();
        let fields = front_matter::parse(&markdown)?;
        Ok(Skill {
            prefix: Arc::from([]),
            front_matter: Arc::new(fields),
            files: Arc::from([SkillFile::new(
                SKILL_MD.into(),
                Arc::from(markdown.into_bytes()),
            )]),
        })
    }

    /// Adds the front-matter field `key` (`license`, `metadata`,
    /// `compatibility`, …), rewriting the `SKILL.md`'s front matter.
    /// `name` and `description` are [`new`](Self::new)'s.
    pub fn field(
        mut self,
        key: impl Into<String>,
        value: impl Into<Value>,
    ) -> Result<Skill, SkillError> {
        let key = key.into();
        if key == "name" || key == "description" {
            return Err(SkillError::ReservedField(key));
        }
        let mut fields = Map::clone(&self.front_matter);
        fields.insert(key, value.into());
        let markdown = String::from_utf8_lossy(&self.files[0].bytes).into_owned();
        let body = front_matter::body(&markdown);
        let markdown = front_matter::render(&fields, body)?;
        let mut files = self.files.to_vec();
        files[0] = SkillFile::new(SKILL_MD.into(), Arc::from(markdown.into_bytes()));
        self.front_matter = Arc::new(fields);
        self.files = Arc::from(files);
        Ok(self)
    }

    /// Adds a supporting file at `path`, relative to the skill's directory
    /// (`references/GUIDE.md`), `/`-separated, with no `.` or `..` segment.
    pub fn file(
        self,
        path: impl Into<String>,
        contents: impl Into<Vec<u8>>,
    ) -> Result<Skill, SkillError> {
        self.with_file(path.into(), Arc::from(contents.into()))
    }

    /// Serves the skill under `prefix`, `/`-separated segments before its
    /// name: `acme/billing` puts `refunds` at `skill://acme/billing/refunds/SKILL.md`.
    pub fn prefix(mut self, prefix: &str) -> Result<Skill, SkillError> {
        let segments: Vec<String> = prefix
            .split('/')
            .filter(|segment| !segment.is_empty())
            .map(str::to_owned)
            .collect();
        for segment in &segments {
            uri::check_prefix_segment(segment)?;
        }
        self.prefix = Arc::from(segments);
        Ok(self)
    }

    fn with_file(mut self, path: String, bytes: Arc<[u8]>) -> Result<Skill, SkillError> {
        uri::check_file_path(&path)?;
        if path == SKILL_MD || self.files.iter().any(|file| file.path == path) {
            return Err(SkillError::DuplicateFile {
                name: self.name().to_owned(),
                path,
            });
        }
        if self.files.len() >= MAX_SKILL_FILES {
            return Err(SkillError::TooManyFiles {
                name: self.name().to_owned(),
            });
        }
        if self.size() + bytes.len() as u64 > MAX_SKILL_BYTES {
            return Err(SkillError::TooLarge {
                name: self.name().to_owned(),
            });
        }
        let mut files = self.files.to_vec();
        files.push(SkillFile::new(path, bytes));
        files[1..].sort_by(|a, b| a.path.cmp(&b.path));
        self.files = Arc::from(files);
        Ok(self)
    }

    /// The skill's name, from its front matter.
    pub fn name(&self) -> &str {
        text_field(&self.front_matter, "name")
    }

    /// What the skill is for, from its front matter.
    pub fn description(&self) -> &str {
        text_field(&self.front_matter, "description")
    }

    /// The front matter of its `SKILL.md`, as JSON.
    pub fn front_matter(&self) -> &Map<String, Value> {
        &self.front_matter
    }

    /// The URI of its `SKILL.md`: `skill://<prefix>/<name>/SKILL.md`.
    pub fn uri(&self) -> String {
        format!("{}/{SKILL_MD}", self.root())
    }

    /// The paths of its files, `SKILL.md` first.
    pub fn paths(&self) -> impl Iterator<Item = &str> {
        self.files.iter().map(|file| file.path.as_str())
    }

    /// The bytes of the file at `path`, relative to the skill's directory.
    pub fn contents(&self, path: &str) -> Option<&[u8]> {
        self.files
            .iter()
            .find(|file| file.path == path)
            .map(|file| &*file.bytes)
    }

    /// The bytes of all its files together.
    pub fn size(&self) -> u64 {
        self.files.iter().map(|file| file.bytes.len() as u64).sum()
    }

    /// The URI of the skill's directory, with no trailing `/`.
    fn root(&self) -> String {
        let mut root = String::from("skill://");
        for segment in self.prefix.iter() {
            root.push_str(segment);
            root.push('/');
        }
        root.push_str(self.name());
        root
    }

    fn file_uri(&self, root: &str, path: &str) -> String {
        format!("{root}/{}", uri::encode_path(path))
    }
}

impl fmt::Debug for Skill {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Skill")
            .field("uri", &self.uri())
            .field("files", &self.paths().collect::<Vec<_>>())
            .finish()
    }
}

/// The entry of a served skill: what `skills/list` and `skills/get` say of it.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct SkillEntry {
    /// The URI of its `SKILL.md`.
    pub uri: String,
    /// The front matter of its `SKILL.md`, as JSON, `name` and `description`
    /// among the fields.
    pub front_matter: Map<String, Value>,
    /// Its files, or `None` when its content is made on demand and has no
    /// stable digests (`"dynamic"` on the wire).
    pub files: Option<Vec<SkillFileEntry>>,
}

impl SkillEntry {
    /// An entry.
    pub fn new(
        uri: impl Into<String>,
        front_matter: Map<String, Value>,
        files: Option<Vec<SkillFileEntry>>,
    ) -> Self {
        SkillEntry {
            uri: uri.into(),
            front_matter,
            files,
        }
    }

    /// The skill's name, from its front matter.
    pub fn name(&self) -> &str {
        text_field(&self.front_matter, "name")
    }

    /// What the skill is for, from its front matter.
    pub fn description(&self) -> &str {
        text_field(&self.front_matter, "description")
    }
}

/// One file in a [`SkillEntry`]: its URI, SHA-256 digest and size.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct SkillFileEntry {
    /// The file's URI.
    pub uri: String,
    /// `sha256:` and 64 lowercase hex digits.
    pub digest: String,
    /// Its length in bytes.
    pub size: u64,
}

impl SkillFileEntry {
    /// An entry.
    pub fn new(uri: impl Into<String>, digest: impl Into<String>, size: u64) -> Self {
        SkillFileEntry {
            uri: uri.into(),
            digest: digest.into(),
            size,
        }
    }
}

/// The contents of one file of a skill.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct SkillContents {
    /// The media type (`text/markdown` for `SKILL.md`).
    pub mime_type: String,
    /// The bytes.
    pub bytes: Arc<[u8]>,
}

impl SkillContents {
    /// Contents.
    pub fn new(mime_type: impl Into<String>, bytes: impl Into<Arc<[u8]>>) -> Self {
        SkillContents {
            mime_type: mime_type.into(),
            bytes: bytes.into(),
        }
    }
}

/// Why a file of a skill could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SkillReadError {
    /// The skill serves no file at that URI.
    #[error("no skill file at `{0}`")]
    NotFound(String),
    /// Where the file is kept could not give it.
    #[error("the skill file `{uri}` could not be read: {reason}")]
    Failed {
        /// The file.
        uri: String,
        /// What went wrong, as its source said.
        reason: String,
    },
}

/// What [`SkillSource::read`] gives: the contents at the URI, or `None` when
/// the URI is none of the skill's files.
pub type ReadSkill<'a> = BoxFuture<'a, Option<Result<SkillContents, SkillReadError>>>;

/// A skill as served: its entry and its files. A [`Skill`] is one; an MCP
/// proxy serves the skills of another server through one of its own.
pub trait SkillSource: Send + Sync + 'static {
    /// Its entry now.
    fn entry(&self) -> SkillEntry;

    /// The file at `uri`, or `None` when `uri` is not one of its files.
    fn read<'a>(&'a self, uri: &'a str) -> ReadSkill<'a>;
}

impl SkillSource for Skill {
    fn entry(&self) -> SkillEntry {
        let root = self.root();
        let files = self
            .files
            .iter()
            .map(|file| SkillFileEntry {
                uri: self.file_uri(&root, &file.path),
                digest: file.digest.clone(),
                size: file.bytes.len() as u64,
            })
            .collect();
        SkillEntry {
            uri: self.uri(),
            front_matter: Map::clone(&self.front_matter),
            files: Some(files),
        }
    }

    fn read<'a>(&'a self, uri: &'a str) -> ReadSkill<'a> {
        let root = self.root();
        let found = uri
            .strip_prefix(root.as_str())
            .and_then(|rest| rest.strip_prefix('/'))
            .and_then(|_| {
                self.files
                    .iter()
                    .find(|file| self.file_uri(&root, &file.path) == uri)
            })
            .map(|file| {
                Ok(SkillContents::new(
                    uri::mime_type(&file.path, &file.bytes),
                    Arc::clone(&file.bytes),
                ))
            });
        Box::pin(std::future::ready(found))
    }
}

/// `sha256:` and the 64 lowercase hex digits of the SHA-256 of `bytes`.
pub fn sha256_digest(bytes: &[u8]) -> String {
    use std::fmt::Write;
    let mut digest = String::with_capacity(7 + 64);
    digest.push_str("sha256:");
    for byte in Sha256::digest(bytes) {
        let _ = write!(digest, "{byte:02x}");
    }
    digest
}

pub use front_matter::FrontMatterError;
