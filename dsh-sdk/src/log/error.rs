//! [`LogError`] and [`LogWarning`]: what writing and reading a log report.

use std::fmt;
use std::io;
use std::path::PathBuf;

/// Reading or writing a session log failed.
#[derive(Debug, thiserror::Error)]
pub enum LogError {
    /// The file could not be opened or created.
    #[error("could not open the session log `{}`", path.display())]
    Open {
        /// The log file.
        path: PathBuf,
        /// Why.
        #[source]
        source: io::Error,
    },
    /// The file could not be read.
    #[error("could not read the session log `{}`", path.display())]
    Read {
        /// The log file.
        path: PathBuf,
        /// Why.
        #[source]
        source: io::Error,
    },
    /// A record could not be appended; a partial line was cut off again.
    #[error("could not append to the session log `{}`", path.display())]
    Write {
        /// The log file.
        path: PathBuf,
        /// Why.
        #[source]
        source: io::Error,
    },
    /// An earlier write failed and its partial line could not be cut off, so
    /// the log takes no more records: the torn line stays the last one.
    #[error("the session log `{}` takes no more records: an earlier write failed and left a partial line", path.display())]
    Broken {
        /// The log file.
        path: PathBuf,
    },
    /// A record could not be serialized.
    #[error("could not serialize a record for the session log `{}`", path.display())]
    Serialize {
        /// The log file.
        path: PathBuf,
        /// Why.
        #[source]
        source: serde_json::Error,
    },
    /// A line before the last is not a record: the log is corrupt there.
    #[error("line {line} of the session log `{}` is not a record", path.display())]
    Corrupt {
        /// The log file.
        path: PathBuf,
        /// The line, 1-based.
        line: usize,
        /// Why it does not parse.
        #[source]
        source: serde_json::Error,
    },
}

/// A torn last record that was skipped, or cut off before appending.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LogWarning {
    /// The log file.
    pub path: PathBuf,
    /// The line, 1-based.
    pub line: usize,
    /// How many bytes it held.
    pub bytes: usize,
    /// Why it does not parse.
    pub reason: String,
}

impl fmt::Display for LogWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "the last line ({}) of the session log `{}` is a torn record of {} bytes, left out: {}",
            self.line,
            self.path.display(),
            self.bytes,
            self.reason
        )
    }
}
