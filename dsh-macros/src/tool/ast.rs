//! The model of a `#[tool]` fn: what each parameter is for, and what it returns.

use proc_macro2::{Span, TokenStream};
use syn::ext::IdentExt;
use syn::{
    Attribute, FnArg, Ident, ItemFn, LitStr, Pat, PatType, Receiver, ReturnType, Type,
    TypeReference,
};

use super::attr::Attr;
use crate::ctxt::Ctxt;
use crate::doc::{self, Docs};
use crate::header;
use crate::runtime::Runtime;
use crate::types::{is_never_object, last_segment, peel, type_args};

/// A `#[tool]` fn and its attribute.
pub(crate) struct Tool<'a> {
    pub(crate) attr: Attr,
    pub(crate) item: &'a ItemFn,
    pub(crate) docs: Docs<'a>,
    pub(crate) inputs: Vec<Input<'a>>,
    pub(crate) output: Output<'a>,
}

/// One parameter of the fn, by the one rule that decides its role: a
/// parameter taken by reference is the context, one named `args` (or
/// `_args`, or destructured by a struct pattern) is the whole args struct
/// unless its type can never be an object (`args: String`), any other is a
/// field of the args struct the macro generates. No type name decides anything; the generated code
/// checks the context's type is `Exec`, whatever it is imported as.
pub(crate) enum Input<'a> {
    /// `self`, `&self`: refused.
    Receiver(&'a Receiver),
    /// `exec: &Exec`, the call's context; `&mut` is refused.
    Exec(&'a PatType, &'a TypeReference),
    /// `args: ReadFileArgs`: the whole args struct.
    Args(&'a PatType),
    /// `path: PathBuf`: one field of the args struct the macro generates.
    Param(Param<'a>),
}

/// A parameter written inline, which becomes a field of the generated args struct.
pub(crate) struct Param<'a> {
    pub(crate) arg: &'a PatType,
    /// The name, when the pattern is a plain `name` or `mut name`.
    pub(crate) ident: Option<&'a Ident>,
    /// `#[dsh(header = "Region")]`: the header a client mirrors it into.
    pub(crate) header: Option<LitStr>,
}

/// What the fn returns, and so the tool's output.
pub(crate) enum Output<'a> {
    /// No return type: the output is `()`.
    Unit,
    /// A type written with type arguments, or named `Result`: `Result<T, E>`,
    /// `io::Result<T>`, a local `Res<T>`, `Vec<T>`. Its output and error are
    /// decided by its type (`ToolReturn`), so an alias works as what it names.
    Typed {
        ty: &'a Type,
        /// `E` in `Result<T, E>` as written, where the error is reported.
        err: Option<&'a Type>,
    },
    /// A type written without type arguments (`String`, `Report`): the output itself.
    Plain(&'a Type),
    /// `-> !`, `-> impl Trait`, `-> dyn Trait`: refused.
    Opaque(&'a Type),
}

impl<'a> Tool<'a> {
    pub(crate) fn from_ast(cx: &Ctxt, attr: Attr, item: &'a ItemFn) -> Self {
        Tool {
            attr,
            item,
            docs: Docs::collect(&item.attrs),
            inputs: (item.sig.inputs.iter())
                .map(|arg| Input::from_arg(cx, arg))
                .collect(),
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

    /// Where the generated code names the runtime: `<crate>::__private`.
    pub(crate) fn private(&self) -> TokenStream {
        self.attr
            .runtime
            .as_ref()
            .unwrap_or(&Runtime::DEFAULT)
            .private()
    }

    /// `#[serde(crate = …)]`-style path to the runtime's re-export of `item`.
    pub(crate) fn private_str(&self, item: &str) -> String {
        self.attr
            .runtime
            .as_ref()
            .unwrap_or(&Runtime::DEFAULT)
            .private_str(item)
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
            Input::Param(param) => Some(param),
            _ => None,
        })
    }

    /// The args struct parameter, if the fn takes one.
    pub(crate) fn args(&self) -> Option<&'a PatType> {
        self.inputs.iter().find_map(|input| match input {
            Input::Args(arg) => Some(*arg),
            _ => None,
        })
    }
}

impl<'a> Input<'a> {
    fn from_arg(cx: &Ctxt, arg: &'a FnArg) -> Self {
        let arg = match arg {
            FnArg::Receiver(receiver) => return Input::Receiver(receiver),
            FnArg::Typed(arg) => arg,
        };
        let not_an_argument = |what: &str| {
            for attr in arg.attrs.iter().filter(|attr| header::is_dsh(attr)) {
                cx.error_spanned_by(
                    attr,
                    format!("`#[dsh(header = …)]` goes on one argument, and {what}: put it on a parameter taken by value, or on a field of the args struct"),
                );
            }
        };
        if let Type::Reference(reference) = peel(&arg.ty) {
            not_an_argument("the parameter taken by reference is the call's context");
            return Input::Exec(arg, reference);
        }
        let ident = match &*arg.pat {
            Pat::Ident(pat) if pat.by_ref.is_none() && pat.subpat.is_none() => Some(&pat.ident),
            _ => None,
        };
        // `ReadArgs { path, .. }: ReadArgs` names no field: it is the struct.
        let destructured = matches!(&*arg.pat, Pat::Struct(_) | Pat::TupleStruct(_));
        // A type that can never be an object (`args: String`, `args: Vec<T>`)
        // cannot be the whole arguments: such a parameter is one field.
        let named_args = ident.is_some_and(|ident| ident == "args" || ident == "_args");
        if destructured || named_args && !is_never_object(&arg.ty) {
            not_an_argument("this parameter is the whole args struct");
            return Input::Args(arg);
        }
        let header = header::parse(cx, &arg.attrs);
        Input::Param(Param { arg, ident, header })
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

/// Whether a parameter's attribute is the macro's to read and take off the
/// fn: a field attribute, or `#[dsh(…)]`.
pub(crate) fn is_macro_attr(attr: &Attribute) -> bool {
    is_field_attr(attr) || header::is_dsh(attr)
}

impl<'a> Output<'a> {
    fn from_ast(output: &'a ReturnType) -> Self {
        let ty = match output {
            ReturnType::Default => return Output::Unit,
            ReturnType::Type(_, ty) => &**ty,
        };
        match peel(ty) {
            Type::Never(_) | Type::ImplTrait(_) | Type::TraitObject(_) | Type::Infer(_) => {
                return Output::Opaque(ty);
            }
            _ => {}
        }
        let Some(segment) = last_segment(ty) else {
            return Output::Plain(ty);
        };
        let mut args = type_args(segment);
        let first = args.next();
        if segment.ident == "Result" || first.is_some() {
            let err = args.next().filter(|_| segment.ident == "Result");
            return Output::Typed { ty, err };
        }
        Output::Plain(ty)
    }
}
