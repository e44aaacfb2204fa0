//! Placing generated tokens at the user's tokens, so that rustc's errors
//! about them point at what the user wrote (axum's `debug_handler`).

use proc_macro2::{Group, Span, TokenStream, TokenTree};
use quote::ToTokens;

/// The spans of the first and last tokens of `node`.
pub(crate) fn ends(node: &impl ToTokens) -> (Span, Span) {
    let mut tokens = node.to_token_stream().into_iter();
    let first = tokens
        .next()
        .map_or_else(Span::call_site, |token| token.span());
    let last = tokens.last().map_or(first, |token| token.span());
    (first, last)
}

/// `head node tail`, with `head` placed at the first token of `node` and
/// `tail` at its last, so an error on the whole spans exactly `node`.
///
/// `quote_spanned!` at `node.span()` would cover only its first token where
/// spans cannot be joined (stable), so `Vec<Foo>` would underline `Vec`.
pub(crate) fn around(head: TokenStream, node: &impl ToTokens, tail: TokenStream) -> TokenStream {
    let (first, last) = ends(node);
    let mut tokens = respan(head, first);
    node.to_tokens(&mut tokens);
    tokens.extend(respan(tail, last));
    tokens
}

/// `tokens` with every span set to `span`.
pub(crate) fn respan(tokens: TokenStream, span: Span) -> TokenStream {
    tokens
        .into_iter()
        .map(|mut token| {
            if let TokenTree::Group(group) = &token {
                let mut inner = Group::new(group.delimiter(), respan(group.stream(), span));
                inner.set_span(span);
                token = TokenTree::Group(inner);
            } else {
                token.set_span(span);
            }
            token
        })
        .collect()
}

/// `tokens` located at `span`, each keeping its own hygiene, so that locals
/// still resolve while an error about them points at `span`.
pub(crate) fn relocate(tokens: TokenStream, span: Span) -> TokenStream {
    tokens
        .into_iter()
        .map(|mut token| {
            if let TokenTree::Group(group) = &token {
                let mut inner = Group::new(group.delimiter(), relocate(group.stream(), span));
                inner.set_span(group.span().located_at(span));
                token = TokenTree::Group(inner);
            } else {
                token.set_span(token.span().located_at(span));
            }
            token
        })
        .collect()
}
