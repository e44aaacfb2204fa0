//! [`SessionLog`]: appends records and flushes each as it is written.

use std::fmt;
use std::fs::{File, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use crate::tool::with_sources;
use crate::value::event::Event;

use super::{LogError, LogWarning, Record};

/// Appends records to a session log file. Cheap to clone; clones share the file.
///
/// Open it once per file: records from one `SessionLog` never interleave,
/// while two writers on one file (in one process or two) can. Writing a
/// record blocks the calling task for one buffered write, as `tracing`'s
/// file writers do; with [`sync_every_record`](Self::sync_every_record), for
/// a disk flush too.
#[derive(Clone)]
pub struct SessionLog {
    inner: Arc<Writer>,
}

struct Writer {
    path: PathBuf,
    sync: AtomicBool,
    file: Mutex<Appender>,
    error: Mutex<Option<LogError>>,
    repaired: Option<LogWarning>,
}

struct Appender {
    file: File,
    /// The file's length after the last whole record, to cut a partial one.
    len: u64,
    broken: bool,
}

impl SessionLog {
    /// Opens `path` to append records, creating it when missing.
    ///
    /// When the file ends in a torn record (a crash cut its last write
    /// short), that line is cut off first, with a warning through `tracing`
    /// and [`repaired`](Self::repaired), so new records start on a line of
    /// their own. A last record that is whole but lacks its `\n` is kept.
    pub fn open(path: impl AsRef<Path>) -> Result<Self, LogError> {
        let path = path.as_ref().to_owned();
        let mut file = OpenOptions::new()
            .read(true)
            .append(true)
            .create(true)
            .open(&path)
            .map_err(|source| LogError::Open {
                path: path.clone(),
                source,
            })?;
        let (len, repaired) = repair_tail(&mut file, &path)?;
        if let Some(warning) = &repaired {
            tracing::warn!(path = %path.display(), line = warning.line, "{warning}");
        }
        Ok(SessionLog {
            inner: Arc::new(Writer {
                path,
                sync: AtomicBool::new(false),
                file: Mutex::new(Appender {
                    file,
                    len,
                    broken: false,
                }),
                error: Mutex::new(None),
                repaired,
            }),
        })
    }

    /// Also syncs every record to the disk (`fsync`), so records survive a
    /// power loss as well as a crash, at the cost of a disk flush per record.
    pub fn sync_every_record(self) -> Self {
        self.inner.sync.store(true, Ordering::Relaxed);
        self
    }

    /// The log file.
    pub fn path(&self) -> &Path {
        &self.inner.path
    }

    /// The torn last record [`open`](Self::open) cut off, if it found one.
    pub fn repaired(&self) -> Option<&LogWarning> {
        self.inner.repaired.as_ref()
    }

    /// A subscriber for [`Registry::subscribe`](crate::Registry::subscribe)
    /// that appends a record for every event.
    ///
    /// A subscriber cannot fail a call, so a failed write is reported through
    /// `tracing` and kept for [`take_error`](Self::take_error).
    pub fn subscriber(&self) -> impl Fn(&Event) + Send + Sync + 'static {
        let log = self.clone();
        move |event| {
            if let Err(error) = log.append(&Record::from_event(event)) {
                tracing::error!(path = %log.inner.path.display(), "{}", with_sources(&error));
                log.inner
                    .error
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .get_or_insert(error);
            }
        }
    }

    /// Appends one record: one write of the whole line, then a flush.
    ///
    /// A write that fails part-way is cut off again, so a torn line can only
    /// ever be the last; when even that fails, the log refuses every later
    /// record with [`LogError::Broken`].
    pub fn append(&self, record: &Record) -> Result<(), LogError> {
        let path = || self.inner.path.clone();
        let mut line = serde_json::to_vec(record).map_err(|source| LogError::Serialize {
            path: path(),
            source,
        })?;
        line.push(b'\n');
        let mut appender = self
            .inner
            .file
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if appender.broken {
            return Err(LogError::Broken { path: path() });
        }
        let written = appender
            .file
            .write_all(&line)
            .and_then(|()| appender.file.flush());
        if let Err(source) = written {
            let len = appender.len;
            if appender.file.set_len(len).is_err() {
                appender.broken = true;
            }
            return Err(LogError::Write {
                path: path(),
                source,
            });
        }
        appender.len += line.len() as u64;
        if self.inner.sync.load(Ordering::Relaxed) {
            appender
                .file
                .sync_data()
                .map_err(|source| LogError::Write {
                    path: path(),
                    source,
                })?;
        }
        Ok(())
    }

    /// The first write that failed in [`subscriber`](Self::subscriber) since
    /// the last call, if any.
    pub fn take_error(&self) -> Option<LogError> {
        self.inner
            .error
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
    }
}

impl fmt::Debug for SessionLog {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SessionLog")
            .field("path", &self.inner.path)
            .field(
                "sync_every_record",
                &self.inner.sync.load(Ordering::Relaxed),
            )
            .finish_non_exhaustive()
    }
}

/// Cuts a torn last line off `file`, or ends a whole last record that lacks
/// its `\n`, and returns the file's length after that.
fn repair_tail(file: &mut File, path: &Path) -> Result<(u64, Option<LogWarning>), LogError> {
    let read_error = |source| LogError::Read {
        path: path.to_owned(),
        source,
    };
    let write_error = |source| LogError::Write {
        path: path.to_owned(),
        source,
    };
    let len = file.metadata().map_err(read_error)?.len();
    if len == 0 {
        return Ok((0, None));
    }
    // Read backwards, a block at a time, to the last `\n`.
    const BLOCK: u64 = 64 * 1024;
    let mut tail: Vec<u8> = Vec::new();
    let mut start = len;
    let line_start = loop {
        let from = start.saturating_sub(BLOCK);
        // At most `BLOCK` bytes, so the cast cannot truncate.
        let mut block = vec![0; (start - from) as usize];
        file.seek(SeekFrom::Start(from)).map_err(read_error)?;
        file.read_exact(&mut block).map_err(read_error)?;
        block.extend_from_slice(&tail);
        tail = block;
        start = from;
        if let Some(newline) = tail.iter().rposition(|&byte| byte == b'\n') {
            break start + newline as u64 + 1;
        }
        if start == 0 {
            break 0;
        }
    };
    if line_start == len {
        return Ok((len, None));
    }
    let torn = &tail[(line_start - start) as usize..];
    match serde_json::from_slice::<Record>(torn) {
        Ok(_) => {
            file.write_all(b"\n").map_err(write_error)?;
            Ok((len + 1, None))
        }
        Err(error) => {
            let line = count_lines_before(file, line_start).map_err(read_error)? + 1;
            let warning = LogWarning {
                path: path.to_owned(),
                line,
                bytes: torn.len(),
                reason: error.to_string(),
            };
            file.set_len(line_start).map_err(write_error)?;
            Ok((line_start, Some(warning)))
        }
    }
}

/// How many `\n` the first `end` bytes of `file` hold.
fn count_lines_before(file: &mut File, end: u64) -> io::Result<usize> {
    file.seek(SeekFrom::Start(0))?;
    let mut reader = io::BufReader::new(file.take(end));
    let mut count = 0;
    let mut buf = [0; 64 * 1024];
    loop {
        let read = reader.read(&mut buf)?;
        if read == 0 {
            return Ok(count);
        }
        count += buf[..read].iter().filter(|&&byte| byte == b'\n').count();
    }
}
