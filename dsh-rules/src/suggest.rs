//! "did you mean `read_only`?" for misspelt names, keys and values.

/// How alike two names must be (Jaro-Winkler) to be offered as a correction.
const THRESHOLD: f64 = 0.85;

/// The `candidates` close enough to `name` to be a likely typo, best first
/// (ties by name), each once.
///
/// Jaro-Winkler similarity over lowercase text, as clap uses for its
/// suggestions: it rewards a shared prefix, which is how names get misspelt
/// (`readonly`, `read_onyl`, `Filesystem`).
pub fn closest<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Vec<&'a str> {
    let name = name.to_lowercase();
    let mut scored: Vec<(f64, &str)> = candidates
        .into_iter()
        .map(|candidate| {
            let score = strsim::jaro_winkler(&name, &candidate.to_lowercase());
            (score, candidate)
        })
        .filter(|(score, _)| *score >= THRESHOLD)
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(b.1)));
    let mut names: Vec<&str> = scored.into_iter().map(|(_, candidate)| candidate).collect();
    names.dedup();
    names
}

/// The candidate closest to `input`, if one is close enough to be a likely typo.
pub fn did_you_mean<'a>(
    input: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    closest(input, candidates).first().copied()
}

/// `` `a`, `b` or `c` ``, for messages that list what is accepted.
pub fn one_of(candidates: &[&str]) -> String {
    let quoted: Vec<String> = candidates.iter().map(|c| format!("`{c}`")).collect();
    match quoted.split_last() {
        None => String::new(),
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::{did_you_mean, one_of};

    const KEYS: &[&str] = &["read_only", "render", "present", "description", "name"];

    #[test]
    fn suggests_the_closest_key() {
        assert_eq!(
            did_you_mean("readonly", KEYS.iter().copied()),
            Some("read_only")
        );
        assert_eq!(
            did_you_mean("read_onyl", KEYS.iter().copied()),
            Some("read_only")
        );
        assert_eq!(did_you_mean("rendr", KEYS.iter().copied()), Some("render"));
        assert_eq!(
            did_you_mean("desc", KEYS.iter().copied()),
            Some("description")
        );
    }

    #[test]
    fn ignores_case() {
        assert_eq!(
            did_you_mean("Filesystem", ["filesystem", "shell"]),
            Some("filesystem")
        );
    }

    #[test]
    fn suggests_nothing_for_a_stranger() {
        assert_eq!(did_you_mean("xyz", KEYS.iter().copied()), None);
        assert_eq!(did_you_mean("fs", ["filesystem", "shell"]), None);
    }

    #[test]
    fn lists_candidates() {
        assert_eq!(one_of(&[]), "");
        assert_eq!(one_of(&["a"]), "`a`");
        assert_eq!(one_of(&["a", "b", "c"]), "`a`, `b` or `c`");
    }
}
