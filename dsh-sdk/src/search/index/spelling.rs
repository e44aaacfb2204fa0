//! The misspelling lookup: each term under its spellings less one character.

use std::hash::BuildHasher;

use foldhash::HashMap;

use super::ids::TermId;
use super::tuning::{MAX_NEAR, MAX_NEIGHBOURS, MIN_NEAR};

/// The index's terms under each of their spellings less one character,
/// hashed: `search` is kept under `earch`, `sarch`, … `searc`. A query word
/// no tool holds finds the terms one edit away through them (symmetric
/// deletion): it is a term's deletion (it lacks a letter), one of its own
/// deletions is a term (it has one too many), or the two share a deletion
/// (a letter differs, or two are swapped); [`one_edit_apart`] then checks
/// each candidate, so a hash collision costs a comparison, not a wrong match.
///
/// A term enters when it is interned and leaves when it is freed, so keeping
/// this costs each tool time in proportion to its new terms' lengths.
#[derive(Default)]
pub(super) struct Neighbours {
    pub(super) terms: HashMap<u64, Vec<TermId>>,
    hasher: foldhash::fast::FixedState,
    /// The deletion being spelt, kept to reuse.
    spelling: String,
}

impl Neighbours {
    pub(super) fn add(&mut self, term: &str, id: TermId) {
        self.for_each_deletion(term, |terms, key| {
            let ids = terms.entry(key).or_default();
            if ids.len() < MAX_NEIGHBOURS {
                ids.push(id);
            }
        });
    }

    pub(super) fn remove(&mut self, term: &str, id: TermId) {
        self.for_each_deletion(term, |terms, key| {
            if let Some(ids) = terms.get_mut(&key) {
                if let Some(at) = ids.iter().position(|&held| held == id) {
                    ids.swap_remove(at);
                }
                if ids.is_empty() {
                    terms.remove(&key);
                }
            }
        });
    }

    /// Calls `each` with the map and the key of each of `term`'s deletions.
    fn for_each_deletion(
        &mut self,
        term: &str,
        mut each: impl FnMut(&mut HashMap<u64, Vec<TermId>>, u64),
    ) {
        let Neighbours {
            terms,
            hasher,
            spelling,
        } = self;
        deletions(term, spelling, |deletion| {
            each(terms, hasher.hash_one(deletion));
        });
    }

    /// The terms that give `spelling` less one of their characters (and
    /// perhaps a few others whose deletions hash alike).
    pub(super) fn of(&self, spelling: &str) -> &[TermId] {
        self.terms
            .get(&self.hasher.hash_one(spelling))
            .map_or(&[], Vec::as_slice)
    }
}

/// Calls `each` with `term` less each of its characters in turn, if `term`
/// is a word of letters [`MIN_NEAR`] to [`MAX_NEAR`] characters long.
fn deletions(term: &str, spelling: &mut String, mut each: impl FnMut(&str)) {
    let length = term.chars().count();
    if !(MIN_NEAR..=MAX_NEAR).contains(&length) || !term.chars().all(char::is_alphabetic) {
        return;
    }
    for (at, c) in term.char_indices() {
        spelling.clear();
        spelling.push_str(&term[..at]);
        spelling.push_str(&term[at + c.len_utf8()..]);
        each(spelling);
    }
}

/// Whether `a` and `b` are one edit apart: a character added, dropped or
/// replaced, or two neighbouring characters swapped.
pub(super) fn one_edit_apart(a: &str, b: &str) -> bool {
    if a.is_ascii() && b.is_ascii() {
        one_apart(a.as_bytes(), b.as_bytes())
    } else {
        let a: Vec<char> = a.chars().collect();
        let b: Vec<char> = b.chars().collect();
        one_apart(&a, &b)
    }
}

fn one_apart<T: PartialEq>(a: &[T], b: &[T]) -> bool {
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    if long.len() - short.len() > 1 {
        return false;
    }
    let same = short.iter().zip(long).take_while(|(x, y)| x == y).count();
    if same == short.len() {
        // Equal, or the longer one has one more at the end.
        return long.len() > short.len();
    }
    if short.len() < long.len() {
        return short[same..] == long[same + 1..];
    }
    short[same + 1..] == long[same + 1..]
        || (same + 1 < short.len()
            && short[same] == long[same + 1]
            && short[same + 1] == long[same]
            && short[same + 2..] == long[same + 2..])
}
