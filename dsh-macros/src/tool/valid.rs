//! The checks of a `#[tool]` fn that need more than one key or parameter,
//! each reported at the token to change.

use quote::quote;
use syn::ext::IdentExt;
use syn::{Pat, PatType, Safety, Type};

use super::ast::{Input, Output, Tool};
use crate::ctxt::Ctxt;
use crate::header;
use crate::types::{peel, spelling};
use dsh_kit_rules::names::{
    SCOPE_RULE, TOOL_NAME_RULE, is_icon_src, is_scope_token, is_valid_tool_name,
};

/// How a tool fn's parameters are read, for the errors about them.
const RULE: &str = "a parameter named `args` is the whole args struct when its type can be an object, any other parameter taken by value is one field of the arguments, and the one taken by reference is the context";

pub(crate) fn check(cx: &Ctxt, tool: &Tool) {
    check_signature(cx, tool);
    check_inputs(cx, tool);
    check_output(cx, tool);
    check_flags(cx, tool);
    super::params::check_names(cx, tool);
    super::params::check_examples(cx, tool);
    super::params::check_owned(cx, tool);
    check_names(cx, tool);
    check_icons(cx, tool);
    check_scopes(cx, tool);
    check_description(cx, tool);
    header::check_unique(cx, tool.params().filter_map(|param| param.header.as_ref()));
}

fn check_signature(cx: &Ctxt, tool: &Tool) {
    let sig = &tool.item.sig;
    if sig.asyncness.is_none() {
        let fn_token = &sig.fn_token;
        let ident = &sig.ident;
        cx.error_spanned_by(
            quote!(#fn_token #ident),
            "`#[tool]` goes on an `async fn`: add `async` before `fn`",
        );
    }
    if let Safety::Unsafe(unsafe_token) = &sig.safety {
        cx.error_spanned_by(
            unsafe_token,
            "a tool fn cannot be `unsafe`: the registry calls it from safe code; remove `unsafe`",
        );
    }
    if !sig.generics.params.is_empty() {
        let generics = &sig.generics;
        cx.error_spanned_by(
            generics,
            "a tool fn cannot be generic: its args and output must be concrete types for their schemas; remove the generic parameters",
        );
    }
    // A `where` clause beside generics is the same mistake, reported once.
    if let Some(where_clause) = sig
        .generics
        .where_clause
        .as_ref()
        .filter(|_| sig.generics.params.is_empty())
    {
        cx.error_spanned_by(
            where_clause,
            "a tool fn cannot have a `where` clause: its args and output must be concrete types for their schemas; remove it",
        );
    }
    if let Some(variadic) = &sig.variadic {
        cx.error_spanned_by(variadic, "a tool fn cannot be variadic");
    }
}

fn check_inputs(cx: &Ctxt, tool: &Tool) {
    let mut exec = None;
    let mut args: Option<&PatType> = None;
    for input in &tool.inputs {
        match input {
            Input::Receiver(receiver) => cx.error_spanned_by(
                receiver,
                "a tool fn cannot take `self`: a tool is a free `async fn`; move it out of the `impl` block and take what it needs as parameters",
            ),
            Input::Exec(arg, reference) => {
                if let Some(mutability) = &reference.mutability {
                    cx.error_spanned_by(
                        mutability,
                        "a tool fn takes no `&mut` parameter: arguments are taken by value, and the one parameter taken by reference is the shared context, `exec: &Exec`",
                    );
                }
                if exec.replace(arg).is_some() {
                    cx.error_spanned_by(
                        &arg.ty,
                        "a tool fn takes one parameter by reference, its context `&Exec`: take arguments by value, without `&`",
                    );
                }
            }
            Input::Args(arg) => {
                match args {
                    Some(first) => cx.error_spanned_by(
                        arg,
                        format!(
                            "a tool fn takes one args struct, and `{}` is already one: merge the two, or write every argument as a parameter",
                            spelling(&first.ty),
                        ),
                    ),
                    None => args = Some(*arg),
                }
            }
            Input::Param(param) => {
                if param.ident.is_none() {
                    let message = match &*param.arg.pat {
                        Pat::Wild(_) => "name this parameter: it becomes a field of the tool's arguments, so it needs a name like `path: PathBuf`",
                        _ => "write this parameter as a plain name, like `path: PathBuf`: it becomes a field of the tool's arguments, and the macro cannot name a pattern",
                    };
                    cx.error_spanned_by(&param.arg.pat, message);
                }
            }
        }
    }
    if let Some(args) = args {
        let args = spelling(&args.ty);
        for param in tool.params() {
            let name = param.ident.map_or_else(
                || "this parameter".to_owned(),
                |ident| format!("`{}`", ident.unraw()),
            );
            cx.error_spanned_by(
                param.arg,
                format!(
                    "this tool takes its arguments as the struct `{args}`: move {name} into it, or write every argument as a parameter ({RULE})",
                ),
            );
        }
    }
}

fn check_output(cx: &Ctxt, tool: &Tool) {
    let Output::Opaque(ty) = &tool.output else {
        return;
    };
    let message = match peel(ty) {
        Type::Never(_) => {
            "a tool returns its output, and `!` never returns: return the output, or `Result<Output, E>` to fail"
        }
        _ => {
            "a tool's output must be a named type, so that it has a schema: write the type itself, such as `String` or a struct deriving `ToolOutput`"
        }
    };
    cx.error_spanned_by(ty, message);
}

/// Flag settings that cannot hold together: `(first, its value, second,
/// its value, why)`. Each is refused at whichever of the two comes second.
const CONTRADICTIONS: &[(&str, bool, &str, bool, &str)] = &[
    (
        "read_only",
        true,
        "destructive",
        true,
        "a read-only tool changes nothing, so it destroys nothing; keep the one that is true",
    ),
    (
        "read_only",
        true,
        "idempotent",
        false,
        "a read-only tool changes nothing, so calling it again has no further effect; remove `idempotent = false`, or `read_only` if the tool changes something",
    ),
    (
        "destructive",
        true,
        "requires_approval",
        false,
        "a destructive tool asks for approval all the same; remove `requires_approval = false` (a permission rule can allow its calls), or `destructive` if the tool destroys nothing",
    ),
    (
        "task",
        true,
        "task_required",
        true,
        "`task` lets a client run a call as a task or not, `task_required` makes every call one; keep the one that is true",
    ),
    (
        "task",
        false,
        "task_required",
        true,
        "a tool whose calls must run as tasks takes tasks; remove `task = false`",
    ),
];

fn check_flags(cx: &Ctxt, tool: &Tool) {
    let flags = &tool.attr.flags;
    let find = |name: &str, value: bool| {
        flags
            .iter()
            .position(|flag| flag.key == name && flag.value == value)
    };
    let written = |name: &str, value: bool| {
        if value {
            format!("`{name}`")
        } else {
            format!("`{name} = false`")
        }
    };
    for &(a, a_value, b, b_value, why) in CONTRADICTIONS {
        let (Some(i), Some(j)) = (find(a, a_value), find(b, b_value)) else {
            continue;
        };
        let (first, second, at) = if i < j {
            (written(a, a_value), written(b, b_value), &flags[j])
        } else {
            (written(b, b_value), written(a, a_value), &flags[i])
        };
        cx.error_spanned_by(
            &at.key,
            format!("{second} contradicts {first}, given before it: {why}"),
        );
    }
    let set = |name: &str| {
        tool.attr
            .flags
            .iter()
            .find(|flag| flag.value && flag.key == name)
    };
    // Asking before the task is a way to become one: a tool without tasks
    // has nothing to ask first of.
    if let Some(ask_first) = set("ask_first")
        && set("task").is_none()
        && set("task_required").is_none()
    {
        cx.error_spanned_by(
            &ask_first.key,
            "`ask_first` says a task tool asks for its input before it becomes a task, but this tool runs no tasks; add `task` (or `task_required`), or remove `ask_first`",
        );
    }
    // The default render shows the value itself, so there is nothing for
    // the value's JSON to follow, and nothing for `render_only` to drop.
    if let Some(render_only) = set("render_only")
        && tool.attr.render.is_none()
    {
        cx.error_spanned_by(
            &render_only.key,
            "`render_only` keeps a render's blocks alone, but this tool has no `render`: its content is the value itself already; add `render = your_render_fn`, or remove `render_only`",
        );
    }
    for (key, value) in [("title", &tool.attr.title), ("version", &tool.attr.version)] {
        if let Some(value) = value
            && value.value().trim().is_empty()
        {
            cx.error_spanned_by(
                value,
                format!("`{key}` is empty: give it a value, or leave the key out"),
            );
        }
    }
}

fn check_names(cx: &Ctxt, tool: &Tool) {
    let (name, span) = tool.name();
    if !is_valid_tool_name(&name) {
        let message = match &tool.attr.name {
            Some(_) => format!("`{name}` is not a valid tool name: use {TOOL_NAME_RULE}"),
            None => format!(
                "`{name}` is not a valid tool name: use {TOOL_NAME_RULE}; rename the fn, or set `name = \"…\"`"
            ),
        };
        cx.error_at(span, message);
    }
    for (i, alias) in tool.attr.aliases.iter().enumerate() {
        let text = alias.value();
        if !is_valid_tool_name(&text) {
            cx.error_spanned_by(
                alias,
                format!("`{text}` is not a valid alias: use {TOOL_NAME_RULE}"),
            );
        } else if text == name {
            cx.error_spanned_by(
                alias,
                format!("`{text}` is the tool's name: an alias must be another name; remove it"),
            );
        } else if tool.attr.aliases[..i]
            .iter()
            .any(|other| other.value() == text)
        {
            cx.error_spanned_by(
                alias,
                format!("the alias `{text}` is given twice: keep one"),
            );
        }
    }
}

/// An icon is fetched or shown by the host: only `https:` and `data:` URIs,
/// the rule `dsh_kit::Icon::owned` applies at run time.
fn check_icons(cx: &Ctxt, tool: &Tool) {
    for (i, icon) in tool.attr.icons.iter().enumerate() {
        let src = icon.value();
        if !is_icon_src(&src) {
            cx.error_spanned_by(
                icon,
                format!("icon `{src}` must be an `https:` or a `data:` URI, like `\"https://example.com/icon.svg\"`"),
            );
        } else if tool.attr.icons[..i]
            .iter()
            .any(|other| other.value() == src)
        {
            cx.error_spanned_by(icon, format!("the icon `{src}` is given twice: keep one"));
        }
    }
}

/// A scope is what an authorization server grants and a token lists,
/// separated by spaces: RFC 6749's scope-token, each given once.
fn check_scopes(cx: &Ctxt, tool: &Tool) {
    for (i, scope) in tool.attr.scopes.iter().enumerate() {
        let text = scope.value();
        if text.is_empty() {
            cx.error_spanned_by(
                scope,
                format!("a scope cannot be empty: use {SCOPE_RULE}, like `\"files:write\"`"),
            );
        } else if !is_scope_token(&text) {
            let split = if text.contains(' ') {
                "; a space separates two scopes, so give each as a string of its own"
            } else {
                ""
            };
            cx.error_spanned_by(
                scope,
                format!(
                    "`{}` is not an OAuth scope: use {SCOPE_RULE}{split}",
                    text.escape_debug()
                ),
            );
        } else if tool.attr.scopes[..i]
            .iter()
            .any(|other| other.value() == text)
        {
            cx.error_spanned_by(
                scope,
                format!("the scope `{text}` is given twice: keep one"),
            );
        }
    }
}

fn check_description(cx: &Ctxt, tool: &Tool) {
    if let Some(description) = &tool.attr.description {
        if description.value().trim().is_empty() {
            cx.error_spanned_by(
                description,
                "the description is empty: say what the tool does and when to call it",
            );
        }
        return;
    }
    if let Some(opaque) = tool.docs.opaque {
        cx.error_spanned_by(
            opaque,
            "`#[tool]` cannot read a doc comment that is not a string literal: write it with `///`, or set `description = \"…\"`",
        );
        return;
    }
    if tool.docs.text().is_none() {
        cx.error_spanned_by(
            &tool.item.sig.ident,
            "a tool needs a description: add a `///` doc comment saying what it does and when to call it, or `description = \"…\"`",
        );
    }
}
