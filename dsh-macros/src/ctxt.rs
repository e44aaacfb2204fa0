//! [`Ctxt`]: the errors of one expansion, collected so that all of them are
//! reported at once (serde_derive's `Ctxt`).

use std::cell::RefCell;
use std::fmt::Display;

use proc_macro2::Span;
use quote::ToTokens;

/// Collects errors while parsing and validating one annotated item.
///
/// Shared by reference, so a parse callback and a validator can both add to it.
#[derive(Default)]
pub(crate) struct Ctxt {
    errors: RefCell<Vec<syn::Error>>,
}

impl Ctxt {
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
        self.errors.borrow_mut().push(error);
    }

    /// All the errors as one, or `Ok` if there were none.
    pub(crate) fn check(self) -> syn::Result<()> {
        let mut errors = self.errors.into_inner().into_iter();
        let Some(mut combined) = errors.next() else {
            return Ok(());
        };
        for error in errors {
            combined.combine(error);
        }
        Err(combined)
    }
}
