//! Bounds on what a call may carry in and out, set on the
//! [`RegistryBuilder`](crate::RegistryBuilder).
//!
//! | limit | default | builder method |
//! |-------|---------|----------------|
//! | argument size, as compact JSON | [`DEFAULT_MAX_ARG_BYTES`] (1 MiB) | [`max_arg_bytes`](crate::RegistryBuilder::max_arg_bytes) |
//! | argument nesting depth | [`DEFAULT_MAX_DEPTH`] (64) | [`max_arg_depth`](crate::RegistryBuilder::max_arg_depth) |
//! | output size, as compact JSON | [`DEFAULT_MAX_OUTPUT_BYTES`] (16 MiB) | [`max_output_bytes`](crate::RegistryBuilder::max_output_bytes) |
//! | output nesting depth | [`DEFAULT_MAX_DEPTH`] (64) | [`max_output_depth`](crate::RegistryBuilder::max_output_depth) |
//! | wait for an approver | [`DEFAULT_APPROVAL_TIMEOUT`] (10 minutes) | [`approval_timeout`](crate::RegistryBuilder::approval_timeout) |
//!
//! Arguments are measured before anything else looks at them: before the
//! session log records the request, before the schema, serde or a rule walks
//! them. Depth is measured without recursion, so arguments nested thousands
//! deep are refused, not a stack overflow; what is refused is also dropped
//! without recursion. A depth limit is at most [`MAX_DEPTH`], so that every
//! record of the session log, which nests arguments and values a few levels
//! deeper still, reads back within serde_json's recursion limit of 128.
//!
//! A tool whose output type is [`serde_json::Value`] hands its value over as
//! is, so an output thousands of levels deep is measured and refused without
//! recursion too. Any other output type is serialized to its canonical value
//! first, which recurses once per level of the data: a type that holds a
//! `Value` nested thousands deep inside it can still exhaust the stack there.

use std::io::{self, Write};
use std::time::Duration;

use serde_json::Value;

/// The default limit on a call's arguments, as compact JSON: 1 MiB.
pub const DEFAULT_MAX_ARG_BYTES: usize = 1024 * 1024;

/// The default limit on an output's canonical value, as compact JSON: 16 MiB.
pub const DEFAULT_MAX_OUTPUT_BYTES: usize = 16 * 1024 * 1024;

/// The default nesting depth of arguments and outputs: 64 arrays and objects.
pub const DEFAULT_MAX_DEPTH: usize = 64;

/// The highest depth limit a registry accepts; higher settings are lowered
/// to it. Session log records nest a call's arguments at most three levels
/// below the record, and a record must read back within serde_json's
/// recursion limit of 128.
pub const MAX_DEPTH: usize = 100;

/// How long a call waits for the approver by default: 10 minutes.
pub const DEFAULT_APPROVAL_TIMEOUT: Duration = Duration::from_secs(10 * 60);

/// The limits a registry enforces on every call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Limits {
    pub(crate) max_arg_bytes: usize,
    pub(crate) max_arg_depth: usize,
    pub(crate) max_output_bytes: usize,
    pub(crate) max_output_depth: usize,
    pub(crate) approval_timeout: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_arg_bytes: DEFAULT_MAX_ARG_BYTES,
            max_arg_depth: DEFAULT_MAX_DEPTH,
            max_output_bytes: DEFAULT_MAX_OUTPUT_BYTES,
            max_output_depth: DEFAULT_MAX_DEPTH,
            approval_timeout: DEFAULT_APPROVAL_TIMEOUT,
        }
    }
}

/// How a value broke a limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Exceeded {
    /// Nested deeper than the limit.
    Depth { limit: usize },
    /// Larger than the limit, in bytes of compact JSON.
    Size { limit: usize },
}

impl Exceeded {
    /// "nested deeper than 64 levels", "larger than 1048576 bytes as JSON".
    pub(crate) fn describe(self) -> String {
        match self {
            Exceeded::Depth { limit } => format!(
                "nested deeper than {limit} levels of arrays and objects (the limit is {limit})"
            ),
            Exceeded::Size { limit } => {
                format!("larger than {limit} bytes as JSON (the limit is {limit} bytes)")
            }
        }
    }
}

/// Checks `value` against a depth and a size limit: the depth first, without
/// recursion, so the size, measured by serializing, never recurses deeper
/// than `max_depth`. Stops at the first limit broken.
///
/// The walk that measures the depth also adds up the compact JSON size, an
/// upper bound of it at worst: a value within the size limit by that count,
/// which is most, is never serialized. It first counts each string at its
/// most, six bytes a byte (`\u001f`) and its quotes, so a value well within
/// the limit is not read byte by byte; only one that might be over it has
/// its strings' escapes counted.
pub(crate) fn check(value: &Value, max_depth: usize, max_bytes: usize) -> Result<(), Exceeded> {
    // A lone string (the commonest output) nests nothing: within the limit
    // at its most, it need not be walked at all.
    if let Value::String(text) = value
        && most_string_len(text) <= max_bytes
    {
        return Ok(());
    }
    match measure(value, max_depth, most_string_len) {
        None => return Err(Exceeded::Depth { limit: max_depth }),
        Some(bytes) if bytes <= max_bytes => return Ok(()),
        Some(_) => {}
    }
    if measure(value, max_depth, string_len).is_some_and(|bytes| bytes <= max_bytes) {
        return Ok(());
    }
    let mut counter = Counter {
        left: max_bytes,
        over: false,
    };
    // Only the counter can fail, and it fails only when over the limit.
    if serde_json::to_writer(&mut counter, value).is_err() || counter.over {
        return Err(Exceeded::Size { limit: max_bytes });
    }
    Ok(())
}

/// The size of `value` as compact JSON, or more, without recursion; `None`
/// when it nests more than `max` arrays and objects. Scalars inside a
/// container are counted in place, so a flat value allocates nothing.
fn measure(value: &Value, max: usize, string_len: impl Fn(&str) -> usize + Copy) -> Option<usize> {
    let mut bytes = 0usize;
    let mut stack: Vec<(&Value, usize)> = Vec::new();
    let mut next = Some((value, 0));
    while let Some((value, above)) = next.take().or_else(|| stack.pop()) {
        let depth = above + 1;
        let count = match value {
            Value::Array(items) => {
                if depth > max {
                    return None;
                }
                for item in items {
                    bytes = bytes.saturating_add(item_len(item, depth, &mut stack, string_len));
                }
                items.len()
            }
            Value::Object(map) => {
                if depth > max {
                    return None;
                }
                for (key, item) in map {
                    // The key and its colon.
                    let key = string_len(key) + 1;
                    let item = item_len(item, depth, &mut stack, string_len);
                    bytes = bytes.saturating_add(key.saturating_add(item));
                }
                map.len()
            }
            scalar => {
                bytes = bytes.saturating_add(scalar_len(scalar, string_len));
                continue;
            }
        };
        // The brackets, and a comma between two items.
        bytes = bytes.saturating_add(2 + count.saturating_sub(1));
    }
    Some(bytes)
}

/// The size of an item at `depth`: a scalar's now, a container's later,
/// when it is taken from the `stack`.
fn item_len<'a>(
    item: &'a Value,
    depth: usize,
    stack: &mut Vec<(&'a Value, usize)>,
    string_len: impl Fn(&str) -> usize,
) -> usize {
    match item {
        Value::Array(_) | Value::Object(_) => {
            stack.push((item, depth));
            0
        }
        scalar => scalar_len(scalar, string_len),
    }
}

/// The compact JSON size of a scalar (an array or object counts nothing),
/// its strings' as `string_len` counts them.
fn scalar_len(value: &Value, string_len: impl Fn(&str) -> usize) -> usize {
    match value {
        Value::Null | Value::Bool(true) => 4,
        Value::Bool(false) => 5,
        Value::Number(number) => {
            if let Some(whole) = number.as_u64() {
                return digits(whole);
            }
            if let Some(whole) = number.as_i64() {
                return 1 + digits(whole.unsigned_abs());
            }
            let mut counter = Counter {
                left: usize::MAX,
                over: false,
            };
            // Writing to the counter cannot fail below `usize::MAX` bytes.
            let _ = write!(counter, "{number}");
            usize::MAX - counter.left
        }
        Value::String(text) => string_len(text),
        Value::Array(_) | Value::Object(_) => 0,
    }
}

/// How many decimal digits `number` has.
fn digits(number: u64) -> usize {
    number.checked_ilog10().map_or(1, |log| log as usize + 1)
}

/// The most `text` can take as a JSON string: its quotes, and six bytes
/// (`\u001f`) a byte.
fn most_string_len(text: &str) -> usize {
    text.len().saturating_mul(6).saturating_add(2)
}

/// The size of `text` as a JSON string: its quotes, and each byte that
/// needs it escaped, `\"` or `\n` in two bytes, other control characters
/// in six (`\u001f`).
fn string_len(text: &str) -> usize {
    let escapes: usize = text
        .bytes()
        .map(|byte| match byte {
            b'"' | b'\\' | b'\n' | b'\r' | b'\t' | 0x08 | 0x0c => 1,
            0..0x20 => 5,
            _ => 0,
        })
        .sum();
    text.len().saturating_add(escapes).saturating_add(2)
}

/// Whether `value` nests more than `max` arrays and objects.
#[cfg(test)]
fn depth_exceeds(value: &Value, max: usize) -> bool {
    measure(value, max, most_string_len).is_none()
}

/// Drops `value` without recursion: serde_json's own drop recurses once per
/// level, and a value thousands of levels deep overflows a thread's stack.
pub(crate) fn drop_deep(value: Value) {
    let mut stack = vec![value];
    while let Some(value) = stack.pop() {
        match value {
            Value::Array(items) => stack.extend(items),
            Value::Object(map) => stack.extend(map.into_iter().map(|(_, value)| value)),
            _ => {}
        }
    }
}

/// Counts bytes written, failing once past the limit.
struct Counter {
    left: usize,
    over: bool,
}

impl io::Write for Counter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self.left.checked_sub(buf.len()) {
            Some(left) => {
                self.left = left;
                Ok(buf.len())
            }
            None => {
                self.over = true;
                Err(io::Error::other("over the size limit"))
            }
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn nested(depth: usize) -> Value {
        let mut value = Value::Null;
        for _ in 0..depth {
            value = json!([value]);
        }
        value
    }

    #[test]
    fn depth_counts_arrays_and_objects() {
        assert!(!depth_exceeds(&json!(1), 0));
        assert!(depth_exceeds(&json!({}), 0));
        assert!(!depth_exceeds(&json!({ "a": [1] }), 2));
        assert!(depth_exceeds(&json!({ "a": [[1]] }), 2));
        assert!(!depth_exceeds(&nested(64), 64));
        assert!(depth_exceeds(&nested(65), 64));
    }

    #[test]
    fn the_measured_size_is_the_compact_json_size() {
        for value in [
            json!(null),
            json!(true),
            json!(false),
            json!(-12),
            json!(1.5e300),
            json!(0.1),
            json!(u64::MAX),
            json!("plain"),
            json!("quote \" backslash \\ newline \n tab \t bell \u{7} é 😀"),
            json!([]),
            json!({}),
            json!([1, [2, [3, {}]], "x"]),
            json!({ "a\"b": [null, { "c": "d\u{1}" }], "e": 1 }),
        ] {
            let len = serde_json::to_string(&value).unwrap().len();
            assert_eq!(measure(&value, 64, string_len), Some(len), "{value}");
        }
    }

    #[test]
    fn size_is_compact_json_bytes() {
        let value = json!({ "a": "xyz" });
        let len = serde_json::to_string(&value).unwrap().len();
        assert_eq!(check(&value, 64, len), Ok(()));
        assert_eq!(
            check(&value, 64, len - 1),
            Err(Exceeded::Size { limit: len - 1 })
        );
    }

    #[test]
    fn a_lone_string_is_held_to_its_exact_size_near_the_limit() {
        // Plain text, of every length around the limit, and text that is
        // all escapes, which is six bytes a byte as JSON.
        for text in ["abcdefgh".to_owned(), "\n".repeat(4), "\u{1}".repeat(3)] {
            let value = Value::String(text);
            let len = serde_json::to_string(&value).unwrap().len();
            for limit in 0..len + 8 {
                let expected = if len <= limit {
                    Ok(())
                } else {
                    Err(Exceeded::Size { limit })
                };
                assert_eq!(check(&value, 0, limit), expected, "{value} within {limit}");
            }
        }
    }

    #[test]
    fn very_deep_values_are_measured_and_dropped_on_a_small_stack() {
        // 64 KiB of stack: a recursive walk or drop of 100,000 levels would
        // overflow it many times over.
        let thread = std::thread::Builder::new()
            .stack_size(64 * 1024)
            .spawn(|| {
                let mut value = Value::Null;
                for _ in 0..100_000 {
                    let mut map = serde_json::Map::new();
                    map.insert("a".into(), value);
                    value = Value::Object(map);
                }
                let checked = check(&value, 64, usize::MAX);
                drop_deep(value);
                checked
            })
            .unwrap();
        assert_eq!(thread.join().unwrap(), Err(Exceeded::Depth { limit: 64 }));
    }
}
