//! The tokens of a derive: hidden twins of the type carrying serde's and
//! schemars' derives as a `remote` definition, and the type's own impls
//! delegating to them. A derive cannot emit the item again with more derives
//! on it; a `remote` twin is how serde lets another type hold the derive.
//! serde's twin and schemars' are two, so that the schema alone assumes its
//! fields have one (see `schema_fields`).

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote};
use syn::{Attribute, Data, DeriveInput, Fields, GenericParam, parse_quote};

use super::Derive;
use super::ast::{Input, Item};
use crate::doc;
use crate::runtime::Runtime;

/// With `#[serde(default)]` on the type, serde builds the twin's default,
/// made here from the type's own.
pub(crate) fn expand(
    derive: Derive,
    item: &DeriveInput,
    runtime: &Runtime,
    input: &Input,
) -> TokenStream {
    let default = input.container.default;
    let header_fields = if derive.describes_args() {
        input.headers()
    } else {
        Vec::new()
    };
    // The fields with `#[dsh(header = "…")]`, and the name of each.
    let headers: Vec<(syn::Ident, syn::LitStr)> = (header_fields.iter())
        .filter_map(|field| Some((field.ident.clone(), field.header.as_ref()?.0.clone())))
        .collect();
    let headers = headers.as_slice();
    let dsh = runtime.private();
    let ident = &item.ident;
    let twin = format_ident!("__{}Twin", ident, span = Span::mixed_site());
    // The schema has a twin of its own, which assumes each checked field's
    // type has a schema (see `schema_fields`); serde's twin assumes nothing,
    // so the impls delegating to it always hold.
    let schema_twin = format_ident!("__{}Schema", ident, span = Span::mixed_site());
    let remote = ident.to_string();
    let generics = &item.generics;
    let (_, ty_generics, _) = generics.split_for_impl();
    let checked = checked_fields(item);
    let schema_fields = if derive.describes() {
        checked.clone()
    } else {
        Vec::new()
    };
    // What serde's twin assumes of each checked field's type, under
    // `for<'__dsh>` (not checked where written), as the schema's does.
    let mut serde_assumed: Vec<syn::WherePredicate> = Vec::new();
    for ty in &checked {
        if derive.serializes() {
            serde_assumed.push(parse_quote!(for<'__dsh> #ty: #dsh::serde::Serialize));
        }
        if derive.deserializes() {
            serde_assumed.push(parse_quote!(for<'__dsh> #ty: #dsh::serde::de::DeserializeOwned));
        }
    }
    let mut derives = Vec::new();
    if derive.serializes() {
        derives.push(quote!(#dsh::serde::Serialize));
    }
    if derive.deserializes() {
        derives.push(quote!(#dsh::serde::Deserialize));
    }
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
    let deserialize = derive.deserializes().then(|| {
        let twin_generics = assuming(&de_generics, &serde_assumed);
        let (twin_impl, _, twin_where) = twin_generics.split_for_impl();
        quote! {
            impl #twin_impl #dsh::DeserializeTwin<'de> for #ident #ty_generics #twin_where {
                fn deserialize_twin<D: #dsh::serde::Deserializer<'de>>(
                    deserializer: D,
                ) -> ::core::result::Result<Self, D::Error> {
                    #twin::deserialize(deserializer)
                }
            }

            impl #de_impl #dsh::serde::Deserialize<'de> for #ident #ty_generics #de_where {
                fn deserialize<D: #dsh::serde::Deserializer<'de>>(
                    deserializer: D,
                ) -> ::core::result::Result<Self, D::Error> {
                    #[allow(unused_imports)]
                    use #dsh::{HasDeserialize as _, LacksSerde as _};
                    (&&#dsh::SerdeTwin::<Self>::new()).deserialize(deserializer)
                }
            }
        }
    });
    let schema = derive.describes().then(|| {
        quote! {
            impl #schema_impl #dsh::schemars::JsonSchema for #ident #ty_generics #schema_where {
                fn inline_schema() -> bool {
                    #[allow(unused_imports)]
                    use #dsh::{HasSchema as _, LacksSchema as _};
                    (&&#dsh::TwinSchema::<Self>::new()).inline_schema()
                }
                fn schema_name() -> ::std::borrow::Cow<'static, str> {
                    #[allow(unused_imports)]
                    use #dsh::{HasSchema as _, LacksSchema as _};
                    (&&#dsh::TwinSchema::<Self>::new()).schema_name()
                }
                fn schema_id() -> ::std::borrow::Cow<'static, str> {
                    #[allow(unused_imports)]
                    use #dsh::{HasSchema as _, LacksSchema as _};
                    (&&#dsh::TwinSchema::<Self>::new()).schema_id()
                }
                fn json_schema(
                    generator: &mut #dsh::schemars::SchemaGenerator,
                ) -> #dsh::schemars::Schema {
                    #[allow(unused_imports)]
                    use #dsh::{HasSchema as _, LacksSchema as _};
                    (&&#dsh::TwinSchema::<Self>::new()).json_schema(generator)
                }
            }
        }
    });
    let serialize = derive.serializes().then(|| {
        let ser_generics = bounded(quote!(#dsh::serde::Serialize));
        let (ser_impl, _, ser_where) = ser_generics.split_for_impl();
        let twin_generics = assuming(&ser_generics, &serde_assumed);
        let (twin_impl, _, twin_where) = twin_generics.split_for_impl();
        quote! {
            impl #twin_impl #dsh::SerializeTwin for #ident #ty_generics #twin_where {
                fn serialize_twin<S: #dsh::serde::Serializer>(
                    &self,
                    serializer: S,
                ) -> ::core::result::Result<S::Ok, S::Error> {
                    #twin::serialize(self, serializer)
                }
            }

            impl #ser_impl #dsh::serde::Serialize for #ident #ty_generics #ser_where {
                fn serialize<S: #dsh::serde::Serializer>(
                    &self,
                    serializer: S,
                ) -> ::core::result::Result<S::Ok, S::Error> {
                    #[allow(unused_imports)]
                    use #dsh::{HasSerialize as _, LacksSerde as _};
                    (&&#dsh::SerdeTwin::<Self>::new()).serialize(self, serializer)
                }
            }
        }
    });
    let tool_return = (derive == Derive::Output).then(|| {
        let out_generics = bounded(quote!(#dsh::ToolOutput));
        let (out_impl, _, out_where) = out_generics.split_for_impl();
        quote! {
            impl #out_impl #dsh::ToolReturn for #ident #ty_generics #out_where {
                type Output = Self;
                type Error = ::core::convert::Infallible;
                fn into_result(self) -> ::core::result::Result<Self, ::core::convert::Infallible> {
                    ::core::result::Result::Ok(self)
                }
            }
        }
    });
    let twin_default = if default {
        let serde = (!derives.is_empty())
            .then(|| twin_default(item, &twin))
            .flatten();
        let schema = (derive.describes())
            .then(|| twin_default(item, &schema_twin))
            .flatten();
        quote!(#serde #schema)
    } else {
        TokenStream::new()
    };
    let header_checks = header_checks(&header_fields, item, runtime);
    let mut field_traits = Vec::new();
    if derive.describes() {
        field_traits.push("SchemaField");
    }
    if derive.serializes() {
        field_traits.push("SerializeField");
    }
    if derive.deserializes() {
        field_traits.push("DeserializeField");
    }
    let checks = field_checks(&checked, &field_traits, runtime);
    let impls =
        quote!(#serialize #deserialize #schema #tool_return #twin_default #header_checks #checks);
    let serde_path = runtime.private_str("serde");
    let schemars_path = runtime.private_str("schemars");
    let mut twins = TokenStream::new();
    if !derives.is_empty() {
        let head = quote! {
            #[derive(#(#derives),*)]
            #[serde(crate = #serde_path, remote = #remote)]
        };
        let body = twin_body(item, false, headers, runtime);
        let attrs = kept(&item.attrs, false);
        let assumed = assuming(generics, &serde_assumed);
        twins.extend(declare(
            item,
            &twin,
            &attrs,
            &head,
            &body,
            assumed.where_clause.as_ref(),
        ));
    }
    if derive.describes() {
        // schemars reads serde's attributes, `remote` for the schema's name.
        let head = quote! {
            #[derive(#dsh::schemars::JsonSchema)]
            #[serde(crate = #serde_path, remote = #remote)]
            #[schemars(crate = #schemars_path)]
        };
        let body = twin_body(item, true, headers, runtime);
        let attrs = kept(&item.attrs, true);
        // Each checked field's type has a schema, assumed under `for<'__dsh>`
        // (not checked where written): a type that has none is reported by
        // its check alone, and this twin's impl just does not hold.
        let schema_assumed: Vec<syn::WherePredicate> = (schema_fields.iter())
            .map(|ty| parse_quote!(for<'__dsh> #ty: #dsh::schemars::JsonSchema))
            .collect();
        let assumed = assuming(generics, &schema_assumed);
        twins.extend(declare(
            item,
            &schema_twin,
            &attrs,
            &head,
            &body,
            assumed.where_clause.as_ref(),
        ));
        // The impl's bounds: the type parameters' (as the schema's own
        // impl has them) and the twin's assumptions.
        let twin_generics = assuming(&schema_generics, &schema_assumed);
        let (twin_impl, _, twin_where) = twin_generics.split_for_impl();
        let schema = quote!(<#schema_twin #ty_generics as #dsh::schemars::JsonSchema>);
        twins.extend(quote! {
            impl #twin_impl #dsh::SchemaTwin for #ident #ty_generics #twin_where {
                fn inline_schema() -> bool {
                    #schema::inline_schema()
                }
                fn schema_name() -> ::std::borrow::Cow<'static, str> {
                    #schema::schema_name()
                }
                fn schema_id() -> ::std::borrow::Cow<'static, str> {
                    #schema::schema_id()
                }
                fn json_schema(
                    generator: &mut #dsh::schemars::SchemaGenerator,
                ) -> #dsh::schemars::Schema {
                    #schema::json_schema(generator)
                }
            }
        });
    }
    // The lint allowance covers serde's code for a type with a name taken
    // twice, which the derive reports as its own error.
    quote! {
        #[allow(unreachable_patterns)]
        const _: () = {
            #twins
            #impls
        };
    }
}

/// A twin's declaration: the item's fields or variants (`body`) under
/// `head`, `#[derive(…)]` and where serde and schemars are.
fn declare(
    item: &DeriveInput,
    twin: &syn::Ident,
    attrs: &[&Attribute],
    head: &TokenStream,
    body: &TokenStream,
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
    quote! {
        #head
        #[allow(dead_code, non_camel_case_types)]
        #(#attrs)*
        #keyword #twin #generics #body #semi
    }
}

/// `impl Default` for the twin of a struct with `#[serde(default)]`, moving
/// each field out of the type's own default.
fn twin_default(item: &DeriveInput, twin: &syn::Ident) -> Option<TokenStream> {
    let Data::Struct(data) = &item.data else {
        // serde takes `#[serde(default)]` on structs alone, and says so.
        return None;
    };
    let ident = &item.ident;
    let value = syn::Ident::new("value", Span::mixed_site());
    let body = match &data.fields {
        Fields::Named(fields) => {
            let names = fields.named.iter().map(|field| &field.ident);
            quote!(#twin { #(#names: #value.#names,)* })
        }
        Fields::Unnamed(fields) => {
            let indexes = (0..fields.unnamed.len()).map(syn::Index::from);
            quote!(#twin ( #(#value.#indexes,)* ))
        }
        Fields::Unit => quote!({
            let _ = #value;
            #twin
        }),
    };
    let mut generics = item.generics.clone();
    let (_, ty_generics, _) = item.generics.split_for_impl();
    generics
        .make_where_clause()
        .predicates
        .push(parse_quote!(#ident #ty_generics: ::core::default::Default));
    let (impl_generics, _, where_clause) = generics.split_for_impl();
    Some(quote! {
        impl #impl_generics ::core::default::Default for #twin #ty_generics #where_clause {
            fn default() -> Self {
                let #value = <#ident #ty_generics as ::core::default::Default>::default();
                #body
            }
        }
    })
}

/// The types of the fields the derives need impls of, each checked at the
/// type with `SchemaField`'s, `SerializeField`'s or `DeserializeField`'s
/// message (see `__private::field`). Left out: a type naming the item's
/// generics (serde and schemars bound those), one that borrows, and a field
/// serde or schemars reads another way (`with`, `skip`, …), which need not
/// implement them.
fn checked_fields(item: &DeriveInput) -> Vec<&syn::Type> {
    let fields: Vec<&syn::Field> = match &item.data {
        Data::Struct(data) => data.fields.iter().collect(),
        Data::Enum(data) => data
            .variants
            .iter()
            .filter(|variant| !variant.attrs.iter().any(reads_otherwise))
            .flat_map(|variant| &variant.fields)
            .collect(),
        Data::Union(data) => data.fields.named.iter().collect(),
    };
    fields
        .into_iter()
        .filter(|field| {
            !crate::types::names_generics(&field.ty, &item.generics)
                && !crate::types::borrows(&field.ty)
                && !field.attrs.iter().any(reads_otherwise)
        })
        .map(|field| &field.ty)
        .collect()
}

/// Whether a field's `#[serde(…)]` or `#[schemars(…)]` has it read or
/// written otherwise than through its type's own impls, or not at all.
fn reads_otherwise(attr: &Attribute) -> bool {
    names_key(
        attr,
        &[
            "with",
            "serialize_with",
            "deserialize_with",
            "schema_with",
            "skip",
            "skip_serializing",
            "skip_deserializing",
            "getter",
            "bound",
        ],
    )
}

/// Whether a `#[serde(…)]` or `#[schemars(…)]` attribute has one of `keys`.
fn names_key(attr: &Attribute, keys: &[&str]) -> bool {
    if !attr.path().is_ident("serde") && !attr.path().is_ident("schemars") {
        return false;
    }
    let syn::Meta::List(list) = &attr.meta else {
        return false;
    };
    list.tokens.clone().into_iter().any(|token| {
        matches!(&token, proc_macro2::TokenTree::Ident(ident) if keys.iter().any(|key| ident == key))
    })
}

/// The twin's fields or variants: the item's own, with the attributes that
/// shape what serde and schemars make of them.
fn twin_body(
    item: &DeriveInput,
    schema: bool,
    headers: &[(syn::Ident, syn::LitStr)],
    runtime: &Runtime,
) -> TokenStream {
    match &item.data {
        Data::Struct(data) => fields(&data.fields, schema, headers, runtime),
        Data::Enum(data) => {
            let variants = data.variants.iter().map(|variant| {
                let attrs = kept(&variant.attrs, schema);
                let ident = &variant.ident;
                let fields = fields(&variant.fields, schema, headers, runtime);
                quote!(#(#attrs)* #ident #fields)
            });
            quote!({ #(#variants,)* })
        }
        Data::Union(data) => {
            let fields = fields(&Fields::Named(data.fields.clone()), schema, &[], runtime);
            quote!(#fields)
        }
    }
}

fn fields(
    fields: &Fields,
    schema: bool,
    headers: &[(syn::Ident, syn::LitStr)],
    runtime: &Runtime,
) -> TokenStream {
    let each = fields.iter().map(|field| {
        let attrs = kept(&field.attrs, schema);
        // Refused in `valid`: a schema of its own keeps schemars from
        // reading the module as a type, and adding an error of its own.
        let unseen = (schema && super::ast::unseen_with(&field.attrs).is_some()).then(|| {
            let path = runtime.private_str("unseen_schema");
            quote!(#[schemars(schema_with = #path)])
        });
        let ty = &field.ty;
        let header = (field.ident.as_ref())
            .and_then(|ident| headers.iter().find(|(named, _)| named == ident))
            .filter(|_| schema)
            .map(|(_, name)| crate::header::schema_attr(name));
        match &field.ident {
            Some(ident) => quote!(#(#attrs)* #unseen #header #ident: #ty),
            None => quote!(#(#attrs)* #unseen #ty),
        }
    });
    match fields {
        Fields::Named(_) => quote!({ #(#each,)* }),
        Fields::Unnamed(_) => quote!(( #(#each,)* )),
        Fields::Unit => TokenStream::new(),
    }
}

/// The attributes serde reads, `#[serde]` and doc comments, and
/// `#[schemars]` when the twin derives `JsonSchema` (`schema`).
fn kept(attrs: &[Attribute], schema: bool) -> Vec<&Attribute> {
    attrs
        .iter()
        .filter(|attr| {
            doc::is_doc(attr)
                || attr.path().is_ident("serde")
                || (schema && attr.path().is_ident("schemars"))
        })
        .collect()
}

/// `<Mode as SchemaField>::CHECKED` (and `SerializeField`,
/// `DeserializeField`, as the derive needs) for each field's type, at the
/// type: a helper type missing a derive is reported there, once per derive
/// it misses, with the trait's message saying which to add.
fn field_checks(types: &[&syn::Type], traits: &[&str], runtime: &Runtime) -> TokenStream {
    if types.is_empty() || traits.is_empty() {
        return TokenStream::new();
    }
    let dsh = runtime.private();
    let checks = types.iter().flat_map(|ty| {
        let dsh = &dsh;
        traits.iter().map(move |name| {
            let name = syn::Ident::new(name, Span::call_site());
            crate::span::around(quote!(let _: () = <), ty, quote!(as #dsh::#name>::CHECKED;))
        })
    });
    quote!(const _: () = { #(#checks)* };)
}

/// `generics` with `predicates` added to its `where` clause.
fn assuming(generics: &syn::Generics, predicates: &[syn::WherePredicate]) -> syn::Generics {
    let mut generics = generics.clone();
    if !predicates.is_empty() {
        (generics.make_where_clause().predicates).extend(predicates.iter().cloned());
    }
    generics
}

/// A check of each header field's type against `HeaderParam`, at the type;
/// a type naming a type parameter is checked when the tool is registered.
fn header_checks(fields: &[&Item], item: &DeriveInput, runtime: &Runtime) -> TokenStream {
    let dsh = runtime.private();
    let checks: Vec<TokenStream> = fields
        .iter()
        .filter_map(|field| field.header.as_ref())
        .filter(|(_, ty)| !crate::types::names_generics(ty, &item.generics))
        .map(|(_, ty)| crate::header::type_check(&dsh, ty))
        .collect();
    if checks.is_empty() {
        return TokenStream::new();
    }
    quote!(const _: () = { #(#checks)* };)
}
