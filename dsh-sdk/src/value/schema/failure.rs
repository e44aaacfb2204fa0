//! A typed failure as a result carries it: `kind`, the variant, and `data`,
//! what the variant holds. For an error enum serde tags externally (the
//! default: a unit variant as its name, any other as `{"Variant": …}`), the
//! failure schema a tool exports describes that pair, one branch per
//! variant, and a failure's `data` is the variant's content, never wrapped
//! in its name a second time. Any other error type's schema and value are
//! kept as they are.

use serde_json::{Map, Value, json};

/// A failure schema: the error type's own when it is not an externally
/// tagged enum, else one branch per variant.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct FailureShape {
    /// The schema a tool exports.
    pub(crate) schema: Value,
    /// Whether values are externally tagged variants: then `kind` and
    /// `data` are read apart ([`kind_and_data`](Self::kind_and_data)).
    tagged: bool,
}

impl FailureShape {
    /// The shape of failures whose type has the schema `schema` (as
    /// `schemars` writes it for serialization).
    pub(crate) fn of(schema: Value) -> Self {
        match variants(&schema) {
            Some(branches) => {
                let mut shaped = Map::new();
                if let Value::Object(root) = &schema {
                    // `$defs` and a description stay at the root, where the
                    // branches' `$ref`s find them.
                    for key in ["description", "$defs"] {
                        if let Some(value) = root.get(key) {
                            shaped.insert(key.to_owned(), value.clone());
                        }
                    }
                }
                shaped.insert("oneOf".to_owned(), Value::Array(branches));
                FailureShape {
                    schema: Value::Object(shaped),
                    tagged: true,
                }
            }
            None => FailureShape {
                schema,
                tagged: false,
            },
        }
    }

    /// The variant and what it holds, for a failure serialized as `value`:
    /// for a tagged enum, a unit variant's name with no data, or the one
    /// key of `{"Variant": data}`; for anything else, no kind and the whole
    /// value.
    pub(crate) fn kind_and_data(&self, value: Value) -> (Option<String>, Option<Value>) {
        if !self.tagged {
            return (None, Some(value));
        }
        match value {
            Value::String(variant) => (Some(variant), None),
            Value::Object(map) if map.len() == 1 => {
                let (variant, data) = map.into_iter().next().expect("one entry");
                (Some(variant), Some(data))
            }
            other => (None, Some(other)),
        }
    }
}

/// The branches of an externally tagged enum's schema, each as
/// `{"kind": variant, "data": …}`; `None` when the schema is not one (a
/// struct, an internally or adjacently tagged or untagged enum).
fn variants(schema: &Value) -> Option<Vec<Value>> {
    let root = schema.as_object()?;
    // Every variant a unit: `{"type": "string", "enum": [...]}`.
    if let Some(Value::Array(names)) = root.get("enum") {
        return names.iter().map(unit).collect();
    }
    let Some(Value::Array(members)) = root.get("oneOf") else {
        return None;
    };
    let mut branches = Vec::new();
    for member in members {
        let member = member.as_object()?;
        if let Some(Value::String(_)) = member.get("const") {
            let mut branch = unit(member.get("const")?)?;
            describe(&mut branch, member);
            branches.push(branch);
        } else if let Some(Value::Array(names)) = member.get("enum") {
            for name in names {
                let mut branch = unit(name)?;
                describe(&mut branch, member);
                branches.push(branch);
            }
        } else {
            let properties = member.get("properties")?.as_object()?;
            let required = member.get("required")?.as_array()?;
            let (variant, data) = properties.iter().next()?;
            if properties.len() != 1 || required.len() != 1 || required[0] != *variant {
                return None;
            }
            let mut branch = json!({
                "type": "object",
                "properties": { "kind": { "const": variant }, "data": data },
                "required": ["kind", "data"],
                "additionalProperties": false,
            });
            describe(&mut branch, member);
            branches.push(branch);
        }
    }
    (!branches.is_empty()).then_some(branches)
}

/// The branch of a unit variant named `name`.
fn unit(name: &Value) -> Option<Value> {
    let name = name.as_str()?;
    Some(json!({
        "type": "object",
        "properties": { "kind": { "const": name } },
        "required": ["kind"],
        "additionalProperties": false,
    }))
}

/// Carries the variant's doc comment over to its branch.
fn describe(branch: &mut Value, member: &Map<String, Value>) {
    if let (Some(description), Value::Object(branch)) = (member.get("description"), branch) {
        branch.insert("description".to_owned(), description.clone());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use schemars::JsonSchema;
    use serde::Serialize;

    /// How an edit fails.
    #[derive(Serialize, JsonSchema)]
    #[allow(dead_code)]
    enum EditError {
        /// The text is not there.
        NoMatch { old: String },
        /// The file is gone.
        Gone,
        /// Too many matches.
        TooMany(u32),
    }

    #[derive(Serialize, JsonSchema)]
    #[allow(dead_code)]
    enum Plain {
        Offline,
        Busy,
    }

    #[derive(Serialize, JsonSchema)]
    #[serde(tag = "type")]
    #[allow(dead_code)]
    enum Internal {
        Denied { why: String },
    }

    #[derive(Serialize, JsonSchema)]
    struct One {
        path: String,
    }

    fn shape<T: JsonSchema>() -> FailureShape {
        FailureShape::of(crate::value::schema::output_schema::<T>())
    }

    fn validates(schema: &Value, instance: &Value) -> bool {
        crate::value::schema::validator::Validator::new(schema)
            .unwrap()
            .is_valid(instance)
    }

    #[test]
    fn an_externally_tagged_enum_is_kind_and_data() {
        let shape = shape::<EditError>();
        let value = serde_json::to_value(EditError::NoMatch { old: "x".into() }).unwrap();
        let (kind, data) = shape.kind_and_data(value);
        assert_eq!(kind.as_deref(), Some("NoMatch"));
        assert_eq!(data, Some(json!({ "old": "x" })));
        let failure = json!({ "kind": kind, "data": data });
        assert!(validates(&shape.schema, &failure), "{}", shape.schema);

        let (kind, data) = shape.kind_and_data(serde_json::to_value(EditError::Gone).unwrap());
        assert_eq!((kind.as_deref(), data), (Some("Gone"), None));
        assert!(validates(&shape.schema, &json!({ "kind": "Gone" })));

        let (kind, data) =
            shape.kind_and_data(serde_json::to_value(EditError::TooMany(3)).unwrap());
        assert_eq!(
            (kind.as_deref(), data.clone()),
            (Some("TooMany"), Some(json!(3)))
        );
        assert!(validates(
            &shape.schema,
            &json!({ "kind": "TooMany", "data": 3 })
        ));

        // The wrong data for a variant, or an unknown variant, is refused.
        assert!(!validates(
            &shape.schema,
            &json!({ "kind": "NoMatch", "data": 3 })
        ));
        assert!(!validates(&shape.schema, &json!({ "kind": "Nope" })));
        // Each branch keeps its variant's doc comment.
        assert!(shape.schema.to_string().contains("The text is not there."));
    }

    #[test]
    fn an_enum_of_units_only_is_kinds_without_data() {
        let shape = shape::<Plain>();
        let (kind, data) = shape.kind_and_data(serde_json::to_value(Plain::Busy).unwrap());
        assert_eq!((kind.as_deref(), data), (Some("Busy"), None));
        assert!(validates(&shape.schema, &json!({ "kind": "Offline" })));
        assert!(!validates(&shape.schema, &json!({ "kind": "Asleep" })));
    }

    #[test]
    fn other_types_keep_their_schema_and_whole_value() {
        for (shape, value) in [
            (shape::<One>(), json!({ "path": "a" })),
            (
                shape::<Internal>(),
                json!({ "type": "Denied", "why": "no" }),
            ),
        ] {
            assert!(!shape.tagged);
            assert_eq!(shape.kind_and_data(value.clone()), (None, Some(value)));
        }
        // A struct of one field is not a variant.
        assert_eq!(
            shape::<One>().schema,
            crate::value::schema::output_schema::<One>()
        );
    }
}
