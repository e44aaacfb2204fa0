//! Reading types by their syntax, before rustc has resolved anything.

use proc_macro2::{Delimiter, Spacing, TokenStream, TokenTree};
use quote::ToTokens;
use syn::visit::{self, Visit};
use syn::{
    GenericArgument, Generics, Ident, Lifetime, Path, PathArguments, PathSegment, Type, TypeMacro,
};

/// `ty` without the parentheses and invisible groups around it.
pub(crate) fn peel(mut ty: &Type) -> &Type {
    loop {
        match ty {
            Type::Paren(inner) => ty = &inner.elem,
            Type::Group(inner) => ty = &inner.elem,
            _ => return ty,
        }
    }
}

/// The last segment of a path type: `Exec` in `&dsh_kit::Exec` is not one
/// (it is a reference), `Exec` in `dsh_kit::Exec` is.
pub(crate) fn last_segment(ty: &Type) -> Option<&PathSegment> {
    match peel(ty) {
        Type::Path(path) if path.qself.is_none() => path.path.segments.last(),
        _ => None,
    }
}

/// The type arguments of a path segment: `T, E` in `Result<T, E>`.
pub(crate) fn type_args(segment: &PathSegment) -> impl Iterator<Item = &Type> {
    let args = match &segment.arguments {
        PathArguments::AngleBracketed(args) => Some(&args.args),
        PathArguments::None | PathArguments::Parenthesized(_) => None,
    };
    args.into_iter().flatten().filter_map(|arg| match arg {
        GenericArgument::Type(ty) => Some(ty),
        _ => None,
    })
}

/// Whether `ty` is, by its spelling, something whose JSON Schema cannot be an
/// object: a string, a number, a bool, a tuple, a sequence, an `Option`, or a
/// reference or box around one. A user-defined type that is not a struct
/// (a unit enum) gets past this; the registry refuses it when registering.
pub(crate) fn is_never_object(ty: &Type) -> bool {
    match peel(ty) {
        Type::Tuple(_) | Type::Array(_) | Type::Slice(_) | Type::Never(_) => true,
        Type::Reference(reference) => is_never_object(&reference.elem),
        Type::Path(path) if path.qself.is_none() => {
            let Some(segment) = path.path.segments.last() else {
                return false;
            };
            let name = segment.ident.to_string();
            match name.as_str() {
                "bool" | "char" | "str" | "String" | "i8" | "i16" | "i32" | "i64" | "i128"
                | "isize" | "u8" | "u16" | "u32" | "u64" | "u128" | "usize" | "f32" | "f64"
                | "Vec" | "VecDeque" | "LinkedList" | "HashSet" | "BTreeSet" | "BinaryHeap"
                | "Option" => true,
                "Box" | "Rc" | "Arc" | "Cow" => {
                    type_args(segment).next().is_some_and(is_never_object)
                }
                _ => false,
            }
        }
        _ => false,
    }
}

/// `ty` as it reads in a message: `Vec<args::ReadArgs>`, where its tokens
/// printed as they are would read `Vec < args :: ReadArgs >`.
pub(crate) fn spelling(ty: &Type) -> String {
    let mut text = String::new();
    spell(ty.to_token_stream(), &mut text);
    text
}

fn spell(tokens: TokenStream, text: &mut String) {
    let mut tokens = tokens.into_iter().peekable();
    while let Some(token) = tokens.next() {
        match token {
            TokenTree::Group(group) => {
                let (open, close) = match group.delimiter() {
                    Delimiter::Parenthesis => ("(", ")"),
                    Delimiter::Bracket => ("[", "]"),
                    Delimiter::Brace => ("{ ", " }"),
                    Delimiter::None => ("", ""),
                };
                // `&mut [u8]`, `&dyn (Trait)`, but `fn(u32)` and `Fn(u32)`.
                let last_word = text
                    .rsplit(|c: char| !c.is_alphanumeric() && c != '_')
                    .next();
                if matches!(last_word, Some("mut" | "dyn" | "impl" | "const")) {
                    text.push(' ');
                }
                text.push_str(open);
                spell(group.stream(), text);
                // A trailing comma: `(String,)`.
                text.truncate(text.trim_end().len());
                text.push_str(close);
            }
            TokenTree::Punct(punct) => match punct.as_char() {
                ',' | ';' => {
                    text.push(punct.as_char());
                    text.push(' ');
                }
                '+' | '=' => {
                    text.push(' ');
                    text.push(punct.as_char());
                    text.push(' ');
                }
                // `->`
                '-' if punct.spacing() == Spacing::Joint
                    && matches!(tokens.peek(), Some(TokenTree::Punct(next)) if next.as_char() == '>') =>
                {
                    tokens.next();
                    text.push_str(" -> ");
                }
                other => text.push(other),
            },
            word => {
                // Two words in a row: `dyn Any`, `&'a str`, `T as Trait`.
                if text.ends_with(|c: char| c.is_alphanumeric() || c == '_') {
                    text.push(' ');
                }
                text.push_str(&word.to_string());
            }
        }
    }
}

/// Whether `ty` names one of `generics`' parameters, or `Self`: a bound on
/// it is one rustc checks where the type is used, not where it is written.
/// A macro in type position is counted as naming them, as it cannot be read.
pub(crate) fn names_generics(ty: &Type, generics: &Generics) -> bool {
    let mut finder = Finder {
        params: generics.type_params().map(|param| &param.ident).collect(),
        lifetimes: generics.lifetimes().map(|param| &param.lifetime).collect(),
        found: false,
    };
    finder
        .params
        .extend(generics.const_params().map(|param| &param.ident));
    finder.visit_type(ty);
    finder.found
}

/// Whether `ty` names an item called `name` by any path (`ReadArgs`,
/// `Option<ReadArgs>`, `types::ReadArgs`): a type of the user's that an
/// item the macro generates under that name would shadow or collide with.
/// What a macro in type position expands to is not read.
pub(crate) fn names_item(ty: &Type, name: &str) -> bool {
    let mut finder = ItemFinder { name, found: false };
    finder.visit_type(ty);
    finder.found
}

/// Whether `ty` borrows: a reference or a lifetime anywhere in it.
pub(crate) fn borrows(ty: &Type) -> bool {
    let mut finder = BorrowFinder { found: false };
    finder.visit_type(ty);
    finder.found
}

struct BorrowFinder {
    found: bool,
}

impl<'ast> Visit<'ast> for BorrowFinder {
    fn visit_type_reference(&mut self, _: &'ast syn::TypeReference) {
        self.found = true;
    }

    fn visit_lifetime(&mut self, _: &'ast Lifetime) {
        self.found = true;
    }
}

struct ItemFinder<'a> {
    name: &'a str,
    found: bool,
}

impl<'ast> Visit<'ast> for ItemFinder<'_> {
    fn visit_path(&mut self, path: &'ast Path) {
        if path
            .segments
            .iter()
            .any(|segment| segment.ident == self.name)
        {
            self.found = true;
        }
        visit::visit_path(self, path);
    }
}

struct Finder<'a> {
    /// The type and const parameters.
    params: Vec<&'a Ident>,
    lifetimes: Vec<&'a Lifetime>,
    found: bool,
}

impl<'ast> Visit<'ast> for Finder<'_> {
    fn visit_path(&mut self, path: &'ast Path) {
        if path.leading_colon.is_none()
            && let Some(first) = path.segments.first()
            && (first.ident == "Self" || self.params.contains(&&first.ident))
        {
            self.found = true;
        }
        visit::visit_path(self, path);
    }

    fn visit_lifetime(&mut self, lifetime: &'ast Lifetime) {
        if self.lifetimes.contains(&lifetime) {
            self.found = true;
        }
    }

    fn visit_type_macro(&mut self, _: &'ast TypeMacro) {
        self.found = true;
    }
}

#[cfg(test)]
mod tests {
    use super::{is_never_object, names_generics, names_item, spelling};

    fn never_object(ty: &str) -> bool {
        is_never_object(&syn::parse_str(ty).expect("a type"))
    }

    #[test]
    fn primitives_sequences_and_tuples_are_never_objects() {
        for ty in [
            "String",
            "&str",
            "&'static str",
            "u32",
            "f64",
            "bool",
            "()",
            "(String, u32)",
            "(String,)",
            "[u8; 4]",
            "&[u8]",
            "Vec<ReadArgs>",
            "Option<ReadArgs>",
            "Box<str>",
            "Arc<Vec<u8>>",
            "std::string::String",
        ] {
            assert!(never_object(ty), "{ty}");
        }
    }

    #[test]
    fn structs_and_maps_may_be_objects() {
        for ty in [
            "ReadArgs",
            "args::ReadArgs",
            "Box<ReadArgs>",
            "HashMap<String, u32>",
            "serde_json::Value",
        ] {
            assert!(!never_object(ty), "{ty}");
        }
    }

    #[test]
    fn types_naming_a_parameter_or_self() {
        let generics: syn::Generics = syn::parse_quote!(<'a, T, const N: usize>);
        let names = |ty: &str| names_generics(&syn::parse_str(ty).expect("a type"), &generics);
        for ty in [
            "T",
            "Vec<T>",
            "T::Item",
            "Cow<'a, str>",
            "[u8; N]",
            "Box<Self>",
            "m!(x)",
        ] {
            assert!(names(ty), "{ty}");
        }
        for ty in [
            "String",
            "&'static str",
            "a::T",
            "::T",
            "Vec<U>",
            "HashMap<String, u32>",
        ] {
            assert!(!names(ty), "{ty}");
        }
    }

    #[test]
    fn types_naming_an_item() {
        let names = |ty: &str| names_item(&syn::parse_str(ty).expect("a type"), "ReadArgs");
        for ty in [
            "ReadArgs",
            "Option<ReadArgs>",
            "Vec<types::ReadArgs>",
            "self::ReadArgs",
            "HashMap<String, ReadArgs>",
            "(u8, [ReadArgs; 2])",
            "<ReadArgs as Trait>::Item",
        ] {
            assert!(names(ty), "{ty}");
        }
        for ty in [
            "m!(x)",
            "String",
            "ReadArgsExt",
            "Vec<MyReadArgs>",
            "read_args::Other",
        ] {
            assert!(!names(ty), "{ty}");
        }
    }

    #[test]
    fn types_are_spelled_as_written() {
        for ty in [
            "ReadArgs",
            "args::ReadArgs",
            "Vec<args::ReadArgs>",
            "&'static str",
            "&mut [u8; 4]",
            "(String, u32)",
            "(String,)",
            "Box<dyn Error + Send + Sync>",
            "<T as Trait>::Item",
            "Box<dyn Iterator<Item = u32>>",
            "fn(u32) -> u32",
        ] {
            assert_eq!(spelling(&syn::parse_str(ty).expect("a type")), ty);
        }
    }
}
