//! Provider schema lowering: one canonical schema per tool, rewritten into
//! the dialect each provider takes.
//!
//! ```
//! use dsh_sdk::lower;
//! use serde_json::json;
//!
//! let canonical = json!({
//!     "type": "object",
//!     "properties": {
//!         "name": { "type": "string", "minLength": 1 },
//!         "limit": { "type": ["integer", "null"], "minimum": 0 }
//!     },
//!     "required": ["name"]
//! });
//! let lowered = lower::openai_strict(&canonical);
//! assert_eq!(
//!     lowered.schema,
//!     json!({
//!         "type": "object",
//!         "properties": {
//!             "name": { "type": "string", "description": "minLength: 1" },
//!             "limit": { "type": ["integer", "null"], "minimum": 0 }
//!         },
//!         "required": ["name", "limit"],
//!         "additionalProperties": false
//!     })
//! );
//! assert!(!lowered.strict_compatible());
//! assert_eq!(
//!     lowered.notes[0].to_string(),
//!     "/properties/name: `minLength` is not supported: moved into the description"
//! );
//! ```
//!
//! Every tool keeps one canonical schema, the JSON Schema 2020-12 that
//! `schemars` derives ([`ToolInfo::input_schema`]), and arguments are always
//! validated against it, never against a lowered copy. A lowered schema is
//! what the model reads; the canonical one is what the tool gets.
//!
//! Each dialect is reached by composing small passes, each a plain function
//! over a [`serde_json::Value`] that reports what it could not keep as
//! [`Note`]s:
//!
//! | provider | function | what it does |
//! |---|---|---|
//! | OpenAI strict mode | [`openai_strict`] | closes every object, requires every property, keeps only the keywords strict mode takes, `oneOf` → `anyOf`, wraps `$ref` siblings, checks the size limits |
//! | Anthropic | [`anthropic`] | the schema as it is, minus root `anyOf`/`oneOf`/`allOf`, which the API refuses |
//! | Anthropic strict tool use | [`anthropic_strict`] | like OpenAI, plus no recursion (inlined, cut at [`RECURSION_DEPTH`]) and only simple regexes |
//! | Gemini `parametersJsonSchema` | [`gemini`] | the JSON Schema subset Gemini reads: no `const`, `oneOf` or `allOf`, recursion only through optional properties |
//! | Gemini `parameters` | [`gemini_openapi`] | the OpenAPI 3.0 subset: upper-case single types with `nullable`, no `$ref`, `additionalProperties` or `const` |
//!
//! Where a dialect cannot say a constraint, the pass moves it into the
//! schema's `description` (`pattern: ^[a-z]+$`, `minimum: 1`) and notes it:
//! the model still reads the rule, and the canonical validation still
//! enforces it. A [`Lowered`] schema with no notes is *strict-compatible*:
//! whatever the provider's strict decoding lets through passes the
//! canonical schema too. Lowering is total: any JSON value goes in, and a
//! schema in the dialect comes out, with notes for what did not fit.
//!
//! The published constraint lists these passes follow:
//!
//! - OpenAI, *Structured model outputs* guide, "Supported schemas" (supported
//!   types and properties, "Root objects must not be `anyOf`", "All fields must
//!   be `required`", "Objects have limitations on nesting depth and size",
//!   "`additionalProperties: false` must always be set in objects", "Some
//!   type-specific keywords are not yet supported"). `$ref` with sibling
//!   keywords is refused, as OpenAI's own SDK (`to_strict_json_schema`) notes.
//! - Anthropic, *Structured outputs*, "JSON Schema limitations" (shared by
//!   strict tool use) and its schema complexity limits (24 optional and 16
//!   union-typed parameters across the strict tools of a request); the
//!   Messages API refuses `anyOf`, `oneOf` and `allOf` at the root of any
//!   `input_schema`.
//! - Google, Gemini API reference: `FunctionDeclaration.parametersJsonSchema`
//!   and `responseJsonSchema` (the supported JSON Schema keywords, `$ref`
//!   siblings, recursion) and `Schema` ("a select subset of an OpenAPI 3.0
//!   schema object", whose `Type` values are upper case).
//!
//! [`ToolInfo::input_schema`]: crate::ToolInfo::input_schema

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt;

use serde_json::{Map, Value, json};

use crate::export::Format;
use crate::pointer::escape;
use crate::registry::{Registry, ToolInfo};

type Object = Map<String, Value>;

/// A pass: rewrites a schema in place and notes what it could not keep.
type Pass = fn(&mut Value, &mut Vec<Note>);

/// How many times one definition may nest inside itself where recursion has
/// to be inlined (Gemini `parameters`, Anthropic strict); deeper, it is cut.
pub const RECURSION_DEPTH: usize = 3;

/// At most this many `$ref`s are inlined into one schema, so a schema whose
/// definitions share much cannot blow up; past it, references are cut.
const MAX_INLINED: usize = 1_000;

/// A schema lowered into one provider's dialect, with what it lost.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lowered {
    /// The schema in the provider's dialect.
    pub schema: Value,
    /// What the lowered schema says less than, or refuses beyond, the
    /// canonical one, sorted by pointer. Empty when nothing was lost.
    pub notes: Vec<Note>,
}

impl Lowered {
    /// Whether nothing was lost: any arguments the provider's strict decoding
    /// lets through pass the canonical schema too.
    pub fn strict_compatible(&self) -> bool {
        self.notes.is_empty()
    }

    /// Whether the provider's strict mode can take this schema without
    /// keeping the model from valid arguments: true unless a note narrowed
    /// the schema or broke a documented limit. Constraints that were only
    /// moved into descriptions do not count: the canonical validation still
    /// enforces them, and the model reads them.
    pub fn strict_usable(&self) -> bool {
        !self.notes.iter().any(Note::blocks_strict)
    }

    fn run(schema: &Value, passes: &[Pass]) -> Lowered {
        let mut schema = schema.clone();
        let mut notes = Vec::new();
        for pass in passes {
            pass(&mut schema, &mut notes);
        }
        notes.sort();
        notes.dedup();
        Lowered { schema, notes }
    }
}

/// Why a lowered schema differs from the canonical one.
///
/// Displays as the pointer and the message:
///
/// ```text
/// /properties/name: `minLength` is not supported: moved into the description
/// ```
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Note {
    /// Where, as a JSON pointer into the schema as the pass saw it (`""` for
    /// the root). Passes that drop constraints run before those that inline
    /// or restructure, so it points into the canonical schema, give or take
    /// a `oneOf` already read as `anyOf`.
    pub pointer: String,
    /// What kind of loss it is.
    pub kind: NoteKind,
    /// What was lost and where it went, for a person.
    pub message: String,
}

/// What kind of loss a [`Note`] reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum NoteKind {
    /// A constraint the dialect cannot say moved into the description: the
    /// lowered schema lets more through, and the canonical validation
    /// refuses what it should.
    Described,
    /// The lowered schema refuses arguments the canonical one accepts: map
    /// values, recursion past [`RECURSION_DEPTH`], any-typed values.
    Narrowed,
    /// The schema breaks a limit the provider documents (size, nesting, a
    /// root that is not an object); its strict mode refuses it.
    Refused,
}

impl Note {
    fn new(pointer: &str, kind: NoteKind, message: impl Into<String>) -> Self {
        Note {
            pointer: pointer.to_owned(),
            kind,
            message: message.into(),
        }
    }

    /// Whether this loss keeps a strict mode from taking the schema as it is.
    pub fn blocks_strict(&self) -> bool {
        self.kind != NoteKind::Described
    }
}

impl fmt::Display for Note {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let pointer = if self.pointer.is_empty() {
            "/"
        } else {
            &self.pointer
        };
        write!(f, "{pointer}: {}", self.message)
    }
}

// ---------------------------------------------------------------------------
// Provider pipelines
// ---------------------------------------------------------------------------

/// Lowers `schema` for OpenAI's strict mode (`"strict": true` on a function).
///
/// Every object gets `additionalProperties: false` and lists every property in
/// `required` (optional properties that take `null` already keep it as their
/// "absent"); only the keywords of [`OPENAI_STRICT`] stay; `oneOf` becomes
/// `anyOf`; a `$ref` with siblings is wrapped into `anyOf: [{"$ref"}]`;
/// recursion stays as `$ref`s, which strict mode supports. The documented size
/// limits are checked ([`check_openai_limits`]).
pub fn openai_strict(schema: &Value) -> Lowered {
    Lowered::run(
        schema,
        &[
            normalize,
            hoist_root_combinators,
            merge_all_of,
            distribute_alternatives,
            unevaluated_to_additional,
            one_of_to_any_of,
            tuples_to_arrays,
            close_objects,
            require_all_properties,
            |schema, notes| keep_keywords(schema, &OPENAI_STRICT, notes),
            type_every_schema,
            wrap_ref_siblings,
            check_openai_limits,
        ],
    )
}

/// Lowers `schema` for Anthropic's `input_schema` without `strict`: the
/// schema as it is, except that `anyOf`, `oneOf` and `allOf` at the root, which
/// the Messages API refuses, are merged into the root's properties.
pub fn anthropic(schema: &Value) -> Lowered {
    Lowered::run(schema, &[hoist_root_combinators])
}

/// Lowers `schema` for Anthropic's strict tool use (`"strict": true`).
///
/// Objects are closed; optional properties that take `null` become required
/// (which spends the union budget rather than the optional one, and means the
/// same); only the keywords of [`ANTHROPIC_STRICT`] stay, with `minItems` above
/// 1 and regexes that use backreferences, lookaround or word boundaries moved
/// into the description; every `$ref` is inlined, recursion cut at
/// [`RECURSION_DEPTH`]. A tool over the documented complexity limits on its own
/// is noted ([`check_anthropic_limits`]).
pub fn anthropic_strict(schema: &Value) -> Lowered {
    Lowered::run(
        schema,
        &[
            normalize,
            hoist_root_combinators,
            merge_all_of,
            distribute_alternatives,
            unevaluated_to_additional,
            one_of_to_any_of,
            tuples_to_arrays,
            close_objects,
            require_nullable_properties,
            |schema, notes| keep_keywords(schema, &ANTHROPIC_STRICT, notes),
            type_every_schema,
            |schema, notes| inline_refs(schema, true, notes),
            flatten_any_of,
            check_anthropic_limits,
        ],
    )
}

/// Lowers `schema` for Gemini's `parametersJsonSchema`: the JSON Schema
/// keywords of [`GEMINI_JSON`], `const` as a one-value `enum`, `null` split out
/// of enums, `oneOf` as `anyOf`, `$ref` siblings wrapped, and recursion only
/// through optional properties, as Gemini unrolls it.
pub fn gemini(schema: &Value) -> Lowered {
    Lowered::run(
        schema,
        &[
            normalize,
            hoist_root_combinators,
            merge_all_of,
            distribute_alternatives,
            unevaluated_to_additional,
            one_of_to_any_of,
            const_to_enum,
            split_null_enums,
            unrequire_recursion,
            |schema, notes| keep_keywords(schema, &GEMINI_JSON, notes),
            wrap_ref_siblings,
        ],
    )
}

/// Lowers `schema` for Gemini's `parameters`, the OpenAPI 3.0 subset of
/// [`GEMINI_OPENAPI`]: no type arrays (`nullable: true` instead), no
/// `$ref`/`$defs` (inlined, recursion cut at [`RECURSION_DEPTH`]), no
/// `additionalProperties`, no `const` (a one-value `enum`), string-only enums,
/// and upper-case types as Gemini's `Type` lists them.
pub fn gemini_openapi(schema: &Value) -> Lowered {
    Lowered::run(
        schema,
        &[
            normalize,
            hoist_root_combinators,
            merge_all_of,
            distribute_alternatives,
            unevaluated_to_additional,
            one_of_to_any_of,
            const_to_enum,
            split_null_enums,
            tuples_to_arrays,
            drop_additional_properties,
            |schema, notes| keep_keywords(schema, &GEMINI_OPENAPI, notes),
            type_every_schema,
            |schema, notes| inline_refs(schema, false, notes),
            flatten_any_of,
            nullable,
            uppercase_types,
        ],
    )
}

/// Lowers `schema` for an export `format`; the formats that take the
/// canonical schema as it is ([`Format::OpenAi`], [`Format::Mcp`]) return it
/// unchanged, with no notes.
pub fn lower(schema: &Value, format: Format) -> Lowered {
    match format {
        Format::OpenAiStrict => openai_strict(schema),
        Format::Anthropic => anthropic(schema),
        Format::AnthropicStrict => anthropic_strict(schema),
        Format::Gemini => gemini(schema),
        Format::GeminiOpenApi => gemini_openapi(schema),
        Format::OpenAi | Format::Mcp => Lowered {
            schema: schema.clone(),
            notes: Vec::new(),
        },
    }
}

// ---------------------------------------------------------------------------
// Dialects: what each provider's schema keeps, as published
// ---------------------------------------------------------------------------

/// What one provider's schema dialect keeps, as its documentation lists it.
///
/// [`keep_keywords`] keeps these keywords and moves every other constraint
/// into the description.
#[derive(Clone, Copy, Debug)]
pub struct Dialect {
    /// The keywords kept as they are (subject to the value rules below).
    pub keywords: &'static [&'static str],
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
pub enum Formats {
    /// Any format.
    Any,
    /// Only these; other string formats move into the description, other
    /// numeric formats (`int32`, `uint8`, `double`: annotations no validator
    /// asserts) are dropped.
    Only(&'static [&'static str]),
}

/// The `enum` and `const` values a [`Dialect`] keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Literals {
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
pub const OPENAI_STRICT: Dialect = Dialect {
    keywords: &[
        "type",
        "description",
        "title",
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
    formats: Formats::Only(&[
        "date-time",
        "time",
        "date",
        "duration",
        "email",
        "hostname",
        "ipv4",
        "ipv6",
        "uuid",
    ]),
    literals: Literals::Any,
    max_min_items: None,
    simple_patterns: false,
};

/// Anthropic strict tool use, from "JSON Schema limitations": basic types,
/// primitive `enum`s, `const`, `anyOf`, local `$ref`s, `default`, `required`,
/// `additionalProperties: false`, ten string formats, `minItems` of 0 or 1,
/// simple regexes. No numeric or string-length constraints, no `maxItems`.
pub const ANTHROPIC_STRICT: Dialect = Dialect {
    keywords: &[
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
        "default",
        "format",
        "pattern",
        "minItems",
    ],
    formats: Formats::Only(&[
        "date-time",
        "time",
        "date",
        "duration",
        "email",
        "hostname",
        "uri",
        "ipv4",
        "ipv6",
        "uuid",
    ]),
    literals: Literals::Primitives,
    max_min_items: Some(1),
    simple_patterns: true,
};

/// Gemini `parametersJsonSchema`: the properties its reference lists as
/// supported (`$id`, `$defs`, `$ref`, `$anchor`, `type`, `format`, `title`,
/// `description`, `enum` of strings and numbers, `items`, `prefixItems`,
/// `minItems`, `maxItems`, `minimum`, `maximum`, `anyOf`, `properties`,
/// `additionalProperties`, `required`, and the non-standard `propertyOrdering`).
pub const GEMINI_JSON: Dialect = Dialect {
    keywords: &[
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
    ],
    formats: Formats::Any,
    literals: Literals::StringsAndNumbers,
    max_min_items: None,
    simple_patterns: false,
};

/// Gemini `parameters`: the fields of its `Schema` object, "a select subset of
/// an OpenAPI 3.0 schema object", with string-only enums and the formats it
/// documents (`float`/`double`, `int32`/`int64`, `enum`/`date-time`). `$ref` and
/// `$defs` are kept here only for [`inline_refs`], which removes them.
pub const GEMINI_OPENAPI: Dialect = Dialect {
    keywords: &[
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
    ],
    formats: Formats::Only(&["float", "double", "int32", "int64", "enum", "date-time"]),
    literals: Literals::Strings,
    max_min_items: None,
    simple_patterns: false,
};

/// Keywords that constrain instances in JSON Schema 2020-12 (and the drafts
/// before it): dropping one loses something, so it moves into the
/// description with a note. Anything else is an annotation or unknown, and
/// constrains nothing.
const CONSTRAINTS: &[&str] = &[
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
const DESCRIBED_ANNOTATIONS: &[&str] = &["default", "examples"];

/// Keys that only annotate: a `$ref` with just these beside it is a plain
/// reference, not an intersection.
const ANNOTATIONS: &[&str] = &[
    "description",
    "title",
    "default",
    "examples",
    "example",
    "$comment",
    "deprecated",
    "readOnly",
    "writeOnly",
];

/// The numeric `format`s `schemars` writes; no validator asserts them.
const NUMERIC_FORMATS: &[&str] = &[
    "int", "int8", "int16", "int32", "int64", "int128", "uint", "uint8", "uint16", "uint32",
    "uint64", "uint128", "float", "double",
];

/// The largest `{n,m}` bound taken as a "simple" repeat where Anthropic asks
/// for simple regexes; its docs only say large ranges may be refused.
const MAX_SIMPLE_REPEAT: u64 = 100;

enum Verdict {
    Keep,
    Drop,
    Describe { note: bool },
    Lower(Value),
}

impl Dialect {
    fn verdict(&self, key: &str, value: &Value) -> Verdict {
        if !self.keywords.contains(&key) {
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
                (Value::String(format), Formats::Only(kept)) if kept.contains(&format.as_str()) => {
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

/// Whether `pattern` stays within what Anthropic documents for strict mode:
/// no backreferences, lookahead or lookbehind, word boundaries, or large
/// `{n,m}` repeats.
fn is_simple_pattern(pattern: &str) -> bool {
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

// ---------------------------------------------------------------------------
// Passes
// ---------------------------------------------------------------------------

/// Makes every subschema an object and drops malformed keywords, so the
/// passes after it see one shape: `true` → `{}`, `false` → `{"not": {}}`
/// (but `additionalProperties` stays a boolean); malformed
/// applicators (`"properties": []`, `"anyOf": []`, `"type": 5`, a `$ref` that
/// is not a string), which registration refuses anyway, go.
pub fn normalize(schema: &mut Value, _notes: &mut Vec<Note>) {
    if let Value::Bool(valid) = schema {
        *schema = boolean_schema(*valid);
    }
    if !schema.is_object() {
        // Not a schema at all: the closest schema is "any value".
        *schema = json!({});
    }
    walk(schema, "", &mut |node, _| {
        let Value::Object(map) = node else { return };
        if map.get("unevaluatedProperties") == Some(&Value::Bool(true)) {
            map.remove("unevaluatedProperties");
        }
        map.retain(|key, value| well_formed(key, value));
        if let Some(Value::Array(required)) = map.get_mut("required") {
            required.retain(Value::is_string);
        }
        each_child(node, "", &mut |child, at| {
            // `additionalProperties: true` marks an open object (a map of any
            // values), which the strict passes must see; every dialect reads
            // a boolean there.
            let keeps_boolean = at == "/additionalProperties" || at == "/unevaluatedProperties";
            match child {
                Value::Bool(_) if keeps_boolean => {}
                Value::Bool(valid) => *child = boolean_schema(*valid),
                Value::Object(_) => {}
                _ => *child = json!({}),
            }
        });
    });
}

fn boolean_schema(valid: bool) -> Value {
    if valid {
        json!({})
    } else {
        json!({ "not": {} })
    }
}

fn well_formed(key: &str, value: &Value) -> bool {
    match key {
        "properties" | "patternProperties" | "$defs" | "definitions" | "dependentSchemas" => {
            value.is_object()
        }
        "allOf" | "anyOf" | "oneOf" | "prefixItems" => {
            value.as_array().is_some_and(|items| !items.is_empty())
        }
        "required" | "enum" => value.is_array(),
        "$ref" => value.is_string(),
        "type" => match value {
            Value::String(_) => true,
            Value::Array(types) => !types.is_empty() && types.iter().all(Value::is_string),
            _ => false,
        },
        _ => true,
    }
}

/// Removes `$ref`, `allOf`, `anyOf` and `oneOf` from the root, which must be a
/// plain object for OpenAI and Anthropic (and describes the parameters for
/// Gemini).
///
/// A root `$ref` and `allOf` merge into the root losslessly. A root
/// `anyOf`/`oneOf` (a flattened enum) merges the properties of its
/// alternatives into the root, required only where every alternative requires
/// them; which combinations are valid goes into the description. A root that
/// is still not an object schema is noted: providers refuse it.
pub fn hoist_root_combinators(schema: &mut Value, notes: &mut Vec<Note>) {
    let root = schema.clone();
    let Value::Object(map) = schema else {
        notes.push(Note::new(
            "",
            NoteKind::Refused,
            "the root must be an object schema",
        ));
        return;
    };
    for _ in 0..8 {
        let mut changed = false;
        if let Some(Value::String(reference)) = map.remove("$ref") {
            changed = true;
            match resolve(&root, &reference) {
                // The root referring to itself says nothing more.
                Some(_) if reference == "#" => {}
                Some(target) => merge_into(map, without_defs(target), "", notes),
                None => notes.push(unresolved(&reference)),
            }
        }
        if let Some(Value::Array(branches)) = map.remove("allOf") {
            changed = true;
            for branch in branches {
                merge_into(map, dereference(branch, &root, &BTreeSet::new()), "", notes);
            }
        }
        for key in ["oneOf", "anyOf"] {
            if let Some(Value::Array(branches)) = map.remove(key) {
                changed = true;
                merge_alternatives(map, key, branches, &root, notes);
            }
        }
        if !changed {
            break;
        }
    }
    // With every alternative merged in, nothing is evaluated below the root:
    // `unevaluatedProperties` means what `additionalProperties` does.
    if !map.contains_key("if")
        && !map.contains_key("dependentSchemas")
        && let Some(unevaluated) = map.remove("unevaluatedProperties")
    {
        map.entry("additionalProperties").or_insert(unevaluated);
    }
    if !is_object_schema(map) {
        notes.push(Note::new(
            "",
            NoteKind::Refused,
            "the root must be an object schema",
        ));
    }
}

/// Merges the alternatives of a root `anyOf`/`oneOf` into the root.
fn merge_alternatives(
    map: &mut Object,
    key: &str,
    branches: Vec<Value>,
    root: &Value,
    notes: &mut Vec<Note>,
) {
    let branches: Vec<Value> = branches
        .into_iter()
        .map(|branch| dereference(branch, root, &BTreeSet::new()))
        .collect();
    if branches.len() == 1 {
        for branch in branches {
            merge_into(map, branch, "", notes);
        }
        return;
    }
    let mut by_name: BTreeMap<String, Vec<Value>> = BTreeMap::new();
    let mut order: Vec<String> = Vec::new();
    let mut common: Option<Vec<String>> = None;
    let mut summaries = Vec::new();
    for branch in &branches {
        let empty = Object::new();
        let branch_map = branch.as_object().unwrap_or(&empty);
        let properties = branch_map.get("properties").and_then(Value::as_object);
        for (name, property) in properties.into_iter().flatten() {
            if !by_name.contains_key(name) {
                order.push(name.clone());
            }
            let seen = by_name.entry(name.clone()).or_default();
            if !seen.contains(property) {
                seen.push(property.clone());
            }
        }
        let required = required_names(branch_map);
        common = Some(match common {
            None => required.clone(),
            Some(common) => common
                .into_iter()
                .filter(|n| required.contains(n))
                .collect(),
        });
        summaries.push(summarize(branch_map));
    }
    let properties = map
        .entry("properties")
        .or_insert_with(|| Value::Object(Object::new()));
    if let Value::Object(properties) = properties {
        for name in order {
            let Some(alternatives) = by_name.remove(&name) else {
                continue;
            };
            if properties.contains_key(&name) {
                continue;
            }
            properties.insert(name, union_of(alternatives));
        }
    }
    let mut required = required_names(map);
    for name in common.unwrap_or_default() {
        if !required.contains(&name) {
            required.push(name);
        }
    }
    if !required.is_empty() {
        map.insert("required".into(), json!(required));
    }
    if !map.contains_key("type") {
        map.insert("type".into(), json!("object"));
    }
    let which = if key == "oneOf" {
        "exactly one of"
    } else {
        "one or more of"
    };
    describe(map, [format!("{which}: {}", summaries.join(" | "))]);
    notes.push(Note::new(
        "",
        NoteKind::Described,
        format!(
            "`{key}` at the root is not supported: its {} alternatives are merged into the root's properties, and which combinations are valid is in the description",
            branches.len()
        ),
    ));
}

/// One alternative, for a description: `kind = circle, requires radius`.
fn summarize(branch: &Object) -> String {
    let properties = branch.get("properties").and_then(Value::as_object);
    let Some(properties) = properties else {
        return Value::Object(branch.clone()).to_string();
    };
    let mut parts = Vec::new();
    let mut requires = Vec::new();
    for name in required_names(branch) {
        match properties.get(&name).and_then(single_literal) {
            Some(literal) => parts.push(format!("{name} = {}", plain(&literal))),
            None => requires.push(name),
        }
    }
    if !requires.is_empty() {
        parts.push(format!("requires {}", requires.join(", ")));
    }
    if parts.is_empty() {
        "no required properties".to_owned()
    } else {
        parts.join(", ")
    }
}

/// The one value a schema allows, if it is a `const` or a one-value `enum`.
fn single_literal(schema: &Value) -> Option<Value> {
    let map = schema.as_object()?;
    if let Some(value) = map.get("const") {
        return Some(value.clone());
    }
    match map.get("enum") {
        Some(Value::Array(values)) if values.len() == 1 => Some(values[0].clone()),
        _ => None,
    }
}

/// One schema for a property several alternatives define: itself when they
/// agree, an `enum` when they are all literals of one type, else `anyOf`.
fn union_of(mut alternatives: Vec<Value>) -> Value {
    if alternatives.len() == 1 {
        return alternatives.remove(0);
    }
    let literals: Option<Vec<Value>> = alternatives
        .iter()
        .map(|alternative| {
            let map = alternative.as_object()?;
            let extra = map.keys().any(|key| {
                !matches!(key.as_str(), "const" | "enum" | "type")
                    && !ANNOTATIONS.contains(&key.as_str())
            });
            if extra { None } else { literal_values(map) }
        })
        .collect::<Option<Vec<Vec<Value>>>>()
        .map(|lists| lists.into_iter().flatten().collect());
    let types: BTreeSet<String> = alternatives
        .iter()
        .filter_map(|alternative| alternative.get("type").map(Value::to_string))
        .collect();
    if let Some(values) = literals
        && types.len() <= 1
    {
        let mut distinct: Vec<Value> = Vec::new();
        for value in values {
            if !distinct.contains(&value) {
                distinct.push(value);
            }
        }
        let values = distinct;
        let mut merged = Object::new();
        if let Some(kind) = alternatives[0].get("type") {
            merged.insert("type".into(), kind.clone());
        }
        merged.insert("enum".into(), Value::Array(values));
        return Value::Object(merged);
    }
    json!({ "anyOf": alternatives })
}

fn literal_values(map: &Object) -> Option<Vec<Value>> {
    if let Some(value) = map.get("const") {
        return Some(vec![value.clone()]);
    }
    map.get("enum").and_then(Value::as_array).cloned()
}

/// Merges `allOf` into the schema that holds it, and a `$ref` whose siblings
/// constrain (`{"$ref": …, "properties": …}`, an internally tagged newtype
/// variant) the same way: properties and `required` unite, `type`s intersect,
/// bounds take the tighter side. Where two values cannot both hold, the one in
/// place stays and the other moves into the description.
pub fn merge_all_of(schema: &mut Value, notes: &mut Vec<Note>) {
    let root = schema.clone();
    let recursive = recursive_refs(&root);
    walk(schema, "", &mut |node, at| {
        let Value::Object(map) = node else { return };
        // A reference on a cycle cannot be merged in (the copy would hold it
        // again); it stays a reference, beside the rest.
        let mut kept = Vec::new();
        for _ in 0..8 {
            let intersects =
                map.contains_key("$ref") && map.keys().any(|key| is_constraint_sibling(key));
            if intersects && let Some(reference) = map.remove("$ref") {
                let mut branches = match map.remove("allOf") {
                    Some(Value::Array(branches)) => branches,
                    _ => Vec::new(),
                };
                branches.push(json!({ "$ref": reference }));
                map.insert("allOf".into(), Value::Array(branches));
            }
            let Some(Value::Array(branches)) = map.remove("allOf") else {
                break;
            };
            for branch in branches {
                let branch = dereference(branch, &root, &recursive);
                if branch.get("$ref").is_some() {
                    kept.push(branch);
                } else {
                    merge_into(map, branch, at, notes);
                }
            }
        }
        if kept.len() == 1 && !map.contains_key("anyOf") && !map.contains_key("$ref") {
            // `{"anyOf": [x]}` beside the rest means what `{"allOf": [x]}` does.
            map.insert("anyOf".into(), Value::Array(kept));
        } else if !kept.is_empty() {
            map.insert("allOf".into(), Value::Array(kept));
        }
    });
}

fn is_constraint_sibling(key: &str) -> bool {
    key != "$ref" && !key.starts_with('$') && !ANNOTATIONS.contains(&key)
}

/// Pushes an object's own properties into each of its `anyOf`/`oneOf`
/// alternatives when they are all objects (a flattened enum inside a struct),
/// so each alternative is a whole object a strict mode can close. Lossless.
pub fn distribute_alternatives(schema: &mut Value, notes: &mut Vec<Note>) {
    let root = schema.clone();
    let recursive = recursive_refs(&root);
    walk(schema, "", &mut |node, at| {
        let Value::Object(map) = node else { return };
        if at.is_empty() || !map.contains_key("properties") {
            return;
        }
        for key in ["anyOf", "oneOf"] {
            let Some(Value::Array(branches)) = map.get(key) else {
                continue;
            };
            let branches: Vec<Value> = branches
                .iter()
                .map(|branch| dereference(branch.clone(), &root, &recursive))
                .collect();
            if !branches
                .iter()
                .all(|branch| branch.as_object().is_some_and(is_object_schema))
            {
                continue;
            }
            let mut shared = Object::new();
            for name in [
                "type",
                "properties",
                "required",
                "additionalProperties",
                "unevaluatedProperties",
                "patternProperties",
                "minProperties",
                "maxProperties",
            ] {
                if let Some(value) = map.remove(name) {
                    shared.insert(name.to_owned(), value);
                }
            }
            let merged: Vec<Value> = branches
                .into_iter()
                .map(|branch| {
                    let mut whole = shared.clone();
                    merge_into(&mut whole, branch, at, notes);
                    Value::Object(whole)
                })
                .collect();
            map.insert(key.to_owned(), Value::Array(merged));
            break;
        }
    });
}

/// Renames `unevaluatedProperties` to `additionalProperties` where no
/// applicator is left that could evaluate properties (after the merges
/// above), which then means the same and which every dialect reads.
pub fn unevaluated_to_additional(schema: &mut Value, _notes: &mut Vec<Note>) {
    walk(schema, "", &mut |node, _| {
        let Value::Object(map) = node else { return };
        let applied = ["allOf", "anyOf", "oneOf", "$ref", "if", "dependentSchemas"]
            .iter()
            .any(|key| map.contains_key(*key));
        if applied || map.contains_key("additionalProperties") {
            return;
        }
        if let Some(unevaluated) = map.remove("unevaluatedProperties") {
            map.insert("additionalProperties".into(), unevaluated);
        }
    });
}

/// Turns `oneOf` into `anyOf`, which every dialect here reads.
///
/// Lossless when the alternatives cannot overlap: different types, different
/// literals, a required tag property with different values (serde's tagged
/// enums), or a required property the other, closed alternative refuses
/// (externally tagged). Otherwise a value matching two alternatives would get
/// through, so "exactly one" goes into the description with a note.
pub fn one_of_to_any_of(schema: &mut Value, notes: &mut Vec<Note>) {
    let root = schema.clone();
    let recursive = recursive_refs(&root);
    walk(schema, "", &mut |node, at| {
        let Value::Object(map) = node else { return };
        let Some(Value::Array(branches)) = map.remove("oneOf") else {
            return;
        };
        if !pairwise_disjoint(&branches, &root) {
            describe(
                map,
                ["exactly one of the alternatives must match".to_owned()],
            );
            notes.push(Note::new(
                &format!("{at}/oneOf"),
                NoteKind::Described,
                "`oneOf` became `anyOf`: its alternatives can overlap, so one value matching several gets through; \"exactly one\" is in the description",
            ));
        }
        let combined = match map.remove("anyOf") {
            Some(Value::Array(any)) => {
                // Both must hold: each pair of alternatives, merged.
                let mut pairs = Vec::new();
                for left in &any {
                    for right in &branches {
                        let left = dereference(left.clone(), &root, &recursive);
                        let right = dereference(right.clone(), &root, &recursive);
                        let reference = left.get("$ref").or_else(|| right.get("$ref")).cloned();
                        let mut both = left.as_object().cloned().unwrap_or_default();
                        merge_into(&mut both, right, at, notes);
                        if let Some(reference) = reference {
                            both.insert("$ref".into(), reference);
                        }
                        pairs.push(Value::Object(both));
                    }
                }
                pairs
            }
            _ => branches,
        };
        map.insert("anyOf".into(), Value::Array(combined));
    });
}

fn pairwise_disjoint(branches: &[Value], root: &Value) -> bool {
    branches.iter().enumerate().all(|(i, left)| {
        branches[i + 1..]
            .iter()
            .all(|right| disjoint(left, right, root, 0))
    })
}

/// Whether no value can match both `left` and `right`, as far as cheap rules see.
fn disjoint(left: &Value, right: &Value, root: &Value, depth: usize) -> bool {
    if depth > 4 {
        return false;
    }
    let left = dereference(left.clone(), root, &BTreeSet::new());
    let right = dereference(right.clone(), root, &BTreeSet::new());
    let (Some(a), Some(b)) = (left.as_object(), right.as_object()) else {
        return false;
    };
    if let (Some(ta), Some(tb)) = (type_names(a), type_names(b))
        && !types_overlap(&ta, &tb)
    {
        return true;
    }
    if let (Some(va), Some(vb)) = (literal_values(a), literal_values(b))
        && va.iter().all(|value| !vb.contains(value))
    {
        return true;
    }
    let (Some(pa), Some(pb)) = (properties_of(a), properties_of(b)) else {
        return false;
    };
    let (ra, rb) = (required_names(a), required_names(b));
    for name in ra.iter().filter(|name| rb.contains(name)) {
        if let (Some(sa), Some(sb)) = (pa.get(name), pb.get(name))
            && disjoint(sa, sb, root, depth + 1)
        {
            return true;
        }
    }
    let closed_against = |required: &[String], other: &Object, other_properties: &Object| {
        other.get("additionalProperties") == Some(&Value::Bool(false))
            && required
                .iter()
                .any(|name| !other_properties.contains_key(name))
    };
    closed_against(&ra, b, pb) || closed_against(&rb, a, pa)
}

fn types_overlap(left: &[String], right: &[String]) -> bool {
    left.iter().any(|l| {
        right.iter().any(|r| {
            l == r || (l == "integer" && r == "number") || (l == "number" && r == "integer")
        })
    })
}

/// Writes `const` as a one-value `enum`, which Gemini reads where it does not
/// read `const`. Lossless.
pub fn const_to_enum(schema: &mut Value, _notes: &mut Vec<Note>) {
    walk(schema, "", &mut |node, _| {
        let Value::Object(map) = node else { return };
        let Some(value) = map.get("const").cloned() else {
            return;
        };
        let agrees = match map.get("enum") {
            None => true,
            Some(Value::Array(values)) => values.contains(&value),
            Some(_) => false,
        };
        if agrees {
            map.remove("const");
            map.insert("enum".into(), json!([value]));
        }
    });
}

/// Takes `null` out of an `enum` (Gemini enums are strings and numbers):
/// `{"type": ["string", "null"], "enum": ["a", null]}` becomes
/// `{"anyOf": [{"type": "string", "enum": ["a"]}, {"type": "null"}]}`. Lossless.
pub fn split_null_enums(schema: &mut Value, _notes: &mut Vec<Note>) {
    walk(schema, "", &mut |node, _| {
        let Value::Object(map) = node else { return };
        let Some(Value::Array(values)) = map.get("enum") else {
            return;
        };
        if !values.contains(&Value::Null) {
            return;
        }
        let rest: Vec<Value> = values.iter().filter(|v| !v.is_null()).cloned().collect();
        if rest.is_empty() {
            map.remove("enum");
            map.insert("type".into(), json!("null"));
            return;
        }
        let mut branch = Object::new();
        let mut outer = Object::new();
        for (key, value) in std::mem::take(map) {
            if ANNOTATIONS.contains(&key.as_str()) {
                outer.insert(key, value);
            } else {
                branch.insert(key, value);
            }
        }
        branch.insert("enum".into(), Value::Array(rest));
        if let Some(kind) = branch.get("type").cloned() {
            let kinds: Vec<Value> = match kind {
                Value::Array(kinds) => kinds.into_iter().filter(|k| k != "null").collect(),
                other => vec![other],
            };
            match kinds.len() {
                0 => {
                    branch.remove("type");
                }
                1 => {
                    branch.insert("type".into(), kinds[0].clone());
                }
                _ => {
                    branch.insert("type".into(), Value::Array(kinds));
                }
            }
        }
        outer.insert(
            "anyOf".into(),
            json!([Value::Object(branch), { "type": "null" }]),
        );
        *map = outer;
    });
}

/// Gemini unrolls recursion only through optional properties: a required
/// property that leads back into a recursive definition becomes optional,
/// and "required" goes into the description.
pub fn unrequire_recursion(schema: &mut Value, notes: &mut Vec<Note>) {
    let recursive = recursive_refs(schema);
    if recursive.is_empty() {
        return;
    }
    let mut scopes: Vec<String> = recursive
        .iter()
        .map(|reference| reference.trim_start_matches('#').to_owned())
        .collect();
    scopes.sort();
    for scope in scopes {
        let Some(definition) = schema.pointer_mut(&scope) else {
            continue;
        };
        walk(definition, &scope, &mut |node, at| {
            // Under the root, its definitions are scopes of their own.
            if scope.is_empty() && (at.starts_with("/$defs/") || at.starts_with("/definitions/")) {
                return;
            }
            let Value::Object(map) = node else { return };
            let Some(properties) = map.get("properties").and_then(Value::as_object) else {
                return;
            };
            let looping: Vec<String> = required_names(map)
                .into_iter()
                .filter(|name| {
                    properties
                        .get(name)
                        .is_some_and(|property| refers_to_any(property, &recursive))
                })
                .collect();
            if looping.is_empty() {
                return;
            }
            if let Some(Value::Array(required)) = map.get_mut("required") {
                required.retain(|name| {
                    !name
                        .as_str()
                        .is_some_and(|n| looping.iter().any(|l| l == n))
                });
            }
            describe(map, [format!("required: {}", looping.join(", "))]);
            for name in &looping {
                notes.push(Note::new(
                    &format!("{at}/properties/{}", escape(name)),
                    NoteKind::Described,
                    "required, but leads back into a recursive schema, which Gemini unrolls only through optional properties: moved into the description",
                ));
            }
        });
    }
}

/// Turns tuples (`prefixItems`) into plain arrays whose items may be any of
/// the tuple's types, keeping the length; the positions go into the
/// description. Lossless when every position has the same schema.
pub fn tuples_to_arrays(schema: &mut Value, notes: &mut Vec<Note>) {
    walk(schema, "", &mut |node, at| {
        let Value::Object(map) = node else { return };
        let Some(Value::Array(prefix)) = map.remove("prefixItems") else {
            return;
        };
        let mut alternatives: Vec<Value> = Vec::new();
        for item in &prefix {
            if !alternatives.contains(item) {
                alternatives.push(item.clone());
            }
        }
        // No item past the tuple: `maxItems` says so, or `items: false`.
        let mut closed = map
            .get("maxItems")
            .and_then(Value::as_u64)
            .is_some_and(|max| max <= prefix.len() as u64);
        match map.remove("items") {
            None => {}
            Some(rest) if rest == json!({ "not": {} }) && !closed => {
                map.insert("maxItems".into(), json!(prefix.len()));
                closed = true;
            }
            Some(rest) if rest == json!({ "not": {} }) => {}
            Some(rest) if !alternatives.contains(&rest) => alternatives.push(rest),
            Some(_) => {}
        }
        let lossless = alternatives.len() == 1 && closed;
        let items = if alternatives.len() == 1 {
            alternatives.remove(0)
        } else {
            json!({ "anyOf": alternatives })
        };
        map.insert("items".into(), items);
        if !lossless {
            describe(map, [show("prefixItems", &Value::Array(prefix))]);
            notes.push(Note::new(
                at,
                NoteKind::Described,
                "`prefixItems` (a tuple) is not supported: each item may be any of its types, and the positions are in the description",
            ));
        }
    });
}

/// Closes every object schema with `additionalProperties: false`, as OpenAI
/// and Anthropic strict modes require, and gives it `type` and `properties`.
///
/// For a struct this changes nothing that matters (serde ignores unknown
/// fields; a root without properties is a tool without parameters). Where
/// other properties carry meaning, it narrows, with a note: a map's value
/// schema (`additionalProperties: {…}`, moved into the description),
/// `patternProperties`, `additionalProperties: true`, and a nested
/// `{"type": "object"}` that lists nothing, which can then only be `{}`.
pub fn close_objects(schema: &mut Value, notes: &mut Vec<Note>) {
    walk(schema, "", &mut |node, at| {
        let Value::Object(map) = node else { return };
        if !is_object_schema(map) {
            return;
        }
        if !map.contains_key("type") {
            map.insert("type".into(), json!("object"));
        }
        let mut open = Vec::new();
        let mut closed = false;
        let mut any = false;
        for key in [
            "additionalProperties",
            "patternProperties",
            "unevaluatedProperties",
        ] {
            match map.remove(key) {
                None => {}
                Some(Value::Bool(false)) => closed = true,
                Some(Value::Bool(true)) => any = true,
                Some(other) => open.push(show(key, &other)),
            }
        }
        // `additionalProperties: true` (a map of any values) is open; so is a
        // nested `{"type": "object"}` with nothing listed, as JSON Schema reads
        // it. At the root, that is a tool without parameters (an empty struct).
        let free_form = open.is_empty()
            && !closed
            && (any || (!at.is_empty() && !map.contains_key("properties")));
        map.insert("additionalProperties".into(), json!(false));
        map.entry("properties")
            .or_insert_with(|| Value::Object(Object::new()));
        if !open.is_empty() {
            describe(map, open);
            notes.push(Note::new(
                at,
                NoteKind::Narrowed,
                "properties beyond the listed ones (a map) cannot be described in strict mode: the object is closed, and the schema of the others is in the description",
            ));
        } else if free_form {
            notes.push(Note::new(
                at,
                NoteKind::Narrowed,
                "an open object (any properties) is closed to its listed properties in strict mode",
            ));
        }
    });
}

/// Lists every property in `required`, as OpenAI strict mode requires.
///
/// An optional property that takes `null` means the same when the model
/// sends `null` (serde reads it as `None`), so nothing changes but the list.
/// One that does not take `null` (a field with a serde default) stays
/// non-nullable: the canonical validation would refuse a `null`, so the model
/// sends a value, and the field's `default` is in its description. Without a
/// `default` to send (an optional property of a hand-written schema, one that
/// only some alternatives of a flattened enum have), the model would have to
/// make a value up where leaving the property out was the valid call: noted
/// as narrowing.
pub fn require_all_properties(schema: &mut Value, notes: &mut Vec<Note>) {
    require_properties(schema, notes, false);
}

/// Lists in `required` the optional properties that take `null` (for
/// Anthropic strict tool use, whose optional-parameter budget is smaller than
/// its union budget), and leaves the others optional. Lossless.
pub fn require_nullable_properties(schema: &mut Value, notes: &mut Vec<Note>) {
    require_properties(schema, notes, true);
}

fn require_properties(schema: &mut Value, notes: &mut Vec<Note>, only_nullable: bool) {
    let root = schema.clone();
    walk(schema, "", &mut |node, at| {
        let Value::Object(map) = node else { return };
        let Some(properties) = map.get("properties").and_then(Value::as_object) else {
            return;
        };
        let mut required = required_names(map);
        let mut added = false;
        for (name, property) in properties {
            if required.contains(name) {
                continue;
            }
            let nullable = admits_null(property, &root, 0);
            if only_nullable && !nullable {
                continue;
            }
            if !nullable && property.get("default").is_none() {
                notes.push(Note::new(
                    &format!("{at}/properties/{}", escape(name)),
                    NoteKind::Narrowed,
                    "optional, with no default and no `null`: strict mode makes the model send a value where leaving it out was valid",
                ));
            }
            required.push(name.clone());
            added = true;
        }
        if added || (!only_nullable && !map.contains_key("required")) {
            map.insert("required".into(), json!(required));
        }
    });
}

/// Keeps the keywords `dialect` lists and moves every other constraint into
/// the description (`minLength: 1`), with a note; `default` and `examples`
/// move too, without one (they constrain nothing); other annotations and
/// unknown keywords go. Value rules: unsupported `format`s and `enum`/`const`
/// values move; `minItems` is lowered to what the dialect takes; complex
/// regexes move where the dialect asks for simple ones.
pub fn keep_keywords(schema: &mut Value, dialect: &Dialect, notes: &mut Vec<Note>) {
    walk(schema, "", &mut |node, at| {
        let Value::Object(map) = node else { return };
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

/// Gives every schema a type, as the strict modes and Gemini's `Schema`
/// require: a schema that allows any JSON value (`{}`, a `serde_json::Value`
/// field) becomes any string, number, boolean or `null`, with a note, since
/// objects and arrays of unknown shape cannot be described there.
pub fn type_every_schema(schema: &mut Value, notes: &mut Vec<Note>) {
    walk(schema, "", &mut |node, at| {
        let Value::Object(map) = node else { return };
        let typed = ["type", "anyOf", "oneOf", "allOf", "$ref", "enum", "const"]
            .iter()
            .any(|key| map.contains_key(*key));
        if typed {
            return;
        }
        if is_object_schema(map) {
            map.insert("type".into(), json!("object"));
            return;
        }
        map.insert(
            "anyOf".into(),
            json!([
                { "type": "string" },
                { "type": "number" },
                { "type": "boolean" },
                { "type": "null" }
            ]),
        );
        notes.push(Note::new(
            at,
            NoteKind::Narrowed,
            "any JSON value is narrowed to a string, number, boolean or null: objects and arrays of unknown shape cannot be described",
        ));
    });
}

/// Wraps a `$ref` that has siblings into `anyOf: [{"$ref": …}]`, which means
/// the same: OpenAI refuses siblings beside `$ref`, and Gemini takes only
/// `$`-keywords there. (Siblings that constrain were merged by
/// [`merge_all_of`]; what is left annotates, like a field's description.)
pub fn wrap_ref_siblings(schema: &mut Value, notes: &mut Vec<Note>) {
    walk(schema, "", &mut |node, at| {
        let Value::Object(map) = node else { return };
        if !map.contains_key("$ref") || !map.keys().any(|key| !key.starts_with('$')) {
            return;
        }
        let Some(reference) = map.remove("$ref") else {
            return;
        };
        match map.get_mut("anyOf") {
            None => {
                map.insert("anyOf".into(), json!([{ "$ref": reference }]));
            }
            // `$ref` and `anyOf` both hold: the reference goes into each
            // alternative (wrapped in turn when the walk gets there).
            Some(Value::Array(branches))
                if branches
                    .iter()
                    .all(|branch| branch.as_object().is_some_and(|b| !b.contains_key("$ref"))) =>
            {
                for branch in branches.iter_mut() {
                    if let Value::Object(branch) = branch {
                        branch.insert("$ref".into(), reference.clone());
                    }
                }
            }
            Some(_) => {
                notes.push(Note::new(
                    at,
                    NoteKind::Described,
                    "a `$ref` beside alternatives with references of their own cannot be said here: moved into the description",
                ));
                describe(map, [show("$ref", &reference)]);
            }
        }
    });
}

/// Replaces every `$ref` by the schema it points to, and drops `$defs`.
/// Recursion is cut where a definition would nest inside itself more than
/// [`RECURSION_DEPTH`] times: there a stub object says so (closed when
/// `closed`, for strict modes), and a note says the schema narrowed.
pub fn inline_refs(schema: &mut Value, closed: bool, notes: &mut Vec<Note>) {
    let root = schema.clone();
    let mut inliner = Inliner {
        root: &root,
        stack: Vec::new(),
        budget: MAX_INLINED,
        closed,
        cut: BTreeSet::new(),
        unresolved: BTreeSet::new(),
    };
    inliner.inline(schema);
    if let Value::Object(map) = schema {
        map.remove("$defs");
        map.remove("definitions");
    }
    for reference in inliner.cut {
        notes.push(Note::new(
            reference.trim_start_matches('#'),
            NoteKind::Narrowed,
            format!(
                "recursion through `{}` is cut after {RECURSION_DEPTH} levels: deeper values cannot be sent",
                definition_name(&reference)
            ),
        ));
    }
    for reference in inliner.unresolved {
        notes.push(unresolved(&reference));
    }
}

struct Inliner<'a> {
    root: &'a Value,
    stack: Vec<String>,
    budget: usize,
    closed: bool,
    cut: BTreeSet<String>,
    unresolved: BTreeSet<String>,
}

impl Inliner<'_> {
    fn inline(&mut self, node: &mut Value) {
        if let Value::Object(map) = node
            && let Some(Value::String(reference)) = map.get("$ref").cloned()
        {
            map.remove("$ref");
            let depth = self.stack.iter().filter(|r| **r == reference).count();
            match resolve(self.root, &reference) {
                None => {
                    self.unresolved.insert(reference);
                }
                Some(_) if depth >= RECURSION_DEPTH || self.budget == 0 => {
                    let stub = self.stub(&reference);
                    let siblings = std::mem::take(map);
                    *map = stub;
                    for (key, value) in siblings {
                        if ANNOTATIONS.contains(&key.as_str()) && key != "description" {
                            map.insert(key, value);
                        }
                    }
                    self.cut.insert(reference);
                    return;
                }
                Some(target) => {
                    self.budget -= 1;
                    let siblings = std::mem::take(map);
                    let Value::Object(mut target) = without_defs(target) else {
                        return;
                    };
                    for (key, value) in siblings {
                        target.insert(key, value);
                    }
                    *map = target;
                    self.stack.push(reference);
                    self.inline(node);
                    self.stack.pop();
                    return;
                }
            }
        }
        each_child(node, "", &mut |child, at| {
            if !at.starts_with("/$defs/") && !at.starts_with("/definitions/") {
                self.inline(child);
            }
        });
    }

    fn stub(&self, reference: &str) -> Object {
        let mut stub = Object::new();
        stub.insert("type".into(), json!("object"));
        stub.insert(
            "description".into(),
            json!(format!(
                "{} nested too deep to describe here (recursion limit): leave it out",
                definition_name(reference)
            )),
        );
        if self.closed {
            stub.insert("properties".into(), json!({}));
            stub.insert("required".into(), json!([]));
            stub.insert("additionalProperties".into(), json!(false));
        }
        stub
    }
}

fn definition_name(reference: &str) -> String {
    match reference.rsplit_once('/') {
        Some((_, name)) if reference != "#" => crate::pointer::unescape(name).into_owned(),
        _ => "the root schema".to_owned(),
    }
}

/// Splices an `anyOf` alternative that is itself only an `anyOf` into its
/// parent (what inlining an enum into an `Option` leaves). Lossless.
pub fn flatten_any_of(schema: &mut Value, _notes: &mut Vec<Note>) {
    fn bare(branch: &Value) -> bool {
        branch.as_object().is_some_and(|map| {
            map.contains_key("anyOf")
                && map
                    .keys()
                    .all(|key| key == "anyOf" || ANNOTATIONS.contains(&key.as_str()))
        })
    }
    walk(schema, "", &mut |node, _| {
        let Some(Value::Array(branches)) = node.get_mut("anyOf") else {
            return;
        };
        if !branches.iter().any(bare) {
            return;
        }
        let mut flat = Vec::new();
        for branch in branches.drain(..) {
            if !bare(&branch) {
                flat.push(branch);
            } else if let Value::Object(mut map) = branch
                && let Some(Value::Array(inner)) = map.remove("anyOf")
            {
                flat.extend(inner);
            }
        }
        *branches = flat;
    });
}

/// Removes `additionalProperties` (and `unevaluatedProperties`), which
/// Gemini's OpenAPI `Schema` does not have: `false` is just dropped (the
/// model is not told that other properties are refused; the canonical
/// validation still refuses them), a map's value schema moves into the
/// description. Both are noted.
pub fn drop_additional_properties(schema: &mut Value, notes: &mut Vec<Note>) {
    walk(schema, "", &mut |node, at| {
        let Value::Object(map) = node else { return };
        for key in ["additionalProperties", "unevaluatedProperties"] {
            match map.remove(key) {
                None | Some(Value::Bool(true)) => {}
                Some(Value::Bool(false)) => notes.push(Note::new(
                    at,
                    NoteKind::Described,
                    format!(
                        "`{key}: false` is not supported: dropped, so the model is not told that other properties are refused"
                    ),
                )),
                Some(other) => {
                    describe(map, [show(key, &other)]);
                    notes.push(Note::new(
                        at,
                        NoteKind::Described,
                        format!("`{key}` is not supported: moved into the description"),
                    ));
                }
            }
        }
    });
}

/// Writes nullability the OpenAPI 3.0 way: `"type": ["integer", "null"]`
/// becomes `"type": "integer", "nullable": true`, a `{"type": "null"}`
/// alternative of `anyOf` becomes `nullable: true` (folding a lone remaining
/// alternative into the schema), and a type array of several types becomes
/// `anyOf`. Lossless.
pub fn nullable(schema: &mut Value, _notes: &mut Vec<Note>) {
    walk(schema, "", &mut |node, _| {
        let Value::Object(map) = node else { return };
        for _ in 0..8 {
            let mut changed = false;
            if let Some(Value::Array(kinds)) = map.get("type").cloned() {
                changed = true;
                let others: Vec<Value> = kinds.iter().filter(|k| *k != "null").cloned().collect();
                if others.len() < kinds.len() {
                    map.insert("nullable".into(), json!(true));
                }
                match others.len() {
                    0 => {
                        map.insert("type".into(), json!("null"));
                    }
                    1 => {
                        map.insert("type".into(), others[0].clone());
                    }
                    _ => {
                        map.remove("type");
                        let branches: Vec<Value> = others
                            .into_iter()
                            .map(|kind| json!({ "type": kind }))
                            .collect();
                        if !map.contains_key("anyOf") {
                            map.insert("anyOf".into(), Value::Array(branches));
                        }
                    }
                }
            }
            if let Some(Value::Array(branches)) = map.get_mut("anyOf") {
                let before = branches.len();
                branches.retain(|branch| !is_null_schema(branch));
                if branches.len() < before {
                    changed = true;
                    map.insert("nullable".into(), json!(true));
                    let mut branches = match map.remove("anyOf") {
                        Some(Value::Array(branches)) => branches,
                        _ => Vec::new(),
                    };
                    match branches.len() {
                        0 => {
                            map.insert("type".into(), json!("null"));
                        }
                        1 => {
                            if let Value::Object(only) = branches.remove(0) {
                                for (key, value) in only {
                                    map.entry(key).or_insert(value);
                                }
                            }
                        }
                        _ => {
                            map.insert("anyOf".into(), Value::Array(branches));
                        }
                    }
                }
            }
            if !changed {
                break;
            }
        }
    });
}

fn is_null_schema(schema: &Value) -> bool {
    schema.as_object().is_some_and(|map| {
        map.get("type") == Some(&json!("null"))
            && map
                .keys()
                .all(|key| key == "type" || ANNOTATIONS.contains(&key.as_str()))
    })
}

/// Writes types in upper case (`STRING`, `OBJECT`, …), as the `Type` enum of
/// Gemini's `Schema` lists them.
pub fn uppercase_types(schema: &mut Value, _notes: &mut Vec<Note>) {
    walk(schema, "", &mut |node, _| {
        if let Value::Object(map) = node
            && let Some(Value::String(kind)) = map.get_mut("type")
        {
            *kind = kind.to_ascii_uppercase();
        }
    });
}

// ---------------------------------------------------------------------------
// Limits
// ---------------------------------------------------------------------------

/// OpenAI strict mode's documented limits: 5,000 object properties and 10
/// levels of object nesting, 1,000 enum values, 120,000 characters of
/// property names, definition names, enum and const values, and 15,000
/// characters for one string enum of more than 250 values.
pub fn check_openai_limits(schema: &mut Value, notes: &mut Vec<Note>) {
    let mut properties = 0usize;
    let mut enum_values = 0usize;
    let mut characters = 0usize;
    walk_ref(schema, "", &mut |node, at| {
        let Value::Object(map) = node else { return };
        if let Some(Value::Object(names)) = map.get("properties") {
            properties += names.len();
            characters += names.keys().map(|name| name.chars().count()).sum::<usize>();
        }
        for key in ["$defs", "definitions"] {
            if let Some(Value::Object(names)) = map.get(key) {
                characters += names.keys().map(|name| name.chars().count()).sum::<usize>();
            }
        }
        if let Some(Value::Array(values)) = map.get("enum") {
            enum_values += values.len();
            let length: usize = values
                .iter()
                .filter_map(Value::as_str)
                .map(|value| value.chars().count())
                .sum();
            characters += length;
            if values.len() > 250 && values.iter().all(Value::is_string) && length > 15_000 {
                notes.push(Note::new(
                    at,
                    NoteKind::Refused,
                    format!("a string enum of {} values is {length} characters long; OpenAI allows 15,000 past 250 values", values.len()),
                ));
            }
        }
        if let Some(Value::String(value)) = map.get("const") {
            characters += value.chars().count();
        }
    });
    let depth = object_depth(schema, schema, &mut Vec::new(), &mut HashMap::new());
    let checks = [
        (properties, 5_000, "object properties"),
        (depth, 10, "levels of object nesting"),
        (enum_values, 1_000, "enum values"),
        (
            characters,
            120_000,
            "characters of names, enum and const values",
        ),
    ];
    for (count, limit, what) in checks {
        if count > limit {
            notes.push(Note::new(
                "",
                NoteKind::Refused,
                format!("{count} {what}: OpenAI strict mode allows {limit}"),
            ));
        }
    }
}

/// How deep objects nest in `schema`, following `$ref`s (a recursive one
/// counts once), the root object being level 1.
fn object_depth(
    schema: &Value,
    root: &Value,
    stack: &mut Vec<String>,
    memo: &mut HashMap<String, usize>,
) -> usize {
    let Value::Object(map) = schema else { return 0 };
    let own = usize::from(is_object_schema(map));
    let mut deepest = 0;
    if let Some(Value::String(reference)) = map.get("$ref")
        && !stack.contains(reference)
    {
        let depth = match memo.get(reference) {
            Some(depth) => *depth,
            None => {
                let depth = match resolve(root, reference) {
                    Some(target) => {
                        stack.push(reference.clone());
                        let target = without_defs(target);
                        let depth = object_depth(&target, root, stack, memo);
                        stack.pop();
                        depth
                    }
                    None => 0,
                };
                memo.insert(reference.clone(), depth);
                depth
            }
        };
        deepest = deepest.max(depth);
    }
    for (at, child) in children(schema, "") {
        if at.starts_with("/$defs/") || at.starts_with("/definitions/") {
            continue;
        }
        deepest = deepest.max(object_depth(child, root, stack, memo));
    }
    own + deepest
}

/// Anthropic strict tool use's documented complexity limits, as far as one
/// tool alone can break them: 24 optional parameters and 16 parameters with
/// union types (`anyOf` or a type array) across the strict tools of a
/// request. The per-request budget over several tools is the export's.
pub fn check_anthropic_limits(schema: &mut Value, notes: &mut Vec<Note>) {
    let (optional, unions) = anthropic_costs(schema);
    if optional > ANTHROPIC_OPTIONAL_BUDGET {
        notes.push(Note::new(
            "",
            NoteKind::Refused,
            format!("{optional} optional parameters: Anthropic strict tool use allows {ANTHROPIC_OPTIONAL_BUDGET} per request"),
        ));
    }
    if unions > ANTHROPIC_UNION_BUDGET {
        notes.push(Note::new(
            "",
            NoteKind::Refused,
            format!("{unions} parameters with union types: Anthropic strict tool use allows {ANTHROPIC_UNION_BUDGET} per request"),
        ));
    }
}

/// Strict tools per Anthropic request.
const ANTHROPIC_STRICT_TOOLS: usize = 20;
/// Optional parameters across the strict tools of an Anthropic request.
const ANTHROPIC_OPTIONAL_BUDGET: usize = 24;
/// Union-typed parameters across the strict tools of an Anthropic request.
const ANTHROPIC_UNION_BUDGET: usize = 16;

/// The optional and union-typed parameters of a lowered schema, as Anthropic counts them.
fn anthropic_costs(schema: &Value) -> (usize, usize) {
    let mut optional = 0;
    let mut unions = 0;
    walk_ref(schema, "", &mut |node, _| {
        let Value::Object(map) = node else { return };
        let Some(Value::Object(properties)) = map.get("properties") else {
            return;
        };
        let required = required_names(map);
        for (name, property) in properties {
            if !required.contains(name) {
                optional += 1;
            }
            let union = property.get("anyOf").is_some()
                || property.get("type").is_some_and(Value::is_array);
            if union {
                unions += 1;
            }
        }
    });
    (optional, unions)
}

// ---------------------------------------------------------------------------
// Registry: compatibility reports and the export's per-request budget
// ---------------------------------------------------------------------------

/// What one tool's schema loses in one export format.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Compatibility {
    /// The tool's name.
    pub tool: String,
    /// What its lowered schema says less than, or refuses beyond, the
    /// canonical one; empty when nothing is lost.
    pub notes: Vec<Note>,
}

impl Compatibility {
    /// Whether nothing is lost: strict decoding alone guarantees arguments
    /// that pass the canonical schema.
    pub fn is_compatible(&self) -> bool {
        self.notes.is_empty()
    }

    /// Whether a strict format exports this tool with `strict: true` (the
    /// per-request budget of Anthropic strict aside).
    pub fn strict_usable(&self) -> bool {
        !self.notes.iter().any(Note::blocks_strict)
    }
}

impl Registry {
    /// What each registered tool (deferred ones too) loses in `format`, tool
    /// by tool, sorted by name: the notes of its [`lower`]ed input schema,
    /// and for the Gemini formats a name Gemini refuses.
    ///
    /// ```
    /// use dsh_sdk::export::Format;
    /// use dsh_sdk::prelude::*;
    ///
    /// /// Look a word up.
    /// #[tool]
    /// async fn define(
    ///     /// The word, in lower case
    ///     #[schemars(length(min = 1))]
    ///     word: String,
    /// ) -> String {
    ///     word
    /// }
    ///
    /// let registry = Registry::new();
    /// registry.register::<define>().unwrap();
    /// let report = registry.compatibility(Format::AnthropicStrict);
    /// assert_eq!(report[0].tool, "define");
    /// assert!(!report[0].is_compatible());
    /// assert_eq!(
    ///     report[0].notes[0].to_string(),
    ///     "/properties/word: `minLength` is not supported: moved into the description"
    /// );
    /// // Canonical validation still enforces it; strict decoding stays on.
    /// assert!(report[0].strict_usable());
    /// ```
    pub fn compatibility(&self, format: Format) -> Vec<Compatibility> {
        self.tools()
            .iter()
            .map(|tool| {
                let mut notes = lower(tool.input_schema(), format).notes;
                if matches!(format, Format::Gemini | Format::GeminiOpenApi)
                    && !tool
                        .name()
                        .starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
                {
                    notes.insert(
                        0,
                        Note::new(
                            "",
                            NoteKind::Refused,
                            format!("the name `{}` must start with a letter or an underscore for Gemini", tool.name()),
                        ),
                    );
                }
                Compatibility {
                    tool: tool.name().to_owned(),
                    notes,
                }
            })
            .collect()
    }
}

/// The format each tool of an exported list goes out in: as asked, except
/// that Anthropic strict keeps to its per-request budget (20 strict tools, 24
/// optional and 16 union-typed parameters across them), in list order; a
/// tool past it, or one whose lowering blocks strict mode, goes out plain.
pub(crate) fn formats_for(tools: &[ToolInfo], format: Format) -> Vec<Format> {
    if format != Format::AnthropicStrict {
        return vec![format; tools.len()];
    }
    let (mut strict, mut optional, mut unions) = (0, 0, 0);
    tools
        .iter()
        .map(|tool| {
            let lowered = anthropic_strict(tool.input_schema());
            let (o, u) = anthropic_costs(&lowered.schema);
            let fits = lowered.strict_usable()
                && strict < ANTHROPIC_STRICT_TOOLS
                && optional + o <= ANTHROPIC_OPTIONAL_BUDGET
                && unions + u <= ANTHROPIC_UNION_BUDGET;
            if fits {
                strict += 1;
                optional += o;
                unions += u;
                Format::AnthropicStrict
            } else {
                Format::Anthropic
            }
        })
        .collect()
}

// ---------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------

/// Subschema keywords holding one schema.
const SCHEMA_KEYWORDS: &[&str] = &[
    "additionalProperties",
    "items",
    "contains",
    "not",
    "if",
    "then",
    "else",
    "propertyNames",
    "unevaluatedProperties",
    "unevaluatedItems",
    "contentSchema",
    "additionalItems",
];
/// Subschema keywords holding an array of schemas.
const SCHEMA_ARRAYS: &[&str] = &["prefixItems", "allOf", "anyOf", "oneOf"];
/// Subschema keywords holding a map of schemas.
const SCHEMA_MAPS: &[&str] = &[
    "properties",
    "patternProperties",
    "$defs",
    "definitions",
    "dependentSchemas",
];

/// Calls `visit` with every subschema directly under `schema`, and its
/// pointer below `pointer`.
fn each_child(schema: &mut Value, pointer: &str, visit: &mut dyn FnMut(&mut Value, &str)) {
    let Value::Object(map) = schema else { return };
    for (key, value) in map.iter_mut() {
        let here = format!("{pointer}/{}", escape(key));
        if SCHEMA_MAPS.contains(&key.as_str()) {
            if let Value::Object(entries) = value {
                for (name, child) in entries.iter_mut() {
                    visit(child, &format!("{here}/{}", escape(name)));
                }
            }
        } else if SCHEMA_ARRAYS.contains(&key.as_str()) || (key == "items" && value.is_array()) {
            if let Value::Array(items) = value {
                for (index, child) in items.iter_mut().enumerate() {
                    visit(child, &format!("{here}/{index}"));
                }
            }
        } else if SCHEMA_KEYWORDS.contains(&key.as_str()) {
            visit(value, &here);
        }
    }
}

/// The subschemas directly under `schema`, with their pointers.
fn children<'a>(schema: &'a Value, pointer: &str) -> Vec<(String, &'a Value)> {
    let mut found = Vec::new();
    let Value::Object(map) = schema else {
        return found;
    };
    for (key, value) in map {
        let here = format!("{pointer}/{}", escape(key));
        if SCHEMA_MAPS.contains(&key.as_str()) {
            if let Value::Object(entries) = value {
                for (name, child) in entries {
                    found.push((format!("{here}/{}", escape(name)), child));
                }
            }
        } else if SCHEMA_ARRAYS.contains(&key.as_str()) || (key == "items" && value.is_array()) {
            if let Value::Array(items) = value {
                for (index, child) in items.iter().enumerate() {
                    found.push((format!("{here}/{index}"), child));
                }
            }
        } else if SCHEMA_KEYWORDS.contains(&key.as_str()) {
            found.push((here, value));
        }
    }
    found
}

/// Visits `schema`, then its subschemas (so what `visit` adds is visited too).
fn walk(schema: &mut Value, pointer: &str, visit: &mut dyn FnMut(&mut Value, &str)) {
    visit(schema, pointer);
    each_child(schema, pointer, &mut |child, at| walk(child, at, visit));
}

/// Visits `schema` and every subschema under it, read-only.
fn walk_ref(schema: &Value, pointer: &str, visit: &mut dyn FnMut(&Value, &str)) {
    visit(schema, pointer);
    for (at, child) in children(schema, pointer) {
        walk_ref(child, &at, visit);
    }
}

/// The schema a local `$ref` (`#`, `#/$defs/Name`) points to.
fn resolve<'a>(root: &'a Value, reference: &str) -> Option<&'a Value> {
    let fragment = reference.strip_prefix('#')?;
    if fragment.is_empty() {
        Some(root)
    } else {
        root.pointer(fragment)
    }
}

fn unresolved(reference: &str) -> Note {
    Note::new(
        "",
        NoteKind::Narrowed,
        format!("`$ref: {reference}` does not resolve to a local definition: dropped"),
    )
}

/// A copy of `schema` without its definitions (a resolved root).
fn without_defs(schema: &Value) -> Value {
    match schema {
        Value::Object(map) => Value::Object(
            map.iter()
                .filter(|(key, _)| {
                    !matches!(key.as_str(), "$defs" | "definitions" | "$schema" | "$id")
                })
                .map(|(key, value)| (key.clone(), value.clone()))
                .collect(),
        ),
        Value::Bool(valid) => boolean_schema(*valid),
        _ => json!({}),
    }
}

/// `branch` with a `$ref` of its own resolved, its siblings on top; a
/// reference in `keep` (one on a cycle, where resolving inside a walk would
/// never end) stays as it is.
fn dereference(branch: Value, root: &Value, keep: &BTreeSet<String>) -> Value {
    let mut current = branch;
    for _ in 0..8 {
        let Value::Object(mut map) = current else {
            return current;
        };
        let reference = match map.get("$ref") {
            Some(Value::String(reference)) if !keep.contains(reference) => reference.clone(),
            _ => return Value::Object(map),
        };
        let Some(target) = resolve(root, &reference) else {
            return Value::Object(map);
        };
        map.remove("$ref");
        let Value::Object(mut target) = without_defs(target) else {
            return Value::Object(map);
        };
        for (key, value) in map {
            target.insert(key, value);
        }
        current = Value::Object(target);
    }
    current
}

/// Merges `source` into `target` as `allOf` would have both hold.
fn merge_into(target: &mut Object, source: Value, pointer: &str, notes: &mut Vec<Note>) {
    let source = match source {
        Value::Object(source) => source,
        Value::Bool(true) => return,
        other => {
            describe(target, [show("allOf", &json!([other]))]);
            return;
        }
    };
    let mut conflicts = Vec::new();
    for (key, value) in source {
        match key.as_str() {
            // References are resolved by the callers (`dereference`).
            "$defs" | "definitions" | "$schema" | "$id" | "$ref" => {}
            "properties" => {
                let Value::Object(incoming) = value else {
                    continue;
                };
                let properties = target
                    .entry("properties")
                    .or_insert_with(|| Value::Object(Object::new()));
                let Value::Object(properties) = properties else {
                    continue;
                };
                for (name, schema) in incoming {
                    match properties.get_mut(&name) {
                        None => {
                            properties.insert(name, schema);
                        }
                        Some(existing) if *existing == schema => {}
                        Some(existing) => {
                            let both = json!({ "allOf": [existing.take(), schema] });
                            *existing = both;
                        }
                    }
                }
            }
            "required" => {
                let mut required = required_names(target);
                for name in value
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(Value::as_str)
                {
                    if !required.iter().any(|r| r == name) {
                        required.push(name.to_owned());
                    }
                }
                target.insert("required".into(), json!(required));
            }
            "type" => match target.get("type") {
                None => {
                    target.insert(key, value);
                }
                Some(existing) => match intersect_types(existing, &value) {
                    Some(both) => {
                        target.insert(key, both);
                    }
                    None => conflicts.push(show(&key, &value)),
                },
            },
            "additionalProperties" if value == Value::Bool(false) => {
                target.insert(key, value);
            }
            _ => match target.get(&key) {
                None => {
                    target.insert(key, value);
                }
                Some(existing) if *existing == value => {}
                Some(_) if ANNOTATIONS.contains(&key.as_str()) => {}
                Some(existing) => match tighter(&key, existing, &value) {
                    Some(bound) => {
                        target.insert(key, bound);
                    }
                    None => conflicts.push(show(&key, &value)),
                },
            },
        }
    }
    if !conflicts.is_empty() {
        notes.push(Note::new(
            pointer,
            NoteKind::Described,
            "schemas that must all hold disagree on a keyword: the one in place stays, the other moved into the description",
        ));
        describe(target, conflicts);
    }
}

/// The tighter of two bounds for a bound keyword.
fn tighter(key: &str, left: &Value, right: &Value) -> Option<Value> {
    let (l, r) = (left.as_f64()?, right.as_f64()?);
    let lower = matches!(
        key,
        "minimum" | "exclusiveMinimum" | "minLength" | "minItems" | "minProperties" | "minContains"
    );
    let upper = matches!(
        key,
        "maximum" | "exclusiveMaximum" | "maxLength" | "maxItems" | "maxProperties" | "maxContains"
    );
    if lower {
        Some(if l >= r { left.clone() } else { right.clone() })
    } else if upper {
        Some(if l <= r { left.clone() } else { right.clone() })
    } else {
        None
    }
}

fn intersect_types(left: &Value, right: &Value) -> Option<Value> {
    let names = |value: &Value| -> Vec<String> {
        match value {
            Value::String(name) => vec![name.clone()],
            Value::Array(names) => names
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect(),
            _ => Vec::new(),
        }
    };
    let (left, right) = (names(left), names(right));
    let mut both: Vec<String> = Vec::new();
    for l in &left {
        for r in &right {
            let common = if l == r {
                Some(l.clone())
            } else if (l == "integer" && r == "number") || (l == "number" && r == "integer") {
                Some("integer".to_owned())
            } else {
                None
            };
            if let Some(common) = common
                && !both.contains(&common)
            {
                both.push(common);
            }
        }
    }
    match both.len() {
        0 => None,
        1 => Some(Value::String(both.remove(0))),
        _ => Some(json!(both)),
    }
}

/// Whether a schema constrains objects: `type` object, or object keywords without a `type`.
fn is_object_schema(map: &Object) -> bool {
    match map.get("type") {
        Some(Value::String(kind)) => kind == "object",
        Some(Value::Array(kinds)) => kinds.iter().any(|kind| kind == "object"),
        Some(_) => false,
        None => [
            "properties",
            "additionalProperties",
            "patternProperties",
            "required",
        ]
        .iter()
        .any(|key| map.contains_key(*key)),
    }
}

fn type_names(map: &Object) -> Option<Vec<String>> {
    match map.get("type")? {
        Value::String(name) => Some(vec![name.clone()]),
        Value::Array(names) => Some(
            names
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect(),
        ),
        _ => None,
    }
}

fn properties_of(map: &Object) -> Option<&Object> {
    map.get("properties").and_then(Value::as_object)
}

fn required_names(map: &Object) -> Vec<String> {
    map.get("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .map(str::to_owned)
        .collect()
}

/// Whether `schema` lets `null` through.
fn admits_null(schema: &Value, root: &Value, depth: usize) -> bool {
    if depth > 16 {
        return false;
    }
    let Value::Object(map) = schema else {
        return schema == &Value::Bool(true);
    };
    if let Some(kind) = map.get("type") {
        let nullable = match kind {
            Value::String(name) => name == "null",
            Value::Array(names) => names.iter().any(|name| name == "null"),
            _ => false,
        };
        if !nullable {
            return false;
        }
    }
    if let Some(Value::Array(values)) = map.get("enum")
        && !values.contains(&Value::Null)
    {
        return false;
    }
    if map.get("const").is_some_and(|value| !value.is_null()) || map.contains_key("not") {
        return false;
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(Value::Array(branches)) = map.get(key)
            && !branches
                .iter()
                .any(|branch| admits_null(branch, root, depth + 1))
        {
            return false;
        }
    }
    if let Some(Value::Array(branches)) = map.get("allOf")
        && !branches
            .iter()
            .all(|branch| admits_null(branch, root, depth + 1))
    {
        return false;
    }
    if let Some(Value::String(reference)) = map.get("$ref") {
        return resolve(root, reference).is_some_and(|target| admits_null(target, root, depth + 1));
    }
    true
}

/// The local references that lie on a cycle (a definition that reaches itself).
fn recursive_refs(schema: &Value) -> BTreeSet<String> {
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    // Every reference anywhere, definitions included (one may loop on itself
    // without the root ever pointing at it).
    let mut pending: Vec<String> = refs_in(schema, false).into_iter().collect();
    while let Some(reference) = pending.pop() {
        if graph.contains_key(&reference) {
            continue;
        }
        let targets = match resolve(schema, &reference) {
            Some(target) => refs_in(target, reference == "#"),
            None => BTreeSet::new(),
        };
        pending.extend(targets.iter().cloned());
        graph.insert(reference, targets);
    }
    graph
        .keys()
        .filter(|start| {
            let mut seen = BTreeSet::new();
            let mut stack: Vec<&String> = graph[*start].iter().collect();
            while let Some(next) = stack.pop() {
                if next == *start {
                    return true;
                }
                if seen.insert(next)
                    && let Some(targets) = graph.get(next)
                {
                    stack.extend(targets.iter());
                }
            }
            false
        })
        .cloned()
        .collect()
}

/// The `$ref`s under `schema` (outside its definitions when `skip_defs`).
fn refs_in(schema: &Value, skip_defs: bool) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    walk_ref(schema, "", &mut |node, at| {
        if skip_defs && (at.starts_with("/$defs/") || at.starts_with("/definitions/")) {
            return;
        }
        if let Some(Value::String(reference)) = node.get("$ref") {
            found.insert(reference.clone());
        }
    });
    found
}

/// Whether `schema` holds a `$ref` to one of `targets`.
fn refers_to_any(schema: &Value, targets: &BTreeSet<String>) -> bool {
    let mut found = false;
    walk_ref(schema, "", &mut |node, _| {
        if let Some(Value::String(reference)) = node.get("$ref") {
            found |= targets.contains(reference);
        }
    });
    found
}

/// Appends `lines` to the schema's description, one per line.
fn describe(map: &mut Object, lines: impl IntoIterator<Item = String>) {
    let mut text = match map.get("description") {
        Some(Value::String(text)) => text.clone(),
        _ => String::new(),
    };
    let before = text.len();
    for line in lines {
        if !text.is_empty() {
            text.push('\n');
        }
        text.push_str(&line);
    }
    if text.len() != before {
        map.insert("description".into(), Value::String(text));
    }
}

/// `key: value` for a description: strings bare, anything else as JSON.
fn show(key: &str, value: &Value) -> String {
    format!("{key}: {}", plain(value))
}

fn plain(value: &Value) -> String {
    match readable(value) {
        Value::String(text) => text,
        other => other.to_string(),
    }
}

/// `value` with each bare `{"$ref": "#/$defs/Name"}` written as `Name`: the
/// definitions may be inlined away, and the name is what a reader wants.
fn readable(value: &Value) -> Value {
    match value {
        Value::Object(map) => match map.get("$ref") {
            Some(Value::String(reference)) if map.len() == 1 => {
                Value::String(definition_name(reference))
            }
            _ => Value::Object(
                map.iter()
                    .map(|(key, value)| (key.clone(), readable(value)))
                    .collect(),
            ),
        },
        Value::Array(items) => Value::Array(items.iter().map(readable).collect()),
        other => other.clone(),
    }
}
