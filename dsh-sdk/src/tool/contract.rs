//! What a `#[tool]` fn may take and return, as traits: the macro checks a
//! fn's types against these at the user's tokens, so a mistake reads as one
//! of these messages, once.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet, VecDeque};
use std::convert::Infallible;
use std::hash::Hash;

use schemars::JsonSchema;
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::tool::Exec;
use crate::value::card::Card;
use crate::value::content::ContentBlock;

/// A type that can be a tool's arguments: a JSON object read with serde and
/// described by its JSON Schema.
///
/// Implemented for every `Deserialize + JsonSchema` type; `#[derive(ToolArgs)]`
/// derives both (and checks the type can be an object).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a tool's arguments",
    label = "must be `Deserialize + JsonSchema`",
    note = "derive them on the args struct: `#[derive(ToolArgs)]`, or `#[derive(Deserialize, JsonSchema)]`"
)]
pub trait ToolArgs {
    /// Where `#[tool]` checks a type is one, as `<T as Trait>::CHECKED`: a
    /// type that is not is reported at the type, with this trait's message
    /// and no note on the check itself.
    #[doc(hidden)]
    const CHECKED: () = ();
    /// `Self`: `#[tool]` names the args type as `<T as ToolArgs>::Checked`,
    /// so a type that is not one is reported once, with this trait's message.
    #[doc(hidden)]
    type Checked: DeserializeOwned + JsonSchema + Send + 'static;
    /// The args from their checked name.
    #[doc(hidden)]
    fn from_checked(args: &Self::Checked) -> &Self;
    /// The args from their checked name, by value.
    #[doc(hidden)]
    fn from_checked_value(args: Self::Checked) -> Self;
}
#[diagnostic::do_not_recommend]
impl<T: DeserializeOwned + JsonSchema + Send + 'static> ToolArgs for T {
    type Checked = T;
    fn from_checked(args: &T) -> &T {
        args
    }
    fn from_checked_value(args: T) -> T {
        args
    }
}

/// A type that can be a tool's output: serialized to one canonical JSON value,
/// read back for render and present, and described by its JSON Schema.
///
/// Implemented for every `Serialize + Deserialize + JsonSchema` type;
/// `#[derive(ToolOutput)]` derives all three (and checks they agree).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a tool's output",
    label = "must be `Serialize + Deserialize + JsonSchema`",
    note = "derive them on the output type: `#[derive(ToolOutput)]`, or `#[derive(Serialize, Deserialize, JsonSchema)]`"
)]
pub trait ToolOutput {
    /// Where `#[tool]` checks a type is one, as `<T as Trait>::CHECKED`: a
    /// type that is not is reported at the type, with this trait's message
    /// and no note on the check itself.
    #[doc(hidden)]
    const CHECKED: () = ();
    /// `Self`: `#[tool]` names the output type as `<T as ToolOutput>::Checked`,
    /// so a type that is not one is reported once, with this trait's message.
    #[doc(hidden)]
    type Checked: Serialize + DeserializeOwned + JsonSchema + Send + 'static;
    /// The output under its checked name.
    #[doc(hidden)]
    fn into_checked(self) -> Self::Checked;
    /// The output from its checked name.
    #[doc(hidden)]
    fn from_checked(value: &Self::Checked) -> &Self;
}
#[diagnostic::do_not_recommend]
impl<T: Serialize + DeserializeOwned + JsonSchema + Send + 'static> ToolOutput for T {
    type Checked = T;
    fn into_checked(self) -> T {
        self
    }
    fn from_checked(value: &T) -> &T {
        value
    }
}

/// What a tool fn written with type arguments may return: `Result<T, E>` by
/// any name (an alias such as `io::Result<T>` included), whose output is `T`;
/// or a standard container of outputs (`Vec<T>`, `Option<T>`, maps, …), or a
/// type deriving `ToolOutput`, which is its own output.
///
/// A return type written without type arguments (`String`, `Report`) is the
/// output itself and needs no impl.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be what a tool returns",
    label = "neither a `Result` nor a known output",
    note = "return the output (`Serialize + Deserialize + JsonSchema`), or `Result<Output, E>`; a generic type of your own derives `ToolOutput`"
)]
pub trait ToolReturn {
    /// The tool's output.
    type Output;
    /// What the fn fails with; `Infallible` when it cannot.
    type Error;
    /// The output, or the failure.
    fn into_result(self) -> Result<Self::Output, Self::Error>;
}

impl<T, E> ToolReturn for Result<T, E> {
    type Output = T;
    type Error = E;
    fn into_result(self) -> Result<T, E> {
        self
    }
}

// A standard container of outputs, and a JSON object, are their own output.
#[diagnostic::do_not_recommend]
impl<T> ToolReturn for Vec<T>
where
    T: ToolOutput,
{
    type Output = Self;
    type Error = Infallible;
    fn into_result(self) -> Result<Self, Infallible> {
        Ok(self)
    }
}

#[diagnostic::do_not_recommend]
impl<T> ToolReturn for VecDeque<T>
where
    T: ToolOutput,
{
    type Output = Self;
    type Error = Infallible;
    fn into_result(self) -> Result<Self, Infallible> {
        Ok(self)
    }
}

#[diagnostic::do_not_recommend]
impl<T> ToolReturn for Option<T>
where
    T: ToolOutput,
{
    type Output = Self;
    type Error = Infallible;
    fn into_result(self) -> Result<Self, Infallible> {
        Ok(self)
    }
}

#[diagnostic::do_not_recommend]
impl<T> ToolReturn for Box<T>
where
    T: ToolOutput,
{
    type Output = Self;
    type Error = Infallible;
    fn into_result(self) -> Result<Self, Infallible> {
        Ok(self)
    }
}

#[diagnostic::do_not_recommend]
impl<T> ToolReturn for BTreeSet<T>
where
    T: ToolOutput + Ord,
{
    type Output = Self;
    type Error = Infallible;
    fn into_result(self) -> Result<Self, Infallible> {
        Ok(self)
    }
}

#[diagnostic::do_not_recommend]
impl<T> ToolReturn for HashSet<T>
where
    T: ToolOutput + Eq + Hash,
{
    type Output = Self;
    type Error = Infallible;
    fn into_result(self) -> Result<Self, Infallible> {
        Ok(self)
    }
}

#[diagnostic::do_not_recommend]
impl<K, V> ToolReturn for BTreeMap<K, V>
where
    K: ToolOutput + Ord,
    V: ToolOutput,
{
    type Output = Self;
    type Error = Infallible;
    fn into_result(self) -> Result<Self, Infallible> {
        Ok(self)
    }
}

#[diagnostic::do_not_recommend]
impl<K, V> ToolReturn for HashMap<K, V>
where
    K: ToolOutput + Eq + Hash,
    V: ToolOutput,
{
    type Output = Self;
    type Error = Infallible;
    fn into_result(self) -> Result<Self, Infallible> {
        Ok(self)
    }
}

// Owned text behind a pointer: `-> Box<str>`, `-> Arc<str>`.
#[diagnostic::do_not_recommend]
impl ToolReturn for Box<str> {
    type Output = Self;
    type Error = Infallible;
    fn into_result(self) -> Result<Self, Infallible> {
        Ok(self)
    }
}

#[diagnostic::do_not_recommend]
impl ToolReturn for std::sync::Arc<str> {
    type Output = Self;
    type Error = Infallible;
    fn into_result(self) -> Result<Self, Infallible> {
        Ok(self)
    }
}

#[diagnostic::do_not_recommend]
impl ToolReturn for serde_json::Map<String, serde_json::Value> {
    type Output = Self;
    type Error = Infallible;
    fn into_result(self) -> Result<Self, Infallible> {
        Ok(self)
    }
}

/// The one parameter a tool fn takes by reference: the call's context, [`Exec`].
#[diagnostic::on_unimplemented(
    message = "`&{Self}` is not the call's context",
    label = "a parameter taken by reference is the context, `&Exec`",
    note = "take arguments by value (`name: String`, `args: ReadArgs`): only the context, `exec: &Exec`, is taken by reference"
)]
pub trait ToolContext {
    /// Where `#[tool]` checks a type is one, as `<T as Trait>::CHECKED`: a
    /// type that is not is reported at the type, with this trait's message
    /// and no note on the check itself.
    #[doc(hidden)]
    const CHECKED: () = ();
    /// The context as this parameter's type.
    fn from_exec(exec: &Exec) -> &Self;
}

impl ToolContext for Exec {
    fn from_exec(exec: &Exec) -> &Self {
        exec
    }
}

/// What a `#[present]` fn may return: any card, or a card kind
/// ([`TerminalCard`](crate::value::card::TerminalCard), …), converted into [`Card`].
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a card",
    label = "a present returns `Card` or a card kind",
    note = "return `Card`, or one of its kinds (`ReadCard`, `SearchCard`, …)"
)]
pub trait IntoCard {
    /// The card.
    fn into_card(self) -> Card;
}

#[diagnostic::do_not_recommend]
impl<C: Into<Card>> IntoCard for C {
    fn into_card(self) -> Card {
        self.into()
    }
}

/// What a `#[render]` fn returns: the content blocks the model sees.
/// Checked at the render's own return type, so a render returning anything
/// else is reported there, once.
#[diagnostic::on_unimplemented(
    message = "a `#[render]` fn returns `Vec<ContentBlock>`, not `{Self}`",
    label = "must be `Vec<ContentBlock>`",
    note = "return the blocks the model sees: `vec![ContentBlock::text(…)]`"
)]
pub trait IntoBlocks {
    /// The blocks.
    fn into_blocks(self) -> Vec<ContentBlock>;
}

impl IntoBlocks for Vec<ContentBlock> {
    fn into_blocks(self) -> Vec<ContentBlock> {
        self
    }
}

/// What a tool fn may fail with: anything with a message. Every error type
/// is one (`std::error::Error`, `anyhow::Error`, `Box<dyn Error>`), and so
/// are `String`, `&str` and `ToolError`. `#[derive(ToolFailure)]` makes a
/// typed one: a message per variant, and a shape the model is told.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a tool's error",
    label = "not an error type",
    note = "derive `ToolFailure` on it with an `#[error(\"…\")]` message per variant, or implement `Display` for it, or return `ToolError`, `String` or `anyhow::Error`"
)]
pub trait ToolFailure {
    /// Where `#[tool]` checks a type is one, as `<T as Trait>::CHECKED`: a
    /// type that is not is reported at the type, with this trait's message
    /// and no note on the check itself.
    #[doc(hidden)]
    const CHECKED: () = ();
    /// The message the model sees.
    fn message(&self) -> String;
}
#[diagnostic::do_not_recommend]
impl<E: std::fmt::Display> ToolFailure for E {
    fn message(&self) -> String {
        self.to_string()
    }
}

/// A type that can be one field of a tool's arguments: a parameter of a tool
/// fn written inline.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be one of a tool's arguments",
    label = "must be `Deserialize + JsonSchema`",
    note = "derive them on it: `#[derive(ToolArgs)]`, or `#[derive(Deserialize, JsonSchema)]`; if this is the call's context, take it by reference, `exec: &Exec`"
)]
pub trait ToolField {
    /// Where `#[tool]` checks a type is one, as `<T as Trait>::CHECKED`: a
    /// type that is not is reported at the type, with this trait's message
    /// and no note on the check itself.
    #[doc(hidden)]
    const CHECKED: () = ();
    /// `Self`: `#[tool]` names a field's type as `<T as ToolField>::Checked`,
    /// so a type that is not one is reported once, with this trait's message.
    #[doc(hidden)]
    type Checked: DeserializeOwned + JsonSchema + Send + 'static;
    /// The field from its checked name.
    #[doc(hidden)]
    fn from_checked(field: Self::Checked) -> Self;
}
#[diagnostic::do_not_recommend]
impl<T: DeserializeOwned + JsonSchema + Send + 'static> ToolField for T {
    type Checked = T;
    fn from_checked(field: T) -> T {
        field
    }
}

/// A type an argument mirrored into an HTTP header can have: `String`,
/// `bool`, an integer type, or an `Option` of one (an optional argument,
/// sent without a header when absent). MCP clients send such an argument
/// both in the body and as an `Mcp-Param-{name}` header of `tools/call`,
/// so a proxy can route on it; `#[dsh(header = "Region")]` on a parameter
/// or a `ToolArgs` field marks one, and `#[tool]` and `#[derive(ToolArgs)]`
/// check its type against this trait.
///
/// Floats are left out on purpose: MCP refuses `number` for a header, as a
/// float has no one text form that every client writes alike.
///
/// Implement it for a type of your own that describes itself, inline, as a
/// string, an integer or a boolean (a newtype over `String` with
/// `#[schemars(inline)]`): clients read the property's own `type`, so the
/// schema is checked again when the tool is registered, and a `$ref` there
/// is refused.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be mirrored into an HTTP header",
    label = "not a string, integer or boolean",
    note = "a header argument is a `String`, a `bool`, an integer type, or an `Option` of one; MCP does not permit `number` (a float has no one text form)",
    note = "for a type of your own whose inline schema is a string, an integer or a boolean, implement `dsh_kit::HeaderParam` for it"
)]
pub trait HeaderParam {
    /// Where `#[tool]` checks a type is one, as `<T as Trait>::CHECKED`: a
    /// type that is not is reported at the type, with this trait's message
    /// and no note on the check itself.
    #[doc(hidden)]
    const CHECKED: () = ();
}

// The primitives a header can carry.
impl HeaderParam for String {}
impl HeaderParam for bool {}
impl HeaderParam for i8 {}
impl HeaderParam for i16 {}
impl HeaderParam for i32 {}
impl HeaderParam for i64 {}
impl HeaderParam for isize {}
impl HeaderParam for u8 {}
impl HeaderParam for u16 {}
impl HeaderParam for u32 {}
impl HeaderParam for u64 {}
impl HeaderParam for usize {}
impl<T: HeaderParam> HeaderParam for Option<T> {}
