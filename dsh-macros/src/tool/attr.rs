//! `#[tool(…)]`: the keys, what each takes, and its parsed form.

use proc_macro2::{Span, TokenStream, TokenTree};
use quote::ToTokens;
use syn::ext::IdentExt;
use syn::parse::{ParseStream, Parser};
use syn::punctuated::Punctuated;
use syn::{Expr, ExprArray, ExprLit, ExprPath, Ident, Lit, LitInt, LitStr, Path, Token, token};

use crate::ctxt::Ctxt;
use crate::runtime::{CRATE_EXPECTED, Runtime};
use dsh_kit_rules::names::{CATEGORIES, OUTPUT_TYPES, meta_key_problem};
use dsh_kit_rules::suggest::{did_you_mean, one_of};

/// The bare flags, each a `ToolDef` builder method of the same name.
const FLAGS: &[&str] = &[
    "read_only",
    "concurrency_safe",
    "destructive",
    "idempotent",
    "open_world",
    "requires_approval",
    "defer",
    "always_load",
    "allow_unknown_args",
    "render_only",
    "task",
    "task_required",
    "ask_first",
];

/// The keys before the flags, in the order the docs list them.
const NAMING_KEYS: &[&str] = &[
    "name",
    "description",
    "title",
    "version",
    "aliases",
    "icons",
];

/// The keys after the flags, in the order the docs list them.
const OTHER_KEYS: &[&str] = &[
    "scopes",
    "meta",
    "example",
    "category",
    "output_type",
    "max_result_chars",
    "timeout_ms",
    "validate",
    "render",
    "present",
    "present_call",
    "crate",
];

/// Every key, in the order the docs list them.
const KEYS: [&[&str]; 3] = [NAMING_KEYS, FLAGS, OTHER_KEYS];

/// What `#[tool(…)]` said; a key it did not give is `None`.
#[derive(Default)]
pub(crate) struct Attr {
    pub(crate) name: Option<LitStr>,
    pub(crate) description: Option<LitStr>,
    pub(crate) title: Option<LitStr>,
    pub(crate) version: Option<LitStr>,
    pub(crate) aliases: Vec<LitStr>,
    /// Icon URIs, `https:` or `data:`.
    pub(crate) icons: Vec<LitStr>,
    /// The flags that were set, with their values.
    pub(crate) flags: Vec<Flag>,
    /// The OAuth scopes a caller needs.
    pub(crate) scopes: Vec<LitStr>,
    /// The tool's own `_meta`, as JSON text, spanned at the list.
    pub(crate) meta: Option<LitStr>,
    /// Example calls, each the JSON text of its arguments, spanned at its
    /// list, with the names it gives.
    pub(crate) examples: Vec<Example>,
    pub(crate) category: Option<Choice>,
    pub(crate) output_type: Option<Choice>,
    pub(crate) max_result_chars: Option<Count>,
    pub(crate) timeout_ms: Option<Count>,
    pub(crate) validate: Option<Path>,
    pub(crate) render: Option<Path>,
    pub(crate) present: Option<Path>,
    pub(crate) present_call: Option<Path>,
    /// `crate = "my_dsh"`: the path the runtime is reached by.
    pub(crate) runtime: Option<Runtime>,
}

/// One `example(…)`: the JSON text of its arguments, spanned at its list,
/// and each argument's name as given, spanned at it.
pub(crate) struct Example {
    pub(crate) json: LitStr,
    pub(crate) names: Vec<(String, Span)>,
}

/// `read_only` or `read_only = false`.
pub(crate) struct Flag {
    /// The key, which is also the name of the `ToolDef` method that sets it.
    pub(crate) key: Ident,
    pub(crate) value: bool,
}

/// A string naming an enum variant: `category = "filesystem"`.
pub(crate) struct Choice {
    /// The variant, spanned at the literal.
    pub(crate) variant: Ident,
    /// The string as written: `file_content`.
    pub(crate) spelling: String,
}

/// A positive integer: `timeout_ms = 5000`.
pub(crate) struct Count {
    pub(crate) lit: LitInt,
    pub(crate) value: u64,
}

/// What follows a key.
enum Value {
    /// `read_only`
    Bare,
    /// `name = "…"`
    Expr(Expr),
    /// `read_only(…)`, which no key takes.
    List(TokenTree),
}

impl Value {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        if input.peek(Token![=]) {
            input.parse::<Token![=]>()?;
            Ok(Value::Expr(input.parse()?))
        } else if input.peek(token::Paren) {
            Ok(Value::List(input.parse()?))
        } else {
            Ok(Value::Bare)
        }
    }
}

impl Attr {
    /// Parses the tokens inside `#[tool(…)]`, reporting every bad key to `cx`.
    pub(crate) fn parse(cx: &Ctxt, args: TokenStream) -> Self {
        let mut attr = Attr::default();
        let mut seen: Vec<String> = Vec::new();
        let parser = syn::meta::parser(|meta| {
            match Value::parse(meta.input) {
                Ok(value) => attr.entry(cx, &mut seen, &meta.path, value),
                Err(error) => {
                    cx.push(error);
                    skip_entry(meta.input)?;
                }
            }
            Ok(())
        });
        if let Err(error) = parser.parse2(args) {
            cx.push(error);
        }
        attr
    }

    fn entry(&mut self, cx: &Ctxt, seen: &mut Vec<String>, path: &Path, value: Value) {
        let Some(key) = path.get_ident() else {
            cx.error_spanned_by(
                path,
                format!("unknown key: `#[tool]` takes {}", one_of(&KEYS.concat())),
            );
            return;
        };
        let name = key.to_string();
        if !KEYS.iter().any(|keys| keys.contains(&name.as_str())) {
            let keys = KEYS.concat();
            let message = match did_you_mean(&name, keys.iter().copied()) {
                Some(close) => format!("unknown key `{name}`: did you mean `{close}`?"),
                None => format!("unknown key `{name}`: `#[tool]` takes {}", one_of(&keys)),
            };
            cx.error_spanned_by(key, message);
            return;
        }
        // `example` is the one key given once per example.
        if seen.contains(&name) && name != "example" {
            cx.error_spanned_by(key, format!("`{name}` is given twice: keep one"));
            return;
        }
        seen.push(name);
        let key = Key { cx, key };
        match key.name().as_str() {
            // #[tool(read_only)], #[tool(read_only = true)], #[tool(read_only = false)]
            flag if FLAGS.contains(&flag) => {
                if let Some(value) = key.flag(value) {
                    self.flags.push(Flag {
                        key: key.key.clone(),
                        value,
                    });
                }
            }
            // #[tool(name = "read_file")]
            "name" => self.name = key.string(value),
            // #[tool(description = "Read a file from disk.")]
            "description" => self.description = key.string(value),
            // #[tool(title = "Read file")]
            "title" => self.title = key.string(value),
            // #[tool(version = "1.2.0")]
            "version" => self.version = key.string(value),
            // #[tool(aliases = ["cat", "read"])]
            "aliases" => self.aliases = key.strings(value),
            // #[tool(icons = ["https://example.com/read.svg"])]
            "icons" => self.icons = key.strings(value),
            // #[tool(scopes = ["files:read", "files:write"])]
            "scopes" => self.scopes = key.strings(value),
            // #[tool(meta(owner = "search-team", "com.example/tier" = 2))]
            "meta" => self.meta = key.meta(value),
            // #[tool(example(path = "src/lib.rs", limit = 10))], once per example
            "example" => self.examples.extend(key.example(value)),
            // #[tool(category = "filesystem")]
            "category" => self.category = key.choice(value, "a category", CATEGORIES),
            // #[tool(output_type = "file_content")]
            "output_type" => self.output_type = key.choice(value, "an output type", OUTPUT_TYPES),
            // #[tool(max_result_chars = 30000)]
            "max_result_chars" => self.max_result_chars = key.count(value),
            // #[tool(timeout_ms = 5000)]
            "timeout_ms" => self.timeout_ms = key.count(value),
            // #[tool(validate = check_args)]
            "validate" => self.validate = key.path(value),
            // #[tool(render = read_text)]
            "render" => self.render = key.path(value),
            // #[tool(present = read_card)]
            "present" => self.present = key.path(value),
            // #[tool(present_call = running_card)]
            "present_call" => self.present_call = key.path(value),
            // #[tool(crate = "my_dsh")]
            "crate" => self.runtime = key.runtime(value),
            _ => {}
        }
    }
}

/// Skips the rest of a malformed entry, up to the next `,`.
fn skip_entry(input: ParseStream) -> syn::Result<()> {
    while !input.is_empty() && !input.peek(Token![,]) {
        input.parse::<TokenTree>()?;
    }
    Ok(())
}

/// One key and the context to report its errors to.
struct Key<'a> {
    cx: &'a Ctxt,
    key: &'a Ident,
}

impl Key<'_> {
    fn name(&self) -> String {
        self.key.to_string()
    }

    /// Reports that the value is not of the kind the key takes, with an example.
    fn expected<T>(&self, value: &Value, what: &str) -> Option<T> {
        let key = self.name();
        let message = format!("`{key}` takes {what}: `{}`", example(&key));
        match value {
            Value::Bare => self.cx.error_spanned_by(self.key, message),
            Value::Expr(expr) => self.cx.error_spanned_by(expr, message),
            Value::List(list) => self.cx.error_spanned_by(list, message),
        }
        None
    }

    fn flag(&self, value: Value) -> Option<bool> {
        match &value {
            Value::Bare => Some(true),
            Value::Expr(Expr::Lit(ExprLit {
                lit: Lit::Bool(value),
                ..
            })) => Some(value.value),
            _ => {
                let key = self.name();
                let message = format!("`{key}` is a flag: write `{key}`, or `{key} = false`");
                match value {
                    Value::Bare => {}
                    Value::Expr(expr) => self.cx.error_spanned_by(expr, message),
                    Value::List(list) => self.cx.error_spanned_by(list, message),
                }
                None
            }
        }
    }

    fn string(&self, value: Value) -> Option<LitStr> {
        match value {
            Value::Expr(Expr::Lit(ExprLit {
                lit: Lit::Str(lit), ..
            })) => Some(lit),
            _ => self.expected(&value, "a string"),
        }
    }

    fn strings(&self, value: Value) -> Vec<LitStr> {
        let Value::Expr(Expr::Array(ExprArray { elems, .. })) = &value else {
            self.expected::<()>(&value, "a list of strings");
            return Vec::new();
        };
        let mut strings = Vec::new();
        for elem in elems {
            match elem {
                Expr::Lit(ExprLit {
                    lit: Lit::Str(lit), ..
                }) => strings.push(lit.clone()),
                _ => self.cx.error_spanned_by(
                    elem,
                    format!(
                        "`{}` takes a list of strings: `{}`",
                        self.name(),
                        example(&self.name())
                    ),
                ),
            }
        }
        strings
    }

    /// `meta(owner = "search-team", "com.example/tier" = 2, beta = true)`:
    /// keys as names or strings, each a literal string, number or bool,
    /// written out as the JSON text of an object. Every bad entry is
    /// reported.
    fn meta(&self, value: Value) -> Option<LitStr> {
        let (object, group) = self.literal_object(
            &value,
            "key",
            "build other values at run time with `ToolDefBuilder::with_meta`",
            meta_key_problem,
        )?;
        if object.names.is_empty() {
            self.cx.error_spanned_by(
                group,
                "`meta` is empty: give it `key = value` entries, or leave the key out",
            );
            return None;
        }
        Some(object.json)
    }

    /// `example(path = "src/lib.rs", limit = 10)`: one example call, its
    /// arguments by name, each a literal string, number or bool, written out
    /// as the JSON text of an object; `example()` for a call with none.
    /// Every bad entry is reported.
    fn example(&self, value: Value) -> Option<Example> {
        self.literal_object(
            &value,
            "argument",
            "give an example with other values at run time with `ToolDefBuilder::with_examples`",
            |_| None,
        )
        .map(|(example, _)| example)
    }

    /// The `name = value` entries of `value`'s list, each value a literal
    /// string, number or bool, written out as the JSON text of an object
    /// (with its keys, in order, each spanned at itself), and the list's
    /// group; `None` when an
    /// entry is bad, each reported: a key `key_problem` refuses, a key given
    /// twice, a value that is no literal (`otherwise` says what to do then).
    /// `entry`: what a key names, for the message of a value that is no list.
    fn literal_object<'v>(
        &self,
        value: &'v Value,
        entry: &str,
        otherwise: &str,
        key_problem: impl Fn(&str) -> Option<&'static str>,
    ) -> Option<(Example, &'v proc_macro2::Group)> {
        let Value::List(TokenTree::Group(group)) = value else {
            return self.expected(value, &format!("a list of `{entry} = value` entries"));
        };
        let entries =
            match Punctuated::<MetaEntry, Token![,]>::parse_terminated.parse2(group.stream()) {
                Ok(entries) => entries,
                Err(error) => {
                    self.cx.push(error);
                    return None;
                }
            };
        let mut json = String::from("{");
        let mut keys: Vec<(String, Span)> = Vec::new();
        let mut good = true;
        for entry in &entries {
            let key = entry.key_text();
            if let Some(problem) = key_problem(&key) {
                self.cx.error_spanned_by(
                    &entry.key,
                    format!("`{}` is not a `_meta` key: {problem}", key.escape_debug()),
                );
                good = false;
                continue;
            }
            if keys.iter().any(|(known, _)| *known == key) {
                self.cx
                    .error_spanned_by(&entry.key, format!("`{key}` is given twice: keep one"));
                good = false;
                continue;
            }
            let Some(value) = meta_value(&entry.value) else {
                self.cx.error_spanned_by(
                    &entry.value,
                    format!(
                        "`{key}` takes a literal string, number or bool here: `{key} = \"…\"`; {otherwise}"
                    ),
                );
                good = false;
                continue;
            };
            if !keys.is_empty() {
                json.push(',');
            }
            json_string(&mut json, &key);
            json.push(':');
            json.push_str(&value);
            keys.push((key, entry.key.span()));
        }
        json.push('}');
        good.then(|| {
            let json = LitStr::new(&json, group.span());
            (Example { json, names: keys }, group)
        })
    }

    fn choice(&self, value: Value, what: &str, choices: &[(&str, &str)]) -> Option<Choice> {
        let lit = self.string(value)?;
        let text = lit.value();
        if let Some((_, variant)) = choices.iter().find(|(spelling, _)| *spelling == text) {
            let variant = Ident::new(variant, lit.span());
            return Some(Choice {
                variant,
                spelling: text,
            });
        }
        let spellings: Vec<&str> = choices.iter().map(|(spelling, _)| *spelling).collect();
        if text.trim().is_empty() {
            let message = format!(
                "`{}` is empty: use {}, or leave the key out",
                self.name(),
                one_of(&spellings)
            );
            self.cx.error_spanned_by(&lit, message);
            return None;
        }
        let message = match did_you_mean(&text, spellings.iter().copied()) {
            Some(close) => format!("`{text}` is not {what}: did you mean `{close}`?"),
            None => format!("`{text}` is not {what}: use {}", one_of(&spellings)),
        };
        self.cx.error_spanned_by(&lit, message);
        None
    }

    fn runtime(&self, value: Value) -> Option<Runtime> {
        let Value::Expr(expr) = &value else {
            let message = CRATE_EXPECTED;
            match &value {
                Value::List(list) => self.cx.error_spanned_by(list, message),
                _ => self.cx.error_spanned_by(self.key, message),
            }
            return None;
        };
        match Runtime::from_value(expr) {
            Ok(runtime) => Some(runtime),
            Err(error) => {
                self.cx.push(error);
                None
            }
        }
    }

    fn count(&self, value: Value) -> Option<Count> {
        let Value::Expr(Expr::Lit(ExprLit {
            lit: Lit::Int(lit), ..
        })) = value
        else {
            return self.expected(&value, "a positive integer");
        };
        match lit.base10_parse::<u64>() {
            Ok(0) => {
                let message = format!("`{}` must be positive", self.name());
                self.cx.error_spanned_by(&lit, message);
                None
            }
            Ok(value) => Some(Count { lit, value }),
            Err(error) => {
                self.cx.push(error);
                None
            }
        }
    }

    fn path(&self, value: Value) -> Option<Path> {
        match value {
            Value::Expr(Expr::Path(ExprPath {
                attrs,
                qself: None,
                path,
            })) if attrs.is_empty() => Some(path),
            _ => {
                let what = match self.name().as_str() {
                    "validate" => "the path of a fn `fn(&Args, &Exec) -> Validation`",
                    "render" => "the path of a `#[render]` fn",
                    "present_call" => "the path of a `#[present]` fn taking only `&Args`",
                    _ => "the path of a `#[present]` fn",
                };
                self.expected(&value, what)
            }
        }
    }
}

/// How to write `key`, for messages.
/// One `key = value` of `meta(…)`.
struct MetaEntry {
    /// A name (`owner`) or a string (`"com.example/tier"`).
    key: TokenTree,
    value: Expr,
}

impl syn::parse::Parse for MetaEntry {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let key = if input.peek(LitStr) {
            TokenTree::Literal(input.parse::<proc_macro2::Literal>()?)
        } else if input.peek(Ident::peek_any) {
            TokenTree::Ident(input.call(Ident::parse_any)?)
        } else {
            return Err(input.error(
                "expected a `_meta` key, a name or a string: `owner = \"search-team\"`, `\"com.example/tier\" = 2`",
            ));
        };
        input.parse::<Token![=]>()?;
        Ok(MetaEntry {
            key,
            value: input.parse()?,
        })
    }
}

impl MetaEntry {
    /// The key as written: a name as itself, a string's value.
    fn key_text(&self) -> String {
        match &self.key {
            TokenTree::Literal(literal) => syn::parse2::<LitStr>(literal.to_token_stream())
                .map(|lit| lit.value())
                .unwrap_or_default(),
            TokenTree::Ident(ident) => ident.unraw().to_string(),
            other => other.to_string(),
        }
    }
}

/// The JSON text of a literal string, number or bool (a number maybe
/// negated); `None` for anything else.
fn meta_value(value: &Expr) -> Option<String> {
    match value {
        Expr::Lit(ExprLit { lit, .. }) => match lit {
            Lit::Str(lit) => {
                let mut json = String::new();
                json_string(&mut json, &lit.value());
                Some(json)
            }
            // A suffix (`2u32`, `0.5f64`) says the Rust type, not the value.
            Lit::Int(lit) => Some(lit.base10_digits().to_owned()),
            Lit::Float(lit) => {
                let digits = lit.base10_digits();
                // JSON wants a digit after the point: `1.` is `1.0`.
                Some(match digits.strip_suffix('.') {
                    Some(whole) => format!("{whole}.0"),
                    None => digits.to_owned(),
                })
            }
            Lit::Bool(lit) => Some(lit.value.to_string()),
            _ => None,
        },
        Expr::Unary(syn::ExprUnary {
            op: syn::UnOp::Neg(_),
            expr,
            ..
        }) => match &**expr {
            Expr::Lit(ExprLit {
                lit: Lit::Int(_) | Lit::Float(_),
                ..
            }) => meta_value(expr).map(|number| format!("-{number}")),
            _ => None,
        },
        _ => None,
    }
}

/// Appends `text` to `json` as a JSON string.
fn json_string(json: &mut String, text: &str) {
    json.push('"');
    for c in text.chars() {
        match c {
            '"' => json.push_str("\\\""),
            '\\' => json.push_str("\\\\"),
            '\n' => json.push_str("\\n"),
            '\r' => json.push_str("\\r"),
            '\t' => json.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = std::fmt::Write::write_fmt(json, format_args!("\\u{:04x}", c as u32));
            }
            c => json.push(c),
        }
    }
    json.push('"');
}

fn example(key: &str) -> String {
    let value = match key {
        "name" => "\"read_file\"",
        "description" => "\"Read a file from disk.\"",
        "title" => "\"Read file\"",
        "version" => "\"1.2.0\"",
        "aliases" => "[\"cat\", \"read\"]",
        "icons" => "[\"https://example.com/read.svg\"]",
        "scopes" => "[\"files:read\", \"files:write\"]",
        "meta" => return "meta(owner = \"search-team\", \"com.example/tier\" = 2)".to_owned(),
        "example" => return "example(path = \"src/lib.rs\", limit = 10)".to_owned(),
        "category" => "\"filesystem\"",
        "output_type" => "\"file_content\"",
        "max_result_chars" => "30000",
        "timeout_ms" => "5000",
        "validate" => "check_args",
        "render" => "read_text",
        "present" => "read_card",
        "present_call" => "running_card",
        "crate" => "\"my_dsh\"",
        _ => "true",
    };
    format!("{key} = {value}")
}

impl ToTokens for Count {
    fn to_tokens(&self, tokens: &mut TokenStream) {
        let mut literal = proc_macro2::Literal::u64_unsuffixed(self.value);
        literal.set_span(self.lit.span());
        literal.to_tokens(tokens);
    }
}
