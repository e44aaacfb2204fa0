//! `#[derive(ToolArgs)]` and `#[derive(ToolOutput)]`: serde's and schemars'
//! derives reached through `dsh_kit`, after checks that the type can be what
//! it is for.

pub(crate) mod ast;
mod expand;
mod message;
mod untagged;
mod valid;

use proc_macro2::TokenStream;
use syn::DeriveInput;

use self::ast::Input;
use crate::ctxt::Ctxt;
use crate::owned;
use crate::runtime::Runtime;

/// Which derive.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Derive {
    /// `ToolArgs`: `Deserialize + JsonSchema`, a JSON object.
    Args,
    /// `ToolOutput`: `Serialize + Deserialize + JsonSchema`, read back as written.
    Output,
    /// `ToolFailure`: `Serialize + JsonSchema` (the failure's shape), and
    /// `Display` and `Error` from `#[error("…")]` messages.
    Failure,
    /// `Serialize`, through dsh-kit's serde.
    Serialize,
    /// `Deserialize`, through dsh-kit's serde.
    Deserialize,
    /// `JsonSchema`, through dsh-kit's schemars.
    JsonSchema,
}

impl Derive {
    fn name(self) -> &'static str {
        match self {
            Derive::Args => "ToolArgs",
            Derive::Output => "ToolOutput",
            Derive::Failure => "ToolFailure",
            Derive::Serialize => "Serialize",
            Derive::Deserialize => "Deserialize",
            Derive::JsonSchema => "JsonSchema",
        }
    }

    /// Implements `Serialize`.
    fn serializes(self) -> bool {
        matches!(self, Derive::Output | Derive::Failure | Derive::Serialize)
    }

    /// Implements `Deserialize`.
    fn deserializes(self) -> bool {
        matches!(self, Derive::Args | Derive::Output | Derive::Deserialize)
    }

    /// Writes the schema of a tool's arguments, where `#[dsh(header = "…")]` goes.
    fn describes_args(self) -> bool {
        matches!(self, Derive::Args | Derive::JsonSchema)
    }

    /// Implements `JsonSchema`.
    fn describes(self) -> bool {
        matches!(
            self,
            Derive::Args | Derive::Output | Derive::Failure | Derive::JsonSchema
        )
    }
}

/// Expands `#[derive(ToolArgs)]` or `#[derive(ToolOutput)]` on `input`.
pub(crate) fn expand(derive: Derive, input: TokenStream) -> TokenStream {
    let item = match syn::parse2::<DeriveInput>(input) {
        Ok(item) => item,
        Err(error) => return error.to_compile_error(),
    };
    let cx = Ctxt::new();
    let runtime = Runtime::from_attrs(&cx, &item.attrs);
    let input = Input::from_ast(&cx, &item);
    valid::check(&cx, derive, &input);
    // A borrowing type gets no impls: serde's would fail on the borrow too.
    let borrows = match derive {
        Derive::Args => owned::check_derive(&cx, owned::Role::Args, &item),
        Derive::Output => {
            untagged::check(&cx, &item);
            owned::check_derive(&cx, owned::Role::Output, &item)
        }
        _ => false,
    };
    // The impls come out even beside errors, so that a tool using the type
    // adds no error of its own.
    let mut tokens = if borrows {
        TokenStream::new()
    } else {
        expand::expand(derive, &item, &runtime, &input)
    };
    if derive == Derive::Failure {
        tokens.extend(message::impls(&cx, &item));
    }
    if let Err(errors) = cx.check() {
        tokens.extend(errors.to_compile_error());
    }
    tokens
}
