//! "Did you mean": the known names closest to a name that matched none.

/// How alike two names must be (Jaro-Winkler) to be offered as a correction.
const THRESHOLD: f64 = 0.85;

/// The `candidates` close enough to `name` to suggest, best first (ties by
/// name), each once.
pub(crate) fn closest<'a>(
    name: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Vec<&'a str> {
    let mut scored: Vec<(f64, &str)> = candidates
        .into_iter()
        .map(|candidate| (strsim::jaro_winkler(name, candidate), candidate))
        .filter(|(score, _)| *score >= THRESHOLD)
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(b.1)));
    let mut names: Vec<&str> = scored.into_iter().map(|(_, candidate)| candidate).collect();
    names.dedup();
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offers_near_names_best_first() {
        assert_eq!(
            closest("limt", ["query", "limit", "lime"]),
            ["limit", "lime"]
        );
        assert!(closest("zzz", ["query", "limit"]).is_empty());
    }
}
