//! The tokens of a checked `#[render]` or `#[present]` fn: the fn as written,
//! and a type of its name implementing `RenderFn` or `PresentFn`.

use proc_macro2::{Group, TokenTree};
use proc_macro2::{Span, TokenStream};
use quote::quote;
use syn::{Ident, ReturnType, Signature, Type};

use super::Kind;
use super::ast::{Input, Projection};
use crate::{doc, fallback, span};

pub(crate) fn expand(projection: &Projection) -> TokenStream {
    let dsh = projection.runtime.private();
    let mut item = projection.item.clone();
    fallback::strip_param_attrs(&mut item.sig, |attr| !doc::is_doc(attr));
    // The contract fixes the parameter types: a tool whose output is a
    // `String` gets a render taking `&String`, which clippy would flag.
    item.attrs
        .push(syn::parse_quote!(#[allow(clippy::ptr_arg)]));
    let vis = &item.vis;
    let ident = &item.sig.ident;
    let trait_ident = projection.kind.trait_ident();
    let probes = super::imported::probes(projection.kind, projection.item, &dsh);
    let types: Vec<_> = projection
        .inputs
        .iter()
        .filter_map(|input| match input {
            Input::Ref(ty) => Some(*ty),
            _ => None,
        })
        .collect();
    // Hygienic, so that a fn named `args` is not shadowed by them.
    let args = Ident::new("args", Span::mixed_site());
    let value = Ident::new("value", Span::mixed_site());
    // A present may return any card kind: it becomes a `Card` here; a
    // render's blocks are checked to be `Vec<ContentBlock>` the same way. Both
    // at the return type as written, so a wrong one is reported there.
    let (output, into) = match projection.kind {
        Kind::Render => (
            quote!(::std::vec::Vec<#dsh::ContentBlock>),
            quote!(<_ as #dsh::IntoBlocks>::into_blocks),
        ),
        Kind::Present => (quote!(#dsh::Card), quote!(<_ as #dsh::IntoCard>::into_card)),
    };
    let at = match &item.sig.output {
        ReturnType::Default => sig_span(&item.sig),
        ReturnType::Type(_, ty) => span::ends(ty),
    };
    let convert = |call: TokenStream| {
        let (first, last) = at;
        let mut tokens = span::respan(into.clone(), first);
        let mut parens = proc_macro2::Group::new(proc_macro2::Delimiter::Parenthesis, call);
        parens.set_span(last);
        tokens.extend([proc_macro2::TokenTree::Group(parens)]);
        tokens
    };
    // Lifetimes of the fn (`fn r<'a>(a: &'a A, o: &'a O)`) are erased: the
    // impl takes the types without them.
    let erase = |ty: &Type| erase_lifetimes(quote!(#ty));
    let implementation = match (projection.kind, types.as_slice()) {
        (_, [args_ty, value_ty]) => {
            let (args_ty, value_ty) = (erase(args_ty), erase(value_ty));
            let call = convert(quote!(#ident(#args, #value)));
            quote! {
                impl #dsh::#trait_ident<#args_ty, #value_ty, #output> for #ident {
                    fn call(#args: &#args_ty, #value: &#value_ty) -> #output {
                        #call
                    }
                }
            }
        }
        // A present of the args alone: the card shown while a call runs.
        (Kind::Present, [args_ty]) => {
            let args_ty = erase(args_ty);
            let call = convert(quote!(#ident(#args)));
            quote! {
                impl #dsh::PresentCallFn<#args_ty, #output> for #ident {
                    fn call(#args: &#args_ty) -> #output {
                        #call
                    }
                }
            }
        }
        // The validator refuses every other shape.
        _ => return quote!(#item),
    };
    quote! {
        #item

        #[doc(hidden)]
        #[allow(non_camel_case_types, dead_code)]
        #vis struct #ident {}

        #implementation

        impl #dsh::MarkedRender for #ident {}
        impl #dsh::MarkedPresent for #ident {}

        #probes
    }
}

/// The span of a fn's parentheses, where a missing return type belongs.
fn sig_span(sig: &Signature) -> (Span, Span) {
    let span = sig.paren_token.span.join();
    (span, span)
}

/// `tokens` with every named lifetime but `'static` replaced by `'_`.
fn erase_lifetimes(tokens: TokenStream) -> TokenStream {
    let mut out = Vec::new();
    let mut after_quote = false;
    for token in tokens {
        match token {
            TokenTree::Group(group) => {
                let mut inner = Group::new(group.delimiter(), erase_lifetimes(group.stream()));
                inner.set_span(group.span());
                out.push(TokenTree::Group(inner));
                after_quote = false;
            }
            TokenTree::Punct(punct) if punct.as_char() == '\'' => {
                after_quote = true;
                out.push(TokenTree::Punct(punct));
            }
            TokenTree::Ident(ident) if after_quote && ident != "static" => {
                out.push(TokenTree::Ident(Ident::new("_", ident.span())));
                after_quote = false;
            }
            other => {
                after_quote = false;
                out.push(other);
            }
        }
    }
    out.into_iter().collect()
}
