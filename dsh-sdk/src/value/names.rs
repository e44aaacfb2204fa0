//! The names of things: what a tool may be called, the RAWP-DPS
//! [`Category`] and [`OutputType`] (and the names `#[tool(category = "…",
//! output_type = "…")]` gives their variants), and the default output type
//! of each category.
//!
//! dsh-kit-macros checks the same rules at compile time and keeps its own copy
//! (a proc-macro crate cannot depend on this one); the tests below hold the
//! two equal through its hidden `__shared_rules!`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// RAWP-DPS tool categories, as the catalog publishes them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Category {
    /// File system operations: read, write, edit, glob, list.
    Filesystem,
    /// Shell command execution.
    Shell,
    /// Search: grep, web search.
    Search,
    /// Web content access.
    Web,
    /// Notebook operations.
    Notebook,
    /// Task and TODO management.
    TaskManagement,
    /// Delegation to a sub-agent.
    Agent,
    /// Plan mode: entering and leaving it.
    Planning,
    /// A tool proxied from an MCP server.
    Mcp,
    /// A user-defined tool.
    Custom,
}

/// RAWP-DPS `output_type`: how a receiver should read a result.
///
/// The default is `text`, the spec's fallback.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum OutputType {
    /// Plain text.
    #[default]
    Text,
    /// A JSON structure.
    Structured,
    /// A file's content.
    FileContent,
    /// A list of file paths.
    FileList,
    /// A change as a diff.
    Diff,
    /// A web page or search results.
    WebContent,
    /// No output: side effects only.
    Empty,
    /// A reference to binary data.
    BinaryRef,
    /// A sub-agent's result.
    AgentResult,
}

impl Category {
    /// The second step of the `output_type` rule: this category's default
    /// for a tool that reads (`read_only`) or writes, given the call's
    /// canonical value; `None` where the table has no row.
    pub(crate) fn default_output_type(
        self,
        read_only: bool,
        value: Option<&Value>,
    ) -> Option<OutputType> {
        let is_list = value.is_some_and(is_string_list);
        Some(match self {
            Category::Filesystem | Category::Notebook if read_only && is_list => {
                OutputType::FileList
            }
            // A notebook is JSON, its content whatever it holds; a file's
            // content is text, and a structure read from files is one.
            Category::Notebook if read_only => OutputType::FileContent,
            Category::Filesystem if read_only => match value {
                Some(Value::String(_)) | None => OutputType::FileContent,
                Some(_) => OutputType::Structured,
            },
            Category::Filesystem | Category::Notebook if value.is_none_or(is_empty) => {
                OutputType::Empty
            }
            // A change is a diff when it reads as one; a message about it
            // (`deleted a.txt`) is text, and a report of it a structure.
            Category::Filesystem | Category::Notebook => match value {
                Some(Value::String(text)) if !is_diff(text) => OutputType::Text,
                Some(Value::String(_)) | None => OutputType::Diff,
                Some(_) => OutputType::Structured,
            },
            Category::Shell => OutputType::Text,
            Category::Search if is_list => OutputType::FileList,
            Category::Search => OutputType::Text,
            Category::Web => OutputType::WebContent,
            Category::TaskManagement => OutputType::Structured,
            Category::Agent => OutputType::AgentResult,
            Category::Planning | Category::Mcp | Category::Custom => return None,
        })
    }
}

/// Whether `text` reads as a diff: a unified diff's headers or hunks, or
/// only lines that add, remove or keep (`+`, `-`, ` `).
fn is_diff(text: &str) -> bool {
    let mut lines = text.lines().filter(|line| !line.is_empty()).peekable();
    if lines.peek().is_none() {
        return false;
    }
    let mut changes = false;
    for line in lines {
        if line.starts_with("@@ ") || line.starts_with("diff ") || line.starts_with("+++ ") {
            return true;
        }
        match line.as_bytes()[0] {
            b'+' | b'-' => changes = true,
            b' ' | b'\\' => {}
            _ => return false,
        }
    }
    changes
}

fn is_string_list(value: &Value) -> bool {
    matches!(value, Value::Array(items) if items.iter().all(Value::is_string))
}

fn is_empty(value: &Value) -> bool {
    match value {
        Value::Null | Value::Bool(false) => true,
        Value::String(text) => text.is_empty(),
        Value::Array(items) => items.is_empty(),
        Value::Object(fields) => fields.is_empty(),
        Value::Bool(true) | Value::Number(_) => false,
    }
}

/// The rule a tool name or alias follows, for messages.
pub(crate) const TOOL_NAME_RULE: &str = "1 to 64 characters of `a-z`, `A-Z`, `0-9`, `_` or `-`";

/// Whether `name` matches `^[a-zA-Z0-9_-]{1,64}$`, what every model provider accepts.
pub(crate) fn is_valid_tool_name(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name
            .bytes()
            .all(|byte| byte.is_ascii_alphanumeric() || byte == b'_' || byte == b'-')
}

/// The rule an OAuth scope follows, for messages.
pub(crate) const SCOPE_RULE: &str = "one or more printable ASCII characters other than a space, `\"` or `\\` (RFC 6749's scope-token)";

/// Whether `scope` is an RFC 6749 (section 3.3) scope-token:
/// `1*( %x21 / %x23-5B / %x5D-7E )`.
pub(crate) fn is_scope_token(scope: &str) -> bool {
    !scope.is_empty()
        && scope
            .bytes()
            .all(|byte| matches!(byte, 0x21 | 0x23..=0x5B | 0x5D..=0x7E))
}

/// What is wrong with `key` as a key of a tool's own `_meta`, by MCP's rule
/// (an optional prefix of dot-separated labels and a `/`, then a name), with
/// the prefixes MCP keeps for itself and dsh-kit's own `dsh/` refused; `None`
/// for a good key.
pub(crate) fn meta_key_problem(key: &str) -> Option<&'static str> {
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
        if key.starts_with(crate::value::wire_keys::PREFIX) {
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
pub(crate) const HEADER_NAME_RULE: &str = "one or more of `a-z`, `A-Z`, `0-9` and ``!#$%&'*+-.^_`|~`` (an HTTP field-name token, RFC 9110)";

/// Whether `name` can follow `Mcp-Param-` in an HTTP header name: an RFC
/// 9110 (section 5.6.2) token, `1*tchar`.
pub(crate) fn is_header_name(name: &str) -> bool {
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
pub(crate) fn is_icon_src(src: &str) -> bool {
    src.split_once(':').is_some_and(|(scheme, _)| {
        scheme.eq_ignore_ascii_case("https") || scheme.eq_ignore_ascii_case("data")
    })
}

#[cfg(test)]
mod tests {
    use schemars::JsonSchema;
    use serde::de::DeserializeOwned;
    use serde_json::Value;

    use super::{
        HEADER_NAME_RULE, SCOPE_RULE, TOOL_NAME_RULE, is_header_name, is_icon_src, is_scope_token,
        is_valid_tool_name, meta_key_problem,
    };
    use crate::{Category, OutputType};
    use serde_json::json;

    use super::{is_empty, is_string_list};

    #[test]
    fn empty_values_are_the_spec_s_no_change() {
        for empty in [json!(null), json!(false), json!(""), json!([]), json!({})] {
            assert!(is_empty(&empty), "{empty}");
        }
        for full in [
            json!(true),
            json!(0),
            json!("x"),
            json!([1]),
            json!({ "a": 1 }),
        ] {
            assert!(!is_empty(&full), "{full}");
        }
    }

    #[test]
    fn a_list_is_strings_only() {
        assert!(is_string_list(&json!([])));
        assert!(is_string_list(&json!(["a", "b"])));
        assert!(!is_string_list(&json!(["a", 1])));
        assert!(!is_string_list(&json!({ "files": ["a"] })));
    }

    /// Asserts the macros' `rule` and the runtime's `check` say the same of
    /// each input.
    macro_rules! agree {
        ($rule:ident, $check:path: $($input:literal),* $(,)?) => {{
            let macros = dsh_kit_macros::__shared_rules!($rule $($input),*);
            let runtime = [$($check($input)),*];
            assert_eq!(macros, runtime, "{:?}", [$($input),*]);
        }};
    }

    #[test]
    fn the_macros_accept_the_same_icon_uris() {
        agree!(
            icon_srcs,
            is_icon_src:
            "https://example.com/a.svg",
            "HTTPS://example.com/a.png",
            "data:image/png;base64,AA==",
            "Data:,x",
            "http://example.com/a.svg",
            "file:///etc/passwd",
            "javascript:alert(1)",
            "a.png",
            "",
            ":",
        );
        assert!(
            is_icon_src("https://example.com/a.svg") && !is_icon_src("http://example.com/a.svg")
        );
    }

    #[test]
    fn the_macros_accept_the_same_scopes() {
        agree!(
            scope_tokens,
            is_scope_token:
            "files:write",
            "a",
            "https://api.example.com/read",
            "!#[]~",
            "",
            "files write",
            "say\"hi\"",
            "back\\slash",
            "tab\t",
            "é",
            "\u{7f}",
        );
        assert_eq!(dsh_kit_macros::__shared_rules!(scope_rule), SCOPE_RULE);
    }

    #[test]
    fn the_macros_take_the_same_meta_keys() {
        agree!(
            meta_keys,
            meta_key_problem:
            "owner",
            "com.example/owner",
            "com.example-2.api/tier_1.v2",
            "x",
            "",
            "/owner",
            "com.example/",
            "io.modelcontextprotocol/ui",
            "dev.mcp/x",
            "dsh/version",
            "dsh.example/ok",
            "1com/x",
            "com-/x",
            "com..example/x",
            "-owner",
            "owner-",
            "own er",
            "a/b/c",
            "é",
        );
        assert_eq!(meta_key_problem("com.example/owner"), None);
        assert!(meta_key_problem("io.modelcontextprotocol/ui").is_some());
        assert!(meta_key_problem("dsh/version").is_some());
    }

    #[test]
    fn the_macros_accept_the_same_header_names() {
        agree!(
            header_names,
            is_header_name:
            "Region",
            "x-tenant_id.2",
            "!#$%&'*+-.^_`|~",
            "",
            "Two Words",
            "a:b",
            "tab\t",
            "line\n",
            "(paren)",
            "\"quoted\"",
            "é",
        );
        assert_eq!(
            dsh_kit_macros::__shared_rules!(header_name_rule),
            HEADER_NAME_RULE
        );
        assert!(is_header_name("Region") && !is_header_name("Two Words"));
    }

    #[test]
    fn the_macros_state_the_tool_name_rule_alike() {
        assert_eq!(
            dsh_kit_macros::__shared_rules!(tool_name_rule),
            TOOL_NAME_RULE
        );
    }

    #[test]
    fn the_macros_accept_the_same_tool_names() {
        agree!(
            valid_tool_names,
            is_valid_tool_name:
            "read_file",
            "Read-File-2",
            "x",
            "_",
            "-",
            "0",
            "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
            "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
            "",
            "read file",
            "read.file",
            "read:file",
            "café",
            "a/b",
            "tab\t",
            "ünïcödé",
        );
        assert!(is_valid_tool_name("read_file") && !is_valid_tool_name("read file"));
    }

    /// Every spelling the runtime's enum publishes, by its JSON schema.
    fn published<T: JsonSchema>() -> Vec<String> {
        let schema = serde_json::to_value(schemars::schema_for!(T)).expect("a schema is JSON");
        let mut spellings = Vec::new();
        collect_strings(&schema, &mut spellings);
        spellings.sort();
        spellings
    }

    /// The `const` and `enum` strings anywhere in `schema`.
    fn collect_strings(schema: &Value, into: &mut Vec<String>) {
        match schema {
            Value::Object(map) => {
                for (key, value) in map {
                    match (key.as_str(), value) {
                        ("const", Value::String(spelling)) => into.push(spelling.clone()),
                        ("enum", Value::Array(spellings)) => into.extend(
                            spellings
                                .iter()
                                .filter_map(Value::as_str)
                                .map(str::to_owned),
                        ),
                        _ => collect_strings(value, into),
                    }
                }
            }
            Value::Array(items) => items.iter().for_each(|item| collect_strings(item, into)),
            _ => {}
        }
    }

    /// The macros spell each variant as serde does, and know every variant.
    fn spelt_alike<T>(macros: &[(&str, &str)])
    where
        T: JsonSchema + DeserializeOwned + std::fmt::Debug,
    {
        for (spelling, variant) in macros {
            let parsed: T = serde_json::from_value(Value::from(*spelling))
                .unwrap_or_else(|error| panic!("`{spelling}` is no variant: {error}"));
            assert_eq!(format!("{parsed:?}"), *variant, "`{spelling}`");
        }
        let mut spellings: Vec<String> = macros.iter().map(|(s, _)| (*s).to_owned()).collect();
        spellings.sort();
        assert_eq!(spellings, published::<T>());
    }

    #[test]
    fn the_macros_spell_categories_as_the_runtime_does() {
        spelt_alike::<Category>(&dsh_kit_macros::__shared_rules!(categories));
    }

    #[test]
    fn the_macros_spell_output_types_as_the_runtime_does() {
        spelt_alike::<OutputType>(&dsh_kit_macros::__shared_rules!(output_types));
    }
}
