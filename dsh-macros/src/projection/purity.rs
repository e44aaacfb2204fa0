//! A syntactic check that a projection's body is pure: what can be seen in
//! its tokens of `unsafe`, state kept across calls, I/O, the clock,
//! randomness, printing, addresses and hash order. It refuses only what is
//! certain: a path through `std::fs` is I/O, but `fs::read` may be a module
//! of the crate's own, so it counts only when the `use`s around the fn
//! (`scope`) say it is `std::fs`. It sees only the body and those `use`s: a
//! helper fn it calls, the type of a field it iterates, go unseen. Running the projection again under perturbation (the test
//! helper in `dsh_kit`) and replay, which compares the bytes, are the proof
//! at run time.

use std::collections::HashSet;

use quote::ToTokens;
use syn::punctuated::Punctuated;
use syn::visit::{self, Visit};
use syn::{
    Expr, ExprCall, ExprForLoop, ExprMethodCall, ExprUnsafe, FnArg, ItemFn, ItemStatic, ItemUse,
    Local, Macro, Pat, Path, StaticMutability, Token, Type, UseTree,
};

use super::Kind;
use super::imported;
use super::impure::{Impurity, classify_macro, classify_path};
use super::scope::{Position, Scope};
use crate::ctxt::Ctxt;

/// Reports every impurity found in the body of `item`.
pub(crate) fn check(cx: &Ctxt, kind: Kind, item: &ItemFn) {
    check_in(cx, kind, item, Scope::around(kind.attr(), item));
}

/// Reports every impurity found in the body of `item`, with the names in
/// scope around it when they are known.
pub(crate) fn check_in(cx: &Ctxt, kind: Kind, item: &ItemFn, scope: Option<Scope>) {
    let mut bound = Bound::default();
    bound.visit_signature(&item.sig);
    bound.visit_block(&item.block);
    let mut purity = Purity {
        cx,
        kind,
        hashed: Vec::new(),
        scope,
        bound,
        in_macro_path: false,
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

struct Purity<'a> {
    cx: &'a Ctxt,
    kind: Kind,
    /// Locals and parameters whose type is visibly a hash map or set.
    hashed: Vec<String>,
    /// The names in scope around the fn, when its file could be read.
    scope: Option<Scope>,
    /// Names the fn binds itself, which hide those around it.
    bound: Bound,
    /// Visiting a macro's path, which names a macro, never an import.
    in_macro_path: bool,
}

/// The names a fn binds itself, anywhere in it, by namespace: a local or
/// parameter hides a fn of that name, an item or `use` hides either.
#[derive(Default)]
struct Bound {
    values: HashSet<String>,
    types: HashSet<String>,
}

impl<'ast> Visit<'ast> for Bound {
    fn visit_pat_ident(&mut self, node: &'ast syn::PatIdent) {
        self.values.insert(node.ident.to_string());
        visit::visit_pat_ident(self, node);
    }

    fn visit_generics(&mut self, node: &'ast syn::Generics) {
        for param in node.type_params() {
            self.types.insert(param.ident.to_string());
        }
        for param in node.const_params() {
            self.values.insert(param.ident.to_string());
        }
        visit::visit_generics(self, node);
    }

    fn visit_use_tree(&mut self, tree: &'ast UseTree) {
        let name = match tree {
            UseTree::Name(name) => Some(name.ident.to_string()),
            UseTree::Rename(rename) => Some(rename.rename.to_string()),
            _ => None,
        };
        if let Some(name) = name {
            self.values.insert(name.clone());
            self.types.insert(name);
        }
        visit::visit_use_tree(self, tree);
    }

    fn visit_item(&mut self, item: &'ast syn::Item) {
        use syn::Item;
        let (ident, value, ty) = match item {
            Item::Fn(item) => (&item.sig.ident, true, false),
            Item::Const(item) => (&item.ident, true, false),
            Item::Static(item) => (&item.ident, true, false),
            // A tuple or unit struct is a value too.
            Item::Struct(item) => (&item.ident, true, true),
            Item::Enum(item) => (&item.ident, false, true),
            Item::Union(item) => (&item.ident, false, true),
            Item::Trait(item) => (&item.ident, false, true),
            Item::Type(item) => (&item.ident, false, true),
            Item::Mod(item) => (&item.ident, false, true),
            _ => {
                visit::visit_item(self, item);
                return;
            }
        };
        if value {
            self.values.insert(ident.to_string());
        }
        if ty {
            self.types.insert(ident.to_string());
        }
        visit::visit_item(self, item);
    }
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
    /// Reports a bare name the body uses that an import around the fn binds
    /// to an impure path: `read_to_string(…)` after
    /// `use std::fs::read_to_string;`, `fs::read(…)` after `use std::fs;`.
    /// `rest` is the path after the name.
    fn imported(&self, ident: &syn::Ident, position: Position, rest: &[String]) {
        let name = ident.to_string();
        let hidden = match position {
            Position::Value => &self.bound.values,
            Position::Prefix => &self.bound.types,
        };
        if hidden.contains(&name) {
            return;
        }
        let Some(found) = self
            .scope
            .as_ref()
            .and_then(|scope| scope.resolve(&name, position))
        else {
            return;
        };
        // A type the probe asks about itself is reported there.
        if imported::probed(&name, &found.path) {
            return;
        }
        let mut full = found.path.clone();
        full.extend(rest.iter().cloned());
        let Some(impurity) = classify_path(&full) else {
            return;
        };
        let attr = self.kind.attr();
        let (what, fix) = impurity.describe();
        let path = found.path.join("::");
        let is = match found.import == path {
            true => format!("the imported `{path}`"),
            false => format!("`{path}`, imported by `use {}`", found.import),
        };
        self.cx.error_spanned_by(
            ident,
            format!(
                "`{name}` here is {is}: {what} in a `#[{attr}]` fn: a {attr} must be pure, since replay re-runs it and must get the same bytes; {fix}"
            ),
        );
    }

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
        if let Some(impurity) = classify_path(&segments) {
            self.report(path, impurity);
            return;
        }
        if !self.in_macro_path
            && path.leading_colon.is_none()
            && let [first, ..] = Vec::from_iter(&path.segments)[..]
            && path.segments.len() > 1
        {
            self.imported(&first.ident, Position::Prefix, &segments[1..]);
        }
        visit::visit_path(self, path);
    }

    fn visit_expr_path(&mut self, node: &'ast syn::ExprPath) {
        // `read_to_string` in `read_to_string(…)` or `.map(read_to_string)`.
        if node.qself.is_none()
            && node.path.leading_colon.is_none()
            && let [only] = Vec::from_iter(&node.path.segments)[..]
            && classify_path(&[only.ident.to_string()]).is_none()
        {
            self.imported(&only.ident, Position::Value, &[]);
        }
        visit::visit_expr_path(self, node);
    }

    fn visit_expr_call(&mut self, call: &'ast ExprCall) {
        // `random()` after `use rand::random`, unless the imports around
        // the fn are known, and then it is reported as what it names.
        if let Expr::Path(func) = &*call.func
            && func.path.is_ident("random")
            && self
                .scope
                .as_ref()
                .is_none_or(|scope| scope.resolve("random", Position::Value).is_none())
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
        self.in_macro_path = true;
        self.visit_path(&mac.path);
        self.in_macro_path = false;
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
    use super::formats_address;
    use crate::ctxt::Ctxt;
    use crate::projection::Kind;
    use crate::projection::scope::Scope;

    /// The names `check_in` reports in the `#[render]` fn `show` of
    /// `source`, each as the first word of its message.
    fn reported(source: &str) -> Vec<String> {
        let file = syn::parse_file(source).expect("valid source");
        let item = file
            .items
            .iter()
            .find_map(|item| match item {
                syn::Item::Fn(item) if item.sig.ident == "show" => Some(item.clone()),
                _ => None,
            })
            .expect("a fn `show`");
        let scope = Scope::in_file(&file, "render", &item);
        let cx = Ctxt::new();
        super::check_in(&cx, Kind::Render, &item, scope);
        match cx.check() {
            Ok(()) => Vec::new(),
            Err(errors) => errors
                .into_iter()
                .map(|error| {
                    let message = error.to_string();
                    message.split(' ').next().unwrap_or_default().to_owned()
                })
                .collect(),
        }
    }

    #[test]
    fn flags_impure_names_imported_around_the_fn() {
        let flagged = reported(
            "use std::fs::{self, read_to_string};
             use std::env::var as getenv;
             #[render]
             fn show(_: &A, _: &B) -> String {
                 let a = read_to_string(\"a\").unwrap();
                 let b = fs::read(\"b\").unwrap();
                 let c = getenv(\"HOME\").unwrap();
                 format!(\"{a}{b:?}{c}\")
             }",
        );
        assert_eq!(flagged, ["`read_to_string`", "`fs`", "`getenv`"]);
    }

    #[test]
    fn passes_names_the_fn_binds_itself() {
        let flagged = reported(
            "use std::fs::{self, read_to_string};
             #[render]
             fn show(fs: &A, _: &B) -> String {
                 let read_to_string = |s: &str| s.to_owned();
                 let fs_len = fs.len();
                 format!(\"{}{fs_len}\", read_to_string(\"a\"))
             }",
        );
        assert_eq!(flagged, Vec::<String>::new());
        let flagged = reported(
            "use std::fs;
             #[render]
             fn show(_: &A, _: &B) -> String {
                 mod fs { pub fn read(_: &str) -> usize { 0 } }
                 fs::read(\"a\").to_string()
             }",
        );
        assert_eq!(flagged, Vec::<String>::new());
    }

    #[test]
    fn reports_each_use_once() {
        // The written path is reported as it is, the imported type by the
        // probe, `random()` as what it names.
        let flagged = reported(
            "use std::time::SystemTime;
             use std::process::Command;
             use rand::random;
             #[render]
             fn show(_: &A, _: &B) -> String {
                 let _ = SystemTime::now();
                 let _ = Command::new(\"x\");
                 let n: u8 = random();
                 rand::random::<u8>().to_string()
             }",
        );
        assert_eq!(flagged, ["the", "`random`", "randomness"]);
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
