//! The checks the macros place at a user's types, as axum's `debug_handler`
//! does: `check_args::<T>()`, written at `T`, is an error there in the words
//! of `ToolArgs`' `on_unimplemented` when `T` cannot be a tool's arguments.
//! A `where` bound of the generated impl would say the same, but one that
//! names no type parameter and does not hold is an error of another kind,
//! with a note on rust-lang/rust#48214. Each is a `const fn`, so that the
//! checks of an item are one `const _`.

use super::{ToolArgs, ToolContext, ToolFailure, ToolField, ToolOutput};
use crate::elicit::ElicitField;

/// `T` can be a tool's arguments: the type of `args: T`.
pub const fn check_args<T: ?Sized + ToolArgs>() {}

/// `T` can be one field of a tool's arguments: the type of a parameter.
pub const fn check_field<T: ?Sized + ToolField>() {}

/// `T` is the call's context: the type behind the parameter taken by reference.
pub const fn check_context<T: ?Sized + ToolContext>() {}

/// `T` can be a tool's output.
pub const fn check_output<T: ?Sized + ToolOutput>() {}

/// `T` can be what a tool fails with.
pub const fn check_failure<T: ?Sized + ToolFailure>() {}

/// `T` can be one field of an elicitation form.
pub const fn check_elicit_field<T: ?Sized + ElicitField>() {}
