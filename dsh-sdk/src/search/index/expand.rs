//! What a query looks for: its own terms, and at lower weights their
//! synonyms, abbreviations, prefixes and extensions, and the terms one edit
//! away from a word no tool holds.

use super::ToolIndex;
use super::ids::TermId;
use super::spelling::one_edit_apart;
use super::tuning::{
    ABBREVIATION_WEIGHT, EXTENSION_WEIGHT, MAX_EXTENSION_CANDIDATES, MAX_EXTENSIONS, MAX_NEAR,
    MAX_NEAR_CANDIDATES, MAX_NEAR_TERMS, MAX_QUERY_TERMS, MIN_EXTENDED, MIN_NEAR, MIN_PREFIX,
    NEAR_WEIGHT, NUMBER_WEIGHT, PREFIX_WEIGHT, SYNONYM_WEIGHT,
};
use crate::search::text;

/// The terms a query looks for, each at its weight.
pub(super) struct LookedFor {
    /// Every term looked for.
    pub(super) wanted: Vec<(TermId, f32)>,
    /// The query's own terms among them, whose coverage the rerank weighs.
    pub(super) own: Vec<(TermId, f32)>,
}

impl ToolIndex {
    /// The terms `query` looks for.
    pub(super) fn looked_for(&self, query: &str) -> LookedFor {
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
        LookedFor { wanted, own }
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
    pub(super) fn extensions(&self, word: &str) -> Vec<TermId> {
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
}

/// Adds `term` to `wanted` at `weight`, or raises the weight it has there.
fn want(wanted: &mut Vec<(TermId, f32)>, term: TermId, weight: f32) {
    match wanted.iter_mut().find(|(have, _)| *have == term) {
        Some((_, had)) => *had = had.max(weight),
        None => wanted.push((term, weight)),
    }
}
