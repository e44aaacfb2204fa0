//! The type a `#[tool]` fn adds, when the fn is visible outside its module.
//!
//! Its `Tool` impl names the fn's types (`type Args = ReadArgs`), and rustc
//! refuses a type less visible than the impl there (E0446), where a `pub`
//! fn taking it gets only a lint (`private_interfaces`). So the type of a
//! visible fn carries the fn's types as a defaulted parameter,
//! `read<Signature = (ReadArgs, String)>`, and the impl is for that
//! instance: an impl is as visible as its least visible type, so one
//! naming a private type is private and leaks nothing. `read` written bare
//! is that instance, so `registry.register::<read>()` works wherever the
//! fn's types can be named.

use proc_macro2::TokenStream;
use quote::quote;
use syn::Visibility;

use super::ast::{Input, Output, Tool};

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
    let mut types = Vec::new();
    for input in &tool.inputs {
        match input {
            Input::Param(param) => types.push(&*param.arg.ty),
            Input::Args(arg) => types.push(&*arg.ty),
            Input::Exec(..) | Input::Receiver(_) => {}
        }
    }
    match &tool.output {
        Output::Plain(ty) | Output::Typed { ty, .. } => types.push(ty),
        Output::Unit | Output::Opaque(_) => {}
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
