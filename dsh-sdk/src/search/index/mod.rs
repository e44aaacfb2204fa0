//! [`ToolIndex`]: an incremental inverted index ranking tools with BM25F.
//!
//! This file holds the index's tables and what they mean. Adding and
//! removing tools is in `build`, the fields a tool is scored by in `field`,
//! what text of a tool goes in which field in `fields`, what terms a query looks for in `expand`, the first stage's
//! BM25F in `score`, the rerank in `rerank` (with the parameter evidence it
//! weighs in `evidence`), the misspelling lookup in `spelling`, and every
//! weight and bound in `tuning`.

use std::collections::BTreeMap;

use foldhash::{HashMap, HashMapExt};

use crate::tool::ToolInfo;
use evidence::Slots;
use field::{Field, PerField};
use ids::{DocId, TermId};
pub use rerank::{FEATURE_NAMES, Features, RERANK_WEIGHTS};
use spelling::Neighbours;

/// One tool's occurrences of one term, per field (saturating).
#[derive(Clone, Copy)]
struct Posting {
    doc: DocId,
    tf: PerField<u8>,
}

/// A term of the dictionary, and the tools that hold it.
struct Term {
    text: Box<str>,
    postings: Vec<Posting>,
    /// Bumped each time the slot is freed, so a remembered [`Word`] that
    /// names an older term in this slot is seen to be stale.
    generation: u32,
}

/// What a word of tool text, exactly as written, was found to be: no term
/// (a stop word), or the term in slot `id` of that `generation`.
#[derive(Clone, Copy)]
enum Word {
    Skipped,
    Term { id: TermId, generation: u32 },
}

/// Where one of a tool's postings sits: in the list of `term`, at `at`.
#[derive(Clone, Copy)]
struct PostingAt {
    term: TermId,
    at: u32,
}

/// A tool the index holds.
struct Doc {
    tool: ToolInfo,
    /// Each of the tool's terms and where its posting sits in that term's
    /// list, sorted by term, so removing the tool touches only its own postings.
    terms: Vec<PostingAt>,
    /// Its parameters, as a query might fill them.
    slots: Slots,
    /// How many distinct terms its name holds.
    named: u16,
}

/// An inverted index ranking tools by BM25F over their names, descriptions,
/// parameter names and parameter descriptions, each field weighted apart.
///
/// Tool text and queries are split into words the same way (`camelCase`,
/// `snake_case`, `kebab-case`, dotted names and digits all split), lowercased,
/// stripped of stop words and stemmed, so `sendEmail` is found by "sending
/// emails". A query's action verbs also look, at a lower weight, for the
/// verbs tools use for the same action ("fetch" finds `get_…`), and its
/// words for the abbreviations identifiers use, the words' beginnings
/// ("calculate" finds `calc_…`) and the usual short forms ("command" finds
/// `cmd_…`, "avg" finds `average_…`), and, when six letters or longer, for
/// the longer words they begin (a stem can stop short of a related word's:
/// "multiplication" finds `multiply`).
/// A query word no tool holds looks, at a lower weight, for the terms one
/// edit away from it (a letter added, dropped or replaced, or two swapped),
/// so "seacrh" finds `search`. Numbers in a query count less: they are
/// mostly values to call with. The best-scored tools are then reordered by a
/// weighed sum of measures of their fit ([`FEATURE_NAMES`]): their score,
/// how much of each one's name the query holds, how much of the query
/// (weighed by IDF) each one holds, and the values the query offers its
/// parameters: a tool whose required parameters the query leaves unfilled
/// (a number or a date it does not hold, an enumeration none of whose values
/// it names) drops below a twin it can fill, and one of whose allowed values
/// the query names rises a little.
///
/// Adding or removing a tool costs time in proportion to that tool's text,
/// not to the pool: postings keep raw per-field counts and the index keeps
/// per-field length totals, so the length normalisation is computed at query
/// time against the current averages; a term enters the misspelling lookup
/// and the alphabetical one when its first tool arrives and leaves with its
/// last.
///
/// The registry keeps one over its deferred tools; build one yourself to
/// rank any set of tools.
pub struct ToolIndex {
    ids: HashMap<Box<str>, TermId>,
    terms: Vec<Term>,
    free_terms: Vec<TermId>,
    docs: Vec<Option<Doc>>,
    /// Each slot's field lengths, apart from `docs` so scoring reads them densely.
    lengths: Vec<PerField<u16>>,
    /// Each slot's name's first bytes as [`name_key`] gives them, apart from
    /// `docs` so that ties, which go by name, are mostly told apart densely.
    name_keys: Vec<u64>,
    free_docs: Vec<DocId>,
    by_name: HashMap<String, DocId>,
    total_length: PerField<u64>,
    /// Words already turned into terms, keyed as written (`getUser` gives
    /// `get` and `User`), so indexing a pool lowercases and stems each
    /// distinct word once and finds its term with one lookup.
    words: HashMap<Box<str>, Word>,
    /// The (term, field) occurrences of the tool being inserted, kept to reuse.
    occurrences: Vec<(TermId, Field)>,
    /// The terms by their spellings less one character, so a misspelt query
    /// word finds the terms one edit away.
    neighbours: Neighbours,
    /// The terms in alphabetical order, so a query word finds the terms it begins.
    sorted: BTreeMap<Box<str>, TermId>,
}

impl Default for ToolIndex {
    fn default() -> Self {
        ToolIndex {
            ids: HashMap::new(),
            terms: Vec::new(),
            free_terms: Vec::new(),
            docs: Vec::new(),
            lengths: Vec::new(),
            name_keys: Vec::new(),
            free_docs: Vec::new(),
            by_name: HashMap::new(),
            total_length: PerField::default(),
            words: HashMap::new(),
            occurrences: Vec::new(),
            neighbours: Neighbours::default(),
            sorted: BTreeMap::new(),
        }
    }
}

impl ToolIndex {
    /// An empty index.
    pub fn new() -> Self {
        Self::default()
    }

    /// Indexes `tools` (all of them, deferred or not).
    pub fn build(tools: &[ToolInfo]) -> Self {
        let mut index = Self::new();
        for tool in tools {
            index.insert(tool.clone());
        }
        index
    }

    /// How many tools the index holds.
    pub fn len(&self) -> usize {
        self.by_name.len()
    }

    /// Whether the index holds no tool.
    pub fn is_empty(&self) -> bool {
        self.by_name.is_empty()
    }

    /// The tool in slot `doc`, if one is there.
    fn doc(&self, doc: DocId) -> Option<&Doc> {
        self.docs.get(doc.slot())?.as_ref()
    }
}

impl std::fmt::Debug for ToolIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolIndex")
            .field("tools", &self.len())
            .field("terms", &self.ids.len())
            .finish_non_exhaustive()
    }
}

/// The first eight bytes of `name`, big-endian, zeros after its end: two
/// names whose keys differ are ordered as their keys are (a name that ends
/// first has a zero where the other has a byte), and only names whose keys
/// are equal need comparing in full.
fn name_key(name: &str) -> u64 {
    let mut bytes = [0u8; 8];
    let head = &name.as_bytes()[..name.len().min(8)];
    bytes[..head.len()].copy_from_slice(head);
    u64::from_be_bytes(bytes)
}

mod build;
mod evidence;
mod expand;
mod field;
mod fields;
mod ids;
mod rerank;
mod score;
mod spelling;
#[cfg(test)]
mod tests;
mod tuning;
