//! The checks of a `#[tool]` fn's inline parameters taken together: the
//! JSON name each is read under, which the model writes.

use proc_macro2::Span;
use syn::ext::IdentExt;

use super::ast::{Input, Output, Param, Tool};
use crate::ctxt::Ctxt;
use crate::derive::ast::{Member, member};
use crate::owned::{self, Role};
use crate::types::{last_segment, type_args};
use dsh_kit_rules::suggest::{did_you_mean, one_of};

/// One name a parameter is read under: its own (after `rename`) or an alias.
struct ReadName {
    name: String,
    span: Span,
    /// The parameter's name in Rust.
    param: String,
    /// Which parameter it is, to tell a parameter's own names apart.
    index: usize,
}

/// Each name an `example(…)` gives is one the arguments read: checked here
/// where the fn's parameters are all there is to read (inline, each a plain
/// name, none flattened, unknown names refused). A whole args struct, a
/// flattened parameter or `allow_unknown_args` leave the check to
/// registration, which holds every example to the input schema.
pub(crate) fn check_examples(cx: &Ctxt, tool: &Tool) {
    if tool.attr.examples.is_empty()
        || tool.args().is_some()
        || tool
            .attr
            .flags
            .iter()
            .any(|flag| flag.value && flag.key == "allow_unknown_args")
    {
        return;
    }
    // The names the input schema shows: an alias is read, but an example
    // is what a model is shown, so it uses the schema's name.
    let mut shown: Vec<String> = Vec::new();
    let mut aliases: Vec<(String, String)> = Vec::new();
    for param in tool.params() {
        let Some(ident) = param.ident else { return };
        let attrs = serde_of(param);
        if attrs.flatten {
            return;
        }
        if attrs.skip || attrs.skip_deserializing.is_some() {
            continue;
        }
        let own = attrs
            .rename
            .de
            .as_ref()
            .map_or_else(|| ident.unraw().to_string(), |named| named.value.clone());
        aliases.extend((attrs.aliases.iter()).map(|alias| (alias.value.clone(), own.clone())));
        shown.push(own);
    }
    let name = tool.item.sig.ident.unraw();
    for example in &tool.attr.examples {
        for (given, span) in &example.names {
            if shown.contains(given) {
                continue;
            }
            let alias_of = aliases.iter().find(|(alias, _)| alias == given);
            let hint = match did_you_mean(given, shown.iter().map(String::as_str)) {
                _ if let Some((_, own)) = alias_of => {
                    format!(
                        "it is an alias of `{own}`, and an example uses the name the model is shown: `{own} = …`"
                    )
                }
                Some(close) => format!("did you mean `{close}`?"),
                None if shown.is_empty() => "it takes none: give `example()`".to_owned(),
                None => {
                    let names: Vec<&str> = shown.iter().map(String::as_str).collect();
                    format!("give one of {}", one_of(&names))
                }
            };
            cx.error_at(
                *span,
                format!("`{given}` is not an argument of `{name}`: {hint}"),
            );
        }
    }
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
