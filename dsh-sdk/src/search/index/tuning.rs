//! Every number the index's ranking and bounds turn on, in one place.
//!
//! The weights were chosen on the evaluation's dev queries
//! (`examples/search_eval`) and checked on its held-out ones; its doc
//! comment tells what each was tried at and why it was kept. The bounds cap
//! what one tool or one query can cost, whoever wrote it.

use super::field::PerField;

// The first stage: BM25F over the fields.

/// How much a term found in each field counts: a word of the name or the
/// description says most about what a tool does, a word of a parameter's
/// description least.
pub(super) const WEIGHT: PerField<f32> = PerField {
    name: 2.0,
    description: 2.0,
    parameter: 1.0,
    parameter_text: 0.6,
};
/// How much each field's length discounts its terms (BM25's `b`): names are
/// short whatever the tool, so their length says little.
pub(super) const LENGTH_NORM: PerField<f32> = PerField {
    name: 0.3,
    description: 0.75,
    parameter: 0.5,
    parameter_text: 0.75,
};
/// BM25's term-frequency saturation.
pub(super) const K1: f32 = 1.2;

// What a query looks for besides its own words, and at what weight.

/// What a query term's synonym counts for, against the term itself.
pub(super) const SYNONYM_WEIGHT: f32 = 0.3;
/// What a query word's abbreviation, or the word a query's abbreviation
/// stands for, counts for ("command" finds `cmd`, "avg" finds `average`):
/// the same word, but seldom written that way by a tool that means it.
pub(super) const ABBREVIATION_WEIGHT: f32 = 0.5;
/// What an indexed word that begins a query word counts for: identifiers
/// abbreviate (`calc_area`, `math_hypot`, `get_temp`), queries rarely do.
pub(super) const PREFIX_WEIGHT: f32 = 0.5;
/// The shortest prefix of a query word that is looked for, in characters.
pub(super) const MIN_PREFIX: usize = 4;
/// What an indexed word that a query word begins counts for: a stem can
/// stop short of a related word's (`multipl` of `multiplication` begins
/// `multipli` of `multiply`).
pub(super) const EXTENSION_WEIGHT: f32 = 0.5;
/// The shortest query word whose extensions are looked for, in characters:
/// a shorter one begins too many unrelated words.
pub(super) const MIN_EXTENDED: usize = 6;
/// At most this many extensions of one query word count, the shortest of
/// the first [`MAX_EXTENSION_CANDIDATES`] in alphabetical order.
pub(super) const MAX_EXTENSIONS: usize = 8;
/// How many terms, in alphabetical order after a query word, are looked at
/// for its extensions.
pub(super) const MAX_EXTENSION_CANDIDATES: usize = 64;
/// What a number in a query counts for: numbers in a request are mostly the
/// values to call with ("10 units", "2023"), seldom what names the tool.
pub(super) const NUMBER_WEIGHT: f32 = 0.3;
/// What a term one edit away from a query word no tool holds counts for
/// ("seacrh" finds `search`), against the word itself.
pub(super) const NEAR_WEIGHT: f32 = 0.5;
/// The shortest term misspellings are looked for, in characters: a shorter
/// word is one edit away from too many others to guess which.
pub(super) const MIN_NEAR: usize = 5;
/// The longest term misspellings are looked for, in characters.
pub(super) const MAX_NEAR: usize = 24;
/// At most this many terms stand in for one misspelt word.
pub(super) const MAX_NEAR_TERMS: usize = 8;
/// At most this many candidates are checked for the terms that stand in
/// for one misspelt word.
pub(super) const MAX_NEAR_CANDIDATES: usize = 256;
/// At most this many terms are kept under one deletion (`aaaa` for `aaaab`,
/// `aaaac`, …), so removing a term scans a short list whatever the pool; a
/// deletion that many terms share guesses none of them well anyway.
pub(super) const MAX_NEIGHBOURS: usize = 64;

// The second stage: the rerank.

/// How many of the best-scored tools are reordered by their fit.
pub(super) const RERANK: usize = 30;
/// What it adds to a tool's score (scaled to the best score's 1) that the
/// query holds all of the tool's name words, in proportion to how many: a
/// request naming `current_weather` in full fits it better than one that
/// shares a word of its description with it.
pub(super) const NAME_COVERAGE: f32 = 0.2;
/// What it adds that the tool holds all of the query's own words, in
/// proportion to their share of the query's IDF: of two tools scored alike,
/// the one that leaves fewer of the request's words unexplained fits better.
pub(super) const QUERY_COVERAGE: f32 = 0.1;
/// What it takes off, in proportion to the share of the tool's required
/// parameters the query holds no value for: of two tools that do the same,
/// the one the request can be passed to fits it better.
pub(super) const UNFILLED: f32 = 0.25;
/// What it adds that the query names an allowed value of one of the tool's
/// parameters ("in Fahrenheit" for a `unit` of `celsius` or `fahrenheit`).
pub(super) const NAMED_VALUE: f32 = 0.02;

// Bounds on what one tool or one query can cost.

/// At most this many terms of one field of a tool are indexed.
pub(super) const MAX_TERMS_PER_FIELD: usize = 2_048;
/// At most this many terms of a query are looked for.
pub(super) const MAX_QUERY_TERMS: usize = 64;
/// Properties nested deeper than this in a tool's schema are not indexed.
pub(super) const MAX_SCHEMA_DEPTH: usize = 6;
/// At most this many properties of a tool's schema, at any depth, are indexed.
pub(super) const MAX_PROPERTIES: usize = 512;
/// At most this many allowed values of one property are indexed.
pub(super) const MAX_INDEXED_CHOICES: usize = 64;
/// At most this many `$defs` of a tool's schema are indexed.
pub(super) const MAX_DEFINITIONS: usize = 64;
/// At most this many variants of one `anyOf`, `oneOf` or `allOf` are indexed.
pub(super) const MAX_VARIANTS: usize = 16;
/// At most this many distinct written words are remembered; then the
/// memory starts over.
pub(super) const MAX_WORDS: usize = 1 << 16;
/// Longer words are not remembered, so the memory stays small whatever the
/// tool text.
pub(super) const MAX_WORD_BYTES: usize = 64;
/// At most this many of a tool's top-level parameters are weighed as slots
/// a query might fill.
pub(super) const MAX_SLOTS: usize = 64;
/// At most this many allowed values of one parameter are looked for in a query.
pub(super) const MAX_CHOICES: usize = 64;
/// Longer allowed values are not looked for in queries.
pub(super) const MAX_CHOICE_BYTES: usize = 256;
/// A tool's `required` list is read only this far.
pub(super) const MAX_REQUIRED: usize = 1_024;
/// At most this many bytes of a query are looked through for a date.
pub(super) const MAX_DATED_BYTES: usize = 4_096;
