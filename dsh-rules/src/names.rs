//! What a tool, a header, a scope and a `_meta` key may be called, and how
//! `#[tool(category = "…", output_type = "…")]` spells the runtime's
//! `Category` and `OutputType` variants.

/// The rule a tool name or alias follows, for messages.
pub const TOOL_NAME_RULE: &str = "1 to 64 characters of `a-z`, `A-Z`, `0-9`, `_` or `-`";

/// Whether `name` matches `^[a-zA-Z0-9_-]{1,64}$`, what every model provider accepts.
pub fn is_valid_tool_name(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// The rule an OAuth scope follows, for messages.
pub const SCOPE_RULE: &str = "one or more printable ASCII characters other than a space, `\"` or `\\` (RFC 6749's scope-token)";

/// Whether `scope` is an RFC 6749 (section 3.3) scope-token:
/// `1*( %x21 / %x23-5B / %x5D-7E )`.
pub fn is_scope_token(scope: &str) -> bool {
    !scope.is_empty()
        && scope
            .bytes()
            .all(|b| matches!(b, 0x21 | 0x23..=0x5B | 0x5D..=0x7E))
}

/// What is wrong with `key` as a key of a tool's own `_meta`, by MCP's rule
/// (an optional prefix of dot-separated labels and a `/`, then a name), with
/// the prefixes MCP keeps for itself and dsh-kit's own `dsh/` refused; `None`
/// for a good key.
pub fn meta_key_problem(key: &str) -> Option<&'static str> {
    let (prefix, name) = match key.split_once('/') {
        Some((prefix, name)) => (Some(prefix), name),
        None => (None, key),
    };
    if let Some(prefix) = prefix {
        let labels: Vec<&str> = prefix.split('.').collect();
        let good_label = |label: &&str| {
            let bytes = label.as_bytes();
            bytes.first().is_some_and(u8::is_ascii_alphabetic)
                && bytes.last().is_some_and(u8::is_ascii_alphanumeric)
                && bytes
                    .iter()
                    .all(|b| b.is_ascii_alphanumeric() || *b == b'-')
        };
        if !labels.iter().all(good_label) {
            return Some(
                "its prefix must be labels joined by `.`, each starting with a letter, ending with a letter or digit, and holding only letters, digits and `-` (`com.example/`)",
            );
        }
        if labels
            .get(1)
            .is_some_and(|label| *label == "modelcontextprotocol" || *label == "mcp")
        {
            return Some(
                "its prefix is reserved for MCP itself (a second label `modelcontextprotocol` or `mcp`): use a prefix of your own (`com.example/`)",
            );
        }
        if prefix == "dsh" {
            return Some(
                "the `dsh/` prefix is dsh-kit's own (`dsh/version`, `dsh/scopes`): use a prefix of your own (`com.example/`)",
            );
        }
    }
    let bytes = name.as_bytes();
    let good_name = bytes.first().is_some_and(u8::is_ascii_alphanumeric)
        && bytes.last().is_some_and(u8::is_ascii_alphanumeric)
        && bytes
            .iter()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'));
    if !good_name {
        return Some(
            "its name must begin and end with a letter or digit and hold only letters, digits, `-`, `_` and `.`",
        );
    }
    None
}

/// The rule an `x-mcp-header` name follows, for messages.
pub const HEADER_NAME_RULE: &str = "one or more of `a-z`, `A-Z`, `0-9` and ``!#$%&'*+-.^_`|~`` (an HTTP field-name token, RFC 9110)";

/// Whether `name` can follow `Mcp-Param-` in an HTTP header name: an RFC
/// 9110 (section 5.6.2) token, `1*tchar`.
pub fn is_header_name(name: &str) -> bool {
    !name.is_empty()
        && name.bytes().all(|byte| {
            byte.is_ascii_alphanumeric()
                || matches!(
                    byte,
                    b'!' | b'#'
                        | b'$'
                        | b'%'
                        | b'&'
                        | b'\''
                        | b'*'
                        | b'+'
                        | b'-'
                        | b'.'
                        | b'^'
                        | b'_'
                        | b'`'
                        | b'|'
                        | b'~'
                )
        })
}

/// Whether an icon's `src` is a URI a host may use: `https:`, fetched by
/// the host, or `data:`, carried inline.
pub fn is_icon_src(src: &str) -> bool {
    src.split_once(':').is_some_and(|(scheme, _)| {
        scheme.eq_ignore_ascii_case("https") || scheme.eq_ignore_ascii_case("data")
    })
}

/// `category = "…"`: the attribute's spelling and the `Category` variant.
pub const CATEGORIES: &[(&str, &str)] = &[
    ("filesystem", "Filesystem"),
    ("shell", "Shell"),
    ("search", "Search"),
    ("web", "Web"),
    ("notebook", "Notebook"),
    ("task_management", "TaskManagement"),
    ("agent", "Agent"),
    ("planning", "Planning"),
    ("mcp", "Mcp"),
    ("custom", "Custom"),
];

/// `output_type = "…"`: the attribute's spelling and the `OutputType` variant.
pub const OUTPUT_TYPES: &[(&str, &str)] = &[
    ("text", "Text"),
    ("structured", "Structured"),
    ("file_content", "FileContent"),
    ("file_list", "FileList"),
    ("diff", "Diff"),
    ("web_content", "WebContent"),
    ("empty", "Empty"),
    ("binary_ref", "BinaryRef"),
    ("agent_result", "AgentResult"),
];

#[cfg(test)]
mod tests {
    use super::{is_scope_token, is_valid_tool_name};

    #[test]
    fn scope_tokens_are_printable_ascii_but_space_quote_and_backslash() {
        for scope in ["files:write", "a", "https://api.example.com/read", "!#[]~"] {
            assert!(is_scope_token(scope), "{scope}");
        }
        for scope in [
            "",
            "files write",
            "say\"hi\"",
            "back\\slash",
            "tab\t",
            "é",
            "\u{7f}",
        ] {
            assert!(!is_scope_token(scope), "{scope:?}");
        }
    }

    #[test]
    fn accepts_names_of_the_allowed_characters() {
        for name in ["read_file", "Read-File-2", "x", "_", "-", &"a".repeat(64)] {
            assert!(is_valid_tool_name(name), "{name}");
        }
    }

    #[test]
    fn rejects_empty_long_and_foreign_names() {
        for name in ["", &"a".repeat(65), "read file", "read.file", "café", "a/b"] {
            assert!(!is_valid_tool_name(name), "{name}");
        }
    }
}
