//! Doc comments: reading `#[doc]` attributes and joining them into one text.

use syn::{Attribute, Expr, ExprLit, Lit, Meta};

/// The doc comment of an item.
pub(crate) struct Docs<'a> {
    /// The text of each `#[doc = "…"]`, in order.
    pub(crate) fragments: Vec<String>,
    /// A `#[doc = …]` whose value is not a string literal (`include_str!(…)`),
    /// which a macro cannot read.
    pub(crate) opaque: Option<&'a Attribute>,
}

impl<'a> Docs<'a> {
    /// Reads the `#[doc]` attributes among `attrs`.
    pub(crate) fn collect(attrs: &'a [Attribute]) -> Self {
        let mut docs = Docs {
            fragments: Vec::new(),
            opaque: None,
        };
        for attr in attrs.iter().filter(|attr| is_doc(attr)) {
            match &attr.meta {
                Meta::NameValue(nv) => match &nv.value {
                    Expr::Lit(ExprLit {
                        lit: Lit::Str(text),
                        ..
                    }) => docs.fragments.push(text.value()),
                    _ => docs.opaque = docs.opaque.or(Some(attr)),
                },
                // `#[doc(hidden)]` and the like say nothing about the item.
                Meta::Path(_) | Meta::List(_) => {}
            }
        }
        docs
    }

    /// The joined text, `None` when it is empty.
    pub(crate) fn text(&self) -> Option<String> {
        let text = join(&self.fragments);
        (!text.is_empty()).then_some(text)
    }
}

/// Whether `attr` is a `#[doc]` attribute, as `///` comments are.
pub(crate) fn is_doc(attr: &Attribute) -> bool {
    attr.path().is_ident("doc")
}

/// Joins doc fragments the way rustdoc and schemars read them: one leading
/// space stripped from each line (`/// text` is `#[doc = " text"]`), trailing
/// space dropped, lines joined with `\n`, and the whole trimmed.
pub(crate) fn join<S: AsRef<str>>(fragments: &[S]) -> String {
    let lines: Vec<&str> = fragments
        .iter()
        .flat_map(|fragment| fragment.as_ref().split('\n'))
        .map(|line| line.strip_prefix(' ').unwrap_or(line).trim_end())
        .collect();
    lines.join("\n").trim().to_owned()
}

#[cfg(test)]
mod tests {
    use super::join;

    #[test]
    fn strips_one_leading_space_per_line() {
        assert_eq!(
            join(&[" Read a file.", "", "   indented"]),
            "Read a file.\n\n  indented"
        );
    }

    #[test]
    fn trims_leading_and_trailing_blank_lines() {
        assert_eq!(join(&["", " Read a file.  ", " ", ""]), "Read a file.");
    }

    #[test]
    fn splits_block_comments_into_lines() {
        assert_eq!(
            join(&["\n Read a file.\n From disk.\n"]),
            "Read a file.\nFrom disk."
        );
    }

    #[test]
    fn keeps_a_line_without_leading_space() {
        assert_eq!(join(&["Read", " a file"]), "Read\na file");
    }

    #[test]
    fn empty_docs_join_to_nothing() {
        assert_eq!(join::<&str>(&[]), "");
        assert_eq!(join(&["", " "]), "");
    }
}
