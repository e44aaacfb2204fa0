//! Checks the generated code makes of what only types can tell: whether
//! `output_type` agrees with what the fn returns.

use proc_macro2::TokenStream;
use quote::quote_spanned;

use super::ast::{Output, Tool};

/// `output_type = "empty"` on a tool whose output holds something, or a
/// kind of content on one whose output holds nothing, decided by the
/// output's type: a zero-sized output (`()`, a unit struct) is one value
/// only, so it carries nothing. Evaluated as a constant, at the value of
/// `output_type`.
pub(crate) fn output_type(tool: &Tool) -> TokenStream {
    let Some(choice) = &tool.attr.output_type else {
        return TokenStream::new();
    };
    let dsh = tool.private();
    let span = choice.variant.span();
    let output = match &tool.output {
        Output::Unit => quote_spanned!(span=> ()),
        Output::Plain(ty) => quote_spanned!(span=> #ty),
        Output::Typed { ty, .. } => quote_spanned!(span=> <#ty as #dsh::ToolReturn>::Output),
        Output::Opaque(_) => return TokenStream::new(),
    };
    let spelling = choice.spelling.as_str();
    let empty = spelling == "empty";
    let message = if empty {
        "`output_type = \"empty\"` says the tool returns nothing, but its output holds a value: remove `output_type`, or return nothing".to_owned()
    } else {
        format!(
            "`output_type = \"{spelling}\"` says the tool returns content, but its output holds nothing (it is `()` or another zero-sized type): write `output_type = \"empty\"`, or return the content"
        )
    };
    let contradicts = if empty {
        quote_spanned!(span=> !#dsh::holds_nothing::<#output>())
    } else {
        quote_spanned!(span=> #dsh::holds_nothing::<#output>())
    };
    quote_spanned! {span=>
        const _: () = if #contradicts {
            ::core::panic!(#message)
        };
    }
}
