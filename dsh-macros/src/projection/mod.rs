//! `#[render]` and `#[present]`: the two pure projections of a tool's output,
//! which differ only in their trait and what they return.

mod ast;
mod expand;
mod imported;
mod impure;
mod purity;
mod scope;
mod valid;

use proc_macro2::{Span, TokenStream};
use quote::quote;
use syn::{Ident, Item, ItemFn};

use self::ast::{Input, Projection};
use crate::ctxt::Ctxt;
use crate::runtime::Runtime;
use crate::{doc, fallback};

/// Which projection a fn is.
#[derive(Clone, Copy)]
pub(crate) enum Kind {
    /// `#[render]`: what the model sees, `Vec<ContentBlock>`.
    Render,
    /// `#[present]`: what a UI shows, `Card`.
    Present,
}

impl Kind {
    /// The attribute's name: `render`.
    pub(crate) fn attr(self) -> &'static str {
        match self {
            Kind::Render => "render",
            Kind::Present => "present",
        }
    }

    /// The runtime trait the fn's stand-in type implements.
    fn trait_ident(self) -> Ident {
        let name = match self {
            Kind::Render => "RenderFn",
            Kind::Present => "PresentFn",
        };
        Ident::new(name, Span::call_site())
    }
}

/// Expands `#[render(args)] item` or `#[present(args)] item`.
pub(crate) fn expand(kind: Kind, args: TokenStream, input: TokenStream) -> TokenStream {
    let attr = kind.attr();
    let item = match syn::parse2::<Item>(input.clone()) {
        Ok(Item::Fn(item)) => item,
        Ok(other) => {
            let error = syn::Error::new_spanned(
                other,
                format!("`#[{attr}]` goes on a fn: `fn {attr}_name(args: &Args, value: &Output)`"),
            );
            return fallback::emit(input, &error);
        }
        Err(error) => return fallback::emit(input, &error),
    };
    let mut item = item;
    let cx = Ctxt::new();
    for other in ["render", "present", "tool"] {
        fallback::take_repeated(&cx, &mut item.attrs, other);
    }
    // #[render], or #[render(crate = "my_dsh")].
    let runtime = Runtime::from_args(&cx, attr, args);
    let projection = Projection::from_ast(kind, &item, runtime);
    valid::check(&cx, &projection);
    match cx.check() {
        Ok(()) => expand::expand(&projection),
        Err(errors) => fallback(&projection, &errors),
    }
}

/// The fn as written, plus a stand-in type of its name that fits any tool, so
/// that `#[tool(render = name)]` (or `present = name`, `present_call = name`)
/// elsewhere adds no error of its own.
fn fallback(projection: &Projection, errors: &syn::Error) -> TokenStream {
    let mut item: ItemFn = projection.item.clone();
    fallback::strip_param_attrs(&mut item.sig, |attr| !doc::is_doc(attr));
    let in_impl = projection
        .inputs
        .iter()
        .any(|input| matches!(input, Input::Receiver(_)));
    if in_impl {
        return fallback::emit(item, errors);
    }
    let vis = &item.vis;
    let ident = &item.sig.ident;
    let trait_ident = projection.kind.trait_ident();
    let dsh = projection.runtime.private();
    let present_call = matches!(projection.kind, Kind::Present).then(|| {
        quote! {
            impl<A, R> #dsh::PresentCallFn<A, R> for #ident {
                fn call(_: &A) -> R {
                    ::core::unreachable!()
                }
            }
        }
    });
    let stand_in = quote! {
        #item

        #[doc(hidden)]
        #[allow(non_camel_case_types, dead_code)]
        #vis struct #ident {}

        impl<A, O, R> #dsh::#trait_ident<A, O, R> for #ident {
            fn call(_: &A, _: &O) -> R {
                ::core::unreachable!()
            }
        }

        #present_call

        impl #dsh::MarkedRender for #ident {}
        impl #dsh::MarkedPresent for #ident {}
    };
    fallback::emit(stand_in, errors)
}
