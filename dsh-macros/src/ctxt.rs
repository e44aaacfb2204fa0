//! [`Ctxt`]: the errors of one expansion, collected so that all of them are
//! reported at once (serde_derive's `Ctxt`).

use std::cell::RefCell;
use std::fmt::Display;
use std::thread;

use proc_macro2::Span;
use quote::ToTokens;

/// Collects errors while parsing and validating one annotated item.
///
/// Shared by reference, so a parse callback and a validator can both add to
/// it. It must be [`check`](Ctxt::check)ed: dropping it unchecked panics, as
/// errors that are never emitted would let a wrong item compile.
pub(crate) struct Ctxt {
    /// `None` once checked.
    errors: RefCell<Option<Vec<syn::Error>>>,
}

impl Ctxt {
    pub(crate) fn new() -> Self {
        Ctxt {
            errors: RefCell::new(Some(Vec::new())),
        }
    }

    /// An error spanning the tokens of `node`.
    pub(crate) fn error_spanned_by(&self, node: impl ToTokens, message: impl Display) {
        self.push(syn::Error::new_spanned(node, message));
    }

    /// An error at `span`.
    pub(crate) fn error_at(&self, span: Span, message: impl Display) {
        self.push(syn::Error::new(span, message));
    }

    /// An error syn reported.
    pub(crate) fn push(&self, error: syn::Error) {
        self.errors
            .borrow_mut()
            .as_mut()
            .expect("`check` takes the context, so it is not checked yet")
            .push(error);
    }

    /// All the errors as one, or `Ok` if there were none.
    pub(crate) fn check(self) -> syn::Result<()> {
        let errors = self
            .errors
            .borrow_mut()
            .take()
            .expect("`check` takes the context, so it runs once");
        let mut errors = errors.into_iter();
        let Some(mut combined) = errors.next() else {
            return Ok(());
        };
        for error in errors {
            combined.combine(error);
        }
        Err(combined)
    }
}

impl Drop for Ctxt {
    fn drop(&mut self) {
        if !thread::panicking() && self.errors.borrow().is_some() {
            panic!("forgot to check for errors");
        }
    }
}

#[cfg(test)]
mod tests {
    use proc_macro2::Span;

    use super::Ctxt;

    #[test]
    fn check_reports_every_error() {
        let cx = Ctxt::new();
        cx.error_at(Span::call_site(), "first");
        cx.error_at(Span::call_site(), "second");
        let errors = cx.check().expect_err("two errors");
        let messages: Vec<String> = errors.into_iter().map(|error| error.to_string()).collect();
        assert_eq!(messages, ["first", "second"]);
        assert!(Ctxt::new().check().is_ok());
    }

    #[test]
    #[should_panic(expected = "forgot to check for errors")]
    fn dropping_it_unchecked_panics() {
        let cx = Ctxt::new();
        cx.error_at(Span::call_site(), "never reported");
    }
}
