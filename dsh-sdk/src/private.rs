//! The door for the code `#[tool]`, `#[render]` and `#[present]` generate.
//! Not public API: nothing here is covered by semver.

pub use ::schemars;
pub use ::serde;

pub use crate::card::Card;
pub use crate::content::ContentBlock;
pub use crate::definition::{Category, OutputType, Tool, ToolDef, Validation};
pub use crate::error::ToolError;
pub use crate::exec::Exec;
pub use crate::project::{PresentCallFn, PresentFn, RenderFn};

use schemars::JsonSchema;
use serde::Serialize;
use serde::de::DeserializeOwned;

/// The bound on a tool's args type, checked at the type's span.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a tool's arguments",
    label = "must be `Deserialize + JsonSchema`",
    note = "derive both on the args struct: `#[derive(Deserialize, JsonSchema)]`"
)]
pub trait ToolArgs: DeserializeOwned + JsonSchema + Send + 'static {}
impl<T: DeserializeOwned + JsonSchema + Send + 'static> ToolArgs for T {}

/// The bound on a tool's output type, checked at the return type's span.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a tool's output",
    label = "must be `Serialize + Deserialize + JsonSchema`",
    note = "derive all three on the output type: `#[derive(Serialize, Deserialize, JsonSchema)]`"
)]
pub trait ToolOutput: Serialize + DeserializeOwned + JsonSchema + Send + 'static {}
impl<T: Serialize + DeserializeOwned + JsonSchema + Send + 'static> ToolOutput for T {}

/// The bound on a tool's error type, checked where `execute` converts it, at the error type's span.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a tool's error",
    label = "must convert into `ToolError`",
    note = "implement `std::error::Error` for it (`#[derive(thiserror::Error)]`), or return `ToolError`"
)]
pub trait IntoToolError {
    /// Converts into the error the model sees.
    fn into_tool_error(self) -> ToolError;
}
impl<E: Into<ToolError>> IntoToolError for E {
    fn into_tool_error(self) -> ToolError {
        self.into()
    }
}

/// Asserts `T` can be a tool's args.
pub const fn assert_args<T: ToolArgs>() {}

/// Asserts `T` can be a tool's output.
pub const fn assert_output<T: ToolOutput>() {}

/// Turns a tool fn's `Result<T, E>` into the result the registry takes.
pub fn into_result<T, E: IntoToolError>(result: Result<T, E>) -> Result<T, ToolError> {
    result.map_err(IntoToolError::into_tool_error)
}
