//! What a macro emits when the annotated fn has errors: the fn as written
//! plus every error (tokio-macros, thiserror's `fallback.rs`), so the errors
//! are the only ones and an IDE still sees the fn.

use proc_macro2::TokenStream;
use quote::ToTokens;
use syn::{Attribute, FnArg, Signature};

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

/// `item` followed by a `compile_error!` for each error.
pub(crate) fn emit(item: impl ToTokens, errors: &syn::Error) -> TokenStream {
    let mut tokens = item.into_token_stream();
    tokens.extend(errors.to_compile_error());
    tokens
}
