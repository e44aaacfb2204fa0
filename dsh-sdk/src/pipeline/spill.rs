//! Spilling oversized tool results to disk: the model gets a preview and the
//! path of a file that holds the whole text.

use std::fmt::Write as _;
use std::fs::{self, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use uuid::Uuid;

/// The default size limit, in characters, above which a result spills.
///
/// 100,000 characters: large enough for a whole source file or a long
/// command's output, small enough to keep one result from crowding the
/// model's context; a tool declares its own with `max_result_chars`.
pub const DEFAULT_MAX_RESULT_CHARS: usize = 100_000;

/// The default length of the preview the model gets, in characters.
pub const DEFAULT_PREVIEW_CHARS: usize = 2_000;

/// Where spilled results go and how much of them the model sees.
///
/// The default spills into a directory private to the user running the
/// process, `dsh-spill-<uid>` under the system's temporary directory on
/// Unix, with a preview of [`DEFAULT_PREVIEW_CHARS`]. A missing spill
/// directory is created with mode `0700`; a spill directory that is a
/// symbolic link is refused, as is a default one that another user owns or
/// that others can read; spill files are created with mode `0600`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpillConfig {
    /// The directory spill files are written to; created when missing.
    pub dir: PathBuf,
    /// At most this many characters of the result go in the preview.
    pub preview_chars: usize,
}

impl SpillConfig {
    /// Spill into `dir` with a preview of [`DEFAULT_PREVIEW_CHARS`].
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        Self {
            dir: dir.into(),
            preview_chars: DEFAULT_PREVIEW_CHARS,
        }
    }
}

impl Default for SpillConfig {
    fn default() -> Self {
        Self::new(default_dir())
    }
}

/// `dsh-spill-<uid>` under the temporary directory, where the user id is
/// known (Linux), else `dsh-spill`; either way checked to be private before
/// use.
fn default_dir() -> PathBuf {
    let name = match process_uid() {
        Some(uid) => format!("dsh-spill-{uid}"),
        None => "dsh-spill".to_owned(),
    };
    std::env::temp_dir().join(name)
}

/// The user id this process runs as, read from the owner of `/proc/self`.
#[cfg(unix)]
fn process_uid() -> Option<u32> {
    use std::os::unix::fs::MetadataExt;
    fs::metadata("/proc/self").ok().map(|meta| meta.uid())
}

#[cfg(not(unix))]
fn process_uid() -> Option<u32> {
    None
}

/// A result that was written to disk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Spilled {
    /// The file holding the whole text: `<dir>/<invocation id>.txt`.
    pub path: PathBuf,
    /// The length of the whole text, in characters.
    pub total_chars: usize,
    /// The start of the text, cut at a character boundary.
    pub preview: String,
}

/// Writing a spill file failed.
#[derive(Debug, thiserror::Error)]
pub enum SpillError {
    /// The spill directory could not be created.
    #[error("could not create the spill directory `{}`", dir.display())]
    CreateDir {
        /// The spill directory.
        dir: PathBuf,
        /// Why.
        #[source]
        source: io::Error,
    },
    /// The temporary file could not be created, written or synced.
    #[error("could not write the spill file `{}`", path.display())]
    Write {
        /// The temporary file.
        path: PathBuf,
        /// Why.
        #[source]
        source: io::Error,
    },
    /// The temporary file could not be renamed into place.
    #[error("could not rename the spill file `{}` to `{}`", from.display(), to.display())]
    Rename {
        /// The temporary file.
        from: PathBuf,
        /// The final path.
        to: PathBuf,
        /// Why.
        #[source]
        source: io::Error,
    },
    /// The final path would not lie directly inside the spill directory.
    #[error("spill path `{}` is not directly inside the spill directory `{}`", path.display(), dir.display())]
    Escape {
        /// The rejected path.
        path: PathBuf,
        /// The spill directory.
        dir: PathBuf,
    },
    /// The spill directory is not safe to write to: a symbolic link, or a
    /// default directory that another user owns or others can read.
    #[error("refusing the spill directory `{}`: {reason}", dir.display())]
    Unsafe {
        /// The spill directory.
        dir: PathBuf,
        /// What is wrong with it.
        reason: String,
    },
}

/// Writes `text` to `<dir>/<invocation_id>.txt` atomically and returns the
/// path written.
///
/// The text goes to a uniquely named temporary file in the same directory,
/// created with mode `0600`, flushed and synced, then linked to the final
/// path, which never replaces a file already there: a reader sees either no
/// file or the whole text. When the name is taken (another call with the
/// same invocation id spilled first), the text goes to
/// `<dir>/<invocation_id>.<uuid>.txt` instead. File names derive from the
/// invocation id alone, so no path leaves `dir`. Blocking: call it from
/// `spawn_blocking` on an async runtime.
pub(crate) fn spill(
    config: &SpillConfig,
    invocation_id: Uuid,
    text: &str,
) -> Result<PathBuf, SpillError> {
    let dir = config.dir.as_path();
    private_dir(dir, config.dir == default_dir())?;

    let planned = plan(config, invocation_id, text).path;
    if planned.parent() != Some(dir) {
        return Err(SpillError::Escape {
            path: planned,
            dir: dir.to_owned(),
        });
    }

    let temp = dir.join(format!(".{invocation_id}.{}.tmp", Uuid::new_v4()));
    if let Err(source) = write_synced(&temp, text) {
        let _ = fs::remove_file(&temp);
        return Err(SpillError::Write { path: temp, source });
    }
    let mut path = planned;
    let mut linked = fs::hard_link(&temp, &path);
    if matches!(&linked, Err(error) if error.kind() == io::ErrorKind::AlreadyExists) {
        path = dir.join(format!("{invocation_id}.{}.txt", Uuid::new_v4()));
        linked = fs::hard_link(&temp, &path);
    }
    let _ = fs::remove_file(&temp);
    if let Err(source) = linked {
        return Err(SpillError::Rename {
            from: temp,
            to: path,
            source,
        });
    }
    sync_dir(dir);
    Ok(path)
}

/// Creates `dir` (mode `0700`) when missing, and checks it is a directory,
/// not a symbolic link; `default` also requires that this user owns it and
/// that no one else can read or enter it.
fn private_dir(dir: &Path, default: bool) -> Result<(), SpillError> {
    let create = |source| SpillError::CreateDir {
        dir: dir.to_owned(),
        source,
    };
    if let Some(parent) = dir.parent().filter(|parent| !parent.as_os_str().is_empty()) {
        fs::create_dir_all(parent).map_err(create)?;
    }
    let mut builder = fs::DirBuilder::new();
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    match builder.create(dir) {
        Ok(()) => {}
        Err(error) if error.kind() == io::ErrorKind::AlreadyExists => {}
        Err(error) => return Err(create(error)),
    }
    let meta = fs::symlink_metadata(dir).map_err(create)?;
    let unsafe_dir = |reason: &str| SpillError::Unsafe {
        dir: dir.to_owned(),
        reason: reason.to_owned(),
    };
    if meta.file_type().is_symlink() {
        return Err(unsafe_dir("it is a symbolic link"));
    }
    if !meta.is_dir() {
        return Err(create(io::Error::new(
            io::ErrorKind::AlreadyExists,
            "a file that is not a directory is in the way",
        )));
    }
    #[cfg(unix)]
    if default {
        use std::os::unix::fs::MetadataExt;
        if process_uid().is_some_and(|uid| uid != meta.uid()) {
            return Err(unsafe_dir(&format!(
                "another user (uid {}) owns it; remove it, or set a spill directory of your own",
                meta.uid()
            )));
        }
        if meta.mode() & 0o077 != 0 {
            return Err(unsafe_dir(&format!(
                "others can access it (mode {:o}); make it `0700`, or set a spill directory of your own",
                meta.mode() & 0o777
            )));
        }
    }
    #[cfg(not(unix))]
    let _ = default;
    Ok(())
}

/// What [`spill`] would write for `text`, and the preview it would return,
/// without touching the disk: a replay checks a spilled result with it.
pub(crate) fn plan(config: &SpillConfig, invocation_id: Uuid, text: &str) -> Spilled {
    Spilled {
        path: config.dir.join(format!("{invocation_id}.txt")),
        total_chars: text.chars().count(),
        preview: preview(text, config.preview_chars).to_owned(),
    }
}

/// What the model gets instead of the spilled text.
///
/// ```text
/// Output too large (123456 characters); the full output was saved to /spill/….txt. Preview (first 2000 characters):
/// …
/// ```
///
/// With an empty preview the message ends after the path.
pub(crate) fn spilled_message(spilled: &Spilled) -> String {
    let mut message = format!(
        "Output too large ({} characters); the full output was saved to {}.",
        spilled.total_chars,
        spilled.path.display()
    );
    if !spilled.preview.is_empty() {
        let _ = write!(
            message,
            " Preview (first {} characters):\n{}",
            spilled.preview.chars().count(),
            spilled.preview
        );
    }
    message
}

fn write_synced(path: &Path, text: &str) -> io::Result<()> {
    let mut options = OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let mut file = options.open(path)?;
    file.write_all(text.as_bytes())?;
    file.flush()?;
    file.sync_all()
}

/// Makes the rename durable where directories can be synced; best effort,
/// since the file itself is already complete.
fn sync_dir(dir: &Path) {
    #[cfg(unix)]
    if let Ok(dir) = fs::File::open(dir) {
        let _ = dir.sync_all();
    }
    #[cfg(not(unix))]
    let _ = dir;
}

/// The first `max_chars` characters of `text`; when cut, at the last newline
/// in the second half of the cut if there is one, so the preview ends on a
/// whole line.
fn preview(text: &str, max_chars: usize) -> &str {
    let Some((end, _)) = text.char_indices().nth(max_chars) else {
        return text;
    };
    let head = &text[..end];
    match head.rfind('\n') {
        Some(newline) if head[..newline].chars().count() >= max_chars / 2 => &head[..newline],
        _ => head,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(dir: &Path) -> SpillConfig {
        SpillConfig::new(dir.join("spill"))
    }

    /// A config spilling under a fresh temporary directory, removed when
    /// the guard drops.
    fn temp_config() -> (tempfile::TempDir, SpillConfig) {
        let root = tempfile::tempdir().unwrap();
        let config = config(root.path());
        (root, config)
    }

    fn dir_entries(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = fs::read_dir(dir)
            .unwrap()
            .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn file_holds_exactly_the_text() {
        let root = tempfile::tempdir().unwrap();
        let text = "line one\nzwei → drei 🦀\n".repeat(500);
        let path = spill(&config(root.path()), Uuid::new_v4(), &text).unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), text);
    }

    #[test]
    fn file_name_is_the_invocation_id() {
        let (_root, config) = temp_config();
        let id = Uuid::new_v4();
        let path = spill(&config, id, "text").unwrap();
        assert_eq!(path, config.dir.join(format!("{id}.txt")));
        assert_eq!(path, plan(&config, id, "text").path);
    }

    #[test]
    fn creates_the_directory_and_leaves_no_temp_files() {
        let root = tempfile::tempdir().unwrap();
        let config = SpillConfig::new(root.path().join("a").join("b"));
        let (first, second) = (Uuid::new_v4(), Uuid::new_v4());
        spill(&config, first, "one").unwrap();
        spill(&config, second, "two").unwrap();
        let mut expected = vec![format!("{first}.txt"), format!("{second}.txt")];
        expected.sort();
        assert_eq!(dir_entries(&config.dir), expected);
    }

    #[test]
    fn a_reused_invocation_id_never_overwrites_an_earlier_spill() {
        let (_root, config) = temp_config();
        let id = Uuid::new_v4();
        let first = spill(&config, id, "a much longer first text").unwrap();
        let second = spill(&config, id, "second").unwrap();
        assert_ne!(first, second);
        assert_eq!(
            fs::read_to_string(&first).unwrap(),
            "a much longer first text"
        );
        assert_eq!(fs::read_to_string(&second).unwrap(), "second");
        assert_eq!(second.parent(), Some(config.dir.as_path()));
        let name = second.file_name().unwrap().to_str().unwrap();
        assert!(
            name.starts_with(&format!("{id}.")) && name.ends_with(".txt"),
            "{name}"
        );
        assert_eq!(dir_entries(&config.dir).len(), 2);
    }

    #[cfg(unix)]
    #[test]
    fn the_directory_is_0700_and_files_0600() {
        use std::os::unix::fs::PermissionsExt;
        let (_root, config) = temp_config();
        let path = spill(&config, Uuid::new_v4(), "secret").unwrap();
        let mode = |path: &Path| fs::metadata(path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&config.dir), 0o700);
        assert_eq!(mode(&path), 0o600);
    }

    #[cfg(unix)]
    #[test]
    fn a_planted_symlink_is_never_followed() {
        let root = tempfile::tempdir().unwrap();
        let elsewhere = root.path().join("elsewhere");
        fs::create_dir(&elsewhere).unwrap();
        let dir = root.path().join("spill");
        std::os::unix::fs::symlink(&elsewhere, &dir).unwrap();
        let err = spill(&SpillConfig::new(&dir), Uuid::new_v4(), "secret").unwrap_err();
        assert!(matches!(err, SpillError::Unsafe { .. }), "{err}");
        assert_eq!(
            err.to_string(),
            format!(
                "refusing the spill directory `{}`: it is a symbolic link",
                dir.display()
            )
        );
        assert!(dir_entries(&elsewhere).is_empty());

        // A symlink planted at a spill file's name is left alone, not written through.
        let config = config(root.path().join("real").as_path());
        let id = Uuid::new_v4();
        fs::create_dir_all(&config.dir).unwrap();
        let target = root.path().join("target");
        std::os::unix::fs::symlink(&target, config.dir.join(format!("{id}.txt"))).unwrap();
        let path = spill(&config, id, "secret").unwrap();
        assert_ne!(path, config.dir.join(format!("{id}.txt")));
        assert!(!target.exists());
        assert_eq!(fs::read_to_string(path).unwrap(), "secret");
    }

    #[cfg(unix)]
    #[test]
    fn the_default_directory_is_per_user_and_private() {
        use std::os::unix::fs::MetadataExt;
        let dir = SpillConfig::default().dir;
        let uid = fs::metadata("/proc/self").map(|meta| meta.uid());
        if let Ok(uid) = uid {
            assert_eq!(dir, std::env::temp_dir().join(format!("dsh-spill-{uid}")));
        }
        assert!(dir.starts_with(std::env::temp_dir()));
    }

    #[test]
    fn a_spill_dir_that_is_a_file_fails_to_create() {
        let root = tempfile::tempdir().unwrap();
        let file = root.path().join("not-a-dir");
        fs::write(&file, "occupied").unwrap();
        let err = spill(&SpillConfig::new(&file), Uuid::new_v4(), "text").unwrap_err();
        assert!(matches!(&err, SpillError::CreateDir { dir, .. } if *dir == file));
        assert_eq!(
            err.to_string(),
            format!("could not create the spill directory `{}`", file.display())
        );
        assert!(std::error::Error::source(&err).is_some());
        assert_eq!(fs::read_to_string(&file).unwrap(), "occupied");
    }

    #[test]
    fn a_spill_dir_under_a_file_fails_to_create() {
        let root = tempfile::tempdir().unwrap();
        let file = root.path().join("not-a-dir");
        fs::write(&file, "occupied").unwrap();
        let dir = file.join("spill");
        let err = spill(&SpillConfig::new(&dir), Uuid::new_v4(), "text").unwrap_err();
        assert!(matches!(err, SpillError::CreateDir { .. }));
    }

    #[test]
    fn a_final_path_taken_by_a_directory_is_left_alone_and_leaves_no_temp_file() {
        let (_root, config) = temp_config();
        let id = Uuid::new_v4();
        let taken = config.dir.join(format!("{id}.txt"));
        fs::create_dir_all(taken.join("inside")).unwrap();
        let path = spill(&config, id, "text").unwrap();
        assert_ne!(path, taken);
        assert!(taken.join("inside").is_dir());
        assert_eq!(fs::read_to_string(&path).unwrap(), "text");
        assert_eq!(dir_entries(&config.dir).len(), 2);
    }

    #[test]
    fn preview_takes_the_first_chars() {
        let text = "x".repeat(5_000);
        let root = tempfile::tempdir().unwrap();
        let spilled = plan(&config(root.path()), Uuid::new_v4(), &text);
        assert_eq!(spilled.preview, "x".repeat(DEFAULT_PREVIEW_CHARS));
        assert_eq!(spilled.total_chars, 5_000);
    }

    #[test]
    fn preview_cuts_multibyte_text_at_char_boundaries() {
        let text = "é🦀語".repeat(1_000);
        for max in 0..20 {
            let cut = preview(&text, max);
            assert_eq!(cut.chars().count(), max);
            assert!(text.starts_with(cut));
        }
        assert_eq!(preview(&text, 4), "é🦀語é");
    }

    #[test]
    fn preview_prefers_a_newline_in_the_second_half() {
        assert_eq!(preview("abcdef\nghij", 10), "abcdef");
        assert_eq!(preview("ab\ncdefghijkl", 10), "ab\ncdefghi");
        assert_eq!(preview("abcde\nfghijkl", 10), "abcde");
        assert_eq!(preview("short\ntext", 10), "short\ntext");
        assert_eq!(preview("日本語\n日本語日本語", 6), "日本語");
    }

    #[test]
    fn message_is_stable() {
        let spilled = Spilled {
            path: PathBuf::from("/spill/0.txt"),
            total_chars: 123_456,
            preview: "first line\nsecond".into(),
        };
        assert_eq!(
            spilled_message(&spilled),
            "Output too large (123456 characters); the full output was saved to /spill/0.txt. \
             Preview (first 17 characters):\nfirst line\nsecond"
        );
        let bare = Spilled {
            preview: String::new(),
            ..spilled
        };
        assert_eq!(
            spilled_message(&bare),
            "Output too large (123456 characters); the full output was saved to /spill/0.txt."
        );
    }
}
