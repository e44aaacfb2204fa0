//! `render = name`, `present = name` and `present_call = name` must name a
//! fn marked `#[render]` or `#[present]`, which adds a type of the fn's
//! name. A fn without the mark has no such type, and rustc alone would say
//! "expected type, found function". For a name written bare, the tool adds
//! a stand-in type of that name through a glob import, which the real type
//! shadows wherever it exists; the stand-in fits every tool but is not
//! marked, so the one error says to add the mark. A path with `::` gets no
//! stand-in (it would have to be placed in the other module) and keeps
//! rustc's error.
//!
//! The stand-in is a glob import, which any item or `use` of the name
//! shadows; another glob import that brings the real type (`use super::*;`
//! with the `#[render]` fn in the parent module) would meet it as an equal,
//! and rustc would call the name ambiguous: there, write the path,
//! `render = super::lines_text`.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote};
use syn::Path;
use syn::ext::IdentExt;

use super::ast::Tool;
use crate::span::around;

pub(crate) fn marked(tool: &Tool) -> TokenStream {
    let dsh = tool.private();
    let attr = &tool.attr;
    let fn_name = tool.item.sig.ident.unraw();
    let mut tokens = TokenStream::new();
    let keys: [(&str, Option<&Path>, &str); 3] = [
        ("render", attr.render.as_ref(), "MarkedRender"),
        ("present", attr.present.as_ref(), "MarkedPresent"),
        ("present_call", attr.present_call.as_ref(), "MarkedPresent"),
    ];
    let mut checks = Vec::new();
    for (key, path, marker) in keys {
        let Some(path) = path else {
            continue;
        };
        let marker = syn::Ident::new(marker, Span::call_site());
        checks.push(around(
            quote!(let _: () = <),
            path,
            quote!(as #dsh::#marker>::CHECKED;),
        ));
        let Some(name) = path.get_ident() else {
            continue;
        };
        let module = format_ident!("__dsh_{}_{}_of_{}", key, name.unraw(), fn_name);
        tokens.extend(quote! {
            #[doc(hidden)]
            #[allow(non_snake_case, dead_code)]
            mod #module {
                #[allow(non_camel_case_types)]
                pub type #name = #dsh::Unmarked;
            }
            #[allow(unused_imports)]
            use #module::*;
        });
    }
    if !checks.is_empty() {
        tokens.extend(quote! {
            const _: () = {
                #(#checks)*
            };
        });
    }
    tokens
}
