//! `#[derive(ToolArgs)]` and `#[derive(ToolOutput)]`: serde's and schemars'
//! derives reached through `dsh_kit`, after checks that the type can be what
//! it is for.

mod ast;
mod expand;
mod message;
mod valid;

use proc_macro2::TokenStream;
use syn::DeriveInput;

use self::ast::Input;
use crate::ctxt::Ctxt;
use crate::header;
use crate::runtime::Runtime;
use crate::types::names_generics;

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
    let headers = headers(&cx, derive, &item, &input, &runtime);
    // The impls come out even beside errors, so that a tool using the type
    // adds no error of its own.
    let mut tokens = expand::expand(derive, &item, &runtime, input.container.default, &headers.0);
    tokens.extend(headers.1);
    if derive == Derive::Failure {
        tokens.extend(message::impls(&cx, &item));
    }
    if let Err(errors) = cx.check() {
        tokens.extend(errors.to_compile_error());
    }
    tokens
}

/// The fields with `#[dsh(header = "…")]`, for the twin's schema, and the
/// check of each one's type: for the derives that write the arguments'
/// schema (`ToolArgs`, `JsonSchema`); an error on `ToolOutput` and
/// `ToolFailure`, whose fields are no arguments; nothing for serde's alone,
/// which sit beside `JsonSchema`.
fn headers(
    cx: &Ctxt,
    derive: Derive,
    item: &DeriveInput,
    input: &Input,
    runtime: &Runtime,
) -> (Vec<(syn::Ident, syn::LitStr)>, TokenStream) {
    let fields = input.headers();
    match derive {
        Derive::Args | Derive::JsonSchema => {}
        Derive::Output | Derive::Failure => {
            for field in &fields {
                if let Some((name, _)) = &field.header {
                    cx.error_spanned_by(
                        name,
                        format!(
                            "`#[dsh(header = …)]` marks an argument of a tool, and `{}` describes what a tool returns: remove it, or derive `ToolArgs`",
                            derive.name()
                        ),
                    );
                }
            }
            return (Vec::new(), TokenStream::new());
        }
        Derive::Serialize | Derive::Deserialize => return (Vec::new(), TokenStream::new()),
    }
    header::check_unique(
        cx,
        fields
            .iter()
            .filter_map(|field| field.header.as_ref().map(|(name, _)| name)),
    );
    let dsh = runtime.private();
    // A type naming a type parameter is checked when the tool is registered.
    let checks: Vec<TokenStream> = fields
        .iter()
        .filter_map(|field| field.header.as_ref())
        .filter(|(_, ty)| !names_generics(ty, &item.generics))
        .map(|(_, ty)| header::type_check(&dsh, ty))
        .collect();
    let named = fields
        .iter()
        .filter_map(|field| Some((field.ident.clone(), field.header.as_ref()?.0.clone())))
        .collect();
    let checks = (!checks.is_empty()).then(|| quote::quote!(const _: () = { #(#checks)* };));
    (named, checks.unwrap_or_default())
}
