//! `#[derive(ToolFailure)]` on the shapes a failure takes.

use dsh_kit::Registry;
use dsh_kit::prelude::*;

/// A struct with a message naming its fields, `Debug` among them.
#[derive(ToolFailure, Debug)]
#[error("quota of {limit} exceeded by {user:?}; {{retry later}}")]
struct QuotaError {
    user: String,
    limit: u32,
}

/// A tuple struct.
#[derive(ToolFailure, Debug)]
#[error("timed out after {0} ms")]
struct Timeout(u64);

/// Generic, with serde attributes shaping its data.
#[derive(ToolFailure, Debug)]
#[serde(rename_all = "snake_case")]
enum FetchError<T: std::fmt::Display> {
    #[error("bad value {value}")]
    BadValue { value: T },
    #[error("gone")]
    Gone,
}

/// With a source the data leaves out.
#[derive(ToolFailure, Debug)]
enum SaveError {
    #[error("cannot save {path}")]
    Io {
        path: String,
        #[source]
        #[serde(skip)]
        source: std::io::Error,
    },
    #[error("disk full")]
    Full,
}

/// A unit-only enum.
#[derive(ToolFailure, Debug)]
enum Plain {
    #[error("plain")]
    Only,
}

/// Fetch something.
#[tool]
async fn fetch(
    /// What
    what: String,
) -> Result<String, FetchError<String>> {
    Err(FetchError::BadValue { value: what })
}

fn main() {
    let quota = QuotaError {
        user: "ada".into(),
        limit: 3,
    };
    assert_eq!(
        quota.to_string(),
        "quota of 3 exceeded by \"ada\"; {retry later}"
    );
    let _: &dyn std::error::Error = &quota;
    assert_eq!(Timeout(50).to_string(), "timed out after 50 ms");
    assert_eq!(FetchError::<u8>::Gone.to_string(), "gone");
    assert_eq!(Plain::Only.to_string(), "plain");
    let save = SaveError::Io {
        path: "a.txt".into(),
        source: std::io::Error::other("denied"),
    };
    let source = std::error::Error::source(&save).map(ToString::to_string);
    assert_eq!(source.as_deref(), Some("denied"));
    assert!(std::error::Error::source(&SaveError::Full).is_none());
    Registry::new().register::<fetch>().unwrap();
}
