//! "Did you mean": the known names closest to a name that matched none.

/// The known names close enough to a name to suggest, best first: the one
/// rule, which dsh-kit-macros uses for attribute keys and values too.
pub(crate) use dsh_kit_rules::suggest::closest;

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
}
