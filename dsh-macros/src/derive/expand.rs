//! The tokens of a derive: a hidden twin of the type carrying serde's and
//! schemars' derives as a `remote` definition, and the type's own impls
//! delegating to it. A derive cannot emit the item again with more derives
//! on it; a `remote` twin is how serde lets another type hold the derive.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote};
use syn::{Attribute, Data, DeriveInput, Fields, GenericParam, parse_quote};

use super::Derive;
use crate::doc;
use crate::runtime::Runtime;

pub(crate) fn expand(derive: Derive, item: &DeriveInput, runtime: &Runtime) -> TokenStream {
    let dsh = runtime.private();
    let ident = &item.ident;
    let twin = format_ident!("__{}Twin", ident, span = Span::mixed_site());
    let remote = ident.to_string();
    let attrs = kept(&item.attrs);
    let generics = &item.generics;
    let (impl_generics, ty_generics, where_clause) = generics.split_for_impl();
    let body = twin_body(item);
    let derives = match derive {
        Derive::Args => quote!(
            #dsh::serde::Deserialize,
            #dsh::schemars::JsonSchema
        ),
        Derive::Output => quote!(
            #dsh::serde::Serialize,
            #dsh::serde::Deserialize,
            #dsh::schemars::JsonSchema
        ),
    };
    let type_params: Vec<_> = generics.type_params().map(|param| &param.ident).collect();
    let bounded = |bound: TokenStream| {
        let mut generics = generics.clone();
        let clause = generics.make_where_clause();
        for param in &type_params {
            clause.predicates.push(parse_quote!(#param: #bound));
        }
        generics
    };
    let de_generics = {
        let mut generics = bounded(quote!(#dsh::serde::de::DeserializeOwned));
        generics
            .params
            .insert(0, GenericParam::Lifetime(parse_quote!('de)));
        generics
    };
    let (de_impl, _, de_where) = de_generics.split_for_impl();
    let schema_generics = bounded(quote!(#dsh::schemars::JsonSchema));
    let (schema_impl, _, schema_where) = schema_generics.split_for_impl();
    let deserialize = quote! {
        impl #de_impl #dsh::serde::Deserialize<'de> for #ident #ty_generics #de_where {
            fn deserialize<D: #dsh::serde::Deserializer<'de>>(
                deserializer: D,
            ) -> ::core::result::Result<Self, D::Error> {
                #twin::deserialize(deserializer)
            }
        }
    };
    let schema = quote! {
        impl #schema_impl #dsh::schemars::JsonSchema for #ident #ty_generics #schema_where {
            fn inline_schema() -> bool {
                <#twin #ty_generics as #dsh::schemars::JsonSchema>::inline_schema()
            }
            fn schema_name() -> ::std::borrow::Cow<'static, str> {
                <#twin #ty_generics as #dsh::schemars::JsonSchema>::schema_name()
            }
            fn schema_id() -> ::std::borrow::Cow<'static, str> {
                <#twin #ty_generics as #dsh::schemars::JsonSchema>::schema_id()
            }
            fn json_schema(
                generator: &mut #dsh::schemars::SchemaGenerator,
            ) -> #dsh::schemars::Schema {
                <#twin #ty_generics as #dsh::schemars::JsonSchema>::json_schema(generator)
            }
        }
    };
    let output_impls = (derive == Derive::Output).then(|| {
        let ser_generics = bounded(quote!(#dsh::serde::Serialize));
        let (ser_impl, _, ser_where) = ser_generics.split_for_impl();
        let out_generics = bounded(quote!(#dsh::ToolOutput));
        let (out_impl, _, out_where) = out_generics.split_for_impl();
        quote! {
            impl #ser_impl #dsh::serde::Serialize for #ident #ty_generics #ser_where {
                fn serialize<S: #dsh::serde::Serializer>(
                    &self,
                    serializer: S,
                ) -> ::core::result::Result<S::Ok, S::Error> {
                    #twin::serialize(self, serializer)
                }
            }

            impl #out_impl #dsh::ToolReturn for #ident #ty_generics #out_where {
                type Output = Self;
                type Error = ::core::convert::Infallible;
                fn into_result(self) -> ::core::result::Result<Self, ::core::convert::Infallible> {
                    ::core::result::Result::Ok(self)
                }
            }
        }
    });
    let _ = impl_generics;
    let serde_path = runtime.private_str("serde");
    let schemars_path = runtime.private_str("schemars");
    let paths = quote! {
        #[serde(crate = #serde_path, remote = #remote)]
        #[schemars(crate = #schemars_path)]
    };
    emit(
        item,
        &twin,
        &attrs,
        &derives,
        &paths,
        &body,
        &deserialize,
        &schema,
        output_impls.as_ref(),
        where_clause,
    )
}

#[allow(clippy::too_many_arguments)]
fn emit(
    item: &DeriveInput,
    twin: &syn::Ident,
    attrs: &[&Attribute],
    derives: &TokenStream,
    // `#[serde(crate = …, remote = …)]` and `#[schemars(crate = …)]`.
    paths: &TokenStream,
    body: &TokenStream,
    deserialize: &TokenStream,
    schema: &TokenStream,
    output_impls: Option<&TokenStream>,
    where_clause: Option<&syn::WhereClause>,
) -> TokenStream {
    let generics = &item.generics;
    let keyword = match &item.data {
        Data::Struct(_) => quote!(struct),
        Data::Enum(_) => quote!(enum),
        Data::Union(_) => quote!(union),
    };
    let semi = match &item.data {
        Data::Struct(data) if !matches!(data.fields, Fields::Named(_)) => quote!(;),
        _ => TokenStream::new(),
    };
    let (body, semi) = match (&item.data, where_clause) {
        // `struct A<T>(T) where …;`: the where clause goes after the fields.
        (Data::Struct(data), Some(clause)) if !matches!(data.fields, Fields::Named(_)) => {
            (quote!(#body #clause), semi)
        }
        (_, Some(clause)) => (quote!(#clause #body), semi),
        (_, None) => (quote!(#body), semi),
    };
    let params = &generics.params;
    let generics = if params.is_empty() {
        TokenStream::new()
    } else {
        quote!(<#params>)
    };
    // The lint allowance covers serde's code for a type with a name taken
    // twice, which the derive reports as its own error.
    quote! {
        #[allow(unreachable_patterns)]
        const _: () = {
            #[derive(#derives)]
            #paths
            #[allow(dead_code, non_camel_case_types)]
            #(#attrs)*
            #keyword #twin #generics #body #semi

            #deserialize
            #schema
            #output_impls
        };
    }
}

/// The twin's fields or variants: the item's own, with the attributes that
/// shape what serde and schemars make of them.
fn twin_body(item: &DeriveInput) -> TokenStream {
    match &item.data {
        Data::Struct(data) => fields(&data.fields),
        Data::Enum(data) => {
            let variants = data.variants.iter().map(|variant| {
                let attrs = kept(&variant.attrs);
                let ident = &variant.ident;
                let fields = fields(&variant.fields);
                quote!(#(#attrs)* #ident #fields)
            });
            quote!({ #(#variants,)* })
        }
        Data::Union(data) => {
            let fields = fields(&Fields::Named(data.fields.clone()));
            quote!(#fields)
        }
    }
}

fn fields(fields: &Fields) -> TokenStream {
    let each = fields.iter().map(|field| {
        let attrs = kept(&field.attrs);
        let ty = &field.ty;
        match &field.ident {
            Some(ident) => quote!(#(#attrs)* #ident: #ty),
            None => quote!(#(#attrs)* #ty),
        }
    });
    match fields {
        Fields::Named(_) => quote!({ #(#each,)* }),
        Fields::Unnamed(_) => quote!(( #(#each,)* )),
        Fields::Unit => TokenStream::new(),
    }
}

/// The attributes serde and schemars read: `#[serde]`, `#[schemars]` and doc comments.
fn kept(attrs: &[Attribute]) -> Vec<&Attribute> {
    attrs
        .iter()
        .filter(|attr| {
            doc::is_doc(attr) || attr.path().is_ident("serde") || attr.path().is_ident("schemars")
        })
        .collect()
}
