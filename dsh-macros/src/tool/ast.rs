//! The model of a `#[tool]` fn: what each parameter is for, and what it returns.

use proc_macro2::Span;
use syn::ext::IdentExt;
use syn::{Attribute, FnArg, Ident, ItemFn, Pat, PatType, Receiver, ReturnType, Token, Type};

use super::attr::Attr;
use crate::doc::{self, Docs};
use crate::types::{last_segment, peel, type_args};

/// A `#[tool]` fn and its attribute.
pub(crate) struct Tool<'a> {
    pub(crate) attr: Attr,
    pub(crate) item: &'a ItemFn,
    pub(crate) docs: Docs<'a>,
    pub(crate) inputs: Vec<Input<'a>>,
    pub(crate) output: Output<'a>,
}

/// One parameter of the fn.
pub(crate) enum Input<'a> {
    /// `self`, `&self`: refused.
    Receiver(&'a Receiver),
    /// `exec: &Exec`, the call's context; `&mut Exec` and `Exec` are refused.
    Exec(&'a PatType, Passing<'a>),
    /// `args: ReadFileArgs`: the whole args struct.
    Args(&'a PatType, Passing<'a>),
    /// `path: PathBuf`: one field of the args struct the macro generates.
    Param(Param<'a>, Passing<'a>),
}

/// How a parameter is passed.
pub(crate) enum Passing<'a> {
    Value,
    Ref,
    MutRef(&'a Token![mut]),
}

/// A parameter written inline, which becomes a field of the generated args struct.
pub(crate) struct Param<'a> {
    pub(crate) arg: &'a PatType,
    /// The name, when the pattern is a plain `name` or `mut name`.
    pub(crate) ident: Option<&'a Ident>,
}

/// What the fn returns, and so the tool's output.
pub(crate) enum Output<'a> {
    /// No return type: the output is `()`.
    Unit,
    /// `Result<T, E>` or an alias such as `io::Result<T>`: the output is `T`.
    Result {
        ty: &'a Type,
        ok: &'a Type,
        err: Option<&'a Type>,
    },
    /// Any other type: the output.
    Plain(&'a Type),
}

impl<'a> Tool<'a> {
    pub(crate) fn from_ast(attr: Attr, item: &'a ItemFn) -> Self {
        Tool {
            attr,
            item,
            docs: Docs::collect(&item.attrs),
            inputs: item.sig.inputs.iter().map(Input::from_arg).collect(),
            output: Output::from_ast(&item.sig.output),
        }
    }

    /// The tool's name and where it was written: `name = "…"` or the fn's name.
    pub(crate) fn name(&self) -> (String, Span) {
        match &self.attr.name {
            Some(name) => (name.value(), name.span()),
            None => {
                let ident = &self.item.sig.ident;
                (ident.unraw().to_string(), ident.span())
            }
        }
    }

    /// `description = "…"`, or else the doc comment.
    pub(crate) fn description(&self) -> Option<String> {
        match &self.attr.description {
            Some(description) => Some(description.value()),
            None => self.docs.text(),
        }
    }

    /// The inline parameters, which make the generated args struct.
    pub(crate) fn params(&self) -> impl Iterator<Item = &Param<'a>> {
        self.inputs.iter().filter_map(|input| match input {
            Input::Param(param, _) => Some(param),
            _ => None,
        })
    }

    /// The args struct parameter, if the fn takes one.
    pub(crate) fn args(&self) -> Option<&'a PatType> {
        self.inputs.iter().find_map(|input| match input {
            Input::Args(arg, _) => Some(*arg),
            _ => None,
        })
    }
}

impl<'a> Input<'a> {
    fn from_arg(arg: &'a FnArg) -> Self {
        let arg = match arg {
            FnArg::Receiver(receiver) => return Input::Receiver(receiver),
            FnArg::Typed(arg) => arg,
        };
        let (passing, referent) = match peel(&arg.ty) {
            Type::Reference(reference) => match &reference.mutability {
                Some(mutability) => (Passing::MutRef(mutability), &*reference.elem),
                None => (Passing::Ref, &*reference.elem),
            },
            ty => (Passing::Value, ty),
        };
        let type_name = last_segment(referent).map(|segment| segment.ident.to_string());
        if type_name.as_deref() == Some("Exec") {
            return Input::Exec(arg, passing);
        }
        let ident = match &*arg.pat {
            Pat::Ident(pat) if pat.by_ref.is_none() && pat.subpat.is_none() => Some(&pat.ident),
            _ => None,
        };
        let named_args = ident.is_some_and(|ident| ident == "args" || ident == "_args");
        if named_args || type_name.is_some_and(|name| name.ends_with("Args")) {
            return Input::Args(arg, passing);
        }
        Input::Param(Param { arg, ident }, passing)
    }
}

impl Param<'_> {
    /// The attributes that move onto the generated field.
    pub(crate) fn field_attrs(&self) -> impl Iterator<Item = &Attribute> {
        self.arg.attrs.iter().filter(|attr| is_field_attr(attr))
    }
}

/// Whether a parameter's attribute belongs on the generated field: doc
/// comments (the field's description) and serde/schemars attributes.
pub(crate) fn is_field_attr(attr: &Attribute) -> bool {
    doc::is_doc(attr) || attr.path().is_ident("serde") || attr.path().is_ident("schemars")
}

impl<'a> Output<'a> {
    fn from_ast(output: &'a ReturnType) -> Self {
        let ty = match output {
            ReturnType::Default => return Output::Unit,
            ReturnType::Type(_, ty) => &**ty,
        };
        if let Some(segment) = last_segment(ty).filter(|segment| segment.ident == "Result") {
            let mut args = type_args(segment);
            if let Some(ok) = args.next() {
                return Output::Result {
                    ty,
                    ok,
                    err: args.next(),
                };
            }
        }
        Output::Plain(ty)
    }

    /// The tool's output type; `None` for `()`.
    pub(crate) fn ty(&self) -> Option<&'a Type> {
        match self {
            Output::Unit => None,
            Output::Result { ok, .. } => Some(ok),
            Output::Plain(ty) => Some(ty),
        }
    }
}
