//! What a failed check says: where in the value, where in the schema, which
//! keyword, and a sentence for the model.

use std::fmt::{self, Write as _};

use serde_json::Value;

/// One way a value breaks its schema, as the validator found it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ValidationError {
    /// The JSON Pointer of the offending value (`""` for the root).
    pub(crate) instance_path: String,
    /// The JSON Pointer of the failing keyword in the schema document, as it
    /// is written there (a `$ref` is not part of it).
    pub(crate) schema_path: String,
    /// Which keyword failed, with what it needs to be told apart.
    pub(crate) kind: ErrorKind,
    /// The sentence: `-1 is less than the minimum of 0`.
    pub(crate) message: String,
}

impl fmt::Display for ValidationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

/// The keywords a caller tells apart; every other failure is `Other`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum ErrorKind {
    /// A property `required` names is missing.
    Required {
        /// The missing property's name.
        property: String,
    },
    /// `additionalProperties: false` met properties the schema does not name.
    AdditionalProperties {
        /// The names of those properties, in the value's order.
        unexpected: Vec<String>,
    },
    /// Any other keyword.
    Other,
}

/// The sentence for a value that is not of `types`, written as
/// `3 is not of type "object"` or `"x" is not of types "null", "integer"`.
pub(crate) fn not_of_types(value: &Value, types: &[&str]) -> String {
    if let [only] = types {
        return format!(r#"{value} is not of type "{only}""#);
    }
    let mut text = format!("{value} is not of types ");
    for (at, kind) in types.iter().enumerate() {
        if at > 0 {
            text.push_str(", ");
        }
        let _ = write!(text, r#""{kind}""#);
    }
    text
}

/// `"x" is not one of "a", "b" or "c"`; past three options, the first two
/// and how many others.
pub(crate) fn not_one_of(value: &Value, options: &[Value]) -> String {
    let mut text = format!("{value} is not one of ");
    if options.len() <= 3 {
        for (at, option) in options.iter().enumerate() {
            let separator = match at {
                0 => "",
                _ if at + 1 == options.len() => " or ",
                _ => ", ",
            };
            let _ = write!(text, "{separator}{option}");
        }
    } else {
        let _ = write!(
            text,
            "{}, {} or {} other candidates",
            options[0],
            options[1],
            options.len() - 2
        );
    }
    text
}

/// `'a', 'b'` and `was`/`were` for a list of unexpected names.
pub(crate) fn unexpected(lead: &str, names: &[String]) -> String {
    let mut text = format!("{lead} are not allowed (");
    for (at, name) in names.iter().enumerate() {
        if at > 0 {
            text.push_str(", ");
        }
        let _ = write!(text, "'{name}'");
    }
    text.push_str(if names.len() == 1 {
        " was unexpected)"
    } else {
        " were unexpected)"
    });
    text
}

/// `limit` and its noun, singular for one: `1 item`, `2 items`.
pub(crate) fn counted(limit: u64, one: &str, many: &str) -> String {
    format!("{limit} {}", if limit == 1 { one } else { many })
}
