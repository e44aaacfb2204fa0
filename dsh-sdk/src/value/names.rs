//! The names of things: what a tool may be called, the RAWP-DPS
//! [`Category`] and [`OutputType`] (and the names `#[tool(category = "…",
//! output_type = "…")]` gives their variants), and the default output type
//! of each category.
//!
//! The rules themselves live in `dsh-kit-rules`, which dsh-kit-macros reads
//! too (a proc-macro crate cannot depend on this one): one copy, checked at
//! compile time and at run time alike.

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

// What a tool, a header, a scope and a `_meta` key may be called: the one
// copy of the rules, which dsh-kit-macros checks at compile time too.
pub(crate) use dsh_kit_rules::names::{
    HEADER_NAME_RULE, SCOPE_RULE, TOOL_NAME_RULE, is_header_name, is_icon_src, is_scope_token,
    is_valid_tool_name, meta_key_problem,
};

#[cfg(test)]
mod tests {
    use schemars::JsonSchema;
    use serde::de::DeserializeOwned;
    use serde_json::Value;

    use super::{is_header_name, is_icon_src, is_valid_tool_name, meta_key_problem};
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

    #[test]
    fn icon_uris_are_https_or_data() {
        assert!(
            is_icon_src("https://example.com/a.svg") && !is_icon_src("http://example.com/a.svg")
        );
    }

    #[test]
    fn meta_keys_follow_mcp_and_leave_dsh_to_dsh_kit() {
        assert_eq!(meta_key_problem("com.example/owner"), None);
        assert!(meta_key_problem("io.modelcontextprotocol/ui").is_some());
        assert!(meta_key_problem("dsh/version").is_some());
    }

    #[test]
    fn header_names_are_field_name_tokens() {
        assert!(is_header_name("Region") && !is_header_name("Two Words"));
    }

    #[test]
    fn tool_names_are_what_every_provider_accepts() {
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
        spelt_alike::<Category>(dsh_kit_rules::names::CATEGORIES);
    }

    #[test]
    fn the_macros_spell_output_types_as_the_runtime_does() {
        spelt_alike::<OutputType>(dsh_kit_rules::names::OUTPUT_TYPES);
    }
}
