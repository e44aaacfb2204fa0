//! `#[derive(ToolFailure)]`'s messages: `Display` from an `#[error("…")]`
//! on the struct or on each variant, and `std::error::Error`, so a typed
//! failure needs no error crate.
//!
//! A message names the fields it shows, `{city}` or `{0}`, as a format
//! string captures variables: each arm binds the fields under those names
//! (`_0` for `{0}`), and the string is rewritten only for positions.

use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, format_ident, quote, quote_spanned};
use syn::{Attribute, Data, DeriveInput, Fields, LitStr};

use crate::ctxt::Ctxt;

/// What an `#[error(…)]` that is not one string is told.
const MESSAGE_EXPECTED: &str = "a failure's message is one string naming the fields it shows: `#[error(\"unknown city `{city}`\")]`";

/// `impl Display` and `impl std::error::Error` for `item`, or the errors
/// that stop them, reported to `cx`.
pub(crate) fn impls(cx: &Ctxt, item: &DeriveInput) -> TokenStream {
    let ident = &item.ident;
    let source = sources(cx, item);
    let body = match &item.data {
        Data::Struct(data) => {
            let Some(message) = message(cx, &item.attrs, &item.ident, "the struct") else {
                return TokenStream::new();
            };
            let (pattern, _) = pattern(quote!(Self), &data.fields);
            let text = positional(&message);
            quote!(let #pattern = self; ::core::write!(f, #text))
        }
        Data::Enum(data) => {
            if data.variants.is_empty() {
                quote!(match *self {})
            } else {
                let mut arms = Vec::new();
                for variant in &data.variants {
                    let name = &variant.ident;
                    let Some(message) = message(cx, &variant.attrs, name, "each variant") else {
                        continue;
                    };
                    let (pattern, _) = pattern(quote!(Self::#name), &variant.fields);
                    let text = positional(&message);
                    arms.push(quote!(#pattern => ::core::write!(f, #text)));
                }
                if arms.len() != data.variants.len() {
                    return TokenStream::new();
                }
                quote!(match self { #(#arms,)* })
            }
        }
        Data::Union(data) => {
            cx.error_spanned_by(
                data.union_token,
                "a union cannot be a tool's failure: make it an enum, a variant per way to fail",
            );
            return TokenStream::new();
        }
    };
    let (impl_generics, ty_generics, where_clause) = item.generics.split_for_impl();
    // An error is `Debug`: a type of its own must derive it (rustc says so
    // at the derive); a generic one is an error where its `Debug` holds.
    let mut error_generics = item.generics.clone();
    if !item.generics.params.is_empty() {
        error_generics
            .make_where_clause()
            .predicates
            .push(syn::parse_quote!(Self: ::core::fmt::Debug));
    }
    let (_, _, error_where) = error_generics.split_for_impl();
    quote! {
        impl #impl_generics ::core::fmt::Display for #ident #ty_generics #where_clause {
            #[allow(unused_variables)]
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                #body
            }
        }

        impl #impl_generics ::std::error::Error for #ident #ty_generics #error_where {
            #source
        }
    }
}

/// `Error::source`, when a field is marked `#[source]`: that field of the
/// struct, or of each variant that has one. At most one a variant.
fn sources(cx: &Ctxt, item: &DeriveInput) -> Option<TokenStream> {
    let source_of = |fields: &Fields| -> Option<TokenStream> {
        let mut marked = fields.iter().enumerate().filter(|(_, field)| {
            field
                .attrs
                .iter()
                .any(|attr| attr.path().is_ident("source"))
        });
        let (index, field) = marked.next()?;
        if let Some((_, again)) = marked.next() {
            cx.error_spanned_by(
                &again.ident,
                "a second `#[source]`: an error has one source",
            );
        }
        Some(match &field.ident {
            Some(name) => quote!(#name),
            None => format_ident!("_{index}").into_token_stream(),
        })
    };
    let arms: Vec<TokenStream> = match &item.data {
        Data::Struct(data) => {
            let binding = source_of(&data.fields)?;
            let (pattern, _) = pattern(quote!(Self), &data.fields);
            vec![quote!(#pattern => ::core::option::Option::Some(#binding))]
        }
        Data::Enum(data) => data
            .variants
            .iter()
            .filter_map(|variant| {
                let binding = source_of(&variant.fields)?;
                let name = &variant.ident;
                let (pattern, _) = pattern(quote!(Self::#name), &variant.fields);
                Some(quote!(#pattern => ::core::option::Option::Some(#binding)))
            })
            .collect(),
        Data::Union(_) => return None,
    };
    if arms.is_empty() {
        return None;
    }
    Some(quote! {
        #[allow(unused_variables, unreachable_patterns)]
        fn source(&self) -> ::core::option::Option<&(dyn ::std::error::Error + 'static)> {
            match self {
                #(#arms,)*
                _ => ::core::option::Option::None,
            }
        }
    })
}

/// The `#[error("…")]` on `attrs`, or an error at `name` saying where it goes.
fn message(cx: &Ctxt, attrs: &[Attribute], name: &syn::Ident, whose: &str) -> Option<LitStr> {
    let mut found = attrs.iter().filter(|attr| attr.path().is_ident("error"));
    let Some(attr) = found.next() else {
        cx.error_spanned_by(
            name,
            format!("give {whose} its message for the model: `#[error(\"…\")]` above `{name}`"),
        );
        return None;
    };
    if let Some(again) = found.next() {
        cx.error_spanned_by(again, "a second `#[error]`: keep one message");
    }
    match attr.parse_args::<LitStr>() {
        Ok(lit) => Some(lit),
        Err(_) => {
            // At what was written inside the parentheses, if there were any.
            match attr.meta.require_list() {
                Ok(list) if !list.tokens.is_empty() => {
                    cx.error_spanned_by(&list.tokens, MESSAGE_EXPECTED);
                }
                _ => cx.error_spanned_by(attr, MESSAGE_EXPECTED),
            }
            None
        }
    }
}

/// The pattern binding every field of `path`: `{ city, .. }` by name,
/// `(_0, _1)` by position.
fn pattern(path: TokenStream, fields: &Fields) -> (TokenStream, usize) {
    match fields {
        Fields::Named(named) => {
            let names = named.named.iter().map(|field| &field.ident);
            (quote!(#path { #(#names,)* }), named.named.len())
        }
        Fields::Unnamed(unnamed) => {
            let names = (0..unnamed.unnamed.len()).map(|index| format_ident!("_{index}"));
            (quote!(#path ( #(#names,)* )), unnamed.unnamed.len())
        }
        Fields::Unit => (quote!(#path), 0),
    }
}

/// The message with each positional field, `{0}` or `{0:?}`, named as
/// its binding, `{_0}`; `{{` stays an escaped brace. Spanned at the literal.
fn positional(lit: &LitStr) -> TokenStream {
    let text = lit.value();
    let mut out = String::with_capacity(text.len() + 4);
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        out.push(c);
        match c {
            '{' if chars.peek() == Some(&'{') => out.push(chars.next().unwrap_or('{')),
            '{' if chars.peek().is_some_and(char::is_ascii_digit) => out.push('_'),
            _ => {}
        }
    }
    let span: Span = lit.span();
    let rewritten = LitStr::new(&out, span);
    quote_spanned!(span=> #rewritten)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rewrite(text: &str) -> String {
        let lit = LitStr::new(text, Span::call_site());
        syn::parse2::<LitStr>(positional(&lit)).unwrap().value()
    }

    #[test]
    fn positions_become_bindings_and_escapes_stay() {
        assert_eq!(rewrite("{0} and {1:?}"), "{_0} and {_1:?}");
        assert_eq!(rewrite("{{0}} {city}"), "{{0}} {city}");
        assert_eq!(rewrite("plain"), "plain");
    }
}
