//! JSON-pointer reference tokens (RFC 6901): one property name or array
//! index as it appears between two `/`s of a pointer.

use std::borrow::Cow;

/// Escapes `token` for a JSON pointer: `~` becomes `~0` and `/` becomes
/// `~1`, in that order, so `a/b` reads `a~1b`. Borrows when there is
/// nothing to escape.
pub(crate) fn escape(token: &str) -> Cow<'_, str> {
    if token.contains(['~', '/']) {
        Cow::Owned(token.replace('~', "~0").replace('/', "~1"))
    } else {
        Cow::Borrowed(token)
    }
}

/// Reads an escaped token back: `~1` becomes `/` and `~0` becomes `~`, in
/// that order, so `~01` reads `~1` (not `/`). Borrows when there is nothing
/// to unescape.
pub(crate) fn unescape(token: &str) -> Cow<'_, str> {
    if token.contains('~') {
        Cow::Owned(token.replace("~1", "/").replace("~0", "~"))
    } else {
        Cow::Borrowed(token)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_tilde_before_slash() {
        assert_eq!(escape("plain"), "plain");
        assert!(matches!(escape("plain"), Cow::Borrowed(_)));
        assert_eq!(escape("a/b"), "a~1b");
        assert_eq!(escape("a~b"), "a~0b");
        assert_eq!(escape("~/"), "~0~1");
    }

    #[test]
    fn unescapes_slash_before_tilde() {
        assert_eq!(unescape("plain"), "plain");
        assert_eq!(unescape("a~1b"), "a/b");
        assert_eq!(unescape("~01"), "~1");
        assert_eq!(unescape("~0~1"), "~/");
    }

    #[test]
    fn round_trips() {
        for token in ["", "a", "/", "~", "~1", "~0", "a/b~c", "//~~"] {
            assert_eq!(unescape(&escape(token)), token);
        }
    }
}
