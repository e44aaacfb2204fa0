//! `#[tool]`: parse the attribute and the fn, check them, then expand.

mod ast;
mod attr;
mod consistency;
mod expand;
mod marked;
mod params;
mod signature;
mod valid;

use proc_macro2::TokenStream;
use quote::quote;
use syn::{Item, ItemFn};

use self::ast::{Input, Tool, is_macro_attr};
use self::attr::Attr;
use crate::ctxt::Ctxt;
use crate::fallback;

/// Expands `#[tool(args)] item`.
pub(crate) fn expand(args: TokenStream, input: TokenStream) -> TokenStream {
    let item = match syn::parse2::<Item>(input.clone()) {
        Ok(Item::Fn(item)) => item,
        Ok(other) => {
            let error = syn::Error::new_spanned(
                other,
                "`#[tool]` goes on an `async fn`: write the tool as `async fn name(args…) -> Output`",
            );
            return fallback::emit(input, &error);
        }
        Err(error) => return fallback::emit(input, &error),
    };
    let mut item = item;
    let cx = Ctxt::new();
    fallback::take_repeated(&cx, &mut item.attrs, "tool");
    let attr = Attr::parse(&cx, args);
    let tool = Tool::from_ast(&cx, attr, &item);
    valid::check(&cx, &tool);
    match cx.check() {
        Ok(()) => expand::expand(&tool),
        Err(errors) => fallback(&tool, &errors),
    }
}

/// The fn as written, plus a stand-in type of its name implementing `Tool`
/// so that `registry.register::<name>()` elsewhere adds no error of its own.
fn fallback(tool: &Tool, errors: &syn::Error) -> TokenStream {
    let mut item: ItemFn = tool.item.clone();
    fallback::strip_param_attrs(&mut item.sig, |attr| !is_macro_attr(attr));
    let in_impl = tool
        .inputs
        .iter()
        .any(|input| matches!(input, Input::Receiver(_)));
    if in_impl {
        // A method: the fn sits in an `impl` block, where no type may go.
        return fallback::emit(item, errors);
    }
    let vis = &item.vis;
    let ident = &item.sig.ident;
    let dsh = tool.private();
    let stand_in = quote! {
        #item

        #[allow(non_camel_case_types, dead_code)]
        #vis struct #ident {}

        impl #dsh::Tool for #ident {
            type Args = ();
            type Output = ();
            const DEFINITION: #dsh::ToolDef = #dsh::ToolDef::builder("", "").build();

            fn execute(
                _: (),
                _: &#dsh::Exec,
            ) -> impl ::core::future::Future<
                Output = ::core::result::Result<(), #dsh::ToolError>,
            > + ::core::marker::Send {
                async { ::core::result::Result::Ok(()) }
            }
        }
    };
    fallback::emit(stand_in, errors)
}
