//! What a tool may be called, and the names `#[tool(category = "…",
//! output_type = "…")]` gives the [`Category`](crate::Category) and
//! [`OutputType`](crate::OutputType) variants.
//!
//! dsh-macros checks the same rules at compile time and keeps its own copy
//! (a proc-macro crate cannot depend on this one); the tests below hold the
//! two equal through its hidden `__shared_rules!`.

/// The rule a tool name or alias follows, for messages.
pub(crate) const TOOL_NAME_RULE: &str = "1 to 64 characters of `a-z`, `A-Z`, `0-9`, `_` or `-`";

/// Whether `name` matches `^[a-zA-Z0-9_-]{1,64}$`, what every model provider accepts.
pub(crate) fn is_valid_tool_name(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name
            .bytes()
            .all(|byte| byte.is_ascii_alphanumeric() || byte == b'_' || byte == b'-')
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

    use super::{TOOL_NAME_RULE, is_icon_src, is_valid_tool_name};
    use crate::{Category, OutputType};

    /// Asserts the macros' `rule` and the runtime's `check` say the same of
    /// each input.
    macro_rules! agree {
        ($rule:ident, $check:path: $($input:literal),* $(,)?) => {{
            let macros = dsh_macros::__shared_rules!($rule $($input),*);
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
    fn the_macros_state_the_tool_name_rule_alike() {
        assert_eq!(dsh_macros::__shared_rules!(tool_name_rule), TOOL_NAME_RULE);
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
        spelt_alike::<Category>(&dsh_macros::__shared_rules!(categories));
    }

    #[test]
    fn the_macros_spell_output_types_as_the_runtime_does() {
        spelt_alike::<OutputType>(&dsh_macros::__shared_rules!(output_types));
    }
}
