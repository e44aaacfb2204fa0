//! [`ToolIndex`]: an incremental inverted index ranking tools with BM25F.

use std::collections::BTreeMap;

use foldhash::{HashMap, HashMapExt};

use serde_json::Value;

use super::text;
use crate::tool::ToolInfo;
use evidence::{Slots, Values};
use fields::{Field, PerField};
use ids::{DocId, TermId};
pub use rerank::{FEATURE_NAMES, Features, RERANK_WEIGHTS};
use spelling::{Neighbours, one_edit_apart};
use tuning::{
    ABBREVIATION_WEIGHT, EXTENSION_WEIGHT, K1, LENGTH_NORM, MAX_DEFINITIONS,
    MAX_EXTENSION_CANDIDATES, MAX_EXTENSIONS, MAX_INDEXED_CHOICES, MAX_NEAR, MAX_NEAR_CANDIDATES,
    MAX_NEAR_TERMS, MAX_PROPERTIES, MAX_QUERY_TERMS, MAX_SCHEMA_DEPTH, MAX_TERMS_PER_FIELD,
    MAX_VARIANTS, MAX_WORD_BYTES, MAX_WORDS, MIN_EXTENDED, MIN_NEAR, MIN_PREFIX, NEAR_WEIGHT,
    NUMBER_WEIGHT, PREFIX_WEIGHT, RERANK, SYNONYM_WEIGHT, WEIGHT,
};

/// One tool's occurrences of one term, per field (saturating).
#[derive(Clone, Copy)]
struct Posting {
    doc: DocId,
    tf: PerField<u8>,
}

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

    /// Adds `tool`, replacing any tool of the same name.
    pub fn insert(&mut self, tool: ToolInfo) {
        self.remove(tool.name());
        // Each occurrence as (term, field), then counted per term.
        let mut occurrences = std::mem::take(&mut self.occurrences);
        occurrences.clear();
        let mut lengths = PerField::<usize>::default();
        let mut lowered = String::new();
        document(&tool, &mut |field, text| {
            text::words(text, |word| {
                if lengths[field] < MAX_TERMS_PER_FIELD
                    && let Some(term) = self.term(word, &mut lowered)
                {
                    lengths[field] += 1;
                    occurrences.push((term, field));
                }
            });
        });
        occurrences.sort_unstable();
        let doc = match self.free_docs.pop() {
            Some(doc) => doc,
            None => {
                self.docs.push(None);
                self.lengths.push(PerField::default());
                self.name_keys.push(0);
                DocId::at(self.docs.len() - 1)
            }
        };
        let mut terms: Vec<PostingAt> = Vec::new();
        for group in occurrences.chunk_by(|a, b| a.0 == b.0) {
            let term = group[0].0;
            let mut tf = PerField::<u8>::default();
            for &(_, field) in group {
                tf[field] = tf[field].saturating_add(1);
            }
            let postings = &mut self.terms[term.slot()].postings;
            terms.push(PostingAt {
                term,
                at: postings.len() as u32,
            });
            postings.push(Posting { doc, tf });
        }
        self.occurrences = occurrences;
        let slots = Slots::of(tool.input_schema(), |value, found| {
            // Only terms the tool holds, so they live as long as it does.
            text::words(value, |word| {
                if let Some(term) = text::term(word, &mut lowered)
                    && let Some(&id) = self.ids.get(term.as_ref())
                    && terms.binary_search_by_key(&id, |held| held.term).is_ok()
                {
                    found(id);
                }
            });
        });
        let named = terms
            .iter()
            .filter(|held| {
                self.terms[held.term.slot()].postings[held.at as usize].tf[Field::Name] != 0
            })
            .count()
            .min(usize::from(u16::MAX)) as u16;
        let lengths = lengths.map(|length| length.min(usize::from(u16::MAX)) as u16);
        for field in Field::ALL {
            self.total_length[field] += u64::from(lengths[field]);
        }
        self.by_name.insert(tool.name().to_owned(), doc);
        self.lengths[doc.slot()] = lengths;
        self.name_keys[doc.slot()] = name_key(tool.name());
        self.docs[doc.slot()] = Some(Doc {
            tool,
            terms,
            slots,
            named,
        });
    }

    /// The term id of `word`, a word of tool text as written, interned if
    /// new; `None` for a word that gives no term.
    fn term(&mut self, word: &str, lowered: &mut String) -> Option<TermId> {
        match self.words.get(word) {
            Some(Word::Skipped) => return None,
            Some(&Word::Term { id, generation })
                if self.terms[id.slot()].generation == generation =>
            {
                return Some(id);
            }
            _ => {}
        }
        let remember = word.len() <= MAX_WORD_BYTES;
        if remember && self.words.len() >= MAX_WORDS {
            self.words.clear();
        }
        let Some(term) = text::term(word, lowered) else {
            if remember {
                self.words.insert(word.into(), Word::Skipped);
            }
            return None;
        };
        let (id, new) = intern(&mut self.ids, &mut self.terms, &mut self.free_terms, &term);
        if new {
            self.neighbours.add(&term, id);
            self.sorted.insert(term.as_ref().into(), id);
        }
        let generation = self.terms[id.slot()].generation;
        if remember {
            self.words
                .insert(word.into(), Word::Term { id, generation });
        }
        Some(id)
    }

    /// Removes the tool named `name`; whether there was one.
    pub fn remove(&mut self, name: &str) -> bool {
        let Some(doc) = self.by_name.remove(name) else {
            return false;
        };
        let Some(removed) = self.docs[doc.slot()].take() else {
            return false;
        };
        let lengths = self.lengths[doc.slot()];
        for field in Field::ALL {
            self.total_length[field] -= u64::from(lengths[field]);
        }
        for PostingAt { term, at } in removed.terms {
            let postings = &mut self.terms[term.slot()].postings;
            postings.swap_remove(at as usize);
            if let Some(moved) = postings.get(at as usize) {
                // The last posting moved into the gap: tell its tool where it is now.
                if let Some(Some(other)) = self.docs.get_mut(moved.doc.slot())
                    && let Ok(found) = other.terms.binary_search_by_key(&term, |held| held.term)
                {
                    other.terms[found].at = at;
                }
            }
            if postings.is_empty() {
                let freed = &mut self.terms[term.slot()];
                freed.generation = freed.generation.wrapping_add(1);
                let text = std::mem::take(&mut freed.text);
                self.neighbours.remove(&text, term);
                self.sorted.remove(&text);
                self.ids.remove(&text);
                self.free_terms.push(term);
            }
        }
        self.free_docs.push(doc);
        true
    }

    /// The tools that best match `query`, best first, at most `limit`; ties
    /// go by name. Tools that share no term with the query are left out.
    pub fn search(&self, query: &str, limit: usize) -> Vec<ToolInfo> {
        self.rank(query, limit)
            .into_iter()
            .filter_map(|(doc, _)| self.doc(doc).map(|doc| doc.tool.clone()))
            .collect()
    }

    fn rank(&self, query: &str, limit: usize) -> Vec<(DocId, f32)> {
        if limit == 0 {
            return Vec::new();
        }
        let (mut best, query) = self.first_stage(query, limit.max(RERANK));
        self.rerank(&mut best, &query);
        best.truncate(limit);
        best
    }

    /// The tools the rerank weighs for `query` (the best by BM25F, at most
    /// the rerank's window), in first-stage order, each with its measures of
    /// fit: what the evaluation example fits the rerank's weights to.
    #[doc(hidden)]
    pub fn candidates(&self, query: &str) -> Vec<(ToolInfo, Features)> {
        let (best, query) = self.first_stage(query, RERANK);
        let Some(&(_, top)) = best.first() else {
            return Vec::new();
        };
        best.iter()
            .filter_map(|&(doc, score)| {
                let features = self.features(doc, score, top, &query)?;
                Some((self.doc(doc)?.tool.clone(), features))
            })
            .collect()
    }

    /// The best `kept` tools by BM25F for `query`, best first, and the
    /// query as the rerank weighs it.
    fn first_stage(&self, query: &str, kept: usize) -> (Vec<(DocId, f32)>, rerank::Query) {
        let count = self.len();
        let empty = |index: &ToolIndex| {
            let query = rerank::Query::new(index, &[], &[], Values::default());
            (Vec::new(), query)
        };
        if kept == 0 || count == 0 {
            return empty(self);
        }
        // Every term looked for, and apart the query's own, whose coverage
        // the rerank weighs.
        let mut wanted: Vec<(TermId, f32)> = Vec::new();
        let mut own: Vec<(TermId, f32)> = Vec::new();
        let mut unknown: Vec<(String, f32)> = Vec::new();
        text::terms(query, MAX_QUERY_TERMS, |term, numeric| {
            let weight = if numeric { NUMBER_WEIGHT } else { 1.0 };
            match self.ids.get(term) {
                Some(&id) => {
                    want(&mut wanted, id, weight);
                    want(&mut own, id, weight);
                }
                None if !numeric => unknown.push((term.to_owned(), weight)),
                None => {}
            }
            let mut also = |term: &str, weight: f32| {
                if let Some(&id) = self.ids.get(term) {
                    want(&mut wanted, id, weight);
                }
            };
            for synonym in text::expansions(term) {
                also(synonym, SYNONYM_WEIGHT * weight);
            }
            for short in text::abbreviations(term) {
                also(short, ABBREVIATION_WEIGHT * weight);
            }
            for (end, _) in term.char_indices().skip(MIN_PREFIX) {
                also(&term[..end], PREFIX_WEIGHT * weight);
            }
            if !numeric && term.chars().count() >= MIN_EXTENDED {
                for id in self.extensions(term) {
                    want(&mut wanted, id, EXTENSION_WEIGHT * weight);
                }
            }
        });
        let mut spelling = String::new();
        for (word, weight) in &unknown {
            for near in self.near(word, &mut spelling) {
                want(&mut wanted, near, NEAR_WEIGHT * weight);
            }
        }
        if wanted.is_empty() {
            return empty(self);
        }

        let n = count as f32;
        let inverse_average = self
            .total_length
            .map(|total| if total == 0 { 0.0 } else { n / total as f32 });
        let mut scores = vec![0.0f32; self.docs.len()];
        let mut touched: Vec<DocId> = Vec::new();
        for &(term, weight) in &wanted {
            let postings = &self.terms[term.slot()].postings;
            let scale = self.idf(term) * weight * (K1 + 1.0);
            for posting in postings {
                let lengths = &self.lengths[posting.doc.slot()];
                let mut tf = 0.0;
                for field in Field::ALL {
                    if posting.tf[field] != 0 {
                        let norm = 1.0 - LENGTH_NORM[field]
                            + LENGTH_NORM[field]
                                * f32::from(lengths[field])
                                * inverse_average[field];
                        tf += WEIGHT[field] * f32::from(posting.tf[field]) / norm;
                    }
                }
                let score = &mut scores[posting.doc.slot()];
                if *score == 0.0 {
                    touched.push(posting.doc);
                }
                *score += scale * tf / (tf + K1);
            }
        }

        // The best `kept`, kept sorted: most candidates fall below the last.
        let mut best: Vec<(DocId, f32)> = Vec::with_capacity(kept + 1);
        for doc in touched {
            let candidate = (doc, scores[doc.slot()]);
            if best.len() == kept
                && best
                    .last()
                    .is_some_and(|&last| !self.before(candidate, last))
            {
                continue;
            }
            let at = best.partition_point(|&held| self.before(held, candidate));
            best.insert(at, candidate);
            best.truncate(kept);
        }
        let values = Values::of(query, MAX_QUERY_TERMS);
        let query = rerank::Query::new(self, &wanted, &own, values);
        (best, query)
    }

    /// BM25's inverse document frequency of `term`.
    fn idf(&self, term: TermId) -> f32 {
        let n = self.len() as f32;
        let df = self.terms[term.slot()].postings.len() as f32;
        ((n - df + 0.5) / (df + 0.5) + 1.0).ln()
    }

    /// The terms one edit away from `word`, a query term no tool holds: at
    /// most [`MAX_NEAR_TERMS`] of them, from at most [`MAX_NEAR_CANDIDATES`]
    /// candidates, so a word costs the same whatever the index holds.
    fn near(&self, word: &str, spelling: &mut String) -> Vec<TermId> {
        let mut found: Vec<TermId> = Vec::new();
        let length = word.chars().count();
        if length + 1 < MIN_NEAR || length > MAX_NEAR + 1 || !word.chars().all(char::is_alphabetic)
        {
            return found;
        }
        let mut candidates = 0;
        let mut consider = |ids: &[TermId]| {
            for &id in ids {
                if found.len() == MAX_NEAR_TERMS || candidates == MAX_NEAR_CANDIDATES {
                    return;
                }
                candidates += 1;
                if !found.contains(&id) && one_edit_apart(word, &self.terms[id.slot()].text) {
                    found.push(id);
                }
            }
        };
        // The word lacks a letter of a term.
        consider(self.neighbours.of(word));
        for (at, c) in word.char_indices() {
            spelling.clear();
            spelling.push_str(&word[..at]);
            spelling.push_str(&word[at + c.len_utf8()..]);
            // The word has a letter too many.
            if spelling.chars().count() >= MIN_NEAR
                && let Some(&id) = self.ids.get(spelling.as_str())
            {
                consider(&[id]);
            }
            // A letter differs, or two are swapped.
            consider(self.neighbours.of(spelling));
        }
        found
    }

    /// The terms longer than `word` that begin with it: the
    /// [`MAX_EXTENSIONS`] shortest of the first [`MAX_EXTENSION_CANDIDATES`].
    fn extensions(&self, word: &str) -> Vec<TermId> {
        use std::ops::Bound::{Excluded, Unbounded};
        let mut found: Vec<(usize, TermId)> = self
            .sorted
            .range::<str, _>((Excluded(word), Unbounded))
            .take(MAX_EXTENSION_CANDIDATES)
            .take_while(|(text, _)| text.starts_with(word))
            .map(|(text, &id)| (text.len(), id))
            .collect();
        // Stable: of equal length, alphabetical order stands.
        found.sort_by_key(|&(length, _)| length);
        found.truncate(MAX_EXTENSIONS);
        found.into_iter().map(|(_, id)| id).collect()
    }

    /// Whether `a` ranks before `b`: a higher score, or the same score and a smaller name.
    fn before(&self, a: (DocId, f32), b: (DocId, f32)) -> bool {
        match a.1.total_cmp(&b.1) {
            std::cmp::Ordering::Greater => true,
            std::cmp::Ordering::Less => false,
            std::cmp::Ordering::Equal => {
                let key = |doc: DocId| self.name_keys.get(doc.slot());
                match key(a.0).cmp(&key(b.0)) {
                    std::cmp::Ordering::Equal => {
                        let name = |doc| self.doc(doc).map(|doc| doc.tool.name());
                        name(a.0) < name(b.0)
                    }
                    order => order.is_lt(),
                }
            }
        }
    }

    fn doc(&self, doc: DocId) -> Option<&Doc> {
        self.docs.get(doc.slot())?.as_ref()
    }
}

/// The id of `text` in the term dictionary, added if new.
fn intern(
    ids: &mut HashMap<Box<str>, TermId>,
    terms: &mut Vec<Term>,
    free: &mut Vec<TermId>,
    text: &str,
) -> (TermId, bool) {
    if let Some(&id) = ids.get(text) {
        return (id, false);
    }
    let text: Box<str> = text.into();
    let id = match free.pop() {
        Some(id) => {
            terms[id.slot()].text = text.clone();
            id
        }
        None => {
            terms.push(Term {
                text: text.clone(),
                postings: Vec::new(),
                generation: 0,
            });
            TermId::at(terms.len() - 1)
        }
    };
    ids.insert(text, id);
    (id, true)
}

/// Adds `term` to `wanted` at `weight`, or raises the weight it has there.
fn want(wanted: &mut Vec<(TermId, f32)>, term: TermId, weight: f32) {
    match wanted.iter_mut().find(|(have, _)| *have == term) {
        Some((_, had)) => *had = had.max(weight),
        None => wanted.push((term, weight)),
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

/// Calls `add` with each field of a tool and a text in it.
fn document(tool: &ToolInfo, add: &mut impl FnMut(Field, &str)) {
    let def = tool.definition();
    add(Field::Name, def.name());
    for alias in def.alias_names() {
        add(Field::Name, alias);
    }
    add(Field::Description, def.description());
    let mut budget = MAX_PROPERTIES;
    parameters(tool.input_schema(), 0, &mut budget, add);
}

/// Adds the names and descriptions of a schema's properties, and of the
/// properties of objects nested in them, to the parameter fields.
fn parameters(schema: &Value, depth: usize, budget: &mut usize, add: &mut impl FnMut(Field, &str)) {
    if let Value::Object(schema) = schema {
        nested(&Keywords::of(schema), depth, budget, add);
    }
}

/// The keywords of one schema that [`parameters`] reads, found in one pass
/// over its keys rather than a lookup each.
#[derive(Default)]
struct Keywords<'a> {
    properties: Option<&'a serde_json::Map<String, Value>>,
    description: Option<&'a str>,
    choices: Option<&'a [Value]>,
    definitions: Option<&'a serde_json::Map<String, Value>>,
    /// `items` and `additionalProperties`.
    inner: [Option<&'a Value>; 2],
    /// `anyOf`, `oneOf` and `allOf`.
    variants: [Option<&'a [Value]>; 3],
}

impl<'a> Keywords<'a> {
    fn of(schema: &'a serde_json::Map<String, Value>) -> Self {
        let mut found = Keywords::default();
        for (key, value) in schema {
            match (key.as_str(), value) {
                ("properties", Value::Object(map)) => found.properties = Some(map),
                ("description", Value::String(text)) => found.description = Some(text),
                ("enum", Value::Array(values)) => found.choices = Some(values),
                ("$defs", Value::Object(map)) => found.definitions = Some(map),
                ("items", _) => found.inner[0] = Some(value),
                ("additionalProperties", _) => found.inner[1] = Some(value),
                ("anyOf", Value::Array(values)) => found.variants[0] = Some(values),
                ("oneOf", Value::Array(values)) => found.variants[1] = Some(values),
                ("allOf", Value::Array(values)) => found.variants[2] = Some(values),
                _ => {}
            }
        }
        found
    }
}

/// [`parameters`] of a schema at `depth` whose keywords are `schema`.
fn nested(
    schema: &Keywords<'_>,
    depth: usize,
    budget: &mut usize,
    add: &mut impl FnMut(Field, &str),
) {
    if depth > MAX_SCHEMA_DEPTH {
        return;
    }
    if let Some(properties) = schema.properties {
        for (name, property) in properties {
            if *budget == 0 {
                return;
            }
            *budget -= 1;
            add(Field::Parameter, name);
            let Value::Object(property) = property else {
                continue;
            };
            let property = Keywords::of(property);
            if let Some(description) = property.description {
                add(Field::ParameterText, description);
            }
            for value in property
                .choices
                .unwrap_or_default()
                .iter()
                .take(MAX_INDEXED_CHOICES)
            {
                if let Value::String(value) = value {
                    add(Field::ParameterText, value);
                }
            }
            nested(&property, depth + 1, budget, add);
        }
    }
    if depth == 0
        && let Some(definitions) = schema.definitions
    {
        for definition in definitions.values().take(MAX_DEFINITIONS) {
            parameters(definition, depth + 1, budget, add);
        }
    }
    for inner in schema.inner.into_iter().flatten() {
        parameters(inner, depth + 1, budget, add);
    }
    for variants in schema.variants.into_iter().flatten() {
        for variant in variants.iter().take(MAX_VARIANTS) {
            parameters(variant, depth + 1, budget, add);
        }
    }
}

mod evidence;
mod fields;
mod ids;
mod rerank;
mod spelling;
#[cfg(test)]
mod tests;
mod tuning;
