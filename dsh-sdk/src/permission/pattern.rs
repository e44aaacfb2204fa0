//! The globs of permission rules: one engine (`globset`) for both kinds of
//! condition, and the rules of their syntax that `globset` leaves open.
//!
//! An argument glob ([`Rule::when`](super::Rule::when)) keeps the syntax it
//! has always had: `*` matches any run of characters (`/` included), `?` one
//! character, `[abc]`, `[a-z]` and `[!abc]` one of a set; braces and
//! backslashes are plain characters, so the compact JSON text of an object
//! (`{"force":true}`) matches itself. A path glob
//! ([`Rule::when_path`](super::Rule::when_path)) is gitignore-style: `*` and
//! `?` stop at `/`, `{a,b}` picks one of several, `\` escapes.
//!
//! In both, `**` stands alone between slashes (`src/**/*.rs`, `**`), and a
//! longer run of stars is refused rather than read as something else.

use globset::{Glob, GlobBuilder, GlobMatcher};

/// An invalid glob in [`Rule::when`](super::Rule::when) or
/// [`Rule::when_path`](super::Rule::when_path).
///
/// ```
/// use dsh_kit::permission::Rule;
///
/// let error = Rule::deny("bash").when("command", "rm [").unwrap_err();
/// assert_eq!(error.pattern, "rm [");
/// assert!(error.to_string().starts_with("`rm [` is not a valid glob: "));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{pattern}` is not a valid glob: {message}")]
pub struct PatternError {
    /// The glob as written.
    pub pattern: String,
    /// What is wrong with it, and how to write it instead.
    pub message: String,
}

impl PatternError {
    fn new(pattern: &str, message: impl Into<String>) -> Self {
        PatternError {
            pattern: pattern.to_owned(),
            message: message.into(),
        }
    }
}

/// Which syntax a glob is read in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Syntax {
    /// An argument glob: `*` crosses `/`, braces and `\` are plain.
    Argument,
    /// A path glob: `*` stops at `/`, `{a,b}` and `\` escapes.
    Path,
}

/// A compiled argument glob ([`Rule::when`](super::Rule::when)).
pub(super) fn argument(pattern: &str) -> Result<GlobMatcher, PatternError> {
    let translated = check(pattern, Syntax::Argument)?;
    let glob = GlobBuilder::new(&translated)
        .literal_separator(false)
        .backslash_escape(false)
        .build()
        .map_err(|error| PatternError::new(pattern, error.kind().to_string()))?;
    Ok(glob.compile_matcher())
}

/// Checks a path glob ([`Rule::when_path`](super::Rule::when_path)) as
/// written, once, before it is taken against each root.
pub(super) fn check_path(written: &str) -> Result<(), PatternError> {
    check(written, Syntax::Path).map(drop)
}

/// One form of a path glob, `written` taken against a root, as `globset`
/// builds it; `written` ([`check_path`]ed already) is named in an error.
pub(super) fn path(
    written: &str,
    form: &str,
    case_insensitive: bool,
) -> Result<Glob, PatternError> {
    GlobBuilder::new(form)
        .literal_separator(true)
        .backslash_escape(true)
        .case_insensitive(case_insensitive)
        .build()
        .map_err(|error| PatternError::new(written, error.kind().to_string()))
}

/// A glob for [`Rule::when`](super::Rule::when) that matches exactly `text`:
/// each `*`, `?` and `[` in it taken as itself.
///
/// ```
/// use dsh_kit::permission::{self, Rule};
///
/// assert_eq!(permission::escape("a*b?[c]"), "a[*]b[?][[]c]");
/// let rule = Rule::deny("bash").when("command", &permission::escape("rm *")).unwrap();
/// assert_eq!(rule.to_string(), "deny bash(command: rm [*])");
/// ```
pub fn escape(text: &str) -> String {
    let mut escaped = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '*' | '?' | '[' => {
                escaped.push('[');
                escaped.push(c);
                escaped.push(']');
            }
            c => escaped.push(c),
        }
    }
    escaped
}

/// Checks the rules `globset` leaves open and returns the glob in
/// `globset`'s syntax: for an argument glob, braces become one-character
/// sets so that they stay plain.
fn check(pattern: &str, syntax: Syntax) -> Result<String, PatternError> {
    let chars: Vec<char> = pattern.chars().collect();
    let mut out = String::with_capacity(pattern.len() + 8);
    let mut i = 0;
    while i < chars.len() {
        match chars[i] {
            '\\' if syntax == Syntax::Path => {
                out.push('\\');
                if let Some(&next) = chars.get(i + 1) {
                    out.push(next);
                }
                i += 2;
            }
            '[' => {
                // A set runs to the first `]` after its first member, so
                // `[]]` and `[!]]` hold `]`. An unclosed one is left to
                // `globset`, which names it.
                let mut end = i + 1;
                if chars.get(end) == Some(&'!') {
                    end += 1;
                }
                end += 1;
                while end < chars.len() && chars[end] != ']' {
                    end += 1;
                }
                let stop = (end + 1).min(chars.len());
                out.extend(&chars[i..stop]);
                i = stop;
            }
            '*' => {
                let run = chars[i..].iter().take_while(|&&c| c == '*').count();
                let alone =
                    (i == 0 || chars[i - 1] == '/') && chars.get(i + run).is_none_or(|&c| c == '/');
                if run > 2 {
                    return Err(PatternError::new(
                        pattern,
                        format!(
                            "`{}` at character {} is not a wildcard: write `*` for any run of characters{}",
                            "*".repeat(run),
                            i + 1,
                            if syntax == Syntax::Path {
                                " within a name, or `**` alone between slashes for any depth"
                            } else {
                                ""
                            }
                        ),
                    ));
                }
                if run == 2 && !alone {
                    return Err(PatternError::new(
                        pattern,
                        format!(
                            "`**` at character {} must stand alone between slashes (`a/**/b`); write `*` for any run of characters",
                            i + 1
                        ),
                    ));
                }
                out.push_str(&"*".repeat(run));
                i += run;
            }
            '{' | '}' if syntax == Syntax::Argument => {
                out.push('[');
                out.push(chars[i]);
                out.push(']');
                i += 1;
            }
            c => {
                out.push(c);
                i += 1;
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matches(pattern: &str, text: &str) -> bool {
        argument(pattern).unwrap().is_match(text)
    }

    #[test]
    fn argument_globs_cross_slashes_and_keep_braces_and_backslashes_plain() {
        assert!(matches("rm *", "rm -rf /"));
        assert!(matches("/tmp*", "/tmp/a/b"));
        assert!(matches("?", "x"));
        assert!(!matches("?", "xy"));
        assert!(matches(r#"{"force":true}"#, r#"{"force":true}"#));
        assert!(!matches(r#"{"force":true}"#, r#""force":true"#));
        assert!(matches("{a,b}", "{a,b}"));
        assert!(!matches("{a,b}", "a"));
        assert!(matches(r"C:\*", r"C:\Windows"));
        assert!(matches("[!a]x", "bx"));
        assert!(!matches("[!a]x", "ax"));
        assert!(matches("[]]", "]"));
        assert!(matches("[{]", "{"));
        assert!(matches("a]", "a]"));
        assert!(matches("**", "any/thing at all"));
        assert!(matches("/etc/**", "/etc/ssh/sshd_config"));
    }

    #[test]
    fn an_escaped_text_matches_itself_only() {
        for text in ["rm *", "a?b", "[x]", r#"["-r","-f"]"#, "{}", r"\*", "**"] {
            let matcher = argument(&escape(text)).unwrap();
            assert!(matcher.is_match(text), "{text}");
            assert!(!matcher.is_match(format!("{text}x")), "{text}");
        }
    }

    #[test]
    fn stray_stars_and_open_sets_are_refused_with_where_and_what_to_write() {
        for syntax in [Syntax::Argument, Syntax::Path] {
            let error = check("***", syntax).unwrap_err();
            assert!(error.message.contains("`***` at character 1"), "{error}");
            let error = check("src/a**b", syntax).unwrap_err();
            assert!(error.message.contains("`**` at character 6"), "{error}");
            assert!(error.message.contains("write `*`"), "{error}");
            assert!(check("[**]", syntax).is_ok());
            assert!(check("a/**/b", syntax).is_ok());
        }
        assert!(check(r"a\**", Syntax::Path).is_ok());
        // Through the rule, as an author meets it.
        let error = super::super::Rule::deny("write_file")
            .when_path("path", "src/a**b")
            .unwrap_err();
        assert_eq!(error.pattern, "src/a**b");
        assert!(error.message.contains("`**` at character 6"), "{error}");
        let error = argument("rm [").unwrap_err();
        assert_eq!(error.pattern, "rm [");
        assert!(
            error.message.contains("unclosed character class"),
            "{error}"
        );
    }
}
