//! [`Typed`]: the [`Handler`] of a tool defined by a type (`#[tool]`), and
//! the registration-time probe of its arguments' field names.

use std::any::Any;
use std::marker::PhantomData;
use std::panic::AssertUnwindSafe;

use futures_util::future::BoxFuture;
use serde::Deserialize;
use serde_json::Value;

use super::projection::PresentPanic;
use super::{Handler, PrepareError, Prepared, Projection, ReadError};
use crate::card::Card;
use crate::definition::{Tool, Validation};
use crate::error::{ToolError, panic_message};
use crate::exec::Exec;

/// The tool `T`, erased.
pub(crate) struct Typed<T>(PhantomData<fn() -> T>);

impl<T> Typed<T> {
    /// The handler of `T`.
    pub(crate) fn new() -> Self {
        Typed(PhantomData)
    }
}

impl<T: Tool> Handler for Typed<T> {
    fn prepare(&self, args: &Value) -> Result<Prepared, PrepareError> {
        // The schema caught every shape error it can; what serde still refuses
        // (a custom `Deserialize`, say) is reported with its path too. Paths
        // are tracked only on the way to that error: most arguments pass.
        match T::Args::deserialize(args) {
            Ok(args) => Ok(Box::new(args)),
            // Again, tracking the path, to say where it failed.
            Err(_) => serde_path_to_error::deserialize(args)
                .map(|args: T::Args| -> Prepared { Box::new(args) })
                .map_err(|error| PrepareError {
                    pointer: json_pointer(error.path()),
                    message: error.into_inner().to_string(),
                }),
        }
    }

    fn validate(&self, args: &Prepared, exec: &Exec) -> Validation {
        match args.downcast_ref::<T::Args>() {
            Some(args) => T::validate_input(args, exec),
            None => Validation::invalid("internal: arguments of the wrong type", -1),
        }
    }

    fn execute(&self, args: Prepared, exec: Exec) -> BoxFuture<'static, Result<Value, ToolError>> {
        Box::pin(async move {
            let args = args
                .downcast::<T::Args>()
                .map_err(|_| ToolError::new("internal: arguments of the wrong type"))?;
            let mut output = T::execute(*args, &exec).await?;
            // A `Value` is its own canonical value: taken as is, it reaches
            // the output limits unwalked, however deep (serializing would
            // recurse once per level).
            if let Some(value) = (&mut output as &mut dyn Any).downcast_mut::<Value>() {
                return Ok(std::mem::take(value));
            }
            serde_json::to_value(&output).map_err(|error| {
                ToolError::new(format!("the output could not be serialized: {error}"))
            })
        })
    }

    fn project(&self, args: &Value, value: &Value, present: bool) -> Result<Projection, ReadError> {
        if T::DEFAULT_PROJECTIONS {
            let value = T::Output::deserialize(value).map_err(ReadError::Output)?;
            return Ok(Projection {
                content: crate::content::render_default(&value),
                card: None,
            });
        }
        let args = T::Args::deserialize(args).map_err(ReadError::Args)?;
        let value = T::Output::deserialize(value).map_err(ReadError::Output)?;
        let content = T::render(&args, &value);
        let card = if present {
            // Told apart from a panic in render by its payload.
            std::panic::catch_unwind(AssertUnwindSafe(|| T::present(&args, &value))).unwrap_or_else(
                |panic| {
                    let message = panic_message(panic.as_ref());
                    std::panic::resume_unwind(Box::new(PresentPanic(message)))
                },
            )
        } else {
            None
        };
        Ok(Projection { content, card })
    }

    fn presents(&self) -> bool {
        T::PRESENTS
    }

    fn failure_schema(&self) -> Option<Value> {
        T::failure_schema()
    }

    fn present_call(&self, args: &Value) -> Option<Card> {
        if T::DEFAULT_PROJECTIONS {
            return None;
        }
        T::present_call(&T::Args::deserialize(args).ok()?)
    }
}

/// A serde path as a JSON pointer, `/` for the root.
fn json_pointer(path: &serde_path_to_error::Path) -> String {
    use serde_path_to_error::Segment;
    let mut pointer = String::new();
    for segment in path.iter() {
        pointer.push('/');
        match segment {
            Segment::Seq { index } => pointer.push_str(&index.to_string()),
            Segment::Map { key } => pointer.push_str(&key.replace('~', "~0").replace('/', "~1")),
            Segment::Enum { variant } => pointer.push_str(variant),
            Segment::Unknown => pointer.push('?'),
        }
    }
    if pointer.is_empty() {
        pointer.push('/');
    }
    pointer
}

/// A name the arguments' `Deserialize` accepts at the top level that the
/// input schema does not name: a `#[serde(alias = "…")]`, or a field the
/// schema skips.
///
/// Permission rules, gates and guards read the arguments by the names the
/// schema gives; a value under another name reaches the tool unseen, so such
/// a tool is refused at registration. serde's derive lists every name a
/// struct accepts, aliases included, in the `fields` it hands
/// `deserialize_struct`: a deserializer that only records them finds them
/// without deserializing anything. Structs with `#[serde(flatten)]`, enums
/// and hand-written impls do not list their fields and are not checked.
pub(crate) fn unnamed_field<A: serde::de::DeserializeOwned>(schema: &Value) -> Option<String> {
    let properties = schema.get("properties")?.as_object()?;
    let fields = std::cell::Cell::new(None);
    let probed = std::panic::catch_unwind(AssertUnwindSafe(|| {
        let _ = A::deserialize(FieldProbe { fields: &fields });
    }));
    if probed.is_err() {
        return None;
    }
    let fields: &[&str] = fields.get()?;
    fields
        .iter()
        .find(|field| !properties.contains_key(**field))
        .map(|field| (*field).to_owned())
}

/// Records the fields `deserialize_struct` is given, and fails.
struct FieldProbe<'a> {
    fields: &'a std::cell::Cell<Option<&'static [&'static str]>>,
}

impl<'de> serde::Deserializer<'de> for FieldProbe<'_> {
    type Error = serde::de::value::Error;

    fn deserialize_any<V: serde::de::Visitor<'de>>(self, _: V) -> Result<V::Value, Self::Error> {
        Err(serde::de::Error::custom("probing for field names"))
    }

    fn deserialize_struct<V: serde::de::Visitor<'de>>(
        self,
        _name: &'static str,
        fields: &'static [&'static str],
        _visitor: V,
    ) -> Result<V::Value, Self::Error> {
        self.fields.set(Some(fields));
        Err(serde::de::Error::custom("probing for field names"))
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf option unit unit_struct newtype_struct seq tuple
        tuple_struct map enum identifier ignored_any
    }
}
