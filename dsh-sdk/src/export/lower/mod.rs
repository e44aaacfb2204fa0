//! Provider schema lowering: one canonical schema per tool, rewritten into
//! the dialect each provider takes.
//!
//! ```
//! use dsh_kit::export::lower;
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
//! The passes are private to the crate, one module per concern: `objects`
//! (one shape for every subschema, objects closed and required, tuples,
//! maps), `merge` (`allOf`, constraining `$ref` siblings, root
//! alternatives), `alternatives` (`oneOf` as `anyOf`), `refs` (wrapping,
//! inlining, recursion), `openapi` (Gemini's literal and type forms),
//! `dialect` (the keyword tables and the pass that keeps them) and `limits`;
//! `shape` and `walk` read and visit schemas for them. Where schemars ships
//! the rewrite a pass needs, the pass is schemars' own transform
//! (`ReplaceConstValue`); where its nearest transform writes something a
//! dialect does not read, the pass says so and stays ours.
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

mod alternatives;
mod dialect;
pub(crate) mod limits;
mod merge;
mod objects;
mod openapi;
mod refs;
mod shape;
mod walk;

use std::fmt;

use serde_json::{Map, Value};

use crate::export::Format;
use alternatives::{flatten_any_of, one_of_to_any_of};
use dialect::{
    ANTHROPIC_STRICT, Dialect, GEMINI_JSON, GEMINI_OPENAPI, OPENAI_STRICT, keep_keywords,
};
use limits::{check_anthropic_limits, check_openai_limits};
use merge::{distribute_alternatives, hoist_root_combinators, merge_all_of};
use objects::{
    close_objects, drop_additional_properties, normalize, require_all_properties,
    require_nullable_properties, tuples_to_arrays, type_every_schema, unevaluated_to_additional,
};
use openapi::{const_to_enum, nullable, split_null_enums, uppercase_types};
use refs::{inline_refs, unrequire_recursion, wrap_ref_siblings};

type Object = Map<String, Value>;

/// A pass: rewrites a schema in place and notes what it could not keep.
type Pass = fn(&mut Value, &mut Vec<Note>);

/// The passes every dialect but plain Anthropic starts with: one shape for
/// every subschema, a root that is one object, `allOf` and constraining `$ref`
/// siblings merged, flattened enums spread into whole objects, and `oneOf`
/// read as `anyOf`.
const COMMON: &[Pass] = &[
    normalize,
    hoist_root_combinators,
    merge_all_of,
    distribute_alternatives,
    unevaluated_to_additional,
    one_of_to_any_of,
];

/// How many times one definition may nest inside itself where recursion has
/// to be inlined (Gemini `parameters`, Anthropic strict); deeper, it is cut.
pub const RECURSION_DEPTH: usize = 3;

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

    /// Runs [`COMMON`], then `passes`.
    fn run(schema: &Value, passes: &[Pass]) -> Lowered {
        let mut schema = schema.clone();
        let mut notes = Vec::new();
        for pass in COMMON.iter().chain(passes) {
            pass(&mut schema, &mut notes);
        }
        Lowered::sorted(schema, notes)
    }

    fn sorted(schema: Value, mut notes: Vec<Note>) -> Lowered {
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
    pub(crate) fn new(pointer: &str, kind: NoteKind, message: impl Into<String>) -> Self {
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
/// "absent"); only the keywords of strict mode's "Supported schemas" stay
/// (no `minLength`, `maxLength`, `uniqueItems`, `patternProperties`, `not`,
/// `if`/`then`/`else`, …); `oneOf` becomes
/// `anyOf`; a `$ref` with siblings is wrapped into `anyOf: [{"$ref"}]`;
/// recursion stays as `$ref`s, which strict mode supports. The documented size
/// limits (5,000 properties, 10 levels of nesting, 1,000 enum values, 120,000
/// characters of names and values) are checked.
pub fn openai_strict(schema: &Value) -> Lowered {
    Lowered::run(
        schema,
        &[
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
    let mut schema = schema.clone();
    let mut notes = Vec::new();
    hoist_root_combinators(&mut schema, &mut notes);
    Lowered::sorted(schema, notes)
}

/// Lowers `schema` for Anthropic's strict tool use (`"strict": true`).
///
/// Objects are closed; optional properties that take `null` become required
/// (which spends the union budget rather than the optional one, and means the
/// same); only the keywords its "JSON Schema limitations" list stay (no
/// numeric or string-length bounds, no `maxItems`), with `minItems` above
/// 1 and regexes that use backreferences, lookaround or word boundaries moved
/// into the description; every `$ref` is inlined, recursion cut at
/// [`RECURSION_DEPTH`]. A tool over the documented complexity limits on its own
/// (24 optional and 16 union-typed parameters per request) is noted.
pub fn anthropic_strict(schema: &Value) -> Lowered {
    Lowered::run(
        schema,
        &[
            tuples_to_arrays,
            close_objects,
            require_nullable_properties,
            |schema, notes| keep_typed_inlined(schema, &ANTHROPIC_STRICT, true, notes),
            check_anthropic_limits,
        ],
    )
}

/// Lowers `schema` for Gemini's `parametersJsonSchema`: the JSON Schema
/// keywords its reference lists as supported, `const` as a one-value `enum`, `null` split out
/// of enums, `oneOf` as `anyOf`, `$ref` siblings wrapped, and recursion only
/// through optional properties, as Gemini unrolls it.
pub fn gemini(schema: &Value) -> Lowered {
    Lowered::run(
        schema,
        &[
            const_to_enum,
            split_null_enums,
            unrequire_recursion,
            |schema, notes| keep_keywords(schema, &GEMINI_JSON, notes),
            wrap_ref_siblings,
        ],
    )
}

/// Lowers `schema` for Gemini's `parameters`, the OpenAPI 3.0 subset its
/// `Schema` object documents: no type arrays (`nullable: true` instead), no
/// `$ref`/`$defs` (inlined, recursion cut at [`RECURSION_DEPTH`]), no
/// `additionalProperties`, no `const` (a one-value `enum`), string-only enums,
/// and upper-case types as Gemini's `Type` lists them.
///
/// schemars' `SchemaSettings::openapi3()` is not the way there: it applies
/// when a schema is generated, not to one already derived, and its transforms
/// write `allOf`, `const: null` and draft 7 tuples, none of which Gemini reads.
/// Its `ReplaceConstValue` is one of the passes.
pub fn gemini_openapi(schema: &Value) -> Lowered {
    Lowered::run(
        schema,
        &[
            const_to_enum,
            split_null_enums,
            tuples_to_arrays,
            drop_additional_properties,
            |schema, notes| keep_typed_inlined(schema, &GEMINI_OPENAPI, false, notes),
            nullable,
            uppercase_types,
        ],
    )
}

/// The passes the dialects without `$ref` share, in this order: keep
/// `dialect`'s keywords, give every subschema a type, inline every `$ref`
/// (recursion stubs closed when `closed`), and flatten the nested `anyOf`s
/// inlining leaves.
fn keep_typed_inlined(schema: &mut Value, dialect: &Dialect, closed: bool, notes: &mut Vec<Note>) {
    keep_keywords(schema, dialect, notes);
    type_every_schema(schema, notes);
    inline_refs(schema, closed, notes);
    flatten_any_of(schema, notes);
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

#[cfg(test)]
mod tests;
