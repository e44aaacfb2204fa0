//! The door for the code `#[tool]`, `#[render]`, `#[present]` and the derives
//! generate. Not public API: nothing here is covered by semver.

pub use ::schemars;
pub use ::serde;
pub use ::serde_json;

pub use crate::tool::Exec;
pub use crate::tool::Icon;
pub use crate::tool::ToolError;
pub use crate::tool::elicit::ElicitField;
pub use crate::tool::{
    HeaderParam, IntoBlocks, IntoCard, ToolArgs, ToolContext, ToolFailure, ToolField, ToolOutput,
    ToolReturn,
};
pub use crate::tool::{MarkedPresent, MarkedRender, PresentCallFn, PresentFn, RenderFn, Unmarked};
pub use crate::tool::{Tool, ToolDef, Validation};
pub use crate::value::card::Card;
pub use crate::value::content::ContentBlock;
pub use crate::value::names::{Category, OutputType};

use std::error::Error as StdError;
use std::fmt::Display;
use std::marker::PhantomData;
use std::ops::Deref;

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;

use crate::tool::with_sources;

/// Whether a tool's output holds nothing: a zero-sized type (`()`, a unit
/// struct) has one value, so it carries nothing. `#[tool]` checks
/// `output_type` against it.
pub const fn holds_nothing<T>() -> bool {
    size_of::<T>() == 0
}

// How a tool fn's error becomes a `ToolError`, chosen by its type with
// autoref-based specialization (as `anyhow!` picks how to build an error):
// the generated code calls `(&&&&&&Failure::of(&error)).failure_kind()`, and
// method lookup takes the impl with the most references first, so the most
// specific conversion wins. Each impl returns a tag whose `convert` does the
// work; the last one takes any type and states the bound where it is called,
// so an error type that fits none is reported once, at the user's type.

/// The type of a tool fn's error, carried without the value.
pub struct Failure<E>(PhantomData<E>);

impl<E> Failure<E> {
    /// The type of `error`.
    pub fn of(_: &E) -> Self {
        Failure(PhantomData)
    }

    /// The type `E`.
    pub fn new() -> Self {
        Failure(PhantomData)
    }
}

impl<E> Default for Failure<E> {
    fn default() -> Self {
        Failure(PhantomData)
    }
}

/// `ToolError` itself.
pub trait SameKind {
    /// The tag.
    fn failure_kind(&self) -> SameTag {
        SameTag
    }
}
impl SameKind for &&&&&&Failure<crate::tool::ToolError> {}

/// A `Serialize + JsonSchema` error: a declared failure shape.
pub trait TypedErrorKind {
    /// The tag.
    fn failure_kind(&self) -> TypedErrorTag {
        TypedErrorTag
    }
}
impl<E: Serialize + JsonSchema + StdError> TypedErrorKind for &&&&&Failure<E> {}

/// A `Serialize + JsonSchema + Display` value that is not a `std::error::Error`.
pub trait TypedDisplayKind {
    /// The tag.
    fn failure_kind(&self) -> TypedDisplayTag {
        TypedDisplayTag
    }
}
impl<E: Serialize + JsonSchema + Display> TypedDisplayKind for &&&&Failure<E> {}

/// Any `std::error::Error`.
pub trait ErrorKind {
    /// The tag.
    fn failure_kind(&self) -> ErrorTag {
        ErrorTag
    }
}
impl<E: StdError + Send + Sync + 'static> ErrorKind for &&&Failure<E> {}

/// A box of a `dyn Error + Send + Sync`: `anyhow::Error`, `Box<dyn Error + Send + Sync>`.
pub trait DynErrorKind {
    /// The tag.
    fn failure_kind(&self) -> DynErrorTag {
        DynErrorTag
    }
}
impl<E: Deref<Target = dyn StdError + Send + Sync>> DynErrorKind for &&Failure<E> {}

/// A box of a `dyn Error`: `Box<dyn Error>`.
pub trait LocalDynErrorKind {
    /// The tag.
    fn failure_kind(&self) -> LocalDynErrorTag {
        LocalDynErrorTag
    }
}
impl<E: Deref<Target = dyn StdError>> LocalDynErrorKind for &Failure<E> {}

/// Anything else: its `Display` text, if it has one.
pub trait MessageKind {
    /// The tag.
    fn failure_kind(&self) -> MessageTag {
        MessageTag
    }
}
impl<E> MessageKind for Failure<E> {}

/// Converts a `ToolError`: as it is.
pub struct SameTag;
impl SameTag {
    /// The error.
    pub fn convert(self, error: crate::tool::ToolError) -> crate::tool::ToolError {
        error
    }
}

/// Converts a declared failure shape: its message, its variant as the kind
/// and its serialized value as the data.
pub struct TypedErrorTag;
impl TypedErrorTag {
    /// The error.
    pub fn convert<E: Serialize + JsonSchema + StdError>(self, error: E) -> crate::tool::ToolError {
        typed(&error, with_sources(&error))
    }
}

/// Converts a declared failure shape that is not a `std::error::Error`.
pub struct TypedDisplayTag;
impl TypedDisplayTag {
    /// The error.
    pub fn convert<E: Serialize + JsonSchema + Display>(self, error: E) -> crate::tool::ToolError {
        typed(&error, error.to_string())
    }
}

/// Converts a `std::error::Error`, its sources' messages included.
pub struct ErrorTag;
impl ErrorTag {
    /// The error.
    pub fn convert<E: StdError + Send + Sync + 'static>(self, error: E) -> crate::tool::ToolError {
        crate::tool::ToolError::from(error)
    }
}

/// Converts a box of a `dyn Error + Send + Sync`, its sources' messages included.
pub struct DynErrorTag;
impl DynErrorTag {
    /// The error.
    pub fn convert<E: Deref<Target = dyn StdError + Send + Sync>>(
        self,
        error: E,
    ) -> crate::tool::ToolError {
        crate::tool::ToolError::new(with_sources(&*error))
    }
}

/// Converts a box of a `dyn Error`, its sources' messages included.
pub struct LocalDynErrorTag;
impl LocalDynErrorTag {
    /// The error.
    pub fn convert<E: Deref<Target = dyn StdError>>(self, error: E) -> crate::tool::ToolError {
        crate::tool::ToolError::new(with_sources(&*error))
    }
}

/// Converts a message (`String`, `&str`, any `Display`).
pub struct MessageTag;
impl MessageTag {
    /// The error.
    pub fn convert<E: crate::tool::ToolFailure>(self, error: E) -> crate::tool::ToolError {
        crate::tool::ToolError::new(error.message())
    }
}

/// A declared failure shape as a `ToolError`.
fn typed<E: Serialize + JsonSchema>(error: &E, message: String) -> crate::tool::ToolError {
    crate::tool::ToolError::typed(message, error)
}

/// The failure schema of an error type, chosen like its conversion: a
/// `Serialize + JsonSchema` type has one, anything else none.
pub trait TypedSchema {
    /// The schema.
    fn failure_schema(&self) -> Option<Value>;
}
impl<E: Serialize + JsonSchema> TypedSchema for &Failure<E> {
    fn failure_schema(&self) -> Option<Value> {
        Some(crate::tool::ToolError::failure_schema::<E>())
    }
}

/// No failure schema.
pub trait UntypedSchema {
    /// `None`.
    fn failure_schema(&self) -> Option<Value> {
        None
    }
}
impl<E> UntypedSchema for Failure<E> {}

// `__private` is `private.rs` by a `#[path]`, so its children need one too.
#[path = "private/call.rs"]
mod call;
pub use call::{Fallible, Returns, fallible, returns};
#[path = "private/field.rs"]
mod field;
pub use field::{
    DeserializeField, DeserializeTwin, HasDeserialize, HasSchema, HasSerialize, LacksSchema,
    LacksSerde, SchemaField, SchemaTwin, SerdeTwin, SerializeField, SerializeTwin, TwinSchema,
};

/// The schema the derives give a field whose `#[serde(with = …)]` they
/// refuse, so that schemars adds no error of its own beside theirs: any
/// value.
pub fn unseen_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::Schema::default()
}

/// A type, asked whether it is one of the impure std types a `#[render]` or
/// `#[present]` body may name bare after importing it: `<Probe<T>>::STD` is
/// the inherent constant below for those, found before [`NotStd`]'s
/// `false` for every other type (one of the crate's own named `Command`).
pub struct Probe<T: ?Sized>(PhantomData<T>);

/// `STD = false`: the answer for every type but the impure std ones.
pub trait NotStd {
    /// Whether the type is an impure std type.
    const STD: bool = false;
}

impl<T: ?Sized> NotStd for Probe<T> {}

impl Probe<std::process::Command> {
    /// It is.
    pub const STD: bool = true;
}

impl Probe<std::process::Child> {
    /// It is.
    pub const STD: bool = true;
}

impl Probe<std::process::Stdio> {
    /// It is.
    pub const STD: bool = true;
}

impl Probe<std::fs::File> {
    /// It is.
    pub const STD: bool = true;
}

impl Probe<std::fs::OpenOptions> {
    /// It is.
    pub const STD: bool = true;
}

impl Probe<std::fs::DirBuilder> {
    /// It is.
    pub const STD: bool = true;
}

impl Probe<std::fs::ReadDir> {
    /// It is.
    pub const STD: bool = true;
}

impl Probe<std::net::TcpStream> {
    /// It is.
    pub const STD: bool = true;
}

impl Probe<std::net::TcpListener> {
    /// It is.
    pub const STD: bool = true;
}

impl Probe<std::net::UdpSocket> {
    /// It is.
    pub const STD: bool = true;
}

impl Probe<std::thread::Builder> {
    /// It is.
    pub const STD: bool = true;
}

impl Probe<std::io::Stdin> {
    /// It is.
    pub const STD: bool = true;
}

impl Probe<std::io::Stdout> {
    /// It is.
    pub const STD: bool = true;
}

impl Probe<std::io::Stderr> {
    /// It is.
    pub const STD: bool = true;
}
