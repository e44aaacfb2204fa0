//! Borrowed data where a tool needs owned data: its arguments are read from
//! the model's JSON and outlive it, and its output is read back from its
//! own JSON, so neither can borrow (`&str`, `&'a [T]`, a type with a
//! lifetime other than `'static`). Refused at the `&` or the lifetime, with
//! the owned type to write instead.

use quote::quote;
use syn::visit::{self, Visit};
use syn::{GenericArgument, Lifetime, Type, TypeReference};

use crate::ctxt::Ctxt;
use crate::types::{last_segment, spelling};

/// What the borrowed type is part of, for the message.
#[derive(Clone, Copy)]
pub(crate) enum Role {
    /// An argument, or a field of the args.
    Args,
    /// The output, or a field of it.
    Output,
}

impl Role {
    fn why(self) -> &'static str {
        match self {
            Role::Args => {
                "a tool's arguments are read from the model's JSON and outlive it, so they own their data"
            }
            Role::Output => {
                "a tool's output is read back from its own JSON for render, present and replay, so it owns its data"
            }
        }
    }
}

/// Reports the first borrow in `ty`: a reference, or a lifetime other
/// than `'static`. Returns whether it found one.
pub(crate) fn check(cx: &Ctxt, role: Role, ty: &Type) -> bool {
    let mut finder = Borrow { found: None };
    finder.visit_type(ty);
    let Some(found) = finder.found else {
        return false;
    };
    let why = role.why();
    match found {
        Found::Reference(reference) => {
            let and = &reference.and_token;
            let lifetime = &reference.lifetime;
            let mutability = &reference.mutability;
            cx.error_spanned_by(
                quote!(#and #lifetime #mutability),
                format!("{why}: {}", owned_fix(&reference.elem)),
            );
        }
        Found::Lifetime(lifetime) => cx.error_spanned_by(
            lifetime,
            format!(
                "{why}: `{}` borrows for `{lifetime}`; make it own its data (`String` for `&str`, `Vec<T>` for `&[T]`) and remove the lifetime, or write `'static` where the type allows it (`Cow<'static, str>`)",
                spelling(ty)
            ),
        ),
    }
    true
}

/// What to write for `&elem`.
fn owned_fix(elem: &Type) -> String {
    let owned = match elem {
        Type::Slice(slice) => format!("Vec<{}>", spelling(&slice.elem)),
        _ => match last_segment(elem)
            .map(|segment| segment.ident.to_string())
            .as_deref()
        {
            Some("str") => "String".to_owned(),
            Some("Path") => "PathBuf".to_owned(),
            Some("OsStr") => "OsString".to_owned(),
            Some("CStr") => "CString".to_owned(),
            _ => spelling(elem),
        },
    };
    let also = if owned == "String" {
        " (or `Cow<'static, str>`, `Box<str>`, `Arc<str>`)"
    } else {
        ""
    };
    format!("take `{owned}`{also} instead of a reference")
}

enum Found<'a> {
    Reference(&'a TypeReference),
    Lifetime(&'a Lifetime),
}

struct Borrow<'a> {
    found: Option<Found<'a>>,
}

impl<'a> Visit<'a> for Borrow<'a> {
    fn visit_type_reference(&mut self, reference: &'a TypeReference) {
        if self.found.is_none() {
            self.found = Some(Found::Reference(reference));
        }
    }

    fn visit_generic_argument(&mut self, arg: &'a GenericArgument) {
        if let GenericArgument::Lifetime(lifetime) = arg
            && lifetime.ident != "static"
            && self.found.is_none()
        {
            self.found = Some(Found::Lifetime(lifetime));
        }
        visit::visit_generic_argument(self, arg);
    }

    // A `fn(&str)` or `dyn Fn(&str)` borrows nothing of its own, and a
    // trait object's lifetime bound is not data it holds.
    fn visit_type_fn_ptr(&mut self, _: &'a syn::TypeFnPtr) {}

    fn visit_type_param_bound(&mut self, _: &'a syn::TypeParamBound) {}
}

/// The borrows of a type deriving `ToolArgs` or `ToolOutput`: each field's,
/// or else the type's own lifetime parameter.
/// Returns whether it found one.
pub(crate) fn check_derive(cx: &Ctxt, role: Role, item: &syn::DeriveInput) -> bool {
    let fields: Vec<&syn::Field> = match &item.data {
        syn::Data::Struct(data) => data.fields.iter().collect(),
        syn::Data::Enum(data) => data.variants.iter().flat_map(|v| &v.fields).collect(),
        syn::Data::Union(data) => data.fields.named.iter().collect(),
    };
    let mut found = false;
    for field in fields {
        found |= check(cx, role, &field.ty);
    }
    if found {
        return true;
    }
    let Some(param) = item.generics.lifetimes().next() else {
        return false;
    };
    cx.error_spanned_by(
        &param.lifetime,
        format!(
            "{}: remove the lifetime `{}`, and hold owned data (`String`, `Vec<T>`)",
            role.why(),
            param.lifetime
        ),
    );
    true
}

#[cfg(test)]
mod tests {
    use super::{Role, check};
    use crate::ctxt::Ctxt;

    fn borrows(ty: &str) -> bool {
        let cx = Ctxt::new();
        let found = check(&cx, Role::Args, &syn::parse_str(ty).expect("a type"));
        assert_eq!(cx.check().is_err(), found, "{ty}");
        found
    }

    #[test]
    fn references_and_lifetimes_borrow() {
        for ty in [
            "&str",
            "&'static str",
            "Option<&str>",
            "Cow<'_, str>",
            "Vec<&'a [u8]>",
            "Args<'a>",
            "&mut String",
        ] {
            assert!(borrows(ty), "{ty}");
        }
    }

    #[test]
    fn owned_types_and_static_lifetimes_do_not() {
        for ty in [
            "String",
            "Cow<'static, str>",
            "Box<str>",
            "Arc<str>",
            "Vec<String>",
            "fn(&str) -> usize",
            "Box<dyn std::error::Error + Send + 'static>",
        ] {
            assert!(!borrows(ty), "{ty}");
        }
    }
}
