//! The first stage: every tool holding a term the query looks for, scored
//! by BM25F, and the best of them kept for the rerank.

use super::evidence::Values;
use super::expand::LookedFor;
use super::field::Field;
use super::ids::{DocId, TermId};
use super::tuning::{K1, LENGTH_NORM, MAX_QUERY_TERMS, RERANK, WEIGHT};
use super::{Features, ToolIndex, rerank};
use crate::tool::ToolInfo;

impl ToolIndex {
    /// The tools that best match `query`, best first, at most `limit`; ties
    /// go by name. Tools that share no term with the query are left out.
    pub fn search(&self, query: &str, limit: usize) -> Vec<ToolInfo> {
        self.search_where(query, limit, &|_| true)
    }

    /// [`ToolIndex::search`] among the tools `keep` lets through: a tool left
    /// out takes no place among the best, so a caller that may not see
    /// some tools still gets up to `limit` of those it may.
    pub fn search_where(
        &self,
        query: &str,
        limit: usize,
        keep: &dyn Fn(&ToolInfo) -> bool,
    ) -> Vec<ToolInfo> {
        self.rank_where(query, limit, keep)
            .into_iter()
            .filter_map(|(doc, _)| self.doc(doc).map(|doc| doc.tool.clone()))
            .collect()
    }

    /// The best `limit` tools for `query`, best first, each with its
    /// rerank score.
    #[cfg(test)]
    pub(super) fn rank(&self, query: &str, limit: usize) -> Vec<(DocId, f32)> {
        self.rank_where(query, limit, &|_| true)
    }

    /// [`ToolIndex::rank`] among the tools `keep` lets through.
    fn rank_where(
        &self,
        query: &str,
        limit: usize,
        keep: &dyn Fn(&ToolInfo) -> bool,
    ) -> Vec<(DocId, f32)> {
        if limit == 0 {
            return Vec::new();
        }
        let (mut best, query) = self.first_stage(query, limit.max(RERANK), keep);
        self.rerank(&mut best, &query);
        best.truncate(limit);
        best
    }

    /// The tools the rerank weighs for `query` (the best by BM25F, at most
    /// the rerank's window), in first-stage order, each with its measures of
    /// fit: what the evaluation example fits the rerank's weights to.
    #[doc(hidden)]
    pub fn candidates(&self, query: &str) -> Vec<(ToolInfo, Features)> {
        let (best, query) = self.first_stage(query, RERANK, &|_| true);
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

    /// The best `kept` tools by BM25F for `query` among those `keep` lets
    /// through, best first, and the query as the rerank weighs it.
    fn first_stage(
        &self,
        query: &str,
        kept: usize,
        keep: &dyn Fn(&ToolInfo) -> bool,
    ) -> (Vec<(DocId, f32)>, rerank::Query) {
        let count = self.len();
        let empty = |index: &ToolIndex| {
            let query = rerank::Query::new(index, &[], &[], Values::default());
            (Vec::new(), query)
        };
        if kept == 0 || count == 0 {
            return empty(self);
        }
        let LookedFor { wanted, own } = self.looked_for(query);
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
            if !self.doc(doc).is_some_and(|doc| keep(&doc.tool)) {
                continue;
            }
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
    pub(super) fn idf(&self, term: TermId) -> f32 {
        let n = self.len() as f32;
        let df = self.terms[term.slot()].postings.len() as f32;
        ((n - df + 0.5) / (df + 0.5) + 1.0).ln()
    }

    /// Whether `a` ranks before `b`: a higher score, or the same score and a smaller name.
    pub(super) fn before(&self, a: (DocId, f32), b: (DocId, f32)) -> bool {
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
}
