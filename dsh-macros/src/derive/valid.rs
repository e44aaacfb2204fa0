//! The checks of `#[derive(ToolArgs)]` and `#[derive(ToolOutput)]`: what
//! serde attributes can make of a type that is certain to fail at run time.

use proc_macro2::Span;
use syn::ext::IdentExt;

use super::Derive;
use super::ast::{Input, Item, Named, Pair, Shape};
use crate::ctxt::Ctxt;

pub(crate) fn check(cx: &Ctxt, derive: Derive, input: &Input) {
    if let Some(span) = input.container.remote {
        cx.error_at(
            span,
            format!(
                "`#[derive({})]` derives for the type itself: remove `remote`",
                derive.name()
            ),
        );
    }
    if let Some(span) = input.container.crate_path {
        cx.error_at(
            span,
            format!(
                "`#[derive({})]` reaches serde through dsh-kit: remove `crate = …` (for dsh-kit under another name, write `#[dsh(crate = \"my_dsh\")]`)",
                derive.name()
            ),
        );
    }
    if let Some(span) = input.container.default_path {
        // The twin that carries serde's derive would have to be built from
        // what the path returns, which is the type itself.
        cx.error_at(
            span,
            format!(
                "`#[derive({})]` takes `#[serde(default)]` on a type, not a path: implement `Default` for it with that fn's body and write `#[serde(default)]`",
                derive.name()
            ),
        );
    }
    if derive.describes() {
        for span in &input.unseen_with {
            cx.error_at(
                *span,
                "`#[serde(with = …)]` changes how this field is written, and its schema cannot see how: say what it is written as with `#[schemars(with = \"T\")]` beside it, `T` a type written the same way (`String`, `i64`)",
            );
        }
    }
    check_headers(cx, derive, input);
    match derive {
        Derive::Args => check_args(cx, input),
        Derive::Output => check_output(cx, input),
        // Plain derives: serde's and schemars' own rules, reported by them.
        Derive::Failure | Derive::Serialize | Derive::Deserialize | Derive::JsonSchema => {}
    }
}

fn check_args(cx: &Ctxt, input: &Input) {
    const FIX: &str = "give it named fields, `struct Args { name: T }`";
    match &input.shape {
        Shape::Named(fields) => {
            if let Some(span) = input.container.transparent {
                cx.error_at(
                    span,
                    "a tool's arguments must be a JSON object, and `transparent` makes them the one field's value: remove it",
                );
            }
            for alias in fields.iter().flat_map(|field| &field.attrs.aliases) {
                cx.error_at(
                    alias.span,
                    "an `alias` is a name the args accept but their schema does not show, which registration refuses: remove it, the model reads names from the schema",
                );
            }
            let rule = &input.container.rename_all.de;
            let names = fields
                .iter()
                .filter(|field| !field.attrs.skip && field.attrs.skip_deserializing.is_none())
                .filter(|field| !field.attrs.flatten)
                .flat_map(|field| {
                    let own = name_of(field, &field.attrs.rename.de, rule, Case::field);
                    let aliases = field.attrs.aliases.iter().map(|alias| (alias.value.clone(), alias.span));
                    std::iter::once(own).chain(aliases).map(move |(name, span)| (name, span, field))
                });
            check_unique(cx, names, "read");
        }
        Shape::Unnamed(span, what) => cx.error_at(
            *span,
            format!("a tool's arguments must be a JSON object, and {what}: {FIX}"),
        ),
        Shape::Enum(span, _) => cx.error_at(
            *span,
            "a tool's arguments must be a JSON object with named fields, and an enum is a string or a choice of shapes: make the args a struct, with the enum as one of its fields",
        ),
        Shape::Union(span) => cx.error_at(*span, format!("a union cannot be a tool's arguments: {FIX}")),
    }
}

fn check_output(cx: &Ctxt, input: &Input) {
    let container = &input.container;
    match (container.from, container.into) {
        (Some(span), None) => cx.error_at(
            span,
            "an output is written and read back: with `from`, add the matching `into = \"…\"`",
        ),
        (None, Some(span)) => cx.error_at(
            span,
            "an output is written and read back: with `into`, add the matching `from = \"…\"`",
        ),
        _ => {}
    }
    check_pair(cx, &container.rename_all, "rename_all");
    if let Shape::Union(span) = &input.shape {
        cx.error_at(
            *span,
            "a union cannot be a tool's output: make it a struct or an enum",
        );
    }
    let check_fields = |fields: &[Item], rule: &Pair| {
        for field in fields {
            check_member(cx, field, container.default);
        }
        let names = fields
            .iter()
            .filter(|field| !field.attrs.skip && field.attrs.skip_serializing.is_none())
            .filter(|field| !field.attrs.flatten)
            .map(|field| {
                let (name, span) = name_of(field, &field.attrs.rename.ser, &rule.ser, Case::field);
                (name, span, field)
            });
        check_unique(cx, names, "written");
    };
    match &input.shape {
        Shape::Named(fields) => check_fields(fields, &container.rename_all),
        Shape::Enum(_, variants) => {
            for (variant, fields) in variants {
                check_member(cx, variant, true);
                check_fields(fields, &Pair::default());
            }
            let names = variants
                .iter()
                .map(|(variant, _)| variant)
                .filter(|variant| !variant.attrs.skip && variant.attrs.skip_serializing.is_none())
                .map(|variant| {
                    let (name, span) = name_of(
                        variant,
                        &variant.attrs.rename.ser,
                        &container.rename_all.ser,
                        Case::variant,
                    );
                    (name, span, variant)
                });
            check_unique(cx, names, "written");
        }
        Shape::Unnamed(..) | Shape::Union(_) => {}
    }
}

/// The checks of one field (or variant) of an output: what it writes, it reads back.
fn check_member(cx: &Ctxt, item: &Item, container_default: bool) {
    let attrs = &item.attrs;
    let name = item.ident.unraw();
    check_pair(cx, &attrs.rename, "rename");
    let default = attrs.default || container_default;
    if let Some(span) = attrs
        .skip_serializing
        .filter(|_| attrs.skip_deserializing.is_none())
        && !default
    {
        cx.error_at(
            span,
            format!("`skip_serializing` leaves `{name}` out of the output, which render and present read back, so reading it fails: add `default`, or write `skip`"),
        );
    }
    if let Some(span) = attrs.skip_serializing_if
        && !default
    {
        cx.error_at(
            span,
            format!("`skip_serializing_if` can leave `{name}` out of the output, which render and present read back, so reading it fails: add `default` beside it"),
        );
    }
    if let Some(span) = attrs
        .skip_deserializing
        .filter(|_| attrs.skip_serializing.is_none())
    {
        cx.error_at(
            span,
            format!("`skip_deserializing` writes `{name}` but reads it back as its default, so render and present see another value: remove it, or write `skip`"),
        );
    }
    if !attrs.with {
        match (attrs.serialize_with, attrs.deserialize_with) {
            (Some(span), None) => cx.error_at(
                span,
                format!("`{name}` is written with `serialize_with` but read without its counterpart: add `deserialize_with`, or use `with = \"module\"`"),
            ),
            (None, Some(span)) => cx.error_at(
                span,
                format!("`{name}` is read with `deserialize_with` but written without its counterpart: add `serialize_with`, or use `with = \"module\"`"),
            ),
            _ => {}
        }
    }
}

/// A key whose serialize and deserialize values differ: the output is read
/// back from what it writes, so they must agree.
fn check_pair(cx: &Ctxt, pair: &Pair, key: &str) {
    let value = |named: &Option<Named>| named.as_ref().map(|named| named.value.clone());
    if value(&pair.ser) == value(&pair.de) {
        return;
    }
    let at = pair
        .ser
        .as_ref()
        .or(pair.de.as_ref())
        .map_or_else(Span::call_site, |n| n.span);
    let fix = match value(&pair.ser).or(value(&pair.de)) {
        Some(name) => format!("write `{key} = \"{name}\"`, for both"),
        None => format!("write `{key} = \"…\"`, for both"),
    };
    cx.error_at(
        at,
        format!("an output is read back from what it writes, so it must be written and read under one name: {fix}"),
    );
}

/// Reports each name already taken by an earlier field, at the later one.
fn check_unique<'a>(cx: &Ctxt, names: impl Iterator<Item = (String, Span, &'a Item)>, how: &str) {
    let mut seen: Vec<(String, &Item)> = Vec::new();
    for (name, span, item) in names {
        if let Some((_, first)) = seen.iter().find(|(seen, _)| *seen == name) {
            if std::ptr::eq(*first, item) {
                continue;
            }
            cx.error_at(
                span,
                format!(
                    "`{}` is already {how} as `{name}`: give each its own name",
                    first.ident.unraw()
                ),
            );
        } else {
            seen.push((name, item));
        }
    }
}

/// The name serde uses for `item`: its own rename, or the container's rule
/// applied to its Rust name; with the span to report it at.
fn name_of(
    item: &Item,
    rename: &Option<Named>,
    rule: &Option<Named>,
    case: fn(&str, &str) -> String,
) -> (String, Span) {
    if let Some(named) = rename {
        return (named.value.clone(), named.span);
    }
    let ident = item.ident.unraw().to_string();
    match rule {
        Some(rule) => (case(&ident, &rule.value), item.ident.span()),
        None => (ident, item.ident.span()),
    }
}

/// serde's `rename_all` rules.
struct Case;

impl Case {
    /// A `snake_case` field name under `rule`.
    fn field(name: &str, rule: &str) -> String {
        match rule {
            "UPPERCASE" | "SCREAMING_SNAKE_CASE" => name.to_ascii_uppercase(),
            "PascalCase" => pascal(name),
            "camelCase" => {
                let pascal = pascal(name);
                let mut chars = pascal.chars();
                chars.next().map_or_else(String::new, |first| {
                    first.to_ascii_lowercase().to_string() + chars.as_str()
                })
            }
            "kebab-case" => name.replace('_', "-"),
            "SCREAMING-KEBAB-CASE" => name.replace('_', "-").to_ascii_uppercase(),
            _ => name.to_string(),
        }
    }

    /// A `PascalCase` variant name under `rule`.
    fn variant(name: &str, rule: &str) -> String {
        let snake = || {
            let mut snake = String::new();
            for (i, ch) in name.char_indices() {
                if i > 0 && ch.is_uppercase() {
                    snake.push('_');
                }
                snake.push(ch.to_ascii_lowercase());
            }
            snake
        };
        match rule {
            "lowercase" => name.to_ascii_lowercase(),
            "UPPERCASE" => name.to_ascii_uppercase(),
            "camelCase" => {
                let mut chars = name.chars();
                chars.next().map_or_else(String::new, |first| {
                    first.to_ascii_lowercase().to_string() + chars.as_str()
                })
            }
            "snake_case" => snake(),
            "SCREAMING_SNAKE_CASE" => snake().to_ascii_uppercase(),
            "kebab-case" => snake().replace('_', "-"),
            "SCREAMING-KEBAB-CASE" => snake().replace('_', "-").to_ascii_uppercase(),
            _ => name.to_string(),
        }
    }
}

fn pascal(snake: &str) -> String {
    snake
        .split('_')
        .map(|word| {
            let mut chars = word.chars();
            chars.next().map_or_else(String::new, |first| {
                first.to_ascii_uppercase().to_string() + chars.as_str()
            })
        })
        .collect()
}

/// `#[dsh(header = "…")]`: each name once in the type, ignoring case, on a
/// derive that writes the arguments' schema; `ToolOutput` and `ToolFailure`
/// describe no arguments, and serde's derives alone sit beside `JsonSchema`,
/// which reads it.
fn check_headers(cx: &Ctxt, derive: Derive, input: &Input) {
    let names = input
        .headers()
        .into_iter()
        .filter_map(|field| field.header.as_ref().map(|(name, _)| name));
    match derive {
        Derive::Args | Derive::JsonSchema => crate::header::check_unique(cx, names),
        Derive::Output | Derive::Failure => {
            for name in names {
                cx.error_spanned_by(
                    name,
                    format!(
                        "`#[dsh(header = …)]` marks an argument of a tool, and `{}` describes what a tool returns: remove it, or derive `ToolArgs`",
                        derive.name()
                    ),
                );
            }
        }
        Derive::Serialize | Derive::Deserialize => {}
    }
}

#[cfg(test)]
mod tests {
    use super::Case;

    #[test]
    fn renames_fields_as_serde_does() {
        assert_eq!(Case::field("max_count", "camelCase"), "maxCount");
        assert_eq!(Case::field("max_count", "PascalCase"), "MaxCount");
        assert_eq!(Case::field("max_count", "kebab-case"), "max-count");
        assert_eq!(
            Case::field("max_count", "SCREAMING_SNAKE_CASE"),
            "MAX_COUNT"
        );
        assert_eq!(Case::field("max_count", "lowercase"), "max_count");
    }

    #[test]
    fn renames_variants_as_serde_does() {
        assert_eq!(Case::variant("NotFound", "snake_case"), "not_found");
        assert_eq!(Case::variant("NotFound", "kebab-case"), "not-found");
        assert_eq!(Case::variant("NotFound", "camelCase"), "notFound");
        assert_eq!(
            Case::variant("NotFound", "SCREAMING_SNAKE_CASE"),
            "NOT_FOUND"
        );
    }
}
