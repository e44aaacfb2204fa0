//! A schema document compiled to an arena of nodes, one per subschema
//! reached: each keyword read once into the form the checks use, and each
//! `$ref` and `$dynamicRef` resolved to the node it names (a reference may
//! lead back to an ancestor: the arena holds cycles without `Rc`).
//!
//! References are resolved as JSON Schema 2020-12 resolves them: against
//! the base URI of the resource they sit in (`$id`), to a JSON Pointer
//! fragment, a plain-name `$anchor` or `$dynamicAnchor`, or a resource by its
//! `$id`. A schema's references stay inside it: nothing is fetched.

use std::collections::{BTreeMap, HashMap};

use regex::Regex;
use serde_json::Value;

use super::format::Format;
use super::meta::TYPES;
use crate::value::schema::pointer::escape;

/// An index into [`Compiled::nodes`].
pub(crate) type NodeId = usize;

/// The base URI of a document without an `$id`.
const DEFAULT_BASE: &str = "json-schema:///";

/// A compiled subschema.
#[derive(Debug)]
pub(crate) enum Node {
    /// `true` or `false`.
    Bool(bool),
    /// An object schema.
    Object(Box<Keywords>),
}

/// The keywords of an object schema, as the checks read them.
#[derive(Debug, Default)]
pub(crate) struct Keywords {
    /// Which kinds of keyword it has, so that an evaluation skips the rest
    /// without reading each slot.
    pub(crate) present: Present,
    /// Where the schema is in the document: the prefix of its errors' schema paths.
    pub(crate) location: String,
    /// Whether it starts a resource (the document root or an `$id`): it
    /// enters the dynamic scope while it is evaluated.
    pub(crate) resource: bool,
    /// The `$dynamicAnchor`s of the resource it starts, by name.
    pub(crate) dynamic_anchors: Vec<(String, NodeId)>,
    /// The `type`s allowed, a bit per entry of [`TYPES`].
    pub(crate) types: Option<u8>,
    pub(crate) enumeration: Option<Vec<Value>>,
    pub(crate) constant: Option<Value>,
    pub(crate) multiple_of: Option<serde_json::Number>,
    pub(crate) maximum: Option<serde_json::Number>,
    pub(crate) exclusive_maximum: Option<serde_json::Number>,
    pub(crate) minimum: Option<serde_json::Number>,
    pub(crate) exclusive_minimum: Option<serde_json::Number>,
    pub(crate) max_length: Option<u64>,
    pub(crate) min_length: Option<u64>,
    pub(crate) pattern: Option<(Regex, String)>,
    pub(crate) format: Option<(Format, String)>,
    pub(crate) max_items: Option<u64>,
    pub(crate) min_items: Option<u64>,
    pub(crate) unique_items: bool,
    pub(crate) max_contains: Option<u64>,
    pub(crate) min_contains: Option<u64>,
    pub(crate) max_properties: Option<u64>,
    pub(crate) min_properties: Option<u64>,
    pub(crate) required: Vec<String>,
    pub(crate) dependent_required: Vec<(String, Vec<String>)>,
    pub(crate) properties: BTreeMap<String, NodeId>,
    pub(crate) pattern_properties: Vec<(Regex, NodeId)>,
    pub(crate) additional_properties: Option<NodeId>,
    pub(crate) property_names: Option<NodeId>,
    pub(crate) dependent_schemas: Vec<(String, NodeId)>,
    pub(crate) prefix_items: Vec<NodeId>,
    pub(crate) items: Option<NodeId>,
    pub(crate) contains: Option<NodeId>,
    pub(crate) all_of: Vec<NodeId>,
    pub(crate) any_of: Vec<NodeId>,
    pub(crate) one_of: Vec<NodeId>,
    /// `not`, with the subschema as written, which its message quotes.
    pub(crate) not: Option<(NodeId, Value)>,
    pub(crate) if_then_else: Option<(NodeId, Option<NodeId>, Option<NodeId>)>,
    pub(crate) reference: Option<Reference>,
    pub(crate) dynamic_reference: Option<DynamicRef>,
    pub(crate) unevaluated_properties: Option<NodeId>,
    pub(crate) unevaluated_items: Option<NodeId>,
}

/// The kinds of keyword a schema has: each applies to some values only.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Present {
    /// `enum` or `const`.
    pub(crate) choices: bool,
    /// A keyword on numbers.
    pub(crate) number: bool,
    /// A keyword on strings.
    pub(crate) string: bool,
    /// A keyword on arrays, `unevaluatedItems` aside.
    pub(crate) array: bool,
    /// A keyword on objects, `unevaluatedProperties` aside.
    pub(crate) object: bool,
    /// An in-place applicator: `$ref`, `$dynamicRef`, `allOf`, `anyOf`,
    /// `oneOf`, `not`, `if`, `dependentSchemas`.
    pub(crate) applicators: bool,
    /// Nothing but `type` (and annotations): a value of the type is valid
    /// without anything else read.
    pub(crate) type_only: bool,
}

impl Keywords {
    /// Which kinds of keyword the schema has, read from its slots.
    fn present(&self) -> Present {
        let mut present = Present {
            choices: self.enumeration.is_some() || self.constant.is_some(),
            number: self.multiple_of.is_some()
                || self.maximum.is_some()
                || self.exclusive_maximum.is_some()
                || self.minimum.is_some()
                || self.exclusive_minimum.is_some(),
            string: self.max_length.is_some()
                || self.min_length.is_some()
                || self.pattern.is_some()
                || self.format.is_some(),
            array: self.max_items.is_some()
                || self.min_items.is_some()
                || self.unique_items
                || self.max_contains.is_some()
                || self.min_contains.is_some()
                || !self.prefix_items.is_empty()
                || self.items.is_some()
                || self.contains.is_some(),
            object: self.max_properties.is_some()
                || self.min_properties.is_some()
                || !self.required.is_empty()
                || !self.dependent_required.is_empty()
                || !self.properties.is_empty()
                || !self.pattern_properties.is_empty()
                || self.additional_properties.is_some()
                || self.property_names.is_some(),
            applicators: self.reference.is_some()
                || self.dynamic_reference.is_some()
                || !self.all_of.is_empty()
                || !self.any_of.is_empty()
                || !self.one_of.is_empty()
                || self.not.is_some()
                || self.if_then_else.is_some()
                || !self.dependent_schemas.is_empty(),
            type_only: false,
        };
        present.type_only = self.types.is_some()
            && !(present.choices
                || present.number
                || present.string
                || present.array
                || present.object
                || present.applicators
                || self.reads_annotations());
        present
    }

    /// The schema path of one of its keywords, for an error.
    pub(crate) fn at(&self, keyword: &str) -> String {
        format!("{}/{keyword}", self.location)
    }

    /// Whether an evaluation of this schema must know which properties and
    /// items its subschemas evaluated.
    pub(crate) fn reads_annotations(&self) -> bool {
        self.unevaluated_properties.is_some() || self.unevaluated_items.is_some()
    }
}

/// A `$ref`: the subschema it leads to, and the resource that subschema
/// is in, which enters the dynamic scope with it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Reference {
    pub(crate) target: NodeId,
    pub(crate) resource: NodeId,
}

/// A `$dynamicRef`: where it leads statically, and the anchor name that
/// sends it to the outermost resource in the dynamic scope that declares it.
#[derive(Debug)]
pub(crate) struct DynamicRef {
    pub(crate) to: Reference,
    pub(crate) anchor: Option<String>,
}

/// Why a well-formed schema cannot be compiled.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum BuildError {
    /// A `$ref` or `$dynamicRef` names nothing in the document.
    #[error(
        "{pointer}: `{reference}` resolves to nothing in this schema (references are not fetched)"
    )]
    Unresolved { pointer: String, reference: String },
    /// A `$ref`, `$dynamicRef` or `$id` is not a URI reference.
    #[error("{}: `{reference}` is not a URI reference: {reason}", at(pointer))]
    BadUri {
        pointer: String,
        reference: String,
        reason: String,
    },
    /// A `pattern` or `patternProperties` key is not a regular expression.
    #[error(
        "{}: {pattern:?} is not a regular expression this validator supports: {reason}",
        at(pointer)
    )]
    BadPattern {
        pointer: String,
        pattern: String,
        reason: String,
    },
}

/// A pointer as messages write it: `/` for the root.
fn at(pointer: &str) -> &str {
    if pointer.is_empty() { "/" } else { pointer }
}

/// The arena and its root.
#[derive(Debug)]
pub(crate) struct Compiled {
    pub(crate) nodes: Vec<Node>,
    pub(crate) root: NodeId,
    /// Whether the document declares a `$dynamicAnchor`: only then does an
    /// evaluation keep its dynamic scope (which costs an allocation).
    pub(crate) scoped: bool,
}

/// Where the subschemas are and what their URIs name.
#[derive(Default)]
struct Index {
    /// A resource's base URI to its root's pointer.
    resources: HashMap<String, String>,
    /// `base#name` of every `$anchor` and `$dynamicAnchor` to its pointer.
    anchors: HashMap<String, String>,
    /// The `$dynamicAnchor`s: resource root pointer, name, pointer.
    dynamic: Vec<(String, String, String)>,
    /// A subschema's pointer to the base URI it is read against.
    bases: HashMap<String, String>,
    /// The pointers that start a resource.
    roots: Vec<String>,
}

/// Compiles `schema`, already checked against the dialect.
pub(crate) fn compile(schema: &Value) -> Result<Compiled, BuildError> {
    let mut index = Index::default();
    scan(schema, String::new(), DEFAULT_BASE.to_owned(), &mut index)?;
    let mut compiler = Compiler {
        document: schema,
        index,
        nodes: Vec::new(),
        at: HashMap::new(),
        pending: Vec::new(),
    };
    let root = compiler.node(String::new())?;
    compiler.drain()?;
    // Every resource's dynamic anchors, compiled so that a `$dynamicRef`
    // can jump to them from wherever the scope leads.
    let dynamic = std::mem::take(&mut compiler.index.dynamic);
    let scoped = !dynamic.is_empty();
    for (resource, name, pointer) in dynamic {
        let target = compiler.node(pointer)?;
        let resource = compiler.node(resource)?;
        compiler.drain()?;
        if let Node::Object(keywords) = &mut compiler.nodes[resource] {
            keywords.dynamic_anchors.push((name, target));
        }
    }
    for resource in std::mem::take(&mut compiler.index.roots) {
        let id = compiler.node(resource)?;
        compiler.drain()?;
        if let Node::Object(keywords) = &mut compiler.nodes[id] {
            keywords.resource = true;
        }
    }
    Ok(Compiled {
        nodes: compiler.nodes,
        root,
        scoped,
    })
}

/// The keywords whose value is one subschema.
const ONE: [&str; 11] = [
    "items",
    "contains",
    "additionalProperties",
    "propertyNames",
    "not",
    "if",
    "then",
    "else",
    "unevaluatedItems",
    "unevaluatedProperties",
    "contentSchema",
];
/// The keywords whose value maps names to subschemas.
const MAPS: [&str; 5] = [
    "$defs",
    "definitions",
    "properties",
    "patternProperties",
    "dependentSchemas",
];
/// The keywords whose value is an array of subschemas.
const LISTS: [&str; 4] = ["prefixItems", "allOf", "anyOf", "oneOf"];

/// Records every subschema's base URI, and the resources and anchors.
fn scan(value: &Value, pointer: String, base: String, index: &mut Index) -> Result<(), BuildError> {
    let Value::Object(map) = value else {
        index.bases.insert(pointer, base);
        return Ok(());
    };
    let mut base = base;
    if let Some(Value::String(id)) = map.get("$id") {
        let resolved = resolve(id, &base, &pointer)?;
        base = resolved.split('#').next().unwrap_or_default().to_owned();
        index.resources.insert(base.clone(), pointer.clone());
        index.roots.push(pointer.clone());
    } else if pointer.is_empty() {
        index.resources.insert(base.clone(), pointer.clone());
        index.roots.push(pointer.clone());
    }
    if let Some(Value::String(name)) = map.get("$anchor") {
        index
            .anchors
            .insert(format!("{base}#{name}"), pointer.clone());
    }
    if let Some(Value::String(name)) = map.get("$dynamicAnchor") {
        index
            .anchors
            .insert(format!("{base}#{name}"), pointer.clone());
        let resource = index.resources.get(&base).cloned().unwrap_or_default();
        index
            .dynamic
            .push((resource, name.clone(), pointer.clone()));
    }
    for key in ONE {
        if let Some(sub) = map.get(key) {
            scan(sub, format!("{pointer}/{key}"), base.clone(), index)?;
        }
    }
    for key in MAPS {
        if let Some(Value::Object(subs)) = map.get(key) {
            for (name, sub) in subs {
                scan(
                    sub,
                    format!("{pointer}/{key}/{}", escape(name)),
                    base.clone(),
                    index,
                )?;
            }
        }
    }
    for key in LISTS {
        if let Some(Value::Array(subs)) = map.get(key) {
            for (at, sub) in subs.iter().enumerate() {
                scan(sub, format!("{pointer}/{key}/{at}"), base.clone(), index)?;
            }
        }
    }
    index.bases.insert(pointer, base);
    Ok(())
}

/// `reference` resolved against `base`, as an absolute IRI.
fn resolve(reference: &str, base: &str, pointer: &str) -> Result<String, BuildError> {
    let bad = |reason: String| BuildError::BadUri {
        pointer: pointer.to_owned(),
        reference: reference.to_owned(),
        reason,
    };
    let parsed = fluent_uri::IriRef::parse(reference).map_err(|error| bad(error.to_string()))?;
    let base = fluent_uri::Iri::parse(base).map_err(|error| bad(error.to_string()))?;
    let resolved = parsed
        .resolve_against(&base)
        .map_err(|error| bad(error.to_string()))?;
    Ok(resolved.as_str().to_owned())
}

/// `%XX` escapes decoded, as a URI fragment holds a JSON Pointer.
fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut at = 0;
    while at < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        if bytes[at] == b'%'
            && let (Some(high), Some(low)) = (
                bytes.get(at + 1).copied().and_then(hex),
                bytes.get(at + 2).copied().and_then(hex),
            )
        {
            out.push((high * 16 + low) as u8);
            at += 3;
        } else {
            out.push(bytes[at]);
            at += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

struct Compiler<'s> {
    document: &'s Value,
    index: Index,
    nodes: Vec<Node>,
    at: HashMap<String, NodeId>,
    /// Nodes handed out whose keywords are still to compile.
    pending: Vec<(NodeId, String)>,
}

impl Compiler<'_> {
    /// The node of the subschema at `pointer`: its id at once, its
    /// keywords when [`drain`](Self::drain) comes to it. Compiling from a
    /// work list rather than by recursion keeps a long chain of `$ref`s
    /// from exhausting the stack.
    fn node(&mut self, pointer: String) -> Result<NodeId, BuildError> {
        if let Some(id) = self.at.get(&pointer) {
            return Ok(*id);
        }
        let id = self.nodes.len();
        self.nodes.push(Node::Bool(true));
        self.at.insert(pointer.clone(), id);
        self.pending.push((id, pointer));
        Ok(id)
    }

    /// Compiles every node handed out and not compiled yet.
    fn drain(&mut self) -> Result<(), BuildError> {
        while let Some((id, pointer)) = self.pending.pop() {
            let document = self.document;
            let value = document.pointer(&pointer).unwrap_or(&Value::Bool(true));
            self.nodes[id] = match value {
                Value::Object(map) => Node::Object(Box::new(self.keywords(map, pointer)?)),
                Value::Bool(flag) => Node::Bool(*flag),
                // The dialect check refuses these before compiling.
                _ => Node::Bool(true),
            };
        }
        Ok(())
    }

    fn child(&mut self, pointer: &str, key: &str) -> Result<NodeId, BuildError> {
        self.node(format!("{pointer}/{key}"))
    }

    /// The base URI `pointer` is read against: its own, or its nearest
    /// scanned ancestor's (a reference may point into a keyword the scan
    /// does not walk).
    fn base(&self, pointer: &str) -> String {
        let mut at = pointer;
        loop {
            if let Some(base) = self.index.bases.get(at) {
                return base.clone();
            }
            match at.rfind('/') {
                Some(cut) => at = &at[..cut],
                None => return DEFAULT_BASE.to_owned(),
            }
        }
    }

    /// The pointer a reference at `pointer` leads to.
    fn target(&self, reference: &str, pointer: &str) -> Result<String, BuildError> {
        let resolved = resolve(reference, &self.base(pointer), pointer)?;
        let (document, fragment) = match resolved.split_once('#') {
            Some((document, fragment)) => (document, fragment),
            None => (resolved.as_str(), ""),
        };
        let unresolved = || BuildError::Unresolved {
            pointer: pointer.to_owned(),
            reference: reference.to_owned(),
        };
        if fragment.is_empty() || fragment.starts_with('/') {
            let root = self.index.resources.get(document).ok_or_else(unresolved)?;
            let target = format!("{root}{}", percent_decode(fragment));
            if self.document.pointer(&target).is_none() {
                return Err(unresolved());
            }
            Ok(target)
        } else {
            self.index
                .anchors
                .get(&format!("{document}#{fragment}"))
                .cloned()
                .ok_or_else(unresolved)
        }
    }

    /// The node at `pointer`, and the node of the resource it is in.
    fn reference(&mut self, pointer: String) -> Result<Reference, BuildError> {
        let base = self.base(&pointer);
        let root = self.index.resources.get(&base).cloned().unwrap_or_default();
        let target = self.node(pointer)?;
        let resource = self.node(root)?;
        Ok(Reference { target, resource })
    }

    fn keywords(
        &mut self,
        map: &serde_json::Map<String, Value>,
        location: String,
    ) -> Result<Keywords, BuildError> {
        let at = |key: &str| format!("{location}/{key}");
        let mut keywords = Keywords::default();
        let number = |key: &str| match map.get(key) {
            Some(Value::Number(number)) => Some(number.clone()),
            _ => None,
        };
        let count = |key: &str| map.get(key).and_then(Value::as_f64).map(|n| n as u64);
        keywords.types = match map.get("type") {
            Some(Value::String(name)) => Some(type_bit(name)),
            Some(Value::Array(names)) => Some(
                names
                    .iter()
                    .filter_map(Value::as_str)
                    .map(type_bit)
                    .fold(0, |bits, bit| bits | bit),
            ),
            _ => None,
        };
        keywords.enumeration = map.get("enum").and_then(Value::as_array).cloned();
        keywords.constant = map.get("const").cloned();
        keywords.multiple_of = number("multipleOf");
        keywords.maximum = number("maximum");
        keywords.exclusive_maximum = number("exclusiveMaximum");
        keywords.minimum = number("minimum");
        keywords.exclusive_minimum = number("exclusiveMinimum");
        keywords.max_length = count("maxLength");
        keywords.min_length = count("minLength");
        keywords.max_items = count("maxItems");
        keywords.min_items = count("minItems");
        keywords.max_contains = count("maxContains");
        keywords.min_contains = count("minContains");
        keywords.max_properties = count("maxProperties");
        keywords.min_properties = count("minProperties");
        keywords.unique_items = map.get("uniqueItems") == Some(&Value::Bool(true));
        if let Some(Value::String(pattern)) = map.get("pattern") {
            keywords.pattern = Some((regex(pattern, &at("pattern"))?, pattern.clone()));
        }
        if let Some(Value::String(name)) = map.get("format") {
            keywords.format = Format::named(name).map(|format| (format, name.clone()));
        }
        if let Some(Value::Array(names)) = map.get("required") {
            keywords.required = names
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect();
        }
        if let Some(Value::Object(entries)) = map.get("dependentRequired") {
            for (name, needs) in entries {
                let needs = needs.as_array().into_iter().flatten();
                let needs = needs.filter_map(Value::as_str).map(str::to_owned).collect();
                keywords.dependent_required.push((name.clone(), needs));
            }
        }
        if let Some(Value::Object(entries)) = map.get("properties") {
            for name in entries.keys() {
                let id = self.child(&location, &format!("properties/{}", escape(name)))?;
                keywords.properties.insert(name.clone(), id);
            }
        }
        if let Some(Value::Object(entries)) = map.get("patternProperties") {
            for name in entries.keys() {
                let key = format!("patternProperties/{}", escape(name));
                let pattern = regex(name, &at(&key))?;
                keywords
                    .pattern_properties
                    .push((pattern, self.child(&location, &key)?));
            }
        }
        if let Some(Value::Object(entries)) = map.get("dependentSchemas") {
            for name in entries.keys() {
                let id = self.child(&location, &format!("dependentSchemas/{}", escape(name)))?;
                keywords.dependent_schemas.push((name.clone(), id));
            }
        }
        for (key, list) in [
            ("prefixItems", &mut keywords.prefix_items),
            ("allOf", &mut keywords.all_of),
            ("anyOf", &mut keywords.any_of),
            ("oneOf", &mut keywords.one_of),
        ] {
            if let Some(Value::Array(subs)) = map.get(key) {
                for at in 0..subs.len() {
                    list.push(self.child(&location, &format!("{key}/{at}"))?);
                }
            }
        }
        for (key, slot) in [
            ("additionalProperties", &mut keywords.additional_properties),
            ("propertyNames", &mut keywords.property_names),
            ("items", &mut keywords.items),
            ("contains", &mut keywords.contains),
            (
                "unevaluatedProperties",
                &mut keywords.unevaluated_properties,
            ),
            ("unevaluatedItems", &mut keywords.unevaluated_items),
        ] {
            if map.contains_key(key) {
                *slot = Some(self.child(&location, key)?);
            }
        }
        if let Some(schema) = map.get("not") {
            keywords.not = Some((self.child(&location, "not")?, schema.clone()));
        }
        if map.contains_key("if") {
            let condition = self.child(&location, "if")?;
            let then = match map.contains_key("then") {
                true => Some(self.child(&location, "then")?),
                false => None,
            };
            let otherwise = match map.contains_key("else") {
                true => Some(self.child(&location, "else")?),
                false => None,
            };
            keywords.if_then_else = Some((condition, then, otherwise));
        }
        if let Some(Value::String(reference)) = map.get("$ref") {
            let target = self.target(reference, &at("$ref"))?;
            keywords.reference = Some(self.reference(target)?);
        }
        if let Some(Value::String(reference)) = map.get("$dynamicRef") {
            let target_pointer = self.target(reference, &at("$dynamicRef"))?;
            let to = self.reference(target_pointer.clone())?;
            // Dynamic only when the static target declares the same
            // `$dynamicAnchor`; otherwise it is a plain `$ref`.
            let name = reference.rsplit_once('#').map(|(_, name)| name);
            let declared = self
                .document
                .pointer(&target_pointer)
                .and_then(|target| target.get("$dynamicAnchor"))
                .and_then(Value::as_str);
            let anchor = match (name, declared) {
                (Some(name), Some(declared)) if name == declared => Some(name.to_owned()),
                _ => None,
            };
            keywords.dynamic_reference = Some(DynamicRef { to, anchor });
        }
        keywords.location = location;
        keywords.present = keywords.present();
        Ok(keywords)
    }
}

/// The bit of [`TYPES`] for `name`.
fn type_bit(name: &str) -> u8 {
    TYPES
        .iter()
        .position(|known| *known == name)
        .map_or(0, |at| 1 << at)
}

/// Patterns are compiled with a bound on their size, so that a hostile
/// schema cannot make one take unbounded memory.
fn regex(pattern: &str, pointer: &str) -> Result<Regex, BuildError> {
    regex::RegexBuilder::new(pattern)
        .size_limit(1 << 20)
        .build()
        .map_err(|error| BuildError::BadPattern {
            pointer: pointer.to_owned(),
            pattern: pattern.to_owned(),
            reason: error.to_string(),
        })
}
