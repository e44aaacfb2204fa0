//! The checks of a `#[render]` or `#[present]` fn: its shape here, the purity
//! of its body in `purity`.

use syn::Safety;

use super::Kind;
use super::ast::{Input, Projection};
use super::purity;
use crate::ctxt::Ctxt;

pub(crate) fn check(cx: &Ctxt, projection: &Projection) {
    let attr = projection.kind.attr();
    let sig = &projection.item.sig;
    if let Some(asyncness) = &sig.asyncness {
        cx.error_spanned_by(
            asyncness,
            format!(
                "`#[{attr}]` fns must not be `async`: remove `async`, a {attr} is a pure projection"
            ),
        );
    }
    if let Safety::Unsafe(unsafe_token) = &sig.safety {
        cx.error_spanned_by(
            unsafe_token,
            format!("`#[{attr}]` fns must not be `unsafe`: remove `unsafe`, a {attr} is a pure projection"),
        );
    }
    // Lifetimes are not generics that matter: `fn r<'a>(a: &'a A, o: &'a O)`.
    if sig.generics.type_params().next().is_some() || sig.generics.const_params().next().is_some() {
        cx.error_spanned_by(
            &sig.generics,
            format!("a `#[{attr}]` fn cannot be generic: take the tool's own types, `&Args` and `&Output`"),
        );
    }
    if let Some(where_clause) = sig.generics.where_clause.as_ref().filter(|clause| {
        !clause
            .predicates
            .iter()
            .all(|p| matches!(p, syn::WherePredicate::Lifetime(_)))
    }) {
        cx.error_spanned_by(
            where_clause,
            format!("a `#[{attr}]` fn cannot have a `where` clause: take the tool's own types, `&Args` and `&Output`"),
        );
    }
    match (projection.kind, projection.inputs.len()) {
        (_, 2) | (Kind::Present, 1) => {}
        (Kind::Render, _) => cx.error_at(
            sig.paren_token.span.join(),
            format!(
                "a `#[{attr}]` fn takes two parameters, the tool's args and its output: `(args: &Args, value: &Output)`"
            ),
        ),
        (Kind::Present, _) => cx.error_at(
            sig.paren_token.span.join(),
            format!(
                "a `#[{attr}]` fn takes the tool's args and its output, `(args: &Args, value: &Output)`, or only the args, `(args: &Args)`, for the card shown while a call runs"
            ),
        ),
    }
    for input in &projection.inputs {
        match input {
            Input::Ref(_) => {}
            Input::Receiver(receiver) => cx.error_spanned_by(
                receiver,
                format!("a `#[{attr}]` fn is a free fn, not a method: remove `self`"),
            ),
            Input::MutRef(mutability) => cx.error_spanned_by(
                mutability,
                format!(
                    "`#[{attr}]` fns take their parameters by shared reference: remove `mut`, a {attr} cannot change the args or the value"
                ),
            ),
            Input::Value(arg) => cx.error_spanned_by(
                &arg.ty,
                format!("take this parameter by reference, `&T`: a {attr} reads the args and the value, it does not own them"),
            ),
        }
    }
    purity::check(cx, projection.kind, projection.item);
}
