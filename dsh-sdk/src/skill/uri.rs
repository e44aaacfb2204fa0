//! Where a skill's files are served: the rules on its prefix and file
//! paths, their URIs, and their media types.

use super::SkillError;

/// A prefix segment: a plain URI segment (unreserved characters), so the
/// first also reads as a URI authority.
pub(super) fn check_prefix_segment(segment: &str) -> Result<(), SkillError> {
    let plain = !matches!(segment, "" | "." | "..")
        && segment
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~'));
    if plain {
        Ok(())
    } else {
        Err(SkillError::Prefix(segment.to_owned()))
    }
}

/// The most bytes a file path in a skill may hold.
const MAX_PATH_BYTES: usize = 1024;

/// A file path relative to the skill's directory: `/`-separated, no empty,
/// `.` or `..` segment, no `\`, no control character.
pub(super) fn check_file_path(path: &str) -> Result<(), SkillError> {
    let bad = |why| {
        Err(SkillError::FilePath {
            path: path.to_owned(),
            why,
        })
    };
    if path.is_empty() || path.len() > MAX_PATH_BYTES {
        return bad("it must hold 1 to 1024 bytes");
    }
    if path.contains('\\') || path.chars().any(char::is_control) {
        return bad("it holds `\\` or a control character");
    }
    if path
        .split('/')
        .any(|segment| matches!(segment, "" | "." | ".."))
    {
        return bad("it must be relative, with no empty, `.` or `..` segment");
    }
    Ok(())
}

/// `path` as it goes in a URI: each byte that is not unreserved and not
/// the `/` between segments, percent-encoded.
pub(super) fn encode_path(path: &str) -> String {
    use std::fmt::Write;
    let mut encoded = String::with_capacity(path.len());
    for byte in path.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~' | b'/') {
            encoded.push(char::from(byte));
        } else {
            let _ = write!(encoded, "%{byte:02X}");
        }
    }
    encoded
}

/// The media type of the file at `path` holding `bytes`: by its extension,
/// else `text/plain` for UTF-8 and `application/octet-stream` for the rest.
pub(super) fn mime_type(path: &str, bytes: &[u8]) -> &'static str {
    let extension = path
        .rsplit_once('.')
        .map(|(_, extension)| extension.to_ascii_lowercase());
    match extension.as_deref() {
        Some("md" | "markdown") => "text/markdown",
        Some("txt") => "text/plain",
        Some("json") => "application/json",
        Some("yaml" | "yml") => "application/yaml",
        Some("html" | "htm") => "text/html",
        Some("csv") => "text/csv",
        Some("py") => "text/x-python",
        Some("sh") => "text/x-shellscript",
        Some("js" | "mjs") => "text/javascript",
        Some("png") => "image/png",
        Some("jpg" | "jpeg") => "image/jpeg",
        Some("gif") => "image/gif",
        Some("svg") => "image/svg+xml",
        Some("pdf") => "application/pdf",
        _ if std::str::from_utf8(bytes).is_ok() => "text/plain",
        _ => "application/octet-stream",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_paths_must_stay_inside_the_skill() {
        for good in ["a.md", "references/GUIDE.md", "a b/c.txt"] {
            assert!(check_file_path(good).is_ok(), "{good}");
        }
        for bad in [
            "", "/a", "a/../b", "./a", "a//b", "a\\b", "a/", "..", "a\nb",
        ] {
            assert!(check_file_path(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn paths_are_percent_encoded_in_uris() {
        assert_eq!(encode_path("a b/é.md"), "a%20b/%C3%A9.md");
        assert_eq!(encode_path("references/GUIDE.md"), "references/GUIDE.md");
    }
}
