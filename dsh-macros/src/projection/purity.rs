//! A best-effort, syntactic check that a projection's body is pure: no
//! `unsafe`, no `static mut`, no I/O, clock, randomness or printing that can
//! be seen in its tokens. It sees only the body: a helper fn it calls, or an
//! import made outside it, goes unseen. Replay, which re-runs the projection
//! on the logged value and compares the bytes, is the proof at run time.

use quote::ToTokens;
use syn::punctuated::Punctuated;
use syn::visit::{self, Visit};
use syn::{
    Block, Expr, ExprCall, ExprUnsafe, ItemStatic, ItemUse, Macro, Path, StaticMutability, Token,
    UseTree,
};

use super::Kind;
use crate::ctxt::Ctxt;

/// Reports every impurity found in `body`.
pub(crate) fn check(cx: &Ctxt, kind: Kind, body: &Block) {
    Purity { cx, kind }.visit_block(body);
}

/// Something a pure fn does not do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Impurity {
    Unsafe,
    StaticMut,
    Fs,
    Net,
    Process,
    Env,
    Thread,
    Tokio,
    Clock,
    Rand,
    Print(&'static str),
    Dbg,
}

impl Impurity {
    /// What it is, and how to do without it.
    fn describe(self) -> (String, &'static str) {
        const MOVE_IT: &str = "do it in the tool's body and put what is needed in its output";
        match self {
            Impurity::Unsafe => ("`unsafe`".into(), "remove the `unsafe` block"),
            Impurity::StaticMut => ("`static mut`".into(), "keep no state in it"),
            Impurity::Fs => ("file system access (`std::fs`)".into(), MOVE_IT),
            Impurity::Net => ("network access (`std::net`)".into(), MOVE_IT),
            Impurity::Process => ("process control (`std::process`)".into(), MOVE_IT),
            Impurity::Env => ("the environment (`std::env`)".into(), MOVE_IT),
            Impurity::Thread => (
                "threads (`std::thread`)".into(),
                "compute the result directly",
            ),
            Impurity::Tokio => ("`tokio`".into(), MOVE_IT),
            Impurity::Clock => (
                "the clock".into(),
                "take the time in the tool's body and put it in its output",
            ),
            Impurity::Rand => (
                "randomness".into(),
                "draw it in the tool's body and put it in its output",
            ),
            Impurity::Print(name) => (
                format!("`{name}!`"),
                "return what is to be seen instead of printing it",
            ),
            Impurity::Dbg => ("`dbg!`".into(), "remove it"),
        }
    }
}

/// The impurity a path names, by its segments: `std::fs::read`, `fs::read`
/// (after `use std::fs`), `tokio::…`, `rand::…`, `SystemTime::now`.
pub(crate) fn classify_path<S: AsRef<str>>(segments: &[S]) -> Option<Impurity> {
    let segments: Vec<&str> = segments.iter().map(AsRef::as_ref).collect();
    let module = |name: &str| match name {
        "fs" => Some(Impurity::Fs),
        "net" => Some(Impurity::Net),
        "process" => Some(Impurity::Process),
        "env" => Some(Impurity::Env),
        "thread" => Some(Impurity::Thread),
        _ => None,
    };
    match segments.as_slice() {
        ["std" | "core" | "alloc", second, ..] if module(second).is_some() => module(second),
        [first, _, ..] if module(first).is_some() => module(first),
        ["tokio", ..] => Some(Impurity::Tokio),
        ["rand" | "getrandom" | "fastrand", ..] => Some(Impurity::Rand),
        [.., "SystemTime" | "Instant" | "Utc" | "Local", "now"] => Some(Impurity::Clock),
        path if path.contains(&"thread_rng") => Some(Impurity::Rand),
        _ => None,
    }
}

/// The impurity a macro is, by its name.
pub(crate) fn classify_macro(name: &str) -> Option<Impurity> {
    match name {
        "println" => Some(Impurity::Print("println")),
        "print" => Some(Impurity::Print("print")),
        "eprintln" => Some(Impurity::Print("eprintln")),
        "eprint" => Some(Impurity::Print("eprint")),
        "dbg" => Some(Impurity::Dbg),
        _ => None,
    }
}

struct Purity<'a> {
    cx: &'a Ctxt,
    kind: Kind,
}

impl Purity<'_> {
    fn report(&self, node: impl ToTokens, impurity: Impurity) {
        let attr = self.kind.attr();
        let (what, fix) = impurity.describe();
        self.cx.error_spanned_by(
            node,
            format!(
                "{what} in a `#[{attr}]` fn: a {attr} must be pure, since replay re-runs it and must get the same bytes; {fix}"
            ),
        );
    }

    /// Checks each import of a `use` tree inside the body.
    fn visit_use(&self, tree: &UseTree, prefix: &mut Vec<String>) {
        let leaf = |prefix: &[String], name: Option<String>, node: &dyn ToTokens| {
            let mut path = prefix.to_vec();
            path.extend(name);
            if let Some(impurity) = classify_path(&path) {
                self.report(node.to_token_stream(), impurity);
            }
        };
        match tree {
            UseTree::Path(path) => {
                prefix.push(path.ident.to_string());
                // `use std::fs::{self, File}`: the module itself is reported once.
                if let Some(impurity) = classify_path(prefix).filter(|_| prefix.len() == 2) {
                    self.report(&path.ident, impurity);
                } else {
                    self.visit_use(&path.tree, prefix);
                }
                prefix.pop();
            }
            UseTree::Name(name) => leaf(prefix, Some(name.ident.to_string()), &name.ident),
            UseTree::Rename(rename) => leaf(prefix, Some(rename.ident.to_string()), &rename.ident),
            UseTree::Glob(glob) => leaf(prefix, None, glob),
            UseTree::Group(group) => {
                for tree in &group.items {
                    self.visit_use(tree, prefix);
                }
            }
        }
    }
}

impl<'ast> Visit<'ast> for Purity<'_> {
    fn visit_expr_unsafe(&mut self, node: &'ast ExprUnsafe) {
        self.report(node.unsafe_token, Impurity::Unsafe);
        visit::visit_expr_unsafe(self, node);
    }

    fn visit_item_static(&mut self, node: &'ast ItemStatic) {
        if let StaticMutability::Mut(mutability) = &node.mutability {
            let static_token = &node.static_token;
            self.report(
                quote::quote!(#static_token #mutability),
                Impurity::StaticMut,
            );
        }
        visit::visit_item_static(self, node);
    }

    fn visit_item_use(&mut self, node: &'ast ItemUse) {
        self.visit_use(&node.tree, &mut Vec::new());
    }

    fn visit_path(&mut self, path: &'ast Path) {
        let segments: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
        match classify_path(&segments) {
            Some(impurity) => self.report(path, impurity),
            None => visit::visit_path(self, path),
        }
    }

    fn visit_expr_call(&mut self, call: &'ast ExprCall) {
        // `random()` after `use rand::random`.
        if let Expr::Path(func) = &*call.func
            && func.path.is_ident("random")
        {
            self.report(&func.path, Impurity::Rand);
        }
        visit::visit_expr_call(self, call);
    }

    fn visit_macro(&mut self, mac: &'ast Macro) {
        let name = mac
            .path
            .segments
            .last()
            .map(|segment| segment.ident.to_string());
        if let Some(impurity) = name.as_deref().and_then(classify_macro) {
            let bang = mac.bang_token;
            let path = &mac.path;
            self.report(quote::quote!(#path #bang), impurity);
        }
        // A macro's arguments are tokens to syn; most (`format!`, `vec!`,
        // `write!`) are expressions, which can hide an impurity too.
        if let Ok(args) = mac.parse_body_with(Punctuated::<Expr, Token![,]>::parse_terminated) {
            for arg in &args {
                self.visit_expr(arg);
            }
        }
        visit::visit_macro(self, mac);
    }
}

#[cfg(test)]
mod tests {
    use super::{Impurity, classify_macro, classify_path};

    fn path(path: &str) -> Option<Impurity> {
        let segments: Vec<&str> = path.split("::").collect();
        classify_path(&segments)
    }

    #[test]
    fn flags_io_through_std() {
        assert_eq!(path("std::fs::read_to_string"), Some(Impurity::Fs));
        assert_eq!(path("fs::read"), Some(Impurity::Fs));
        assert_eq!(path("std::net::TcpStream"), Some(Impurity::Net));
        assert_eq!(path("std::process::Command"), Some(Impurity::Process));
        assert_eq!(path("std::env::var"), Some(Impurity::Env));
        assert_eq!(path("env::var"), Some(Impurity::Env));
        assert_eq!(path("std::thread::sleep"), Some(Impurity::Thread));
        assert_eq!(path("tokio::fs::read"), Some(Impurity::Tokio));
    }

    #[test]
    fn flags_clocks_and_randomness() {
        assert_eq!(path("SystemTime::now"), Some(Impurity::Clock));
        assert_eq!(path("std::time::Instant::now"), Some(Impurity::Clock));
        assert_eq!(path("chrono::Utc::now"), Some(Impurity::Clock));
        assert_eq!(path("rand::random"), Some(Impurity::Rand));
        assert_eq!(path("thread_rng"), Some(Impurity::Rand));
    }

    #[test]
    fn passes_pure_paths() {
        for pure in [
            "std::fmt::Write",
            "String::new",
            "fs",
            "env",
            "std::time::Duration",
            "Instant",
            "my::env",
        ] {
            assert_eq!(path(pure), None, "{pure}");
        }
    }

    #[test]
    fn flags_printing_macros() {
        assert_eq!(classify_macro("println"), Some(Impurity::Print("println")));
        assert_eq!(classify_macro("dbg"), Some(Impurity::Dbg));
        assert_eq!(classify_macro("format"), None);
    }
}
