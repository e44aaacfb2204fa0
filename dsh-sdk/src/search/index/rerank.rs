//! The second stage: the best-scored tools reordered by a weighed sum of
//! measures of how each one fits the query.
//!
//! Each measure is computed for the candidates alone (at most the rerank's
//! window), from the tool's own terms and the query's, so its cost does not
//! grow with the pool. The evaluation example (`examples/search_eval`,
//! `--fit`) refits the weights from the same measures; the other measures
//! it tried, and why none was kept, are in its doc comment.

use super::ToolIndex;
use super::evidence::Values;
use super::field::Field;
use super::ids::{DocId, TermId};
use super::tuning::{NAME_COVERAGE, NAMED_VALUE, QUERY_COVERAGE, UNFILLED};

/// How many measures of a tool's fit the rerank weighs.
pub(super) const FEATURES: usize = 5;

/// What each measure is called, in the order of [`Features`]:
///
/// - `score`: the first stage's BM25F score over the best candidate's;
/// - `name_coverage`: the share of the tool's name terms the query looks for;
/// - `query_coverage`: the share of the query's own terms (by IDF) the tool holds;
/// - `unfilled`: the share of the tool's required parameters the query holds
///   no value for (a number, a date or time, one of an enumeration's values);
/// - `named_value`: 1 if the query names an allowed value of a parameter.
pub const FEATURE_NAMES: [&str; FEATURES] = [
    "score",
    "name_coverage",
    "query_coverage",
    "unfilled",
    "named_value",
];

/// A tool's measures of fit to one query, named by [`FEATURE_NAMES`].
pub type Features = [f32; FEATURES];

/// What each measure adds to a tool's rerank score. Each weight was chosen
/// on the evaluation's "dev" questions and kept as it did not lower the
/// held-out "live" ones; weights fitted at once (by coordinate ascent on
/// "dev" MRR, or by a softmax likelihood with or without an L2 penalty)
/// raised "dev" and lowered "live", so they were not taken.
pub const RERANK_WEIGHTS: Features = [1.0, NAME_COVERAGE, QUERY_COVERAGE, -UNFILLED, NAMED_VALUE];

/// One query term as the rerank weighs it.
#[derive(Clone, Copy)]
struct Asked {
    term: TermId,
    /// Its IDF if it is one of the query's own words (not a synonym, prefix
    /// or spelling of one), else 0.
    own: f32,
}

/// What the rerank knows of a query.
pub(super) struct Query {
    asked: Vec<Asked>,
    /// The query's own terms, sorted, at their weights.
    own: Vec<(TermId, f32)>,
    own_total: f32,
    values: Values,
}

impl Query {
    /// The query looking for `wanted`, whose own terms are `own`, at their
    /// weights, offering `values` to fill parameters with.
    pub(super) fn new(
        index: &ToolIndex,
        wanted: &[(TermId, f32)],
        own: &[(TermId, f32)],
        values: Values,
    ) -> Query {
        let mut own = own.to_vec();
        own.sort_unstable_by_key(|&(term, _)| term);
        let mut asked: Vec<Asked> = wanted
            .iter()
            .map(|&(term, _)| {
                let idf = index.idf(term);
                let mine = own
                    .binary_search_by_key(&term, |&(held, _)| held)
                    .map_or(0.0, |at| own[at].1);
                Asked {
                    term,
                    own: idf * mine,
                }
            })
            .collect();
        asked.sort_unstable_by_key(|asked| asked.term);
        Query {
            own,
            own_total: asked.iter().map(|asked| asked.own).sum(),
            asked,
            values,
        }
    }
}

impl ToolIndex {
    /// Reorders `best` (sorted by first-stage score, best first) by the
    /// weighed sum of each tool's [`Features`].
    pub(super) fn rerank(&self, best: &mut [(DocId, f32)], query: &Query) {
        let Some(&(_, top)) = best.first() else {
            return;
        };
        if top <= 0.0 {
            return;
        }
        for (doc, score) in best.iter_mut() {
            if let Some(features) = self.features(*doc, *score, top, query) {
                *score = features
                    .iter()
                    .zip(RERANK_WEIGHTS)
                    .map(|(feature, weight)| feature * weight)
                    .sum();
            }
        }
        best.sort_by(|&a, &b| {
            if self.before(a, b) {
                std::cmp::Ordering::Less
            } else if self.before(b, a) {
                std::cmp::Ordering::Greater
            } else {
                std::cmp::Ordering::Equal
            }
        });
    }

    /// How tool `doc`, scored `score` by the first stage where the best tool
    /// scored `top`, fits `query`.
    pub(super) fn features(
        &self,
        doc: DocId,
        score: f32,
        top: f32,
        query: &Query,
    ) -> Option<Features> {
        let found = self.doc(doc)?;
        let (mut covered, mut held) = (0u32, 0.0);
        for asked in &query.asked {
            let Ok(at) = found
                .terms
                .binary_search_by_key(&asked.term, |held| held.term)
            else {
                continue;
            };
            let posting = found.terms[at];
            let tf = self.terms[posting.term.slot()].postings[posting.at as usize].tf;
            covered += u32::from(tf[Field::Name] != 0);
            held += asked.own;
        }
        let share = |part: f32, whole: f32| if whole > 0.0 { part / whole } else { 0.0 };
        let (unfilled, named_value) = found.slots.fill(query.values, &query.own);
        Some([
            score / top,
            share(covered as f32, f32::from(found.named)),
            share(held, query.own_total),
            unfilled,
            f32::from(u8::from(named_value)),
        ])
    }
}
