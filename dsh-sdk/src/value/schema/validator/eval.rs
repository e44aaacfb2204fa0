//! Evaluating a value against compiled nodes: every keyword of a schema
//! applies to the value at once, subschemas to its parts, and a schema with
//! `unevaluatedProperties` or `unevaluatedItems` collects which parts its
//! keywords and its valid in-place subschemas evaluated.
//!
//! One file, past the usual length: the evaluation is one recursive walk
//! whose functions (a node, its keywords by kind of value, its applicators,
//! its unevaluated parts) call one another for every subschema, over the
//! same `Run` and error sink; split, each part would import all the others.

use std::cmp::Ordering;
use std::collections::HashSet;

use serde_json::{Number, Value};

use super::compile::{Keywords, Node, NodeId, Reference};
use super::error::{ErrorKind, ValidationError, counted, not_of_types, not_one_of, unexpected};
use super::meta::TYPES;
use crate::value::schema::pointer::escape;

/// How many schemas deep one evaluation may go (references that lead back
/// to an ancestor without consuming the value end here).
const DEPTH: usize = 256;

/// Where a value is, built into a pointer only for an error.
#[derive(Clone, Copy)]
pub(crate) enum Path<'a> {
    Root,
    Key(&'a Path<'a>, &'a str),
    Index(&'a Path<'a>, usize),
}

impl Path<'_> {
    fn pointer(&self) -> String {
        match self {
            Path::Root => String::new(),
            Path::Key(parent, key) => format!("{}/{}", parent.pointer(), escape(key)),
            Path::Index(parent, at) => format!("{}/{at}", parent.pointer()),
        }
    }
}

/// Which parts of the value a schema evaluated, for `unevaluated*`.
#[derive(Default)]
pub(crate) struct Seen<'v> {
    properties: Vec<&'v str>,
    all_items: bool,
    prefix: usize,
    items: Vec<usize>,
}

impl<'v> Seen<'v> {
    fn merge(&mut self, other: Seen<'v>) {
        self.properties.extend(other.properties);
        self.all_items |= other.all_items;
        self.prefix = self.prefix.max(other.prefix);
        self.items.extend(other.items);
    }

    fn item(&self, at: usize) -> bool {
        self.all_items || at < self.prefix || self.items.contains(&at)
    }
}

/// What an evaluation carries: the arena, the dynamic scope, the depth.
pub(crate) struct Run<'n> {
    pub(crate) nodes: &'n [Node],
    /// Whether to keep the dynamic scope: only a `$dynamicRef` reads it.
    scoped: bool,
    scope: Vec<NodeId>,
    depth: usize,
}

/// Where errors go: a list, or nowhere (the first failure then ends the
/// evaluation, as only validity is asked).
struct Sink<'e> {
    errors: Option<&'e mut Vec<ValidationError>>,
    failed: bool,
}

impl Sink<'_> {
    fn report(&mut self, make: impl FnOnce() -> ValidationError) {
        self.failed = true;
        if let Some(errors) = self.errors.as_deref_mut() {
            errors.push(make());
        }
    }

    /// Whether evaluating further can change nothing.
    fn done(&self) -> bool {
        self.failed && self.errors.is_none()
    }

    fn failed_if(&mut self, valid: bool) {
        if !valid {
            self.failed = true;
        }
    }
}

fn error(path: &Path<'_>, schema: String, kind: ErrorKind, message: String) -> ValidationError {
    ValidationError {
        instance_path: path.pointer(),
        schema_path: schema,
        kind,
        message,
    }
}

impl<'n> Run<'n> {
    pub(crate) fn new(nodes: &'n [Node], scoped: bool) -> Self {
        Run {
            nodes,
            scoped,
            scope: Vec::new(),
            depth: 0,
        }
    }

    /// Whether `value` at `path` is valid under node `id`; its failures go
    /// to `errors` when given, and what it evaluated to `seen` when given
    /// and valid.
    ///
    /// Inlined for the nodes that answer at once (`true`, and a leaf that
    /// only names a type when the value has it, the most common subschema):
    /// they do not pay for the frame of a whole evaluation ([`Run::evaluate`]).
    #[inline]
    pub(crate) fn eval<'v>(
        &mut self,
        id: NodeId,
        value: &'v Value,
        path: &Path<'_>,
        errors: Option<&mut Vec<ValidationError>>,
        seen: Option<&mut Seen<'v>>,
    ) -> bool {
        match &self.nodes[id] {
            Node::Bool(true) => true,
            // A leaf that only names a type: nothing else to read when it
            // holds.
            Node::Object(keywords)
                if keywords.present.type_only
                    && keywords.types.is_some_and(|types| has_type(value, types)) =>
            {
                true
            }
            _ => self.evaluate(id, value, path, errors, seen),
        }
    }

    /// [`Run::eval`], for a node that needs evaluating (the nodes that
    /// answer at once are answered there). Never inlined, or its frame
    /// would be every evaluation's again.
    #[inline(never)]
    fn evaluate<'v>(
        &mut self,
        id: NodeId,
        value: &'v Value,
        path: &Path<'_>,
        errors: Option<&mut Vec<ValidationError>>,
        seen: Option<&mut Seen<'v>>,
    ) -> bool {
        let mut sink = Sink {
            errors,
            failed: false,
        };
        let keywords = match &self.nodes[id] {
            Node::Bool(true) => return true,
            Node::Bool(false) => {
                sink.report(|| {
                    error(
                        path,
                        String::new(),
                        ErrorKind::Other,
                        format!("False schema does not allow {value}"),
                    )
                });
                return false;
            }
            Node::Object(keywords) => &**keywords,
        };
        if self.depth >= DEPTH {
            sink.report(|| {
                error(
                    path,
                    keywords.location.clone(),
                    ErrorKind::Other,
                    format!("the schema nests more than {DEPTH} levels deep for this value"),
                )
            });
            return false;
        }
        self.depth += 1;
        if keywords.resource && self.scoped {
            self.scope.push(id);
        }
        let mut local = Seen::default();
        let collect = seen.is_some() || keywords.reads_annotations();
        self.keywords(
            keywords,
            value,
            path,
            &mut sink,
            collect.then_some(&mut local),
        );
        if keywords.resource && self.scoped {
            self.scope.pop();
        }
        self.depth -= 1;
        if !sink.failed
            && let Some(seen) = seen
        {
            seen.merge(local);
        }
        !sink.failed
    }

    /// An in-place subschema (`allOf`, `$ref`, …): its annotations count
    /// for the schema around it when it is valid.
    fn in_place<'v>(
        &mut self,
        id: NodeId,
        value: &'v Value,
        path: &Path<'_>,
        sink: &mut Sink<'_>,
        seen: &mut Option<&mut Seen<'v>>,
    ) -> bool {
        let valid = self.eval(
            id,
            value,
            path,
            sink.errors.as_deref_mut(),
            seen.as_deref_mut(),
        );
        sink.failed_if(valid);
        valid
    }

    /// A reference followed: the resource it leads into is in the dynamic
    /// scope while its target is evaluated.
    fn follow<'v>(
        &mut self,
        reference: Reference,
        value: &'v Value,
        path: &Path<'_>,
        sink: &mut Sink<'_>,
        seen: &mut Option<&mut Seen<'v>>,
    ) -> bool {
        if !self.scoped {
            return self.in_place(reference.target, value, path, sink, seen);
        }
        self.scope.push(reference.resource);
        let valid = self.in_place(reference.target, value, path, sink, seen);
        self.scope.pop();
        valid
    }

    /// Whether `value` is valid under `id`, nothing reported, its
    /// annotations merged into `seen` when it is.
    fn quietly<'v>(
        &mut self,
        id: NodeId,
        value: &'v Value,
        path: &Path<'_>,
        seen: &mut Option<&mut Seen<'v>>,
    ) -> bool {
        self.eval(id, value, path, None, seen.as_deref_mut())
    }

    fn keywords<'v>(
        &mut self,
        k: &Keywords,
        value: &'v Value,
        path: &Path<'_>,
        sink: &mut Sink<'_>,
        mut seen: Option<&mut Seen<'v>>,
    ) {
        if let Some(types) = k.types
            && !has_type(value, types)
        {
            let names: Vec<&str> = (0..TYPES.len())
                .filter(|bit| types & (1 << bit) != 0)
                .map(|bit| TYPES[bit])
                .collect();
            sink.report(|| {
                error(
                    path,
                    k.at("type"),
                    ErrorKind::Other,
                    not_of_types(value, &names),
                )
            });
            if sink.done() {
                return;
            }
        }
        let present = k.present;
        if present.choices {
            choices(k, value, path, sink);
        }
        if sink.done() {
            return;
        }
        match value {
            Value::Number(number) if present.number => self.number(k, number, value, path, sink),
            Value::String(text) if present.string => string(k, text, value, path, sink),
            Value::Array(items) if present.array => {
                self.array(k, items, value, path, sink, &mut seen);
            }
            Value::Object(map) if present.object => {
                self.object(k, map, value, path, sink, &mut seen);
            }
            _ => {}
        }
        if sink.done() {
            return;
        }
        if present.applicators {
            self.applicators(k, value, path, sink, &mut seen);
        }
        if sink.done() {
            return;
        }
        if k.reads_annotations() {
            self.unevaluated_parts(k, value, path, sink, seen);
        }
    }

    /// `unevaluatedProperties` and `unevaluatedItems`: last, as they read
    /// what every other keyword evaluated.
    fn unevaluated_parts<'v>(
        &mut self,
        k: &Keywords,
        value: &'v Value,
        path: &Path<'_>,
        sink: &mut Sink<'_>,
        mut seen: Option<&mut Seen<'v>>,
    ) {
        // Last: what every other keyword left unevaluated.
        if let (Some(id), Value::Object(map)) = (k.unevaluated_properties, value) {
            let seen_here = seen.as_deref().map(|seen| &seen.properties);
            let left: Vec<&String> = map
                .keys()
                .filter(|name| seen_here.is_none_or(|seen| !seen.contains(&name.as_str())))
                .collect();
            self.unevaluated(id, &left, map, path, sink, &k.at("unevaluatedProperties"));
            if let Some(seen) = seen.as_deref_mut() {
                seen.properties
                    .extend(left.iter().map(|name| name.as_str()));
            }
        }
        if let (Some(id), Value::Array(items)) = (k.unevaluated_items, value) {
            let left: Vec<usize> = (0..items.len())
                .filter(|at| seen.as_deref().is_none_or(|seen| !seen.item(*at)))
                .collect();
            let mut wrong = Vec::new();
            for at in &left {
                let item_path = Path::Index(path, *at);
                if matches!(self.nodes[id], Node::Bool(false)) {
                    wrong.push(items[*at].to_string());
                } else {
                    let valid = self.eval(
                        id,
                        &items[*at],
                        &item_path,
                        sink.errors.as_deref_mut(),
                        None,
                    );
                    sink.failed_if(valid);
                }
            }
            if !wrong.is_empty() {
                sink.report(|| {
                    error(
                        path,
                        k.at("unevaluatedItems"),
                        ErrorKind::Other,
                        unexpected("Unevaluated items", &wrong),
                    )
                });
            }
            if let Some(seen) = seen {
                seen.all_items = true;
            }
        }
    }

    fn unevaluated(
        &mut self,
        id: NodeId,
        left: &[&String],
        map: &serde_json::Map<String, Value>,
        path: &Path<'_>,
        sink: &mut Sink<'_>,
        schema_path: &str,
    ) {
        if matches!(self.nodes[id], Node::Bool(false)) {
            if !left.is_empty() {
                let names: Vec<String> = left.iter().map(|name| (*name).clone()).collect();
                sink.report(|| {
                    error(
                        path,
                        schema_path.to_owned(),
                        ErrorKind::Other,
                        unexpected("Unevaluated properties", &names),
                    )
                });
            }
            return;
        }
        for name in left {
            let child = Path::Key(path, name);
            let valid = self.eval(
                id,
                &map[name.as_str()],
                &child,
                sink.errors.as_deref_mut(),
                None,
            );
            sink.failed_if(valid);
            if sink.done() {
                return;
            }
        }
    }

    fn number(
        &mut self,
        k: &Keywords,
        number: &Number,
        value: &Value,
        path: &Path<'_>,
        sink: &mut Sink<'_>,
    ) {
        // A limit, its keyword, the order it allows, and the words for a miss.
        type Check<'k> = (
            &'k Option<Number>,
            &'static str,
            fn(Ordering) -> bool,
            &'static str,
        );
        let checks: [Check<'_>; 4] = [
            (
                &k.maximum,
                "maximum",
                |o| o != Ordering::Greater,
                "is greater than the maximum of",
            ),
            (
                &k.exclusive_maximum,
                "exclusiveMaximum",
                |o| o == Ordering::Less,
                "is greater than or equal to the maximum of",
            ),
            (
                &k.minimum,
                "minimum",
                |o| o != Ordering::Less,
                "is less than the minimum of",
            ),
            (
                &k.exclusive_minimum,
                "exclusiveMinimum",
                |o| o == Ordering::Greater,
                "is less than or equal to the minimum of",
            ),
        ];
        for (limit, keyword, holds, words) in checks {
            if let Some(limit) = limit
                && !compare(number, limit).is_some_and(holds)
            {
                sink.report(|| {
                    error(
                        path,
                        k.at(keyword),
                        ErrorKind::Other,
                        format!("{value} {words} {limit}"),
                    )
                });
            }
        }
        if let Some(divisor) = &k.multiple_of
            && !multiple_of(number, divisor)
        {
            sink.report(|| {
                error(
                    path,
                    k.at("multipleOf"),
                    ErrorKind::Other,
                    format!("{value} is not a multiple of {divisor}"),
                )
            });
        }
    }

    fn array<'v>(
        &mut self,
        k: &Keywords,
        items: &'v [Value],
        value: &Value,
        path: &Path<'_>,
        sink: &mut Sink<'_>,
        seen: &mut Option<&mut Seen<'v>>,
    ) {
        let len = items.len() as u64;
        if let Some(max) = k.max_items
            && len > max
        {
            sink.report(|| {
                error(
                    path,
                    k.at("maxItems"),
                    ErrorKind::Other,
                    format!("{value} has more than {}", counted(max, "item", "items")),
                )
            });
        }
        if let Some(min) = k.min_items
            && len < min
        {
            sink.report(|| {
                error(
                    path,
                    k.at("minItems"),
                    ErrorKind::Other,
                    format!("{value} has less than {}", counted(min, "item", "items")),
                )
            });
        }
        if k.unique_items && !unique(items) {
            sink.report(|| {
                error(
                    path,
                    k.at("uniqueItems"),
                    ErrorKind::Other,
                    format!("{value} has non-unique elements"),
                )
            });
        }
        if sink.done() {
            return;
        }
        for (index, id) in k.prefix_items.iter().enumerate().take(items.len()) {
            let item_path = Path::Index(path, index);
            let valid = self.eval(
                *id,
                &items[index],
                &item_path,
                sink.errors.as_deref_mut(),
                None,
            );
            sink.failed_if(valid);
            if sink.done() {
                return;
            }
        }
        if let Some(seen) = seen.as_deref_mut() {
            seen.prefix = seen.prefix.max(k.prefix_items.len().min(items.len()));
        }
        if let Some(id) = k.items {
            for (index, item) in items.iter().enumerate().skip(k.prefix_items.len()) {
                let item_path = Path::Index(path, index);
                let valid = self.eval(id, item, &item_path, sink.errors.as_deref_mut(), None);
                sink.failed_if(valid);
                if sink.done() {
                    return;
                }
            }
            if let Some(seen) = seen.as_deref_mut() {
                seen.all_items = true;
            }
        }
        if let Some(id) = k.contains {
            let mut matched = Vec::new();
            for (index, item) in items.iter().enumerate() {
                let item_path = Path::Index(path, index);
                if self.eval(id, item, &item_path, None, None) {
                    matched.push(index);
                }
            }
            let count = matched.len() as u64;
            let min = k.min_contains.unwrap_or(1);
            if count < min {
                sink.report(|| {
                    let message = if count == 0 {
                        format!("None of {value} are valid under the given schema")
                    } else {
                        format!(
                            "{value} has less than {} valid under the given schema",
                            counted(min, "item", "items")
                        )
                    };
                    error(
                        path,
                        k.at(if count == 0 {
                            "contains"
                        } else {
                            "minContains"
                        }),
                        ErrorKind::Other,
                        message,
                    )
                });
            }
            if let Some(max) = k.max_contains
                && count > max
            {
                sink.report(|| {
                    error(
                        path,
                        k.at("maxContains"),
                        ErrorKind::Other,
                        format!(
                            "{value} has more than {} valid under the given schema",
                            counted(max, "item", "items")
                        ),
                    )
                });
            }
            if let Some(seen) = seen.as_deref_mut() {
                seen.items.extend(matched);
            }
        }
    }

    fn object<'v>(
        &mut self,
        k: &Keywords,
        map: &'v serde_json::Map<String, Value>,
        value: &Value,
        path: &Path<'_>,
        sink: &mut Sink<'_>,
        seen: &mut Option<&mut Seen<'v>>,
    ) {
        for name in &k.required {
            if !map.contains_key(name) {
                sink.report(|| {
                    error(
                        path,
                        k.at("required"),
                        ErrorKind::Required {
                            property: name.clone(),
                        },
                        format!("{} is a required property", Value::from(name.as_str())),
                    )
                });
            }
        }
        for (name, needs) in &k.dependent_required {
            if map.contains_key(name) {
                for need in needs.iter().filter(|need| !map.contains_key(*need)) {
                    sink.report(|| {
                        error(
                            path,
                            k.at("dependentRequired"),
                            ErrorKind::Required {
                                property: need.clone(),
                            },
                            format!("{} is a required property", Value::from(need.as_str())),
                        )
                    });
                }
            }
        }
        let len = map.len() as u64;
        if let Some(max) = k.max_properties
            && len > max
        {
            sink.report(|| {
                error(
                    path,
                    k.at("maxProperties"),
                    ErrorKind::Other,
                    format!(
                        "{value} has more than {}",
                        counted(max, "property", "properties")
                    ),
                )
            });
        }
        if let Some(min) = k.min_properties
            && len < min
        {
            sink.report(|| {
                error(
                    path,
                    k.at("minProperties"),
                    ErrorKind::Other,
                    format!(
                        "{value} has less than {}",
                        counted(min, "property", "properties")
                    ),
                )
            });
        }
        if sink.done() {
            return;
        }
        let mut additional = Vec::new();
        for (name, item) in map {
            let child = Path::Key(path, name);
            let mut known = false;
            if let Some(id) = k.properties.get(name) {
                known = true;
                let valid = self.eval(*id, item, &child, sink.errors.as_deref_mut(), None);
                sink.failed_if(valid);
            }
            for (pattern, id) in &k.pattern_properties {
                if pattern.is_match(name) {
                    known = true;
                    let valid = self.eval(*id, item, &child, sink.errors.as_deref_mut(), None);
                    sink.failed_if(valid);
                }
            }
            if sink.done() {
                return;
            }
            if known {
                if let Some(seen) = seen.as_deref_mut() {
                    seen.properties.push(name);
                }
            } else if let Some(id) = k.additional_properties {
                additional.push(name);
                if !matches!(self.nodes[id], Node::Bool(false)) {
                    let valid = self.eval(id, item, &child, sink.errors.as_deref_mut(), None);
                    sink.failed_if(valid);
                    if sink.done() {
                        return;
                    }
                }
            }
        }
        if let Some(id) = k.additional_properties {
            if matches!(self.nodes[id], Node::Bool(false)) && !additional.is_empty() {
                let names: Vec<String> = additional.iter().map(|name| (*name).clone()).collect();
                sink.report(|| {
                    error(
                        path,
                        k.at("additionalProperties"),
                        ErrorKind::AdditionalProperties {
                            unexpected: names.clone(),
                        },
                        unexpected("Additional properties", &names),
                    )
                });
            }
            if let Some(seen) = seen.as_deref_mut() {
                seen.properties
                    .extend(additional.iter().map(|name| name.as_str()));
            }
        }
        if let Some(id) = k.property_names {
            for name in map.keys() {
                let key = Value::String(name.clone());
                let valid = self.eval(id, &key, path, sink.errors.as_deref_mut(), None);
                sink.failed_if(valid);
                if sink.done() {
                    return;
                }
            }
        }
    }

    fn applicators<'v>(
        &mut self,
        k: &Keywords,
        value: &'v Value,
        path: &Path<'_>,
        sink: &mut Sink<'_>,
        seen: &mut Option<&mut Seen<'v>>,
    ) {
        if let Some(reference) = k.reference {
            self.follow(reference, value, path, sink, seen);
            if sink.done() {
                return;
            }
        }
        if let Some(dynamic) = &k.dynamic_reference {
            match dynamic
                .anchor
                .as_deref()
                .and_then(|name| self.outermost(name))
            {
                Some(target) => self.in_place(target, value, path, sink, seen),
                None => self.follow(dynamic.to, value, path, sink, seen),
            };
            if sink.done() {
                return;
            }
        }
        for id in &k.all_of {
            self.in_place(*id, value, path, sink, seen);
            if sink.done() {
                return;
            }
        }
        if !k.any_of.is_empty() {
            let mut any = false;
            for id in &k.any_of {
                // Every branch is tried while annotations are collected:
                // each valid one evaluated its part.
                if self.quietly(*id, value, path, seen) {
                    any = true;
                    if seen.is_none() {
                        break;
                    }
                }
            }
            if !any {
                sink.report(|| {
                    error(
                        path,
                        k.at("anyOf"),
                        ErrorKind::Other,
                        format!("{value} is not valid under any of the schemas listed in the 'anyOf' keyword"),
                    )
                });
                if sink.done() {
                    return;
                }
            }
        }
        if !k.one_of.is_empty() {
            let mut valid = 0;
            let mut kept = Seen::default();
            for id in &k.one_of {
                let mut branch = Seen::default();
                if self.eval(
                    *id,
                    value,
                    path,
                    None,
                    seen.is_some().then_some(&mut branch),
                ) {
                    valid += 1;
                    kept = branch;
                    if valid > 1 {
                        break;
                    }
                }
            }
            match valid {
                1 => {
                    if let Some(seen) = seen.as_deref_mut() {
                        seen.merge(kept);
                    }
                }
                0 => sink.report(|| {
                    error(
                        path,
                        k.at("oneOf"),
                        ErrorKind::Other,
                        format!("{value} is not valid under any of the schemas listed in the 'oneOf' keyword"),
                    )
                }),
                _ => sink.report(|| {
                    error(
                        path,
                        k.at("oneOf"),
                        ErrorKind::Other,
                        format!("{value} is valid under more than one of the schemas listed in the 'oneOf' keyword"),
                    )
                }),
            }
            if sink.done() {
                return;
            }
        }
        if let Some((id, schema)) = &k.not
            && self.eval(*id, value, path, None, None)
        {
            sink.report(|| {
                error(
                    path,
                    k.at("not"),
                    ErrorKind::Other,
                    format!("{schema} is not allowed for {value}"),
                )
            });
            if sink.done() {
                return;
            }
        }
        if let Some((condition, then, otherwise)) = k.if_then_else {
            let branch = if self.quietly(condition, value, path, seen) {
                then
            } else {
                otherwise
            };
            if let Some(id) = branch {
                self.in_place(id, value, path, sink, seen);
                if sink.done() {
                    return;
                }
            }
        }
        if let Value::Object(map) = value {
            for (name, id) in &k.dependent_schemas {
                if map.contains_key(name) {
                    self.in_place(*id, value, path, sink, seen);
                    if sink.done() {
                        return;
                    }
                }
            }
        }
    }

    /// The outermost resource in the dynamic scope that declares the
    /// `$dynamicAnchor` `name`.
    fn outermost(&self, name: &str) -> Option<NodeId> {
        self.scope
            .iter()
            .find_map(|resource| match &self.nodes[*resource] {
                Node::Object(keywords) => keywords
                    .dynamic_anchors
                    .iter()
                    .find(|(anchor, _)| anchor == name)
                    .map(|(_, id)| *id),
                Node::Bool(_) => None,
            })
    }
}

/// `enum` and `const`.
fn choices(k: &Keywords, value: &Value, path: &Path<'_>, sink: &mut Sink<'_>) {
    if let Some(options) = &k.enumeration
        && !options.iter().any(|option| equal(option, value))
    {
        sink.report(|| {
            error(
                path,
                k.at("enum"),
                ErrorKind::Other,
                not_one_of(value, options),
            )
        });
    }
    if let Some(expected) = &k.constant
        && !equal(expected, value)
    {
        sink.report(|| {
            error(
                path,
                k.at("const"),
                ErrorKind::Other,
                format!("{expected} was expected"),
            )
        });
    }
}

fn string(k: &Keywords, text: &str, value: &Value, path: &Path<'_>, sink: &mut Sink<'_>) {
    if k.max_length.is_some() || k.min_length.is_some() {
        let len = text.chars().count() as u64;
        if let Some(max) = k.max_length
            && len > max
        {
            sink.report(|| {
                error(
                    path,
                    k.at("maxLength"),
                    ErrorKind::Other,
                    format!(
                        "{value} is longer than {}",
                        counted(max, "character", "characters")
                    ),
                )
            });
        }
        if let Some(min) = k.min_length
            && len < min
        {
            sink.report(|| {
                error(
                    path,
                    k.at("minLength"),
                    ErrorKind::Other,
                    format!(
                        "{value} is shorter than {}",
                        counted(min, "character", "characters")
                    ),
                )
            });
        }
    }
    if let Some((pattern, source)) = &k.pattern
        && !pattern.is_match(text)
    {
        sink.report(|| {
            error(
                path,
                k.at("pattern"),
                ErrorKind::Other,
                format!(r#"{value} does not match "{source}""#),
            )
        });
    }
    if let Some((format, name)) = &k.format
        && !format.accepts(text)
    {
        sink.report(|| {
            error(
                path,
                k.at("format"),
                ErrorKind::Other,
                format!(r#"{value} is not a "{name}""#),
            )
        });
    }
}

/// Whether `value` is of one of the types in the bit set `types`.
#[inline]
fn has_type(value: &Value, types: u8) -> bool {
    let bit = |name: &str| 1u8 << TYPES.iter().position(|known| *known == name).unwrap_or(0);
    let own = match value {
        Value::Null => bit("null"),
        Value::Bool(_) => bit("boolean"),
        Value::Number(number) if integral(number) => bit("integer") | bit("number"),
        Value::Number(_) => bit("number"),
        Value::String(_) => bit("string"),
        Value::Array(_) => bit("array"),
        Value::Object(_) => bit("object"),
    };
    own & types != 0
}

/// Whether `number` has no fractional part (`1.0` is an integer).
fn integral(number: &Number) -> bool {
    number.is_i64() || number.is_u64() || number.as_f64().is_some_and(|n| n.fract() == 0.0)
}

/// Numbers compared by value, exactly where both are integers.
fn compare(a: &Number, b: &Number) -> Option<Ordering> {
    match (a.as_i64(), a.as_u64(), b.as_i64(), b.as_u64()) {
        (Some(x), _, Some(y), _) => Some(x.cmp(&y)),
        (_, Some(x), _, Some(y)) => Some(x.cmp(&y)),
        (Some(x), _, _, Some(_)) if x < 0 => Some(Ordering::Less),
        (_, Some(_), Some(y), _) if y < 0 => Some(Ordering::Greater),
        _ => a.as_f64()?.partial_cmp(&b.as_f64()?),
    }
}

/// Whether `number` divided by `divisor` is an integer.
fn multiple_of(number: &Number, divisor: &Number) -> bool {
    if let (Some(n), Some(d)) = (number.as_i64(), divisor.as_i64())
        && d != 0
    {
        return n % d == 0;
    }
    let (Some(n), Some(d)) = (number.as_f64(), divisor.as_f64()) else {
        return false;
    };
    let quotient = n / d;
    if !quotient.is_finite() {
        return false;
    }
    (quotient - quotient.round()).abs() <= f64::EPSILON * quotient.abs().max(1.0) * 4.0
}

/// JSON equality: `1` equals `1.0`; objects whatever their key order.
pub(crate) fn equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => compare(x, y) == Some(Ordering::Equal),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| equal(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(key, a)| y.get(key).is_some_and(|b| equal(a, b)))
        }
        _ => a == b,
    }
}

/// Whether no two items are equal, by a canonical text of each.
fn unique(items: &[Value]) -> bool {
    let mut keys = HashSet::with_capacity(items.len());
    items.iter().all(|item| {
        let mut key = String::new();
        canonical(item, &mut key);
        keys.insert(key)
    })
}

/// A text equal for equal JSON values: numbers by value, keys sorted.
fn canonical(value: &Value, out: &mut String) {
    match value {
        Value::Number(number) => {
            if let Some(n) = number.as_i64() {
                out.push_str(&n.to_string());
            } else if let Some(n) = number.as_u64() {
                out.push_str(&n.to_string());
            } else {
                let n = number.as_f64().unwrap_or(f64::NAN);
                if n.fract() == 0.0 && n.abs() < 1e18 {
                    out.push_str(&(n as i64).to_string());
                } else {
                    out.push_str(&format!("{n:e}"));
                }
            }
        }
        Value::Array(items) => {
            out.push('[');
            for item in items {
                canonical(item, out);
                out.push(',');
            }
            out.push(']');
        }
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            out.push('{');
            for key in keys {
                out.push_str(&Value::from(key.as_str()).to_string());
                out.push(':');
                canonical(&map[key.as_str()], out);
                out.push(',');
            }
            out.push('}');
        }
        other => out.push_str(&other.to_string()),
    }
}
