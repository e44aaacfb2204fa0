//! What each field of a type whose JSON Schema the derives write must be.
//!
//! A derive checks each field's type, at the type, as
//! `<Mode as SchemaField>::CHECKED`, so a helper type without `JsonSchema` is
//! reported once there, with this trait's message saying what to derive,
//! rather than as schemars' bound followed by every type implementing it.
//! The derive's schema is written assuming the fields have theirs (a
//! `for<'__dsh>` bound, which rustc does not check where it is written), so
//! schemars' code adds no error of its own; and the type's own impl reaches
//! it through [`TwinSchema`], which holds either way.

use std::borrow::Cow;
use std::marker::PhantomData;

use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::de::DeserializeOwned;
use serde::{Deserializer, Serialize, Serializer};

/// A type that can be a field of a type deriving `JsonSchema`, `ToolArgs`,
/// `ToolOutput` or `ToolFailure`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no JSON Schema, which the type holding it needs",
    label = "must be `JsonSchema`",
    note = "add `#[derive(JsonSchema)]` to the type of yours this field holds (the derive is in `dsh_kit::prelude`)"
)]
pub trait SchemaField {
    /// Where a derive checks a type is one, as `<T as SchemaField>::CHECKED`.
    const CHECKED: () = ();
}
#[diagnostic::do_not_recommend]
impl<T: JsonSchema> SchemaField for T {}

/// The schema of a type deriving `JsonSchema` through dsh-kit, as its twin
/// writes it: an impl per deriving type, under the twin's own `where`
/// clause, so that where a field's type has no schema the type just has no
/// such impl, and naming the twin (which would not be well-formed) is left
/// to the impl's body.
pub trait SchemaTwin {
    /// The twin's `inline_schema()`.
    fn inline_schema() -> bool;
    /// The twin's `schema_name()`.
    fn schema_name() -> Cow<'static, str>;
    /// The twin's `schema_id()`.
    fn schema_id() -> Cow<'static, str>;
    /// The twin's `json_schema(generator)`.
    fn json_schema(generator: &mut SchemaGenerator) -> Schema;
}

/// The schema of `T`'s twin, called as
/// `(&&TwinSchema::<T>::new()).json_schema(generator)`: method lookup takes
/// [`HasSchema`] where the twin has a schema, and [`LacksSchema`] where a
/// field's type has none, which the field's check has reported already,
/// so the crate does not compile and its value is never used.
pub struct TwinSchema<T>(PhantomData<T>);

impl<T> TwinSchema<T> {
    /// The schema of `T`'s twin.
    pub const fn new() -> Self {
        TwinSchema(PhantomData)
    }
}

impl<T> Default for TwinSchema<T> {
    fn default() -> Self {
        Self::new()
    }
}

/// `T`'s own schema.
pub trait HasSchema {
    /// `T::inline_schema()`.
    fn inline_schema(&self) -> bool;
    /// `T::schema_name()`.
    fn schema_name(&self) -> Cow<'static, str>;
    /// `T::schema_id()`.
    fn schema_id(&self) -> Cow<'static, str>;
    /// `T::json_schema(generator)`.
    fn json_schema(&self, generator: &mut SchemaGenerator) -> Schema;
}

impl<T: SchemaTwin> HasSchema for &TwinSchema<T> {
    fn inline_schema(&self) -> bool {
        T::inline_schema()
    }
    fn schema_name(&self) -> Cow<'static, str> {
        T::schema_name()
    }
    fn schema_id(&self) -> Cow<'static, str> {
        T::schema_id()
    }
    fn json_schema(&self, generator: &mut SchemaGenerator) -> Schema {
        T::json_schema(generator)
    }
}

/// A twin one of whose fields has no schema, an error reported at that
/// field: these values are never used, as the crate does not compile.
pub trait LacksSchema {
    /// Never called: the crate does not compile.
    fn inline_schema(&self) -> bool {
        false
    }
    /// Never called: the crate does not compile.
    fn schema_name(&self) -> Cow<'static, str> {
        Cow::Borrowed("")
    }
    /// Never called: the crate does not compile.
    fn schema_id(&self) -> Cow<'static, str> {
        Cow::Borrowed("")
    }
    /// Never called: the crate does not compile.
    fn json_schema(&self, _: &mut SchemaGenerator) -> Schema {
        Schema::default()
    }
}

impl<T> LacksSchema for TwinSchema<T> {}

/// A type that can be a field of a type deriving `Serialize`, `ToolOutput`
/// or `ToolFailure`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be serialized, which the type holding it needs",
    label = "must be `Serialize`",
    note = "add `#[derive(Serialize)]` to the type of yours this field holds (the derive is in `dsh_kit::prelude`)"
)]
pub trait SerializeField {
    /// Where a derive checks a type is one, as `<T as SerializeField>::CHECKED`.
    const CHECKED: () = ();
}
#[diagnostic::do_not_recommend]
impl<T: Serialize + ?Sized> SerializeField for T {}

/// A type that can be a field of a type deriving `Deserialize`, `ToolArgs`
/// or `ToolOutput`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be deserialized, which the type holding it needs",
    label = "must be `Deserialize`",
    note = "add `#[derive(Deserialize)]` to the type of yours this field holds (the derive is in `dsh_kit::prelude`)"
)]
pub trait DeserializeField {
    /// Where a derive checks a type is one, as `<T as DeserializeField>::CHECKED`.
    const CHECKED: () = ();
}
#[diagnostic::do_not_recommend]
impl<T: DeserializeOwned> DeserializeField for T {}

/// How a type deriving `Serialize` through dsh-kit is written by its twin:
/// an impl per deriving type under the twin's `where` clause, as
/// [`SchemaTwin`] is.
pub trait SerializeTwin {
    /// The twin's `serialize`.
    fn serialize_twin<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error>;
}

/// How a type deriving `Deserialize` through dsh-kit is read by its twin,
/// as [`SerializeTwin`].
pub trait DeserializeTwin<'de>: Sized {
    /// The twin's `deserialize`.
    fn deserialize_twin<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error>;
}

/// `T`'s serde impls through its twin, called as
/// `(&&SerdeTwin::<T>::new()).serialize(value, serializer)`, as
/// [`TwinSchema`] is: [`HasSerialize`] and [`HasDeserialize`] where the
/// twin's impls hold, and [`LacksSerde`] where a field's type has none, which the field's check
/// has reported, so the crate does not compile.
pub struct SerdeTwin<T>(PhantomData<T>);

impl<T> SerdeTwin<T> {
    /// The serde impls of `T`'s twin.
    pub const fn new() -> Self {
        SerdeTwin(PhantomData)
    }
}

impl<T> Default for SerdeTwin<T> {
    fn default() -> Self {
        Self::new()
    }
}

/// `T` written by its twin's own impl.
pub trait HasSerialize<T> {
    /// `T` written by its twin.
    fn serialize<S: Serializer>(&self, value: &T, serializer: S) -> Result<S::Ok, S::Error>;
}

impl<T: SerializeTwin> HasSerialize<T> for &SerdeTwin<T> {
    fn serialize<S: Serializer>(&self, value: &T, serializer: S) -> Result<S::Ok, S::Error> {
        value.serialize_twin(serializer)
    }
}

/// `T` read by its twin's own impl.
pub trait HasDeserialize<'de, T> {
    /// `T` read by its twin.
    fn deserialize<D: Deserializer<'de>>(&self, deserializer: D) -> Result<T, D::Error>;
}

impl<'de, T: DeserializeTwin<'de>> HasDeserialize<'de, T> for &SerdeTwin<T> {
    fn deserialize<D: Deserializer<'de>>(&self, deserializer: D) -> Result<T, D::Error> {
        T::deserialize_twin(deserializer)
    }
}

/// A twin one of whose fields cannot be written or read, an error reported
/// at that field: these are never called, as the crate does not compile.
pub trait LacksSerde<T> {
    /// Never called: the crate does not compile.
    fn serialize<S: Serializer>(&self, _: &T, _: S) -> Result<S::Ok, S::Error> {
        Err(serde::ser::Error::custom(
            "a field's type cannot be serialized",
        ))
    }
    /// Never called: the crate does not compile.
    fn deserialize<'de, D: Deserializer<'de>>(&self, _: D) -> Result<T, D::Error> {
        Err(serde::de::Error::custom(
            "a field's type cannot be deserialized",
        ))
    }
}

impl<T> LacksSerde<T> for SerdeTwin<T> {}
