//! "Did you mean": the known names closest to a name that matched none.

/// How alike two names must be (Jaro-Winkler) to be offered as a correction.
const THRESHOLD: f64 = 0.85;

/// The `candidates` close enough to `name` to suggest, best first (ties by
/// name), each once.
///
/// Jaro-Winkler similarity over lowercase text: it rewards a shared prefix,
/// which is how names get misspelt (`read_flie`, `Read_File`). dsh-kit-macros
/// suggests attribute keys and values by the same rule; the tests below hold
/// the two equal.
pub(crate) fn closest<'a>(
    name: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Vec<&'a str> {
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

/// `; did you mean `a`?` or `; did you mean one of `a`, `b`?`, to end a
/// message about a name that matched none; empty when nothing is close.
pub(crate) fn hint<S: AsRef<str>>(closest: &[S]) -> String {
    match closest {
        [] => String::new(),
        [one] => format!("; did you mean `{}`?", one.as_ref()),
        many => {
            let names: Vec<String> = many
                .iter()
                .map(|name| format!("`{}`", name.as_ref()))
                .collect();
            format!("; did you mean one of {}?", names.join(", "))
        }
    }
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

    #[test]
    fn ignores_case() {
        assert_eq!(closest("Read_File", ["read_file", "write"]), ["read_file"]);
    }

    #[test]
    fn hints_at_none_one_or_many() {
        assert_eq!(hint::<&str>(&[]), "");
        assert_eq!(hint(&["limit"]), "; did you mean `limit`?");
        assert_eq!(hint(&["a", "b"]), "; did you mean one of `a`, `b`?");
    }

    /// dsh-kit-macros keeps its own copy (it cannot depend on this crate): both
    /// must offer the same names, in the same order.
    #[test]
    fn the_macros_suggest_alike() {
        macro_rules! agree {
            ($name:literal in $($candidate:literal),*) => {{
                let macros: &[&str] = &dsh_kit_macros::__shared_rules!(closest $name in $($candidate),*);
                assert_eq!(macros, closest($name, [$($candidate),*]), "{}", $name);
            }};
        }
        agree!("limt" in "query", "limit", "lime");
        agree!("zzz" in "query", "limit");
        agree!("readonly" in "read_only", "render", "present", "description", "name");
        agree!("read_onyl" in "read_only", "render", "present", "description", "name");
        agree!("rendr" in "read_only", "render", "present", "description", "name");
        agree!("desc" in "read_only", "render", "present", "description", "name");
        agree!("Filesystem" in "filesystem", "shell");
        agree!("fs" in "filesystem", "shell");
        agree!("read_flie" in "read_file", "write_file", "read_file");
        agree!("ab" in "ba", "ab", "AB", "abc");
        agree!("" in "a", "");
        agree!("rgg" in "rg", "rga");
    }
}
