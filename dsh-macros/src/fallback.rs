//! What a macro emits when the annotated fn has errors: the fn as written
//! plus every error (tokio-macros, thiserror's `fallback.rs`), so the errors
//! are the only ones and an IDE still sees the fn.

use proc_macro2::TokenStream;
use quote::ToTokens;
use syn::{Attribute, FnArg, Signature};

use crate::ctxt::Ctxt;

/// Drops from every parameter the attributes `keep` rejects: doc comments and
/// derive helpers are errors on fn parameters, so a macro that reads them
/// takes them off.
pub(crate) fn strip_param_attrs(sig: &mut Signature, keep: impl Fn(&Attribute) -> bool) {
    for input in &mut sig.inputs {
        match input {
            FnArg::Typed(arg) => arg.attrs.retain(&keep),
            FnArg::Receiver(receiver) => receiver.attrs.retain(&keep),
        }
    }
}

/// Takes off a second `#[tool]` (or `#[render]`, …) that would expand the
/// fn again, reporting it once at the repeated attribute.
pub(crate) fn take_repeated(cx: &Ctxt, attrs: &mut Vec<Attribute>, name: &str) {
    attrs.retain(|attr| {
        let repeated = attr
            .path()
            .segments
            .last()
            .is_some_and(|segment| segment.ident == name);
        if repeated {
            cx.error_spanned_by(
                attr,
                format!("this fn is already marked with a tool macro: remove this `#[{name}]`"),
            );
        }
        !repeated
    });
}

/// `item` followed by a `compile_error!` for each error.
pub(crate) fn emit(item: impl ToTokens, errors: &syn::Error) -> TokenStream {
    let mut tokens = item.into_token_stream();
    tokens.extend(errors.to_compile_error());
    tokens
}
