//! What the names a projection's body uses bare are bound to by the `use`s
//! around it: the body alone cannot tell `read_to_string(…)` after
//! `use std::fs::read_to_string;` from a fn of the crate's own of that name,
//! so the macro reads the file the fn is written in and looks.
//!
//! The fn is found in its file by its name and its `#[render]` or
//! `#[present]` attribute (and, when several fns qualify, by its body), and
//! the names in scope are those of the innermost inline `mod` holding it
//! (or the file), with those of the blocks between: each `use` leaf with
//! the path it names, each item, each glob. Whatever cannot be read, parsed
//! or found (a fn a macro wrote, a file not on disk) leaves the check to
//! what the body shows: it never fails a build of its own accord.

use std::collections::HashSet;

use quote::ToTokens;
use syn::visit::{self, Visit};
use syn::{Attribute, Block, File, ImplItemFn, Item, ItemFn, ItemMod, Stmt, TraitItemFn, UseTree};

use super::impure::{ModuleKind, module_kind};

/// A source file larger than this is not read: no real one comes near.
const MAX_FILE_BYTES: u64 = 8 << 20;

/// How deep a `use` naming another `use` (`use std::fs; use fs::read;`) is
/// followed.
const MAX_CHAIN: usize = 4;

/// Where a bare name stands, which decides the namespace it is looked up in.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Position {
    /// `read_to_string` in `read_to_string(…)`: a value, never a module.
    Value,
    /// `fs` in `fs::read(…)`: a module or a type, never a fn.
    Prefix,
}

/// What a bare name was found to be.
pub(crate) struct Found {
    /// The full path it names: `std::fs::read_to_string`.
    pub(crate) path: Vec<String>,
    /// The import that brought it in, as written: `std::fs::*`,
    /// `std::env::var as getenv`.
    pub(crate) import: String,
}

/// The names in scope around a projection, innermost scope first.
pub(crate) struct Scope {
    frames: Vec<Names>,
}

/// The names one module or block binds.
#[derive(Default)]
struct Names {
    uses: Vec<Binding>,
    /// Items defined here, in any namespace.
    items: HashSet<String>,
    /// Modules imported with `*`, each with the import as written.
    globs: Vec<(Vec<String>, String)>,
    /// Holds a macro invocation in item position, which may define names
    /// no one can see: its globs then tell nothing.
    opaque: bool,
}

/// One name a `use` binds.
struct Binding {
    name: String,
    path: Vec<String>,
    import: String,
}

/// What a lookup in the scopes met.
enum Bound {
    /// A path outside the crate.
    Extern(Found),
    /// An item or import of the crate's own.
    Own,
    /// Nothing in scope: the prelude, or an extern crate's name.
    Unbound,
}

impl Scope {
    /// The names in scope around `item`, read from the file it is written
    /// in, or `None` when that cannot be known.
    pub(crate) fn around(attr: &str, item: &ItemFn) -> Option<Scope> {
        if !proc_macro::is_available() {
            return None;
        }
        let file = item.sig.ident.span().unwrap().local_file()?;
        if std::fs::metadata(&file).ok()?.len() > MAX_FILE_BYTES {
            return None;
        }
        // Read and parsed for each render, not kept for the next: tokens
        // parsed inside a macro are the compiler's, valid only in the
        // invocation that made them.
        let text = std::fs::read_to_string(&file).ok()?;
        let parsed = syn::parse_file(&text).ok()?;
        Scope::in_file(&parsed, attr, item)
    }

    /// The names in scope around the fn in `file` that is `item`.
    pub(crate) fn in_file(file: &File, attr: &str, item: &ItemFn) -> Option<Scope> {
        let mut locator = Locator {
            attr,
            name: item.sig.ident.to_string(),
            stack: vec![Frame {
                module: true,
                items: file.items.iter().collect(),
            }],
            found: Vec::new(),
        };
        locator.visit_file(file);
        let chain = match locator.found.len() {
            0 => return None,
            1 => locator.found.pop()?.1,
            _ => {
                let body = item.block.to_token_stream().to_string();
                let mut same: Vec<_> = locator
                    .found
                    .into_iter()
                    .filter(|(block, _)| *block == body)
                    .collect();
                if same.len() != 1 {
                    return None;
                }
                same.pop()?.1
            }
        };
        let module = chain.iter().rposition(|frame| frame.module)?;
        let frames = chain[module..]
            .iter()
            .rev()
            .map(|frame| Names::of(&frame.items))
            .collect();
        Some(Scope { frames })
    }

    /// What `name`, standing at `position`, names outside the crate, if
    /// anything: `None` for an item or import of the crate's own, or a name
    /// nothing in scope binds.
    pub(crate) fn resolve(&self, name: &str, position: Position) -> Option<Found> {
        match self.lookup(name, position, MAX_CHAIN) {
            Bound::Extern(found) => Some(found),
            Bound::Own | Bound::Unbound => None,
        }
    }

    fn lookup(&self, name: &str, position: Position, depth: usize) -> Bound {
        for frame in &self.frames {
            let fits = |path: &[String]| {
                let kind = module_kind(path);
                match position {
                    Position::Value => kind != ModuleKind::Module,
                    Position::Prefix => kind != ModuleKind::Fn,
                }
            };
            if let Some(binding) = frame
                .uses
                .iter()
                .find(|binding| binding.name == name && fits(&binding.path))
            {
                return self.external(binding.path.clone(), &binding.import, depth);
            }
            if frame.items.contains(name) || frame.uses.iter().any(|b| b.name == name) {
                return Bound::Own;
            }
            if frame.opaque {
                continue;
            }
            for (module, import) in &frame.globs {
                let mut path = module.clone();
                path.push(name.to_owned());
                let brought = match position {
                    Position::Value => module_kind(&path) == ModuleKind::Fn,
                    Position::Prefix => module_kind(&path) == ModuleKind::Module,
                };
                if brought {
                    return self.external(path, import, depth);
                }
            }
        }
        Bound::Unbound
    }

    /// `path` as a path outside the crate, following a first segment that
    /// another `use` binds (`use fs::read;` after `use std::fs;`).
    fn external(&self, path: Vec<String>, import: &str, depth: usize) -> Bound {
        let Some(first) = path.first() else {
            return Bound::Unbound;
        };
        match first.as_str() {
            "crate" | "self" | "super" => Bound::Own,
            "std" | "core" | "alloc" => Bound::Extern(Found {
                path,
                import: import.to_owned(),
            }),
            _ if depth == 0 => Bound::Unbound,
            _ => match self.lookup(first, Position::Prefix, depth - 1) {
                Bound::Extern(found) => {
                    let mut full = found.path;
                    full.extend(path[1..].iter().cloned());
                    Bound::Extern(Found {
                        path: full,
                        import: import.to_owned(),
                    })
                }
                Bound::Own => Bound::Own,
                // An extern crate: `tokio::fs`.
                Bound::Unbound => Bound::Extern(Found {
                    path,
                    import: import.to_owned(),
                }),
            },
        }
    }
}

impl Names {
    fn of(items: &[&Item]) -> Names {
        let mut names = Names::default();
        for item in items {
            let ident = match item {
                Item::Use(item) => {
                    let mut prefix = Vec::new();
                    names.use_tree(&item.tree, &mut prefix);
                    continue;
                }
                Item::Macro(item) => {
                    // `macro_rules! name` defines a macro, in a namespace
                    // of its own; any other invocation may define anything.
                    if item.ident.is_none() {
                        names.opaque = true;
                    }
                    continue;
                }
                Item::Verbatim(_) => {
                    names.opaque = true;
                    continue;
                }
                Item::ForeignMod(block) => {
                    for item in &block.items {
                        let ident = match item {
                            syn::ForeignItem::Fn(item) => &item.sig.ident,
                            syn::ForeignItem::Static(item) => &item.ident,
                            syn::ForeignItem::Type(item) => &item.ident,
                            _ => continue,
                        };
                        names.items.insert(ident.to_string());
                    }
                    continue;
                }
                Item::Const(item) => &item.ident,
                Item::Enum(item) => &item.ident,
                Item::ExternCrate(item) => item.rename.as_ref().map_or(&item.ident, |(_, r)| r),
                Item::Fn(item) => &item.sig.ident,
                Item::Mod(item) => &item.ident,
                Item::Static(item) => &item.ident,
                Item::Struct(item) => &item.ident,
                Item::Trait(item) => &item.ident,
                Item::TraitAlias(item) => &item.ident,
                Item::Type(item) => &item.ident,
                Item::Union(item) => &item.ident,
                _ => continue,
            };
            names.items.insert(ident.to_string());
        }
        names
    }

    /// Records what a `use` tree binds: `std::fs::{self, read as r}`, `*`.
    fn use_tree(&mut self, tree: &UseTree, prefix: &mut Vec<String>) {
        match tree {
            UseTree::Path(path) => {
                prefix.push(path.ident.to_string());
                self.use_tree(&path.tree, prefix);
                prefix.pop();
            }
            UseTree::Name(name) => {
                let ident = name.ident.to_string();
                let path = joined(prefix, &ident);
                let bound = if ident == "self" {
                    prefix.last().cloned()
                } else {
                    Some(ident)
                };
                if let Some(bound) = bound {
                    let import = path.join("::");
                    self.bind(bound, path, import);
                }
            }
            UseTree::Rename(rename) => {
                let ident = rename.ident.to_string();
                let path = joined(prefix, &ident);
                let written = match prefix.is_empty() {
                    true => format!("{ident} as {}", rename.rename),
                    false => format!("{}::{ident} as {}", prefix.join("::"), rename.rename),
                };
                // `use … as _` binds no name.
                if rename.rename != "_" {
                    self.bind(rename.rename.to_string(), path, written);
                }
            }
            UseTree::Glob(_) => {
                let written = format!("{}::*", prefix.join("::"));
                self.globs.push((prefix.clone(), written));
            }
            UseTree::Group(group) => {
                for tree in &group.items {
                    self.use_tree(tree, prefix);
                }
            }
        }
    }

    fn bind(&mut self, name: String, path: Vec<String>, import: String) {
        self.uses.push(Binding { name, path, import });
    }
}

/// `prefix::name`, with `self` meaning the prefix itself.
fn joined(prefix: &[String], name: &str) -> Vec<String> {
    let mut path = prefix.to_vec();
    if name != "self" {
        path.push(name.to_owned());
    }
    path
}

/// A module or block on the way to the fn, with the items it holds.
#[derive(Clone)]
struct Frame<'ast> {
    module: bool,
    items: Vec<&'ast Item>,
}

/// Finds the fns that may be the projection, each with the scopes around it.
struct Locator<'a, 'ast> {
    attr: &'a str,
    name: String,
    stack: Vec<Frame<'ast>>,
    /// Each candidate's body, as tokens, and the frames around it.
    found: Vec<(String, Vec<Frame<'ast>>)>,
}

impl<'ast> Locator<'_, 'ast> {
    fn candidate(&mut self, attrs: &[Attribute], ident: &syn::Ident, block: &Block) {
        let marked = attrs.iter().any(|attr| {
            attr.path()
                .segments
                .last()
                .is_some_and(|segment| segment.ident == self.attr)
        });
        if marked && *ident == self.name {
            let body = block.to_token_stream().to_string();
            self.found.push((body, self.stack.clone()));
        }
    }
}

impl<'ast> Visit<'ast> for Locator<'_, 'ast> {
    fn visit_item_mod(&mut self, node: &'ast ItemMod) {
        if let Some((_, items)) = &node.content {
            self.stack.push(Frame {
                module: true,
                items: items.iter().collect(),
            });
            visit::visit_item_mod(self, node);
            self.stack.pop();
        }
    }

    fn visit_block(&mut self, node: &'ast Block) {
        let items = node
            .stmts
            .iter()
            .filter_map(|stmt| match stmt {
                Stmt::Item(item) => Some(item),
                _ => None,
            })
            .collect();
        self.stack.push(Frame {
            module: false,
            items,
        });
        visit::visit_block(self, node);
        self.stack.pop();
    }

    fn visit_item_fn(&mut self, node: &'ast ItemFn) {
        self.candidate(&node.attrs, &node.sig.ident, &node.block);
        visit::visit_item_fn(self, node);
    }

    fn visit_impl_item_fn(&mut self, node: &'ast ImplItemFn) {
        self.candidate(&node.attrs, &node.sig.ident, &node.block);
        visit::visit_impl_item_fn(self, node);
    }

    fn visit_trait_item_fn(&mut self, node: &'ast TraitItemFn) {
        if let Some(block) = &node.default {
            self.candidate(&node.attrs, &node.sig.ident, block);
        }
        visit::visit_trait_item_fn(self, node);
    }
}

#[cfg(test)]
mod tests {
    use super::{Position, Scope};

    /// The full path `name` resolves to around the `#[render]` fn `show`.
    fn resolve(source: &str, name: &str, position: Position) -> Option<String> {
        let file = syn::parse_file(source).expect("valid source");
        let item: syn::ItemFn = syn::parse_quote!(
            fn show(_: &A, _: &B) -> String {
                String::new()
            }
        );
        let scope = Scope::in_file(&file, "render", &item).expect("the fn is found");
        scope
            .resolve(name, position)
            .map(|found| format!("{} by {}", found.path.join("::"), found.import))
    }

    const BODY: &str = "#[render] fn show(_: &A, _: &B) -> String { String::new() }";

    #[test]
    fn resolves_each_import_form() {
        let value =
            |uses: &str, name: &str| resolve(&format!("{uses}\n{BODY}"), name, Position::Value);
        let prefix =
            |uses: &str, name: &str| resolve(&format!("{uses}\n{BODY}"), name, Position::Prefix);
        assert_eq!(
            value("use std::fs::read_to_string;", "read_to_string").as_deref(),
            Some("std::fs::read_to_string by std::fs::read_to_string")
        );
        assert_eq!(
            prefix("use std::fs;", "fs").as_deref(),
            Some("std::fs by std::fs")
        );
        assert_eq!(
            prefix("use ::std::fs::{self, read};", "fs").as_deref(),
            Some("std::fs by std::fs")
        );
        assert_eq!(
            value("use std::fs::{self, read};", "read").as_deref(),
            Some("std::fs::read by std::fs::read")
        );
        assert_eq!(
            value("use std::env::var as getenv;", "getenv").as_deref(),
            Some("std::env::var by std::env::var as getenv")
        );
        assert_eq!(
            value("use std::fs::*;", "read").as_deref(),
            Some("std::fs::read by std::fs::*")
        );
        assert_eq!(
            prefix("use tokio::fs;", "fs").as_deref(),
            Some("tokio::fs by tokio::fs")
        );
        assert_eq!(
            value("use std::fs; use fs::read;", "read").as_deref(),
            Some("std::fs::read by fs::read")
        );
    }

    #[test]
    fn the_crates_own_names_are_not_resolved() {
        let value =
            |source: &str, name: &str| resolve(&format!("{source}\n{BODY}"), name, Position::Value);
        let prefix = |source: &str, name: &str| {
            resolve(&format!("{source}\n{BODY}"), name, Position::Prefix)
        };
        assert_eq!(
            value(
                "fn read_to_string(s: &str) -> String { s.into() }",
                "read_to_string"
            ),
            None
        );
        assert_eq!(prefix("mod fs { pub fn read() {} }", "fs"), None);
        assert_eq!(prefix("use crate::util::fs;", "fs"), None);
        assert_eq!(
            value("use std::fs::*; fn read() {}", "read"),
            None,
            "an item of the module's own comes before a glob"
        );
        assert_eq!(
            value("use std::fs::*; extern \"C\" { fn read(); }", "read"),
            None,
            "so does a fn an extern block declares"
        );
        assert_eq!(value("use std::fs;", "fs"), None, "a module is no value");
        assert_eq!(
            prefix("use std::fs::read;", "read"),
            None,
            "a fn is no prefix"
        );
        assert_eq!(
            value("use std::fmt::Write;", "Write").as_deref(),
            Some("std::fmt::Write by std::fmt::Write")
        );
    }

    #[test]
    fn looks_in_the_innermost_module() {
        let source = format!(
            "use std::fs::read;\nmod inner {{ fn read() {{}} {BODY} }}\nmod other {{ use std::env::var; }}"
        );
        assert_eq!(resolve(&source, "read", Position::Value), None);
        assert_eq!(resolve(&source, "var", Position::Value), None);
        let nested = format!("mod inner {{ use std::fs::read; fn host() {{ {BODY} }} }}");
        assert_eq!(
            resolve(&nested, "read", Position::Value).as_deref(),
            Some("std::fs::read by std::fs::read")
        );
    }

    #[test]
    fn an_unfound_fn_gives_no_scope() {
        let file = syn::parse_file("fn show() {}").expect("valid source");
        let item: syn::ItemFn = syn::parse_quote!(
            fn show() {}
        );
        assert!(Scope::in_file(&file, "render", &item).is_none());
    }
}
