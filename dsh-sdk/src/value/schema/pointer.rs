//! JSON Pointer (RFC 6901) reference tokens: a property name in a pointer
//! writes `~` as `~0` and `/` as `~1`.

use std::borrow::Cow;

/// `name` as one reference token: `a/b~c` → `a~1b~0c`.
pub(crate) fn escape(name: &str) -> Cow<'_, str> {
    if name.contains(['~', '/']) {
        Cow::Owned(name.replace('~', "~0").replace('/', "~1"))
    } else {
        Cow::Borrowed(name)
    }
}

/// The property name a reference token stands for: `a~1b~0c` → `a/b~c`.
///
/// `~01` is `~1`, not `/`: `~1` is read before `~0`, as RFC 6901 says.
pub(crate) fn unescape(token: &str) -> Cow<'_, str> {
    if token.contains('~') {
        Cow::Owned(token.replace("~1", "/").replace("~0", "~"))
    } else {
        Cow::Borrowed(token)
    }
}

#[cfg(test)]
mod tests {
    use std::borrow::Cow;

    use super::{escape, unescape};

    #[test]
    fn escapes_tilde_before_slash() {
        assert_eq!(escape("a/b~c"), "a~1b~0c");
        assert_eq!(escape("~1"), "~01");
        assert_eq!(escape("/"), "~1");
    }

    #[test]
    fn unescapes_in_the_order_the_rfc_gives() {
        assert_eq!(unescape("a~1b~0c"), "a/b~c");
        assert_eq!(unescape("~01"), "~1");
        assert_eq!(unescape("~10"), "/0");
    }

    #[test]
    fn round_trips() {
        for name in ["", "plain", "a/b", "~", "~0", "~1", "/~/", "é/ü~"] {
            assert_eq!(unescape(&escape(name)), name, "{name}");
        }
    }

    #[test]
    fn borrows_when_nothing_changes() {
        assert!(matches!(escape("plain"), Cow::Borrowed("plain")));
        assert!(matches!(unescape("plain"), Cow::Borrowed("plain")));
    }
}
