//! The model of a type deriving `ToolArgs` or `ToolOutput`: what its serde
//! attributes make of each field and variant, each keeping the token that
//! said it, for errors.

use proc_macro2::Span;
use syn::ext::IdentExt;
use syn::meta::ParseNestedMeta;
use syn::spanned::Spanned;
use syn::{Attribute, Data, DeriveInput, Fields, Ident, LitStr, Token, Type};

use crate::ctxt::Ctxt;

/// A name as written in `rename = "…"` or `rename(serialize = "…")`, with its span.
#[derive(Clone)]
pub(crate) struct Named {
    pub(crate) value: String,
    pub(crate) span: Span,
}

/// A serialize and a deserialize value of one key: `rename = "a"` sets both,
/// `rename(serialize = "a")` one.
#[derive(Clone, Default)]
pub(crate) struct Pair {
    pub(crate) ser: Option<Named>,
    pub(crate) de: Option<Named>,
}

/// `#[serde(…)]` on the type.
#[derive(Default)]
pub(crate) struct Container {
    pub(crate) rename_all: Pair,
    pub(crate) transparent: Option<Span>,
    /// `#[serde(default)]` on the type.
    pub(crate) default: bool,
    /// `#[serde(default = "…")]` on the type: where it was written.
    pub(crate) default_path: Option<Span>,
    pub(crate) from: Option<Span>,
    pub(crate) into: Option<Span>,
    pub(crate) remote: Option<Span>,
    pub(crate) crate_path: Option<Span>,
}

/// `#[serde(…)]` on a field or a variant.
#[derive(Default)]
pub(crate) struct Member {
    pub(crate) rename: Pair,
    pub(crate) aliases: Vec<Named>,
    pub(crate) skip: bool,
    pub(crate) skip_serializing: Option<Span>,
    pub(crate) skip_deserializing: Option<Span>,
    pub(crate) skip_serializing_if: Option<Span>,
    pub(crate) default: bool,
    pub(crate) serialize_with: Option<Span>,
    pub(crate) deserialize_with: Option<Span>,
    pub(crate) with: bool,
    pub(crate) flatten: bool,
}

/// A field or a variant: its Rust name, where it is, and its attributes.
pub(crate) struct Item {
    pub(crate) ident: Ident,
    pub(crate) attrs: Member,
    /// A field's `#[dsh(header = "…")]`, and its type.
    pub(crate) header: Option<(LitStr, Type)>,
}

/// The shape of the type, as serde writes it.
pub(crate) enum Shape {
    /// `struct A { a: T }`
    Named(Vec<Item>),
    /// `struct A(T, U)`, `struct A(T)`, `struct A;`: not an object.
    Unnamed(Span, &'static str),
    /// `enum E { … }`, each variant with its named fields, if any.
    Enum(Span, Vec<(Item, Vec<Item>)>),
    /// `union U { … }`
    Union(Span),
}

/// A type deriving `ToolArgs` or `ToolOutput`.
pub(crate) struct Input {
    pub(crate) container: Container,
    pub(crate) shape: Shape,
    /// The `with` key of each field, of any shape, whose
    /// `#[serde(with = "module")]` no `#[schemars(with = "T")]` explains.
    pub(crate) unseen_with: Vec<Span>,
}

impl Input {
    /// The fields with `#[dsh(header = "…")]`, of a struct or of an enum's variants.
    pub(crate) fn headers(&self) -> Vec<&Item> {
        let fields: Vec<&Item> = match &self.shape {
            Shape::Named(fields) => fields.iter().collect(),
            Shape::Enum(_, variants) => variants.iter().flat_map(|(_, fields)| fields).collect(),
            Shape::Unnamed(..) | Shape::Union(_) => Vec::new(),
        };
        fields
            .into_iter()
            .filter(|field| field.header.is_some())
            .collect()
    }
}

impl Input {
    pub(crate) fn from_ast(cx: &Ctxt, item: &DeriveInput) -> Self {
        let mut container = Container::default();
        for attr in serde_attrs(&item.attrs) {
            let parsed = attr.parse_nested_meta(|meta| container_key(&mut container, meta));
            if let Err(error) = parsed {
                cx.push(error);
            }
        }
        let shape = match &item.data {
            Data::Struct(data) => match &data.fields {
                Fields::Named(_) => Shape::Named(items(cx, &data.fields)),
                Fields::Unnamed(fields) if fields.unnamed.len() == 1 => {
                    Shape::Unnamed(fields.span(), "a newtype struct is its inner value")
                }
                Fields::Unnamed(fields) => {
                    Shape::Unnamed(fields.span(), "a tuple struct is an array")
                }
                Fields::Unit => Shape::Unnamed(item.ident.span(), "a unit struct is `null`"),
            },
            Data::Enum(data) => Shape::Enum(
                data.enum_token.span,
                data.variants
                    .iter()
                    .map(|variant| {
                        let attrs = member(cx, &variant.attrs);
                        let fields = match &variant.fields {
                            Fields::Named(_) => items(cx, &variant.fields),
                            _ => Vec::new(),
                        };
                        let item = Item {
                            ident: variant.ident.clone(),
                            attrs,
                            header: None,
                        };
                        (item, fields)
                    })
                    .collect(),
            ),
            Data::Union(data) => Shape::Union(data.union_token.span),
        };
        let fields: Vec<&syn::Field> = match &item.data {
            Data::Struct(data) => data.fields.iter().collect(),
            Data::Enum(data) => data.variants.iter().flat_map(|v| &v.fields).collect(),
            Data::Union(data) => data.fields.named.iter().collect(),
        };
        let unseen_with = fields
            .into_iter()
            .filter_map(|field| unseen_with(&field.attrs))
            .collect();
        Input {
            container,
            shape,
            unseen_with,
        }
    }
}

fn items(cx: &Ctxt, fields: &Fields) -> Vec<Item> {
    fields
        .iter()
        .filter_map(|field| {
            Some(Item {
                ident: field.ident.clone()?,
                attrs: member(cx, &field.attrs),
                header: crate::header::parse(cx, &field.attrs).map(|name| (name, field.ty.clone())),
            })
        })
        .collect()
}

pub(crate) fn member(cx: &Ctxt, attrs: &[Attribute]) -> Member {
    let mut member = Member::default();
    for attr in serde_attrs(attrs) {
        if let Err(error) = attr.parse_nested_meta(|meta| member_key(&mut member, meta)) {
            cx.push(error);
        }
    }
    member
}

/// The `with` key of a field's `#[serde(with = "module")]`, unless a
/// `#[schemars(with = "T")]` or `#[schemars(schema_with = "f")]` beside it
/// says what the field is written as: schemars reads serde's `with` as a
/// type, and a module is none.
pub(crate) fn unseen_with(attrs: &[Attribute]) -> Option<Span> {
    let mut with = None;
    for attr in serde_attrs(attrs) {
        // Malformed attributes are reported by `member`.
        let _ = attr.parse_nested_meta(|meta| {
            if key(&meta) == "with" {
                with = Some(meta.path.span());
            }
            skip_value(&meta)
        });
    }
    let explained = attrs
        .iter()
        .filter(|attr| attr.path().is_ident("schemars"))
        .any(|attr| {
            // The keys at the top of `#[schemars(…)]`, by token: its other
            // keys take forms no one parser reads (`extend("x" = 1)`).
            let Ok(list) = attr.meta.require_list() else {
                return false;
            };
            let tokens: Vec<proc_macro2::TokenTree> = list.tokens.clone().into_iter().collect();
            tokens.windows(2).any(|pair| {
                matches!(&pair[0], proc_macro2::TokenTree::Ident(ident) if ident == "with" || ident == "schema_with")
                    && matches!(&pair[1], proc_macro2::TokenTree::Punct(punct) if punct.as_char() == '=')
            })
        });
    with.filter(|_| !explained)
}

fn serde_attrs(attrs: &[Attribute]) -> impl Iterator<Item = &Attribute> {
    attrs.iter().filter(|attr| attr.path().is_ident("serde"))
}

fn key(meta: &ParseNestedMeta) -> String {
    meta.path
        .get_ident()
        .map(|ident| ident.unraw().to_string())
        .unwrap_or_default()
}

// #[serde(rename_all = "camelCase")], #[serde(transparent)], #[serde(default)], …
fn container_key(container: &mut Container, meta: ParseNestedMeta) -> syn::Result<()> {
    let span = meta.path.span();
    match key(&meta).as_str() {
        "rename_all" => container.rename_all = pair(&meta)?,
        "transparent" => container.transparent = Some(span),
        "default" => {
            container.default = true;
            if meta.input.peek(Token![=]) {
                container.default_path = Some(span);
            }
            skip_value(&meta)?;
        }
        "from" | "try_from" => {
            container.from = Some(span);
            skip_value(&meta)?;
        }
        "into" => {
            container.into = Some(span);
            skip_value(&meta)?;
        }
        "remote" => {
            container.remote = Some(span);
            skip_value(&meta)?;
        }
        "crate" => {
            container.crate_path = Some(span);
            skip_value(&meta)?;
        }
        _ => skip_value(&meta)?,
    }
    Ok(())
}

// #[serde(rename = "path")], #[serde(skip_serializing_if = "Option::is_none")], …
fn member_key(member: &mut Member, meta: ParseNestedMeta) -> syn::Result<()> {
    let span = meta.path.span();
    match key(&meta).as_str() {
        "rename" => member.rename = pair(&meta)?,
        "alias" => {
            let lit: LitStr = meta.value()?.parse()?;
            member.aliases.push(Named {
                value: lit.value(),
                span: lit.span(),
            });
        }
        "skip" => member.skip = true,
        "skip_serializing" => member.skip_serializing = Some(span),
        "skip_deserializing" => member.skip_deserializing = Some(span),
        "skip_serializing_if" => {
            member.skip_serializing_if = Some(span);
            skip_value(&meta)?;
        }
        "default" => {
            member.default = true;
            skip_value(&meta)?;
        }
        "serialize_with" => {
            member.serialize_with = Some(span);
            skip_value(&meta)?;
        }
        "deserialize_with" => {
            member.deserialize_with = Some(span);
            skip_value(&meta)?;
        }
        "with" => {
            member.with = true;
            skip_value(&meta)?;
        }
        "flatten" => member.flatten = true,
        _ => skip_value(&meta)?,
    }
    Ok(())
}

/// `key = "a"` (both) or `key(serialize = "a", deserialize = "b")`.
fn pair(meta: &ParseNestedMeta) -> syn::Result<Pair> {
    if meta.input.peek(Token![=]) {
        let lit: LitStr = meta.value()?.parse()?;
        let named = Named {
            value: lit.value(),
            span: lit.span(),
        };
        return Ok(Pair {
            ser: Some(named.clone()),
            de: Some(named),
        });
    }
    let mut pair = Pair::default();
    meta.parse_nested_meta(|inner| {
        let lit: LitStr = inner.value()?.parse()?;
        let named = Named {
            value: lit.value(),
            span: lit.span(),
        };
        match key(&inner).as_str() {
            "serialize" => pair.ser = Some(named),
            "deserialize" => pair.de = Some(named),
            _ => {}
        }
        Ok(())
    })?;
    Ok(pair)
}

/// Skips what follows a key serde takes that no check reads.
fn skip_value(meta: &ParseNestedMeta) -> syn::Result<()> {
    if meta.input.peek(Token![=]) {
        meta.value()?.parse::<syn::Expr>()?;
    } else if meta.input.peek(syn::token::Paren) {
        meta.parse_nested_meta(|inner| skip_value(&inner))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use syn::Field;
    use syn::parse::Parser;

    use super::unseen_with;

    fn field(tokens: proc_macro2::TokenStream) -> Field {
        Field::parse_named.parse2(tokens).expect("a named field")
    }

    #[test]
    fn a_serde_with_is_unseen_until_schemars_says_what_it_writes() {
        let unseen = |field: Field| unseen_with(&field.attrs).is_some();
        assert!(unseen(field(
            quote::quote!(#[serde(with = "seconds")] a: Duration)
        )));
        assert!(unseen(field(quote::quote!(
            #[serde(default, with = "seconds")]
            #[schemars(description = "with = no")]
            a: Duration
        ))));
        assert!(!unseen(field(quote::quote!(
            #[serde(with = "seconds")]
            #[schemars(extend("x" = 1), with = "u64")]
            a: Duration
        ))));
        assert!(!unseen(field(quote::quote!(
            #[serde(with = "seconds")]
            #[schemars(schema_with = "seconds_schema")]
            a: Duration
        ))));
        assert!(!unseen(field(quote::quote!(
            #[serde(serialize_with = "s", deserialize_with = "d")]
            a: Duration
        ))));
    }
}
