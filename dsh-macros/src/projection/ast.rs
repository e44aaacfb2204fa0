//! The model of a `#[render]` or `#[present]` fn: how it takes each parameter.

use syn::{FnArg, ItemFn, PatType, Receiver, Token, Type};

use super::Kind;
use crate::runtime::Runtime;
use crate::types::peel;

/// A `#[render]` or `#[present]` fn.
pub(crate) struct Projection<'a> {
    pub(crate) kind: Kind,
    pub(crate) item: &'a ItemFn,
    pub(crate) inputs: Vec<Input<'a>>,
    /// Where the generated code names the runtime.
    pub(crate) runtime: Runtime,
}

/// One parameter of the fn.
pub(crate) enum Input<'a> {
    /// `self`: refused.
    Receiver(&'a Receiver),
    /// `args: &ReadFileArgs`: the type is `ReadFileArgs`.
    Ref(&'a Type),
    /// `args: &mut ReadFileArgs`: refused.
    MutRef(&'a Token![mut]),
    /// `args: ReadFileArgs`: refused.
    Value(&'a PatType),
}

impl<'a> Projection<'a> {
    pub(crate) fn from_ast(kind: Kind, item: &'a ItemFn, runtime: Runtime) -> Self {
        let inputs = item.sig.inputs.iter().map(Input::from_arg).collect();
        Projection {
            kind,
            item,
            inputs,
            runtime,
        }
    }
}

impl<'a> Input<'a> {
    fn from_arg(arg: &'a FnArg) -> Self {
        let arg = match arg {
            FnArg::Receiver(receiver) => return Input::Receiver(receiver),
            FnArg::Typed(arg) => arg,
        };
        match peel(&arg.ty) {
            Type::Reference(reference) => match &reference.mutability {
                Some(mutability) => Input::MutRef(mutability),
                None => Input::Ref(&reference.elem),
            },
            _ => Input::Value(arg),
        }
    }
}
