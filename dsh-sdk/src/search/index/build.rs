//! Adding and removing tools: each costs time in proportion to that tool's
//! text, not to the pool.

use foldhash::HashMap;

use super::evidence::Slots;
use super::field::{Field, PerField};
use super::fields::document;
use super::ids::{DocId, TermId};
use super::tuning::{MAX_TERMS_PER_FIELD, MAX_WORD_BYTES, MAX_WORDS};
use super::{Doc, Posting, PostingAt, Term, ToolIndex, Word, name_key};
use crate::search::text;
use crate::tool::ToolInfo;

impl ToolIndex {
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
