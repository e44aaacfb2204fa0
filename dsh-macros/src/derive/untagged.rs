//! An `#[serde(untagged)]` output enum reads back the first variant its
//! JSON fits, so a variant written in the same shape as an earlier one
//! (two unit variants, both `null`; `A(String)` and `B(String)`, both a
//! string) is read back as that earlier one: the value render and present
//! see is another. Refused at the later variant.

use syn::{Data, DeriveInput, Fields, Variant};

use crate::ctxt::Ctxt;
use crate::types::spelling;

pub(crate) fn check(cx: &Ctxt, item: &DeriveInput) {
    let Data::Enum(data) = &item.data else {
        return;
    };
    if !has_serde_word(&item.attrs, "untagged") {
        return;
    }
    let mut seen: Vec<(String, &Variant)> = Vec::new();
    for variant in &data.variants {
        if has_serde_word(&variant.attrs, "skip")
            || has_serde_word(&variant.attrs, "skip_serializing")
        {
            continue;
        }
        let shape = shape(&variant.fields);
        if let Some((_, first)) = seen.iter().find(|(earlier, _)| *earlier == shape) {
            cx.error_spanned_by(
                &variant.ident,
                format!(
                    "`{}` is written in the same shape as `{}`, and an untagged enum reads back the first variant its JSON fits, so `{}` would read back as `{}`: give it another shape, or remove `untagged` to tag each variant",
                    variant.ident, first.ident, variant.ident, first.ident
                ),
            );
        } else {
            seen.push((shape, variant));
        }
    }
}

/// What a variant's JSON looks like, as far as its spelling tells.
fn shape(fields: &Fields) -> String {
    match fields {
        Fields::Unit => "null".to_owned(),
        Fields::Unnamed(fields) => {
            let types: Vec<String> = fields.unnamed.iter().map(|f| spelling(&f.ty)).collect();
            format!("({})", types.join(", "))
        }
        Fields::Named(fields) => {
            let mut named: Vec<String> = fields
                .named
                .iter()
                .map(|field| {
                    let name = field
                        .ident
                        .as_ref()
                        .map(ToString::to_string)
                        .unwrap_or_default();
                    // A renamed field is another key: leave the shape apart.
                    let renamed = has_serde_word(&field.attrs, "rename");
                    format!(
                        "{name}{}: {}",
                        if renamed { "*" } else { "" },
                        spelling(&field.ty)
                    )
                })
                .collect();
            named.sort();
            format!("{{{}}}", named.join(", "))
        }
    }
}

/// Whether a `#[serde(…)]` attribute among `attrs` holds the key `word`.
fn has_serde_word(attrs: &[syn::Attribute], word: &str) -> bool {
    attrs
        .iter()
        .filter(|attr| attr.path().is_ident("serde"))
        .any(|attr| {
            let mut found = false;
            let _ = attr.parse_nested_meta(|meta| {
                if meta.path.is_ident(word) {
                    found = true;
                }
                if meta.input.peek(syn::Token![=]) {
                    meta.value()?.parse::<syn::Expr>()?;
                } else if meta.input.peek(syn::token::Paren) {
                    let content;
                    syn::parenthesized!(content in meta.input);
                    content.parse::<proc_macro2::TokenStream>()?;
                }
                Ok(())
            });
            found
        })
}
