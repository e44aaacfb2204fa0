//! `#[derive(Elicit)]`: a struct as a form a tool can ask the user to fill
//! in (MCP elicitation), or a unit-only enum as a choice in one.
//!
//! The form's field types are checked by type, not by name: each is checked
//! by a check `<FieldType as ElicitField>::CHECKED` placed at the field's type,
//! so a type that is not a primitive is reported there, once, with
//! `ElicitField`'s message, and a type the derive cannot see into (an alias,
//! a newtype) is accepted when it implements `ElicitField`. A field type
//! naming a parameter of a generic form is instead a bound of the
//! `Elicitable` impl, checked where the form is used. What the derive can see
//! is refused by shape: a tuple or unit struct, a flattened field, an enum
//! variant with data.

use proc_macro2::TokenStream;
use quote::quote;
use syn::punctuated::Punctuated;
use syn::{Attribute, Data, DeriveInput, Fields, Meta, Token};

use crate::ctxt::Ctxt;
use crate::runtime::Runtime;
use crate::span::around;
use crate::types::names_generics;

/// Expands `#[derive(Elicit)]` on `input`.
pub(crate) fn expand(input: TokenStream) -> TokenStream {
    let item = match syn::parse2::<DeriveInput>(input) {
        Ok(item) => item,
        Err(error) => return error.to_compile_error(),
    };
    let cx = Ctxt::new();
    let runtime = Runtime::from_attrs(&cx, &item.attrs);
    let mut tokens = match &item.data {
        Data::Struct(data) => form(&cx, &item, &data.fields, &runtime),
        Data::Enum(data) => {
            for variant in &data.variants {
                if !matches!(variant.fields, Fields::Unit) {
                    cx.error_spanned_by(
                        &variant.fields,
                        "an elicitation choice is a string: every variant of an `Elicit` enum is a unit variant, with no data",
                    );
                }
            }
            choice(&item, &runtime)
        }
        Data::Union(data) => {
            cx.error_spanned_by(
                data.union_token,
                "`Elicit` goes on a struct with named fields (a form) or an enum of unit variants (a choice)",
            );
            TokenStream::new()
        }
    };
    if let Err(errors) = cx.check() {
        tokens.extend(errors.to_compile_error());
    }
    tokens
}

/// `impl Elicitable`, with a check of each field's type.
fn form(cx: &Ctxt, item: &DeriveInput, fields: &Fields, runtime: &Runtime) -> TokenStream {
    let dsh = runtime.private();
    let elicit = runtime.public("elicit");
    let Fields::Named(named) = fields else {
        let message =
            "an elicitation form is an object: `Elicit` goes on a struct with named fields";
        match fields {
            // A unit struct has no fields to point at: its name, then.
            Fields::Unit => cx.error_spanned_by(&item.ident, message),
            _ => cx.error_spanned_by(fields, message),
        }
        return TokenStream::new();
    };
    // A type parameter must let the form be read and described, as
    // `Elicitable`'s supertraits require; its fields are bounded below.
    let mut predicates: Vec<TokenStream> = item
        .generics
        .type_params()
        .map(|param| {
            let ident = &param.ident;
            quote!(#ident: #dsh::serde::de::DeserializeOwned
                + #dsh::schemars::JsonSchema)
        })
        .collect();
    let mut checks = Vec::new();
    for field in &named.named {
        let keys = serde_keys(&field.attrs);
        if keys.iter().any(|key| key == "flatten") {
            cx.error_spanned_by(
                field,
                "an elicitation form is flat: a `#[serde(flatten)]` field nests an object in it; write its fields here",
            );
            continue;
        }
        if keys
            .iter()
            .any(|key| key == "skip" || key == "skip_deserializing")
        {
            continue;
        }
        let ty = &field.ty;
        if names_generics(ty, &item.generics) {
            predicates.push(around(
                TokenStream::new(),
                ty,
                quote!(: #elicit::ElicitField),
            ));
        } else {
            checks.push(around(
                quote!(let _: () = <),
                ty,
                quote!(as #dsh::ElicitField>::CHECKED;),
            ));
        }
    }
    let ident = &item.ident;
    let (impl_generics, ty_generics, where_clause) = item.generics.split_for_impl();
    let existing = where_clause
        .into_iter()
        .flat_map(|clause| &clause.predicates);
    let checks = (!checks.is_empty()).then(|| quote!(const _: () = { #(#checks)* };));
    quote! {
        impl #impl_generics #elicit::Elicitable for #ident #ty_generics
        where
            #(#existing,)*
            #(#predicates,)*
        {}

        #checks
    }
}

/// `impl ElicitField` and `impl ElicitChoice`.
fn choice(item: &DeriveInput, runtime: &Runtime) -> TokenStream {
    let elicit = runtime.public("elicit");
    let ident = &item.ident;
    let (impl_generics, ty_generics, where_clause) = item.generics.split_for_impl();
    quote! {
        impl #impl_generics #elicit::ElicitField for #ident #ty_generics #where_clause {}
        impl #impl_generics #elicit::ElicitChoice for #ident #ty_generics #where_clause {}
    }
}

/// The keys of a field's `#[serde(…)]` attributes (`skip`, `rename`, …);
/// attributes that do not parse are serde's to report.
fn serde_keys(attrs: &[Attribute]) -> Vec<String> {
    attrs
        .iter()
        .filter(|attr| attr.path().is_ident("serde"))
        .filter_map(|attr| {
            attr.parse_args_with(Punctuated::<Meta, Token![,]>::parse_terminated)
                .ok()
        })
        .flatten()
        .filter_map(|meta| meta.path().get_ident().map(ToString::to_string))
        .collect()
}
