//! What each provider's schema dialect keeps, as its documentation lists it,
//! and the pass that keeps only that ([`keep_keywords`]).

use serde_json::{Value, json};

use super::Note;
use super::NoteKind;
use super::shape::{describe, show};
use super::walk::walk_objects;

/// What one provider's schema dialect keeps, as its documentation lists it.
///
/// [`keep_keywords`] keeps these keywords and moves every other constraint
/// into the description.
#[derive(Clone, Copy, Debug)]
pub(super) struct Dialect {
    /// The keywords kept as they are (subject to the value rules below), in
    /// groups the dialects share.
    pub keywords: &'static [&'static [&'static str]],
    /// The `format` values kept.
    pub formats: Formats,
    /// The `enum` and `const` values kept.
    pub literals: Literals,
    /// The largest `minItems` taken; a larger one is lowered to this, and
    /// moved into the description.
    pub max_min_items: Option<u64>,
    /// Whether `pattern` must avoid backreferences, lookaround, word
    /// boundaries and large `{n,m}` repeats.
    pub simple_patterns: bool,
}

/// The `format` values a [`Dialect`] keeps.
#[derive(Clone, Copy, Debug)]
pub(super) enum Formats {
    /// Any format.
    Any,
    /// Only these; other string formats move into the description, other
    /// numeric formats (`int32`, `uint8`, `double`: annotations no validator
    /// asserts) are dropped.
    Only(&'static [&'static [&'static str]]),
}

/// The `enum` and `const` values a [`Dialect`] keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Literals {
    /// Any JSON value.
    Any,
    /// Strings, numbers, booleans and `null`.
    Primitives,
    /// Strings and numbers.
    StringsAndNumbers,
    /// Strings only.
    Strings,
}

/// OpenAI strict mode, from "Supported schemas": the supported types, `anyOf`,
/// `$defs`/`$ref`, `enum`/`const`, and the supported string, number and array
/// properties. `minLength`, `maxLength`, `uniqueItems`, `prefixItems`,
/// `patternProperties`, `not`, `if`/`then`/`else`, … are not among them.
pub(super) const OPENAI_STRICT: Dialect = Dialect {
    keywords: &[
        STRICT_STRUCTURE,
        &[
            "title",
            "pattern",
            "format",
            "multipleOf",
            "maximum",
            "exclusiveMaximum",
            "minimum",
            "exclusiveMinimum",
            "minItems",
            "maxItems",
        ],
    ],
    formats: Formats::Only(&[STRICT_FORMATS]),
    literals: Literals::Any,
    max_min_items: None,
    simple_patterns: false,
};

/// Anthropic strict tool use, from "JSON Schema limitations": basic types,
/// primitive `enum`s, `const`, `anyOf`, local `$ref`s, `default`, `required`,
/// `additionalProperties: false`, ten string formats, `minItems` of 0 or 1,
/// simple regexes. No numeric or string-length constraints, no `maxItems`.
pub(super) const ANTHROPIC_STRICT: Dialect = Dialect {
    keywords: &[
        STRICT_STRUCTURE,
        &["default", "format", "pattern", "minItems"],
    ],
    formats: Formats::Only(&[STRICT_FORMATS, &["uri"]]),
    literals: Literals::Primitives,
    max_min_items: Some(1),
    simple_patterns: true,
};

/// What both strict modes take: object, array and alternative structure,
/// literals and local references.
const STRICT_STRUCTURE: &[&str] = &[
    "type",
    "description",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "anyOf",
    "enum",
    "const",
    "$ref",
    "$defs",
    "definitions",
];

/// The string formats both strict modes take.
const STRICT_FORMATS: &[&str] = &[
    "date-time",
    "time",
    "date",
    "duration",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "uuid",
];

/// Gemini `parametersJsonSchema`: the properties its reference lists as
/// supported (`$id`, `$defs`, `$ref`, `$anchor`, `type`, `format`, `title`,
/// `description`, `enum` of strings and numbers, `items`, `prefixItems`,
/// `minItems`, `maxItems`, `minimum`, `maximum`, `anyOf`, `properties`,
/// `additionalProperties`, `required`, and the non-standard `propertyOrdering`).
pub(super) const GEMINI_JSON: Dialect = Dialect {
    keywords: &[&[
        "$id",
        "$defs",
        "$ref",
        "$anchor",
        "type",
        "format",
        "title",
        "description",
        "enum",
        "items",
        "prefixItems",
        "minItems",
        "maxItems",
        "minimum",
        "maximum",
        "anyOf",
        "properties",
        "additionalProperties",
        "required",
        "propertyOrdering",
    ]],
    formats: Formats::Any,
    literals: Literals::StringsAndNumbers,
    max_min_items: None,
    simple_patterns: false,
};

/// Gemini `parameters`: the fields of its `Schema` object, "a select subset of
/// an OpenAPI 3.0 schema object", with string-only enums and the formats it
/// documents (`float`/`double`, `int32`/`int64`, `enum`/`date-time`). `$ref` and
/// `$defs` are kept here only for the inlining pass, which removes them.
pub(super) const GEMINI_OPENAPI: Dialect = Dialect {
    keywords: &[&[
        "type",
        "format",
        "title",
        "description",
        "nullable",
        "enum",
        "maxItems",
        "minItems",
        "properties",
        "required",
        "minProperties",
        "maxProperties",
        "minLength",
        "maxLength",
        "pattern",
        "example",
        "anyOf",
        "propertyOrdering",
        "default",
        "items",
        "minimum",
        "maximum",
        "$ref",
        "$defs",
        "definitions",
    ]],
    formats: Formats::Only(&[&["float", "double", "int32", "int64", "enum", "date-time"]]),
    literals: Literals::Strings,
    max_min_items: None,
    simple_patterns: false,
};

/// Keywords that constrain instances in JSON Schema 2020-12 (and the drafts
/// before it): dropping one loses something, so it moves into the
/// description with a note. Anything else is an annotation or unknown, and
/// constrains nothing.
pub(super) const CONSTRAINTS: &[&str] = &[
    "type",
    "enum",
    "const",
    "multipleOf",
    "maximum",
    "exclusiveMaximum",
    "minimum",
    "exclusiveMinimum",
    "maxLength",
    "minLength",
    "pattern",
    "maxItems",
    "minItems",
    "uniqueItems",
    "maxContains",
    "minContains",
    "maxProperties",
    "minProperties",
    "required",
    "dependentRequired",
    "dependencies",
    "format",
    "properties",
    "patternProperties",
    "additionalProperties",
    "propertyNames",
    "items",
    "prefixItems",
    "additionalItems",
    "contains",
    "unevaluatedItems",
    "unevaluatedProperties",
    "allOf",
    "anyOf",
    "oneOf",
    "not",
    "if",
    "then",
    "else",
    "dependentSchemas",
    "$ref",
    "$dynamicRef",
    "$recursiveRef",
];

/// Annotations worth keeping for the model where a dialect drops them.
pub(super) const DESCRIBED_ANNOTATIONS: &[&str] = &["default", "examples"];

/// The numeric `format`s `schemars` writes; no validator asserts them.
pub(super) const NUMERIC_FORMATS: &[&str] = &[
    "int", "int8", "int16", "int32", "int64", "int128", "uint", "uint8", "uint16", "uint32",
    "uint64", "uint128", "float", "double",
];

/// The largest `{n,m}` bound taken as a "simple" repeat where Anthropic asks
/// for simple regexes; its docs only say large ranges may be refused.
pub(super) const MAX_SIMPLE_REPEAT: u64 = 100;

pub(super) enum Verdict {
    Keep,
    Drop,
    Describe { note: bool },
    Lower(Value),
}

impl Dialect {
    fn verdict(&self, key: &str, value: &Value) -> Verdict {
        if !listed(self.keywords, key) {
            return if DESCRIBED_ANNOTATIONS.contains(&key) {
                Verdict::Describe { note: false }
            } else if CONSTRAINTS.contains(&key) {
                Verdict::Describe { note: true }
            } else {
                Verdict::Drop
            };
        }
        match key {
            "format" => match (value, self.formats) {
                (Value::String(_), Formats::Any) => Verdict::Keep,
                (Value::String(format), Formats::Only(kept)) if listed(kept, format) => {
                    Verdict::Keep
                }
                (Value::String(format), Formats::Only(_))
                    if NUMERIC_FORMATS.contains(&format.as_str()) =>
                {
                    Verdict::Drop
                }
                (Value::String(_), Formats::Only(_)) => Verdict::Describe { note: true },
                _ => Verdict::Drop,
            },
            "enum" => match value {
                Value::Array(values) if values.iter().all(|v| self.literals.allows(v)) => {
                    Verdict::Keep
                }
                Value::Array(_) => Verdict::Describe { note: true },
                _ => Verdict::Drop,
            },
            "const" if !self.literals.allows(value) => Verdict::Describe { note: true },
            "minItems" => match (self.max_min_items, value.as_u64()) {
                (Some(max), Some(n)) if n > max => Verdict::Lower(Value::from(max)),
                _ => Verdict::Keep,
            },
            "pattern" if self.simple_patterns && !value.as_str().is_some_and(is_simple_pattern) => {
                Verdict::Describe { note: true }
            }
            _ => Verdict::Keep,
        }
    }
}

impl Literals {
    fn allows(self, value: &Value) -> bool {
        match self {
            Literals::Any => true,
            Literals::Primitives => !value.is_array() && !value.is_object(),
            Literals::StringsAndNumbers => value.is_string() || value.is_number(),
            Literals::Strings => value.is_string(),
        }
    }
}

/// Whether one of `groups` lists `name`.
fn listed(groups: &[&[&str]], name: &str) -> bool {
    groups.iter().any(|group| group.contains(&name))
}

/// Whether `pattern` stays within what Anthropic documents for strict mode:
/// no backreferences, lookahead or lookbehind, word boundaries, or large
/// `{n,m}` repeats.
pub(super) fn is_simple_pattern(pattern: &str) -> bool {
    let bytes = pattern.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => {
                if let Some(b'1'..=b'9' | b'b' | b'B' | b'k') = bytes.get(i + 1) {
                    return false;
                }
                i += 2;
                continue;
            }
            b'(' if bytes.get(i + 1) == Some(&b'?') => {
                let rest = &bytes[i + 2..];
                if rest.starts_with(b"=")
                    || rest.starts_with(b"!")
                    || rest.starts_with(b"<=")
                    || rest.starts_with(b"<!")
                {
                    return false;
                }
            }
            b'{' => {
                let end = bytes[i..]
                    .iter()
                    .position(|&b| b == b'}')
                    .map(|end| i + end);
                if let Some(end) = end {
                    let inner = &pattern[i + 1..end];
                    let bounds: Vec<&str> = inner.split(',').collect();
                    let numeric = !inner.is_empty()
                        && bounds.len() <= 2
                        && bounds.iter().all(|b| b.bytes().all(|c| c.is_ascii_digit()));
                    if numeric
                        && bounds
                            .iter()
                            .filter_map(|b| b.parse::<u64>().ok())
                            .any(|n| n > MAX_SIMPLE_REPEAT)
                    {
                        return false;
                    }
                }
            }
            _ => {}
        }
        i += 1;
    }
    true
}

/// Keeps the keywords `dialect` lists and moves every other constraint into
/// the description (`minLength: 1`), with a note; `default` and `examples`
/// move too, without one (they constrain nothing); other annotations and
/// unknown keywords go. Value rules: unsupported `format`s and `enum`/`const`
/// values move; `minItems` is lowered to what the dialect takes; complex
/// regexes move where the dialect asks for simple ones.
//
// `format` is not left to schemars' `RestrictFormats` here: that drops what
// it does not keep, where a string format a dialect lacks must move into the
// description for the model to read. (The export runs `RestrictFormats`
// first, for the formats JSON Schema does not define.)
pub(super) fn keep_keywords(schema: &mut Value, dialect: &Dialect, notes: &mut Vec<Note>) {
    walk_objects(schema, &mut |map, at| {
        if map.get("description").is_some_and(|d| !d.is_string()) {
            map.remove("description");
        }
        let mut keys: Vec<String> = map.keys().cloned().collect();
        keys.sort();
        let mut lines = Vec::new();
        for key in keys {
            if key == "description" {
                continue;
            }
            let Some(value) = map.get(&key) else { continue };
            match dialect.verdict(&key, value) {
                Verdict::Keep => {}
                Verdict::Drop => {
                    map.remove(&key);
                }
                Verdict::Describe { note } => {
                    if let Some(value) = map.remove(&key) {
                        lines.push(show(&key, &value));
                    }
                    if note {
                        notes.push(Note::new(
                            at,
                            NoteKind::Described,
                            format!("`{key}` is not supported: moved into the description"),
                        ));
                    }
                }
                Verdict::Lower(lowered) => {
                    if let Some(value) = map.insert(key.clone(), lowered.clone()) {
                        lines.push(show(&key, &value));
                    }
                    notes.push(Note::new(
                        at,
                        NoteKind::Described,
                        format!("`{key}` above {lowered} is not supported: lowered, and the bound moved into the description"),
                    ));
                }
            }
        }
        if dialect.literals == Literals::Strings
            && !map.contains_key("type")
            && map
                .get("enum")
                .and_then(Value::as_array)
                .is_some_and(|values| values.iter().all(Value::is_string))
        {
            map.insert("type".into(), json!("string"));
        }
        describe(map, lines);
    });
}
