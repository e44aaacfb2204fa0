//! `#[derive(ToolArgs)]` and `#[derive(ToolOutput)]`: serde's and schemars'
//! derives reached through `dsh_kit`, after checks that the type can be what
//! it is for.

mod ast;
mod expand;
mod valid;

use proc_macro2::TokenStream;
use syn::DeriveInput;

use self::ast::Input;
use crate::ctxt::Ctxt;
use crate::runtime::Runtime;

/// Which derive.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Derive {
    /// `ToolArgs`: `Deserialize + JsonSchema`, a JSON object.
    Args,
    /// `ToolOutput`: `Serialize + Deserialize + JsonSchema`, read back as written.
    Output,
}

impl Derive {
    fn name(self) -> &'static str {
        match self {
            Derive::Args => "ToolArgs",
            Derive::Output => "ToolOutput",
        }
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
    // The impls come out even beside errors, so that a tool using the type
    // adds no error of its own.
    let mut tokens = expand::expand(derive, &item, &runtime);
    if let Err(errors) = cx.check() {
        tokens.extend(errors.to_compile_error());
    }
    tokens
}
