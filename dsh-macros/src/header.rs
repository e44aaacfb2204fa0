//! `#[dsh(header = "Region")]` on a `#[tool]` parameter or a `ToolArgs`
//! field: the argument a client mirrors into an `Mcp-Param-Region` HTTP
//! header (MCP's `x-mcp-header`). Parsed and checked here for both macros;
//! the type is checked by rustc against `HeaderParam`, at the type.

use proc_macro2::TokenStream;
use quote::quote;
use syn::{Attribute, Expr, ExprLit, Lit, LitStr, Type};

use crate::ctxt::Ctxt;
use crate::span::around;
use dsh_kit_rules::names::{HEADER_NAME_RULE, is_header_name};

/// What `#[dsh(…)]` on a parameter or field takes.
const EXPECTED: &str = "`#[dsh(…)]` on an argument takes one key: `header = \"Region\"`, the `Mcp-Param-Region` header a client mirrors it into";

/// The header name of `#[dsh(header = "…")]` among `attrs`, spanned at the
/// string; every malformed `#[dsh]` and a name that is no HTTP token go to `cx`.
// #[dsh(header = "Region")]
pub(crate) fn parse(cx: &Ctxt, attrs: &[Attribute]) -> Option<LitStr> {
    let mut found: Option<LitStr> = None;
    for attr in attrs.iter().filter(|attr| is_dsh(attr)) {
        let parsed = attr.parse_nested_meta(|meta| {
            if !meta.path.is_ident("header") {
                return Err(meta.error(EXPECTED));
            }
            let value: Expr = meta.value()?.parse()?;
            let Expr::Lit(ExprLit {
                lit: Lit::Str(name),
                ..
            }) = value
            else {
                return Err(syn::Error::new_spanned(
                    value,
                    "`header` takes the header's name as a string: `header = \"Region\"`",
                ));
            };
            if found.is_some() {
                return Err(meta.error("`header` is given twice: keep one"));
            }
            let text = name.value();
            if text.is_empty() {
                cx.error_spanned_by(
                    &name,
                    format!(
                        "the header's name is empty: use {HEADER_NAME_RULE}, like `\"Region\"`"
                    ),
                );
            } else if !is_header_name(&text) {
                cx.error_spanned_by(
                    &name,
                    format!(
                        "`{}` is not an HTTP header name: use {HEADER_NAME_RULE}",
                        text.escape_debug()
                    ),
                );
            }
            found = Some(name);
            Ok(())
        });
        if let Err(error) = parsed {
            cx.push(error);
        }
    }
    found.filter(|name| is_header_name(&name.value()))
}

/// Whether `attr` is `#[dsh(…)]`.
pub(crate) fn is_dsh(attr: &Attribute) -> bool {
    attr.path().is_ident("dsh")
}

/// Reports each header name given a second time in one tool, ignoring case
/// as HTTP does, at the second.
pub(crate) fn check_unique<'a>(cx: &Ctxt, names: impl IntoIterator<Item = &'a LitStr>) {
    let mut seen: Vec<String> = Vec::new();
    for name in names {
        let text = name.value();
        if let Some(first) = seen.iter().find(|seen| seen.eq_ignore_ascii_case(&text)) {
            cx.error_spanned_by(
                name,
                format!(
                    "the header `{text}` is already the header of another argument (`{first}`; HTTP header names ignore case): give each its own"
                ),
            );
        } else {
            seen.push(text);
        }
    }
}

/// `#[schemars(extend("x-mcp-header" = "Region"))]`, for the field.
pub(crate) fn schema_attr(name: &LitStr) -> TokenStream {
    quote!(#[schemars(extend("x-mcp-header" = #name))])
}

/// `let _: () = <T as HeaderParam>::CHECKED;` placed at `ty`: a type a
/// header cannot carry is reported there, with `HeaderParam`'s message.
pub(crate) fn type_check(dsh: &TokenStream, ty: &Type) -> TokenStream {
    around(
        quote!(let _: () = <),
        ty,
        quote!(as #dsh::HeaderParam>::CHECKED;),
    )
}
