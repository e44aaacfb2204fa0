//! The tokens of a checked `#[render]` or `#[present]` fn: the fn as written,
//! and a type of its name implementing `RenderFn` or `PresentFn`.

use proc_macro2::{Span, TokenStream};
use quote::quote;
use syn::{Ident, ReturnType};

use super::Kind;
use super::ast::{Input, Projection};
use crate::{doc, fallback};

pub(crate) fn expand(projection: &Projection) -> TokenStream {
    let mut item = projection.item.clone();
    fallback::strip_param_attrs(&mut item.sig, |attr| !doc::is_doc(attr));
    // The contract fixes the parameter types: a tool whose output is a
    // `String` gets a render taking `&String`, which clippy would flag.
    item.attrs
        .push(syn::parse_quote!(#[allow(clippy::ptr_arg)]));
    let vis = &item.vis;
    let ident = &item.sig.ident;
    let trait_ident = projection.kind.trait_ident();
    let types: Vec<_> = projection
        .inputs
        .iter()
        .filter_map(|input| match input {
            Input::Ref(ty) => Some(*ty),
            _ => None,
        })
        .collect();
    let output = match &item.sig.output {
        ReturnType::Default => quote!(()),
        ReturnType::Type(_, ty) => quote!(#ty),
    };
    // Hygienic, so that a fn named `args` is not shadowed by them.
    let args = Ident::new("args", Span::mixed_site());
    let value = Ident::new("value", Span::mixed_site());
    let implementation = match (projection.kind, types.as_slice()) {
        (_, [args_ty, value_ty]) => quote! {
            impl ::dsh_sdk::__private::#trait_ident<#args_ty, #value_ty, #output> for #ident {
                fn call(#args: &#args_ty, #value: &#value_ty) -> #output {
                    #ident(#args, #value)
                }
            }
        },
        // A present of the args alone: the card shown while a call runs.
        (Kind::Present, [args_ty]) => quote! {
            impl ::dsh_sdk::__private::PresentCallFn<#args_ty, #output> for #ident {
                fn call(#args: &#args_ty) -> #output {
                    #ident(#args)
                }
            }
        },
        // The validator refuses every other shape.
        _ => return quote!(#item),
    };
    quote! {
        #item

        #[doc(hidden)]
        #[allow(non_camel_case_types, dead_code)]
        #vis struct #ident {}

        #implementation
    }
}
