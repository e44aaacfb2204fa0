//! The type a `#[tool]` fn adds, when the fn is visible outside its module.
//!
//! Its `Tool` impl names the fn's output type (`type Output = Report`), and
//! rustc refuses a type less visible than the impl there (E0446), where a
//! `pub` fn returning it gets only a lint (`private_interfaces`). So the
//! type of a visible fn carries the output type as a defaulted parameter,
//! `read<Signature = (Report,)>`, and the impl is for that instance: an impl
//! is as visible as its least visible type, so one naming a private type
//! is private and leaks nothing. `read` written bare is that instance, so
//! `registry.register::<read>()` works wherever the output type can be
//! named. The args need no such care: the impl names them through a type
//! of the fn's visibility (the generated struct, or a wrapper of the fn's
//! args struct).

use proc_macro2::TokenStream;
use quote::quote;
use syn::Visibility;

use super::ast::{Output, Tool};

/// The generics and the body of the declaration, and the type the impl is for.
pub(crate) struct ToolType {
    pub(crate) declaration: TokenStream,
    pub(crate) instance: TokenStream,
}

pub(crate) fn tool_type(tool: &Tool) -> ToolType {
    let ident = &tool.item.sig.ident;
    if matches!(tool.item.vis, Visibility::Inherited) {
        return ToolType {
            declaration: quote!(#ident {}),
            instance: quote!(#ident),
        };
    }
    // The args are named through types of the fn's visibility (the
    // generated struct, or a wrapper of the user's): only the output's
    // type can make the impl private.
    let mut types = Vec::new();
    match &tool.output {
        Output::Plain(ty) | Output::Typed { ty, .. } => types.push(ty),
        Output::Unit | Output::Opaque(_) => {}
    }
    if types.is_empty() {
        return ToolType {
            declaration: quote!(#ident {}),
            instance: quote!(#ident),
        };
    }
    let signature = quote!((#(#types,)*));
    ToolType {
        declaration: quote! {
            #ident<Signature = #signature> {
                #[doc(hidden)]
                signature: ::core::marker::PhantomData<fn() -> Signature>,
            }
        },
        instance: quote!(#ident<#signature>),
    }
}
