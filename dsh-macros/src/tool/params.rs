//! The checks of a `#[tool]` fn's inline parameters taken together: the
//! JSON name each is read under, which the model writes.

use proc_macro2::Span;
use syn::ext::IdentExt;

use super::ast::{Input, Output, Param, Tool};
use crate::ctxt::Ctxt;
use crate::derive::ast::{Member, member};
use crate::owned::{self, Role};
use crate::types::{last_segment, type_args};

/// One name a parameter is read under: its own (after `rename`) or an alias.
struct ReadName {
    name: String,
    span: Span,
    /// The parameter's name in Rust.
    param: String,
    /// Which parameter it is, to tell a parameter's own names apart.
    index: usize,
}

/// Two parameters read under one JSON name: serde would fill one of them
/// and leave the other to fail as missing, whatever the model sends.
pub(crate) fn check_names(cx: &Ctxt, tool: &Tool) {
    let mut names: Vec<ReadName> = Vec::new();
    for (index, param) in tool.params().enumerate() {
        let Some(ident) = param.ident else {
            continue;
        };
        let attrs = serde_of(param);
        if attrs.skip || attrs.skip_deserializing.is_some() || attrs.flatten {
            continue;
        }
        let param = ident.unraw().to_string();
        let own = match &attrs.rename.de {
            Some(named) => ReadName {
                name: named.value.clone(),
                span: named.span,
                param: param.clone(),
                index,
            },
            None => ReadName {
                name: param.clone(),
                span: ident.span(),
                param: param.clone(),
                index,
            },
        };
        let aliases = attrs.aliases.iter().map(|alias| ReadName {
            name: alias.value.clone(),
            span: alias.span,
            param: param.clone(),
            index,
        });
        for read in std::iter::once(own).chain(aliases) {
            if let Some(first) = names
                .iter()
                .find(|seen| seen.name == read.name && seen.index != read.index)
            {
                cx.error_at(
                    read.span,
                    format!(
                        "`{}` is read as `{}`, as `{}` is already: the model can give only one of them; give each parameter its own JSON name",
                        read.param, read.name, first.param,
                    ),
                );
            } else {
                names.push(read);
            }
        }
    }
}

/// What the parameter's `#[serde(…)]` attributes say; a malformed one is
/// serde's to report, on the generated field.
fn serde_of(param: &Param) -> Member {
    let cx = Ctxt::new();
    let attrs = member(&cx, &param.arg.attrs);
    let _ = cx.check();
    attrs
}

/// Borrowed data in the arguments or the output (`&'a str` in a field's
/// type, `-> &'static str`), which neither can hold: refused at the borrow.
/// An error type may borrow (`Result<T, &'static str>`): it is turned into
/// text, never read back.
pub(crate) fn check_owned(cx: &Ctxt, tool: &Tool) {
    for input in &tool.inputs {
        match input {
            Input::Param(param) => {
                owned::check(cx, Role::Args, &param.arg.ty);
            }
            Input::Args(arg) => {
                owned::check(cx, Role::Args, &arg.ty);
            }
            // `&str`, `&[T]`: a primitive borrowed, which no context is.
            Input::Exec(arg, reference) if is_primitive_borrow(&reference.elem) => {
                owned::check(cx, Role::Args, &arg.ty);
            }
            Input::Exec(..) | Input::Receiver(_) => {}
        }
    }
    match &tool.output {
        Output::Plain(ty) => {
            owned::check(cx, Role::Output, ty);
        }
        Output::Typed { ty, .. } => {
            let segment = last_segment(ty);
            let output = match segment {
                Some(segment) if segment.ident == "Result" => type_args(segment).next(),
                _ => Some(*ty),
            };
            if let Some(output) = output {
                owned::check(cx, Role::Output, output);
            }
        }
        Output::Unit | Output::Opaque(_) => {}
    }
}

/// `str` or a slice: a type only ever borrowed, which no context is.
fn is_primitive_borrow(ty: &syn::Type) -> bool {
    match crate::types::peel(ty) {
        syn::Type::Slice(_) => true,
        syn::Type::Path(path) => path.qself.is_none() && path.path.is_ident("str"),
        _ => false,
    }
}
