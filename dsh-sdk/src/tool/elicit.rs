//! What a tool may ask the user for ([`Exec::elicit`](crate::Exec::elicit)),
//! checked by type at compile time.
//!
//! MCP elicitation asks for a flat object of primitive values: strings,
//! numbers, integers, booleans, a choice among strings, and (in newer
//! specifications) several choices among strings. `#[derive(Elicit)]` on a
//! struct checks each field's type against that ([`ElicitField`]) and
//! implements [`Elicitable`]; on an enum of unit variants it makes the enum
//! a choice ([`ElicitChoice`]). A field type that is not one is an error at
//! the field.

use schemars::JsonSchema;
use serde::de::DeserializeOwned;

pub use dsh_kit_macros::Elicit;

/// A type a tool can ask the user to fill in: a flat object of primitive
/// fields. `#[derive(Elicit)]` implements it after checking every field's
/// type; an impl by hand is trusted at compile time, and its schema is
/// checked when it is asked for ([`elicitation_schema`](crate::tool::client::elicitation_schema)).
///
/// ```
/// use dsh_kit::prelude::*;
///
/// #[derive(Deserialize, JsonSchema, Elicit)]
/// struct Contact {
///     /// Your name
///     name: String,
///     /// Send the newsletter?
///     newsletter: Option<bool>,
/// }
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be asked of the user: it is not an elicitation form",
    label = "not `Elicitable`",
    note = "derive it: `#[derive(Deserialize, JsonSchema, Elicit)]` on a struct of primitive fields"
)]
pub trait Elicitable: JsonSchema + DeserializeOwned {}

/// A type that can be one field of an elicitation form: `String`, `bool`,
/// the integer and float types, a choice ([`ElicitChoice`]), a `Vec` of
/// choices, or an `Option` of any of them (an optional field).
///
/// Implement it by hand for a type of your own whose schema is one of these
/// (a newtype over `String`, say); the form's schema is still checked when
/// it is asked for.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a field of an elicitation form",
    label = "not a string, number, integer, boolean or choice",
    note = "elicitation asks for a flat object: a field is a `String`, `bool`, integer, float, a unit-only enum with `#[derive(Elicit)]`, a `Vec` of such an enum, or an `Option` of one of these",
    note = "for a type of your own whose schema is one of these, implement `dsh_kit::elicit::ElicitField` for it"
)]
pub trait ElicitField {
    /// Where `#[tool]` checks a type is one, as `<T as Trait>::CHECKED`: a
    /// type that is not is reported at the type, with this trait's message
    /// and no note on the check itself.
    #[doc(hidden)]
    const CHECKED: () = ();
}

/// A choice among strings: an enum of unit variants with `#[derive(Elicit)]`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a choice among strings",
    label = "not an `ElicitChoice`",
    note = "a choice is an enum of unit variants with `#[derive(Deserialize, JsonSchema, Elicit)]`"
)]
pub trait ElicitChoice: ElicitField {}

// The primitives a form field can be.
impl ElicitField for String {}
impl ElicitField for bool {}
impl ElicitField for i8 {}
impl ElicitField for i16 {}
impl ElicitField for i32 {}
impl ElicitField for i64 {}
impl ElicitField for i128 {}
impl ElicitField for isize {}
impl ElicitField for u8 {}
impl ElicitField for u16 {}
impl ElicitField for u32 {}
impl ElicitField for u64 {}
impl ElicitField for u128 {}
impl ElicitField for usize {}
impl ElicitField for f32 {}
impl ElicitField for f64 {}

impl<T: ElicitField> ElicitField for Option<T> {}

/// Several choices: a multi-select.
impl<T: ElicitChoice> ElicitField for Vec<T> {}
