//! A syntactic check that a projection's body is pure: what can be seen in
//! its tokens of `unsafe`, state kept across calls, I/O, the clock,
//! randomness, printing, addresses and hash order. It refuses only what is
//! certain: a path through `std::fs` is I/O, but `fs::read` may be a module
//! of the crate's own, so it is left alone. It sees only the body: a helper
//! fn it calls, an import made outside it, the type of a field it iterates,
//! go unseen. Running the projection again under perturbation (the test
//! helper in `dsh_kit`) and replay, which compares the bytes, are the proof
//! at run time.

use quote::ToTokens;
use syn::punctuated::Punctuated;
use syn::visit::{self, Visit};
use syn::{
    Expr, ExprCall, ExprForLoop, ExprMethodCall, ExprUnsafe, FnArg, ItemFn, ItemStatic, ItemUse,
    Local, Macro, Pat, Path, StaticMutability, Token, Type, UseTree,
};

use super::Kind;
use crate::ctxt::Ctxt;

/// Reports every impurity found in the body of `item`.
pub(crate) fn check(cx: &Ctxt, kind: Kind, item: &ItemFn) {
    let mut purity = Purity {
        cx,
        kind,
        hashed: Vec::new(),
    };
    // Parameters whose type, as written, is a hash map or set.
    for input in &item.sig.inputs {
        if let FnArg::Typed(arg) = input
            && let Pat::Ident(pat) = &*arg.pat
            && mentions_hash(&arg.ty)
        {
            purity.hashed.push(pat.ident.to_string());
        }
    }
    purity.visit_block(&item.block);
}

/// Whether a type, as written, is or holds a `HashMap` or `HashSet`.
fn mentions_hash(ty: &Type) -> bool {
    let text = quote::quote!(#ty).to_string();
    text.contains("HashMap") || text.contains("HashSet")
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
    Stdio,
    ThreadLocal,
    Static,
    Atomic,
    Address,
    HashOrder,
    RenamingUse,
}

impl Impurity {
    /// What it is, and how to do without it.
    pub(crate) fn describe(self) -> (String, &'static str) {
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
            Impurity::Stdio => (
                "the standard streams (`std::io::stdout`, `stderr`, `stdin`)".into(),
                "return what is to be seen instead of writing it",
            ),
            Impurity::ThreadLocal => (
                "`thread_local!`".into(),
                "keep no state in it: compute from the args and the value alone",
            ),
            Impurity::Static => (
                "a `static` that can change".into(),
                "keep no state in it: compute from the args and the value alone",
            ),
            Impurity::Atomic => (
                "an atomic".into(),
                "keep no state in it: compute from the args and the value alone",
            ),
            Impurity::Address => (
                "a pointer's address (`{:p}`)".into(),
                "print what the value holds, not where it lives",
            ),
            Impurity::HashOrder => (
                "iteration over a `HashMap` or `HashSet`, whose order changes from one process to the next,".into(),
                "iterate a `BTreeMap` or `BTreeSet`, or sort first",
            ),
            Impurity::RenamingUse => (
                "a renaming `use`".into(),
                "name the item by its own path, so the check can see what it is",
            ),
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
        // `std::env::consts::OS` and the like are compile-time constants.
        ["std" | "core", "env", "consts", ..] => None,
        [
            "std" | "core",
            "io",
            "stdout" | "stderr" | "stdin" | "Stdout" | "Stderr" | "Stdin",
            ..,
        ] => Some(Impurity::Stdio),
        ["std" | "core" | "alloc", "sync", "atomic", ..] => Some(Impurity::Atomic),
        // Only the memory orderings of atomics are named these.
        [
            ..,
            "Ordering",
            "Relaxed" | "SeqCst" | "Acquire" | "Release" | "AcqRel",
        ] => Some(Impurity::Atomic),
        ["std" | "core" | "alloc", second, ..] if module(second).is_some() => module(second),
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
        "thread_local" => Some(Impurity::ThreadLocal),
        _ => None,
    }
}

struct Purity<'a> {
    cx: &'a Ctxt,
    kind: Kind,
    /// Locals and parameters whose type is visibly a hash map or set.
    hashed: Vec<String>,
}

/// Whether a format string prints an address: a `{…:p}` placeholder.
pub(crate) fn formats_address(format: &str) -> bool {
    let mut rest = format;
    while let Some(open) = rest.find('{') {
        rest = &rest[open + 1..];
        if let Some(after) = rest.strip_prefix('{') {
            rest = after;
            continue;
        }
        let Some(close) = rest.find('}') else {
            return false;
        };
        let placeholder = &rest[..close];
        if let Some((_, spec)) = placeholder.split_once(':')
            && spec.ends_with('p')
        {
            return true;
        }
        rest = &rest[close + 1..];
    }
    false
}

/// The local an expression names, through `&` and parentheses: `m` in `&m`.
fn local_name(expr: &Expr) -> Option<String> {
    match expr {
        Expr::Path(path) => path.path.get_ident().map(ToString::to_string),
        Expr::Reference(reference) => local_name(&reference.expr),
        Expr::Paren(paren) => local_name(&paren.expr),
        _ => None,
    }
}

/// Whether an expression builds a hash map or set where it can be seen:
/// `HashMap::new()`, `HashSet::from(…)`, `….collect::<HashMap<_, _>>()`.
fn builds_hash(expr: &Expr) -> bool {
    match expr {
        Expr::Call(call) => matches!(&*call.func, Expr::Path(path)
            if path.path.segments.iter().any(|s| s.ident == "HashMap" || s.ident == "HashSet")),
        Expr::MethodCall(call) => {
            call.turbofish.as_ref().is_some_and(|turbofish| {
                let text = quote::quote!(#turbofish).to_string();
                text.contains("HashMap") || text.contains("HashSet")
            }) || builds_hash(&call.receiver) && call.method == "clone"
        }
        _ => false,
    }
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
            UseTree::Rename(rename) => {
                let mut path = prefix.clone();
                path.push(rename.ident.to_string());
                match classify_path(&path) {
                    Some(impurity) => self.report(&rename.ident, impurity),
                    None => self.report(rename, Impurity::RenamingUse),
                }
            }
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
        let static_token = &node.static_token;
        if let StaticMutability::Mut(mutability) = &node.mutability {
            self.report(
                quote::quote!(#static_token #mutability),
                Impurity::StaticMut,
            );
        } else if interior_mutable(&node.ty) {
            // A `static` of a type that can change through `&`: state kept
            // across calls. One of plain data is a constant, and pure.
            self.report(&node.ty, Impurity::Static);
            return;
        }
        visit::visit_item_static(self, node);
    }

    fn visit_local(&mut self, local: &'ast Local) {
        let (pat, ty) = match &local.pat {
            Pat::Type(typed) => (&*typed.pat, Some(&*typed.ty)),
            pat => (pat, None),
        };
        if let Pat::Ident(ident) = pat {
            let hashed = ty.is_some_and(mentions_hash)
                || local
                    .init
                    .as_ref()
                    .is_some_and(|init| builds_hash(&init.expr));
            if hashed {
                self.hashed.push(ident.ident.to_string());
            }
        }
        visit::visit_local(self, local);
    }

    fn visit_expr_for_loop(&mut self, node: &'ast ExprForLoop) {
        if local_name(&node.expr).is_some_and(|name| self.hashed.contains(&name)) {
            self.report(&node.expr, Impurity::HashOrder);
        }
        visit::visit_expr_for_loop(self, node);
    }

    fn visit_expr_method_call(&mut self, node: &'ast ExprMethodCall) {
        const ITERATING: &[&str] = &[
            "iter",
            "iter_mut",
            "into_iter",
            "keys",
            "values",
            "values_mut",
            "into_keys",
            "into_values",
            "drain",
        ];
        let method = node.method.to_string();
        if ITERATING.contains(&method.as_str())
            && local_name(&node.receiver).is_some_and(|name| self.hashed.contains(&name))
        {
            let receiver = &node.receiver;
            let method = &node.method;
            self.report(quote::quote!(#receiver . #method), Impurity::HashOrder);
        }
        visit::visit_expr_method_call(self, node);
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
                if let Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Str(format),
                    ..
                }) = arg
                    && formats_address(&format.value())
                {
                    self.report(format, Impurity::Address);
                }
                self.visit_expr(arg);
            }
        }
        visit::visit_macro(self, mac);
    }
}

/// Whether a type, as written, can change through a shared reference: an
/// atomic, a lock, a cell, or a lazily initialized value.
fn interior_mutable(ty: &Type) -> bool {
    let text = quote::quote!(#ty).to_string();
    [
        "Atomic", "Mutex", "RwLock", "Cell", "OnceLock", "LazyLock", "OnceCell", "Lazy",
    ]
    .iter()
    .any(|name| text.contains(name))
}

#[cfg(test)]
mod tests {
    use super::{Impurity, classify_macro, classify_path, formats_address};

    fn path(path: &str) -> Option<Impurity> {
        let segments: Vec<&str> = path.split("::").collect();
        classify_path(&segments)
    }

    #[test]
    fn flags_io_through_std() {
        assert_eq!(path("std::fs::read_to_string"), Some(Impurity::Fs));
        assert_eq!(
            path("fs::read"),
            None,
            "a module of the crate's own may be named `fs`"
        );
        assert_eq!(path("std::net::TcpStream"), Some(Impurity::Net));
        assert_eq!(path("std::process::Command"), Some(Impurity::Process));
        assert_eq!(path("std::env::var"), Some(Impurity::Env));
        assert_eq!(path("std::env::consts::OS"), None, "a constant");
        assert_eq!(path("std::io::stdout"), Some(Impurity::Stdio));
        assert_eq!(path("std::sync::atomic::AtomicU32"), Some(Impurity::Atomic));
        assert_eq!(path("Ordering::SeqCst"), Some(Impurity::Atomic));
        assert_eq!(path("Ordering::Less"), None);
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
        assert_eq!(classify_macro("thread_local"), Some(Impurity::ThreadLocal));
    }

    #[test]
    fn finds_address_placeholders() {
        assert!(formats_address("{:p}"));
        assert!(formats_address("at {value:#p}!"));
        assert!(formats_address("{0:>10p}"));
        assert!(!formats_address("{{:p}}"));
        assert!(!formats_address("{:?} {name}"));
        assert!(!formats_address("{:x}"));
    }
}
