//! Whether a tool's output reads back as it is written.
//!
//! The registry serializes a tool's output to JSON and reads it back with the
//! output type's `Deserialize` (for renders, presents and replays). serde
//! lets the two disagree: `#[serde(rename(serialize = "…"))]` alone, a
//! `rename_all(serialize = "…")`, `skip_serializing_if` without `default`,
//! `skip_deserializing`. `#[derive(ToolOutput)]` refuses those where it sees
//! them; for a type deriving serde's traits directly, the registry compares
//! the type's schema as written (serialize mode) with its schema as read
//! (deserialize mode), and refuses the tool at the first place they
//! disagree in a way that loses or refuses what was written.

use serde_json::{Map, Value};

/// How deep the two schemas are walked; a schema deeper than this is
/// compared down to here.
const MAX_DEPTH: usize = 64;

/// Where the output's serialized form and its deserialized form disagree.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ReadBackProblem {
    /// A field or variant is written under one name and read under another.
    #[error(
        "{place} writes `{written}` where reading it back expects `{read}`: give it one name both ways, `#[serde(rename = \"…\")]` (or `rename_all = \"…\"`) rather than a `serialize`/`deserialize` pair"
    )]
    Renamed {
        /// The type, or the path of fields from the output, holding it.
        place: String,
        /// The name written.
        written: String,
        /// The name read.
        read: String,
    },
    /// A field is written, but reading the value back ignores it.
    #[error(
        "{place} writes `{name}`, which reading it back ignores: read it under the name it is written (no `rename(serialize = \"…\")` alone, no `skip_deserializing`)"
    )]
    NotRead {
        /// The type, or the path of fields from the output, holding it.
        place: String,
        /// The field as written.
        name: String,
    },
    /// A field is required when read back, but never written.
    #[error(
        "{place} needs `{name}` to read it back, which it never writes: write the field under that name (no `rename(deserialize = \"…\")` alone, no `skip_serializing`), or give it `#[serde(default)]`"
    )]
    NeverWritten {
        /// The type, or the path of fields from the output, holding it.
        place: String,
        /// The field as read.
        name: String,
    },
    /// A field is required when read back, but may be left out when written.
    #[error(
        "{place} needs `{name}` to read it back, which it may leave out when writing (`skip_serializing_if`): add `#[serde(default)]` to the field"
    )]
    MaybeNotWritten {
        /// The type, or the path of fields from the output, holding it.
        place: String,
        /// The field.
        name: String,
    },
    /// A value (a unit variant's name) is written that reading back refuses.
    #[error(
        "{place} writes {value}, which reading it back refuses: give each variant one name both ways, `#[serde(rename = \"…\")]` (or `rename_all = \"…\"`) rather than a `serialize`/`deserialize` pair"
    )]
    ValueNotRead {
        /// The type, or the path of fields from the output, holding it.
        place: String,
        /// The value written, as JSON.
        value: String,
    },
}

/// The first place where `written` (the output type's schema in serialize
/// mode) and `read` (in deserialize mode) disagree, or `None` when every
/// value written reads back. `accepted` are the names the type's own
/// `Deserialize` takes at the top level, aliases included (which no schema
/// shows): a name written there that one of them reads is read back.
pub(crate) fn problem(written: &Value, read: &Value, accepted: &[&str]) -> Option<ReadBackProblem> {
    compare(written, read, &Place::root(), 0, accepted)
}

/// A type's name, or the output, and the fields followed from it.
#[derive(Clone)]
struct Place {
    owner: String,
    fields: Vec<String>,
}

impl Place {
    fn root() -> Self {
        Place {
            owner: "the output".to_owned(),
            fields: Vec::new(),
        }
    }

    fn def(name: &str) -> Self {
        Place {
            owner: format!("`{name}`"),
            fields: Vec::new(),
        }
    }

    fn field(&self, name: &str) -> Self {
        let mut place = self.clone();
        place.fields.push(name.to_owned());
        place
    }

    fn describe(&self) -> String {
        if self.fields.is_empty() {
            return self.owner.clone();
        }
        format!("{}'s field `{}`", self.owner, self.fields.join("."))
    }
}

fn compare(
    written: &Value,
    read: &Value,
    place: &Place,
    depth: usize,
    accepted: &[&str],
) -> Option<ReadBackProblem> {
    if depth > MAX_DEPTH {
        return None;
    }
    let (Value::Object(written), Value::Object(read)) = (written, read) else {
        return None;
    };
    if let Some(problem) = compare_fields(written, read, place, accepted) {
        return Some(problem);
    }
    if let Some(problem) = compare_values(written, read, place) {
        return Some(problem);
    }
    let (empty_w, empty_r) = (Map::new(), Map::new());
    let written_props = object(written, "properties").unwrap_or(&empty_w);
    let read_props = object(read, "properties").unwrap_or(&empty_r);
    for (name, schema) in written_props {
        if let Some(other) = read_props.get(name)
            && let Some(problem) = compare(schema, other, &place.field(name), depth + 1, &[])
        {
            return Some(problem);
        }
    }
    if let (Some(written_defs), Some(read_defs)) = (object(written, "$defs"), object(read, "$defs"))
    {
        for (name, schema) in written_defs {
            if let Some(other) = read_defs.get(name)
                && let Some(problem) = compare(schema, other, &Place::def(name), depth + 1, &[])
            {
                return Some(problem);
            }
        }
    }
    for key in ["items", "additionalProperties", "not"] {
        if let (Some(a), Some(b)) = (written.get(key), read.get(key))
            && let Some(problem) = compare(a, b, place, depth + 1, &[])
        {
            return Some(problem);
        }
    }
    for key in ["oneOf", "anyOf", "allOf", "prefixItems"] {
        if let (Some(Value::Array(a)), Some(Value::Array(b))) = (written.get(key), read.get(key))
            && a.len() == b.len()
        {
            for (a, b) in a.iter().zip(b) {
                if let Some(problem) = compare(a, b, place, depth + 1, &[]) {
                    return Some(problem);
                }
            }
        }
    }
    None
}

/// The names an object is written and read under, and which are required.
fn compare_fields(
    written: &Map<String, Value>,
    read: &Map<String, Value>,
    place: &Place,
    accepted: &[&str],
) -> Option<ReadBackProblem> {
    let written_props = object(written, "properties");
    let read_props = object(read, "properties");
    if written_props.is_none() && read_props.is_none() {
        return None;
    }
    let is_written = |name: &str| written_props.is_some_and(|props| props.contains_key(name));
    let is_read = |name: &str| read_props.is_some_and(|props| props.contains_key(name));
    let written_required = names(written, "required");
    let read_required = names(read, "required");
    let not_read: Vec<&str> = (written_props.into_iter().flatten())
        .map(|(name, _)| name.as_str())
        .filter(|name| !is_read(name) && !accepted.contains(name))
        .collect();
    let not_written: Vec<&str> = (read_props.into_iter().flatten())
        .map(|(name, _)| name.as_str())
        .filter(|name| !is_written(name))
        .collect();
    // One name out each way: the same field, renamed one way only.
    if let (Some(written), Some(read)) = (not_read.first(), not_written.first()) {
        return Some(ReadBackProblem::Renamed {
            place: place.describe(),
            written: (*written).to_owned(),
            read: (*read).to_owned(),
        });
    }
    // A name written that the type reads by an alias (which no schema
    // shows) stands for a field the schema reads under its own name.
    let aliased = (written_props.into_iter().flatten())
        .filter(|(name, _)| !is_read(name) && accepted.contains(&name.as_str()))
        .count();
    let never_written: Vec<&&str> = read_required
        .iter()
        .filter(|name| !is_written(name))
        .collect();
    if let Some(name) = never_written
        .first()
        .filter(|_| never_written.len() > aliased)
    {
        return Some(ReadBackProblem::NeverWritten {
            place: place.describe(),
            name: (**name).to_owned(),
        });
    }
    if let Some(name) = not_read.first() {
        return Some(ReadBackProblem::NotRead {
            place: place.describe(),
            name: (*name).to_owned(),
        });
    }
    if let Some(name) = read_required
        .iter()
        .find(|name| is_written(name) && !written_required.contains(name))
    {
        return Some(ReadBackProblem::MaybeNotWritten {
            place: place.describe(),
            name: (*name).to_owned(),
        });
    }
    None
}

/// The values written (`enum`, `const`) against those read.
fn compare_values(
    written: &Map<String, Value>,
    read: &Map<String, Value>,
    place: &Place,
) -> Option<ReadBackProblem> {
    let refused = |value: &Value| ReadBackProblem::ValueNotRead {
        place: place.describe(),
        value: value.to_string(),
    };
    if let (Some(Value::Array(written)), Some(Value::Array(read))) =
        (written.get("enum"), read.get("enum"))
        && let Some(value) = written.iter().find(|value| !read.contains(value))
    {
        return Some(refused(value));
    }
    if let (Some(written), Some(read)) = (written.get("const"), read.get("const"))
        && written != read
    {
        return Some(refused(written));
    }
    None
}

fn object<'a>(map: &'a Map<String, Value>, key: &str) -> Option<&'a Map<String, Value>> {
    map.get(key).and_then(Value::as_object)
}

fn names<'a>(map: &'a Map<String, Value>, key: &str) -> Vec<&'a str> {
    (map.get(key).and_then(Value::as_array).into_iter().flatten())
        .filter_map(Value::as_str)
        .collect()
}
