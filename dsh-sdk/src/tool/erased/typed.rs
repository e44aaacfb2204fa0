//! [`Typed`]: the [`Handler`] of a tool defined by a type (`#[tool]`), and
//! the registration-time probe of its arguments' field names.

use std::any::{Any, TypeId};
use std::marker::PhantomData;
use std::panic::AssertUnwindSafe;

use serde::Deserialize;
use serde_json::Value;

use super::projection::PresentPanic;
use super::{Handler, PrepareError, Prepared, Projection, ReadError};
use crate::tool::Exec;
use crate::tool::Executed;
use crate::tool::{Tool, Validation};
use crate::tool::{ToolError, panic_message};
use crate::value::card::Card;

/// The tool `T`, erased.
pub(crate) struct Typed<T>(PhantomData<fn() -> T>);

impl<T> Typed<T> {
    /// The handler of `T`.
    pub(crate) fn new() -> Self {
        Typed(PhantomData)
    }
}

// The code here is compiled once per registered tool, in the tool's own
// crate: a crate of a hundred tools builds it a hundred times. It stays
// small: each method does only what needs `T`, and hands the rest to
// helpers that are generic over one type only (compiled once per args or
// output type; a hundred tools returning `String` share one) or not at all.
impl<T: Tool> Handler for Typed<T> {
    fn prepare(&self, args: &Value, exec: &Exec) -> Result<Prepared, PrepareError> {
        let args = T::Args::deserialize(args).map_err(PrepareError::Deserialize)?;
        checked(&|| T::validate_input(&args, exec))?;
        if !T::READS_EXEC {
            // Nothing reads it: the call holds no context of its own.
            return Ok(Box::pin(async move {
                canonical(T::execute(args, Exec::detached()).await?)
            }));
        }
        let exec = exec.clone();
        Ok(Box::pin(async move {
            canonical(T::execute(args, &exec).await?)
        }))
    }

    fn reads_exec(&self) -> bool {
        T::READS_EXEC
    }

    fn project(&self, args: &Value, value: &Value, present: bool) -> Result<Projection, ReadError> {
        if T::DEFAULT_PROJECTIONS {
            return project_default::<T::Output>(value);
        }
        let args = T::Args::deserialize(args).map_err(ReadError::Args)?;
        let value = T::Output::deserialize(value).map_err(ReadError::Output)?;
        let content = T::render(&args, &value);
        let card = if present {
            // Told apart from a panic in render by its payload.
            std::panic::catch_unwind(AssertUnwindSafe(|| T::present(&args, &value)))
                .unwrap_or_else(|panic| resume_present_panic(panic))
        } else {
            None
        };
        Ok(Projection {
            content: Some(content),
            card,
        })
    }

    fn presents(&self) -> bool {
        T::PRESENTS
    }

    fn renders(&self) -> bool {
        T::RENDERS
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

/// The tool's own check of its arguments, a panic in it caught.
fn checked(validate: &dyn Fn() -> Validation) -> Result<(), PrepareError> {
    match std::panic::catch_unwind(AssertUnwindSafe(validate)) {
        Ok(Validation::Ok) => Ok(()),
        Ok(Validation::Invalid { message, code }) => Err(PrepareError::Invalid { message, code }),
        Err(panic) => Err(PrepareError::ValidatePanicked(panic_message(
            panic.as_ref(),
        ))),
    }
}

/// A tool's output as its canonical value. A `Value` is its own canonical
/// value: taken as is, it reaches the output limits unwalked, however deep
/// (serializing would recurse once per level). A `String`, the commonest
/// output, is moved into its value rather than copied.
fn canonical<O: serde::Serialize + 'static>(mut output: O) -> Result<Executed, ToolError> {
    let output_any = &mut output as &mut dyn Any;
    if let Some(value) = output_any.downcast_mut::<Value>() {
        return Ok(Executed::from(std::mem::take(value)));
    }
    if let Some(text) = output_any.downcast_mut::<String>() {
        return Ok(Executed::from(Value::String(std::mem::take(text))));
    }
    serde_json::to_value(&output)
        .map(Executed::from)
        .map_err(unserializable)
}

fn unserializable(error: serde_json::Error) -> ToolError {
    ToolError::new(format!("the output could not be serialized: {error}"))
}

/// The default projection of a canonical value: no card, the default render.
/// The value must still read as the output type (a logged or replaced value
/// may not); the text is rendered from the value itself, which is what
/// serializing the output gives, when the result's content is read.
fn project_default<O: serde::de::DeserializeOwned + serde::Serialize + 'static>(
    value: &Value,
) -> Result<Projection, ReadError> {
    if !reads_as_plainly::<O>(value) {
        O::deserialize(value).map_err(ReadError::Output)?;
    }
    Ok(Projection {
        content: None,
        card: None,
    })
}

/// Whether `value` plainly reads as `O` without deserializing it: a
/// `String` from any JSON string, a `Value` from anything. Outputs of other
/// types, or a value of another shape (whose error the deserializer
/// words), go through `O`'s `Deserialize`.
fn reads_as_plainly<O: 'static>(value: &Value) -> bool {
    let output = TypeId::of::<O>();
    (output == TypeId::of::<String>() && value.is_string()) || output == TypeId::of::<Value>()
}

/// Unwinds again with a panic in `present` marked as one.
fn resume_present_panic(panic: Box<dyn Any + Send>) -> ! {
    let message = panic_message(panic.as_ref());
    std::panic::resume_unwind(Box::new(PresentPanic(message)))
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
///
/// `probe` runs the arguments' `Deserialize` on the probe ([`probe_fields`]).
pub(crate) fn unnamed_field(schema: &Value, probe: fn(FieldProbe<'_>)) -> Option<String> {
    let properties = schema.get("properties")?.as_object()?;
    let fields = accepted_fields(probe)?;
    fields
        .iter()
        .find(|field| !properties.contains_key(**field))
        .map(|field| (*field).to_owned())
}

/// The top-level field names a type's `Deserialize` accepts, aliases
/// included, as `probe` finds them; `None` for a type read otherwise than
/// as a struct.
pub(crate) fn accepted_fields(probe: fn(FieldProbe<'_>)) -> Option<&'static [&'static str]> {
    let fields = std::cell::Cell::new(None);
    let probed = std::panic::catch_unwind(AssertUnwindSafe(|| {
        probe(FieldProbe { fields: &fields });
    }));
    if probed.is_err() {
        return None;
    }
    fields.get()
}

/// Runs `A`'s `Deserialize` on `probe`: the one part of [`unnamed_field`]
/// that needs the type.
pub(crate) fn probe_fields<A: serde::de::DeserializeOwned>(probe: FieldProbe<'_>) {
    let _ = A::deserialize(probe);
}

/// Records the fields `deserialize_struct` is given, and fails.
pub(crate) struct FieldProbe<'a> {
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

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn only_a_value_of_the_outputs_own_shape_skips_deserializing() {
        assert!(reads_as_plainly::<String>(&json!("text")));
        assert!(!reads_as_plainly::<String>(&json!(3)));
        assert!(reads_as_plainly::<Value>(&json!({ "any": [1] })));
        assert!(!reads_as_plainly::<u32>(&json!(3)));
        // A value that does not read as the output still fails, with the
        // deserializer's words.
        let error = project_default::<String>(&json!(3))
            .err()
            .expect("a number is no String");
        assert!(matches!(error, ReadError::Output(_)), "{error:?}");
        let projected = project_default::<String>(&json!("hi")).expect("a string reads");
        // The default rendering is left to the result, made when read.
        assert!(projected.content.is_none());
        assert!(project_default::<u32>(&json!(-1)).is_err());
    }
}
