//! Impure std types the body names bare, as imported at the top of the
//! file (`use std::process::Command;`), which the body alone cannot tell
//! from a type of the crate's own named the same. The expansion asks the
//! type itself: for each such name, a constant beside the fn reads
//! `<Probe<Command>>::STD`, which the runtime defines as `true` on
//! `Probe<std::process::Command>` alone (an inherent constant, found before
//! the trait's `false` for every other type), and fails to evaluate, at the
//! name in the body, when it is. A type of the crate's own named `Command`
//! passes.
//!
//! Fns and modules imported by name (`use std::fs::read_to_string;`,
//! `use std::fs;`) have no type that can be named: `scope` reads the `use`s
//! around the fn in its file for them.

use proc_macro2::{Span, TokenStream};
use quote::quote_spanned;
use syn::visit::{self, Visit};
use syn::{Ident, ItemFn, Path, UseTree};

use super::Kind;
use super::impure::Impurity;

/// The std types whose use is impure, by the name they are imported under,
/// with the path the runtime's probe knows them by.
const TYPES: &[(&str, &str, Impurity)] = &[
    ("Command", "std::process::Command", Impurity::Process),
    ("Child", "std::process::Child", Impurity::Process),
    ("Stdio", "std::process::Stdio", Impurity::Process),
    ("File", "std::fs::File", Impurity::Fs),
    ("OpenOptions", "std::fs::OpenOptions", Impurity::Fs),
    ("DirBuilder", "std::fs::DirBuilder", Impurity::Fs),
    ("ReadDir", "std::fs::ReadDir", Impurity::Fs),
    ("TcpStream", "std::net::TcpStream", Impurity::Net),
    ("TcpListener", "std::net::TcpListener", Impurity::Net),
    ("UdpSocket", "std::net::UdpSocket", Impurity::Net),
    ("Builder", "std::thread::Builder", Impurity::Thread),
    ("Stdin", "std::io::Stdin", Impurity::Stdio),
    ("Stdout", "std::io::Stdout", Impurity::Stdio),
    ("Stderr", "std::io::Stderr", Impurity::Stdio),
];

/// Whether the probe asks about `name` when it is imported as `path`:
/// `Command` as `std::process::Command`.
pub(crate) fn probed(name: &str, path: &[String]) -> bool {
    let path = path.join("::");
    TYPES
        .iter()
        .any(|(known, known_path, _)| *known == name && *known_path == path)
}

/// A constant per known name the body uses bare and does not define.
pub(crate) fn probes(kind: Kind, item: &ItemFn, dsh: &TokenStream) -> TokenStream {
    let mut finder = Finder {
        used: Vec::new(),
        defined: Vec::new(),
    };
    finder.visit_block(&item.block);
    let mut tokens = TokenStream::new();
    let mut seen: Vec<String> = Vec::new();
    for ident in &finder.used {
        let name = ident.to_string();
        if seen.contains(&name) || finder.defined.contains(&name) {
            continue;
        }
        seen.push(name.clone());
        let Some((_, path, impurity)) = TYPES.iter().find(|(known, ..)| *known == name) else {
            continue;
        };
        let attr = kind.attr();
        let (what, fix) = impurity.describe();
        let message = format!(
            "`{name}` here is `{path}`: {what} in a `#[{attr}]` fn: a {attr} must be pure, since replay re-runs it and must get the same bytes; {fix}"
        );
        let span: Span = ident.span();
        tokens.extend(quote_spanned! {span=>
            const _: () = {
                #[allow(unused_imports)]
                use #dsh::NotStd as _;
                if <#dsh::Probe<#ident>>::STD {
                    ::core::panic!(#message)
                }
            };
        });
    }
    tokens
}

struct Finder {
    /// First segments of paths, each where it is written.
    used: Vec<Ident>,
    /// Names the body defines or imports itself.
    defined: Vec<String>,
}

impl<'ast> Visit<'ast> for Finder {
    // `Command::new(…)`, `File::open(…)`: a name with `::` after it is a
    // type or a module, never an enum variant or a local.
    fn visit_path(&mut self, path: &'ast Path) {
        if path.leading_colon.is_none()
            && path.segments.len() > 1
            && let Some(first) = path.segments.first()
        {
            self.used.push(first.ident.clone());
        }
        visit::visit_path(self, path);
    }

    // `let file: File`: a name in a type is a type.
    fn visit_type_path(&mut self, ty: &'ast syn::TypePath) {
        if ty.qself.is_none()
            && ty.path.leading_colon.is_none()
            && let [only] = Vec::from_iter(&ty.path.segments)[..]
        {
            self.used.push(only.ident.clone());
        }
        visit::visit_type_path(self, ty);
    }

    fn visit_use_tree(&mut self, tree: &'ast UseTree) {
        match tree {
            UseTree::Name(name) => self.defined.push(name.ident.to_string()),
            UseTree::Rename(rename) => self.defined.push(rename.rename.to_string()),
            _ => {}
        }
        visit::visit_use_tree(self, tree);
    }

    fn visit_item(&mut self, item: &'ast syn::Item) {
        let ident = match item {
            syn::Item::Struct(item) => Some(&item.ident),
            syn::Item::Enum(item) => Some(&item.ident),
            syn::Item::Type(item) => Some(&item.ident),
            syn::Item::Union(item) => Some(&item.ident),
            syn::Item::Mod(item) => Some(&item.ident),
            syn::Item::Trait(item) => Some(&item.ident),
            _ => None,
        };
        if let Some(ident) = ident {
            self.defined.push(ident.to_string());
        }
        visit::visit_item(self, item);
    }
}
