//! The rules dsh-kit holds too: what a tool may be called, how categories and
//! output types are spelt, and which misspelt name is close to which.
//!
//! The macro crate cannot depend on dsh-kit, and a file shared by path would
//! leave the published dsh-kit without it, so each crate keeps its copy.
//! `__shared_rules!` expands this crate's copy to literals, and dsh-kit's
//! tests compare them with its own: the two cannot drift apart unnoticed.

pub(crate) mod names;
pub(crate) mod suggest;

use proc_macro2::TokenStream;
use quote::quote;
use syn::parse::{Parse, ParseStream};
use syn::punctuated::Punctuated;
use syn::{Ident, LitStr, Token};

/// What `__shared_rules!` was asked for.
enum Query {
    /// `categories`: `[("filesystem", "Filesystem"), …]`.
    Categories,
    /// `output_types`: `[("text", "Text"), …]`.
    OutputTypes,
    /// `tool_name_rule`: the rule's text, as messages give it.
    ToolNameRule,
    /// `valid_tool_names "a", "b c"`: `[true, false]`.
    ValidToolNames(Vec<LitStr>),
    /// `icon_srcs "https://a", "http://b"`: `[true, false]`.
    IconSrcs(Vec<LitStr>),
    /// `scope_rule`: the rule's text, as messages give it.
    ScopeRule,
    /// `scope_tokens "files:read", "a b"`: `[true, false]`.
    ScopeTokens(Vec<LitStr>),
    /// `meta_keys "com.example/a", "dsh/x"`: `[None, Some("…")]`, what is
    /// wrong with each.
    MetaKeys(Vec<LitStr>),
    /// `header_name_rule`: the rule's text, as messages give it.
    HeaderNameRule,
    /// `header_names "Region", "a b"`: `[true, false]`.
    HeaderNames(Vec<LitStr>),
    /// `closest "limt" in "limit", "lime"`: the suggestions, best first.
    Closest(LitStr, Vec<LitStr>),
}

impl Parse for Query {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let query: Ident = input.parse()?;
        match query.to_string().as_str() {
            "categories" => Ok(Query::Categories),
            "output_types" => Ok(Query::OutputTypes),
            "tool_name_rule" => Ok(Query::ToolNameRule),
            "valid_tool_names" => Ok(Query::ValidToolNames(strings(input)?)),
            "icon_srcs" => Ok(Query::IconSrcs(strings(input)?)),
            "scope_rule" => Ok(Query::ScopeRule),
            "scope_tokens" => Ok(Query::ScopeTokens(strings(input)?)),
            "meta_keys" => Ok(Query::MetaKeys(strings(input)?)),
            "header_name_rule" => Ok(Query::HeaderNameRule),
            "header_names" => Ok(Query::HeaderNames(strings(input)?)),
            "closest" => {
                let name = input.parse()?;
                input.parse::<Token![in]>()?;
                Ok(Query::Closest(name, strings(input)?))
            }
            _ => Err(syn::Error::new(
                query.span(),
                "expected `categories`, `output_types`, `tool_name_rule`, `valid_tool_names`, `icon_srcs`, `scope_rule`, `scope_tokens`, `meta_keys`, `header_name_rule`, `header_names` or `closest`",
            )),
        }
    }
}

/// `"a", "b"`, to the end of the input.
fn strings(input: ParseStream) -> syn::Result<Vec<LitStr>> {
    Ok(Punctuated::<LitStr, Token![,]>::parse_terminated(input)?
        .into_iter()
        .collect())
}

/// `__shared_rules!(…)`: the answer as literals.
pub(crate) fn expand(input: TokenStream) -> TokenStream {
    let query = match syn::parse2::<Query>(input) {
        Ok(query) => query,
        Err(error) => return error.to_compile_error(),
    };
    match query {
        Query::Categories => pairs(names::CATEGORIES),
        Query::OutputTypes => pairs(names::OUTPUT_TYPES),
        Query::ToolNameRule => {
            let rule = names::TOOL_NAME_RULE;
            quote!(#rule)
        }
        Query::ValidToolNames(names) => {
            let valid = names
                .iter()
                .map(|name| names::is_valid_tool_name(&name.value()));
            quote!([#(#valid),*])
        }
        Query::IconSrcs(srcs) => {
            let allowed = srcs.iter().map(|src| names::is_icon_src(&src.value()));
            quote!([#(#allowed),*])
        }
        Query::ScopeRule => {
            let rule = names::SCOPE_RULE;
            quote!(#rule)
        }
        Query::ScopeTokens(scopes) => {
            let valid = scopes
                .iter()
                .map(|scope| names::is_scope_token(&scope.value()));
            quote!([#(#valid),*])
        }
        Query::MetaKeys(keys) => {
            let problems = keys
                .iter()
                .map(|key| match names::meta_key_problem(&key.value()) {
                    Some(problem) => quote!(Some(#problem)),
                    None => quote!(None::<&str>),
                });
            quote!([#(#problems),*])
        }
        Query::HeaderNameRule => {
            let rule = names::HEADER_NAME_RULE;
            quote!(#rule)
        }
        Query::HeaderNames(names) => {
            let valid = names
                .iter()
                .map(|name| names::is_header_name(&name.value()));
            quote!([#(#valid),*])
        }
        Query::Closest(name, candidates) => {
            let candidates: Vec<String> = candidates.iter().map(LitStr::value).collect();
            let closest = suggest::closest(&name.value(), candidates.iter().map(String::as_str));
            quote!([#(#closest),*])
        }
    }
}

fn pairs(pairs: &[(&str, &str)]) -> TokenStream {
    let pairs = pairs
        .iter()
        .map(|(spelling, variant)| quote!((#spelling, #variant)));
    quote!([#(#pairs),*])
}
