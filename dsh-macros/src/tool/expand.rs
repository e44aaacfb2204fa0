//! The tokens of a checked `#[tool]` fn: the fn as written, a type named after
//! it, and that type's `Tool` impl.

use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, format_ident, quote, quote_spanned};
use syn::ext::IdentExt;
use syn::{Ident, LitStr, Visibility};

use super::ast::{Input, Output, Tool, is_macro_attr};
use crate::fallback;
use crate::header;
use crate::naming;
use crate::span::{self, around};
use crate::types::names_item;

/// The locals of the generated methods, hygienic (`Span::mixed_site`) so that
/// they cannot shadow the user's fn (a tool named `args`) or be shadowed by it.
struct Locals {
    args: Ident,
    exec: Ident,
    value: Ident,
    validate: Ident,
}

impl Locals {
    fn new() -> Self {
        let local = |name| Ident::new(name, Span::mixed_site());
        Locals {
            args: local("args"),
            exec: local("exec"),
            value: local("value"),
            validate: local("validate"),
        }
    }
}

/// The args and output types as the fn writes them, and the conversions from
/// the names the `Tool` impl gives them (`<T as ToolArgs>::Checked`, which
/// is `T` whenever the bound holds; see `assumptions`).
struct Types {
    /// `<crate>::__private`.
    dsh: TokenStream,
    args: TokenStream,
    output: TokenStream,
    struct_form: bool,
    /// The args struct is held in a wrapper of the fn's visibility (see
    /// `args_wrapper`): `Self::Args` is the wrapper, whose `.0` is the struct.
    wrapped: bool,
    has_output: bool,
}

impl Types {
    fn new(tool: &Tool, generated: Option<&Ident>, wrapped: bool) -> Self {
        let dsh = tool.private();
        let (args, struct_form) = match (tool.args(), generated) {
            (Some(arg), _) => {
                let ty = &arg.ty;
                (quote!(#ty), true)
            }
            (None, Some(name)) => (quote!(#name), false),
            (None, None) => (quote!(()), false),
        };
        let (output, has_output) = match &tool.output {
            Output::Unit | Output::Opaque(_) => (quote!(()), false),
            Output::Plain(ty) => (quote!(#ty), true),
            Output::Typed { ty, .. } => (quote!(<#ty as #dsh::ToolReturn>::Output), true),
        };
        Types {
            dsh,
            args,
            output,
            struct_form,
            wrapped,
            has_output,
        }
    }

    fn args_value(&self, expr: TokenStream) -> TokenStream {
        let dsh = &self.dsh;
        let args = &self.args;
        if self.wrapped {
            quote!(#expr.0)
        } else if self.struct_form {
            quote!(<#args as #dsh::ToolArgs>::from_checked_value(#expr))
        } else {
            expr
        }
    }

    fn args_ref(&self, expr: TokenStream) -> TokenStream {
        let dsh = &self.dsh;
        let args = &self.args;
        if self.wrapped {
            quote!(&#expr.0)
        } else if self.struct_form {
            quote!(<#args as #dsh::ToolArgs>::from_checked(#expr))
        } else {
            expr
        }
    }

    fn output_ref(&self, expr: TokenStream) -> TokenStream {
        let dsh = &self.dsh;
        let output = &self.output;
        if self.has_output {
            quote!(<#output as #dsh::ToolOutput>::from_checked(#expr))
        } else {
            expr
        }
    }
}

pub(crate) fn expand(tool: &Tool) -> TokenStream {
    let dsh = tool.private();
    let mut item = tool.item.clone();
    fallback::strip_param_attrs(&mut item.sig, |attr| !is_macro_attr(attr));
    let vis = &item.vis;
    let ident = &item.sig.ident;
    let locals = Locals::new();
    let Locals { args, exec, .. } = &locals;

    let wrapped = tool.args().is_some() && !matches!(vis, Visibility::Inherited);
    let (args_ty, args_struct, generated) = match tool.args() {
        Some(arg) if wrapped => {
            let (ty, wrapper) = args_wrapper(tool, &arg.ty);
            (ty, wrapper, None)
        }
        Some(arg) => (
            around(quote!(<), &arg.ty, quote!(as #dsh::ToolArgs>::Checked)),
            TokenStream::new(),
            None,
        ),
        None => {
            let name = args_struct_name(tool);
            let args_struct = args_struct(tool, &name.ident);
            let ident = name.ident.clone();
            (quote!(#ident), args_struct, Some(name))
        }
    };
    let types = Types::new(tool, generated.as_ref().map(|name| &name.ident), wrapped);
    let output_ty = output_type(tool);
    let takes_exec = tool
        .inputs
        .iter()
        .any(|input| matches!(input, Input::Exec(..)));
    let exec_param = if takes_exec { quote!(#exec) } else { quote!(_) };
    let body = execute_body(tool, &locals, &types);
    let definition = definition(tool);
    let validate = validate_fn(tool, &locals, &types);
    let render = render_fn(tool, &locals, &types);
    let present = present_fn(tool, &locals, &types);
    let present_call = present_call_fn(tool, &locals, &types);
    // With none of the three, the registry can project without the args.
    let default_projections = (render.is_none() && present.is_none() && present_call.is_none())
        .then(|| {
            quote!(
                const DEFAULT_PROJECTIONS: bool = true;
            )
        });
    // Neither execute nor validate_input reads the context it is handed.
    let reads_no_exec = (!takes_exec && validate.is_none()).then(|| {
        quote!(
            const READS_EXEC: bool = false;
        )
    });
    let presents = present.is_some().then(|| {
        quote!(
            const PRESENTS: bool = true;
        )
    });
    let renders = render.is_some().then(|| {
        quote!(
            const RENDERS: bool = true;
        )
    });
    let names = names(tool);
    let checks = checks(tool);
    let output_type_check = super::consistency::output_type(tool);
    let marked = super::marked::marked(tool);
    let super::signature::ToolType {
        declaration: tool_declaration,
        instance: tool_instance,
    } = super::signature::tool_type(tool);
    let assumptions = assumptions(tool);
    let failure_schema = failure_schema_fn(tool);
    // Say the args type's name where an IDE shows the tool's, as a render
    // or a validate fn must name it.
    let args_name = match (&generated, tool.args()) {
        (Some(name), _) if name.shadowed => format!(
            " Its arguments are `<{ident} as Tool>::Args`, generated from its parameters (not named `{}`, which is a type of yours it takes).",
            name.public,
        ),
        (Some(name), _) => format!(
            " Its arguments are `{}`, generated from its parameters.",
            name.ident
        ),
        (None, Some(arg)) => format!(" Its arguments are `{}`.", crate::types::spelling(&arg.ty)),
        (None, None) => String::new(),
    };
    let doc = format!(
        " The tool `{}`: register it with `registry.register::<{ident}>()`.{args_name}",
        tool.name().0
    );

    quote! {
        #item

        #[doc = #doc]
        #[allow(non_camel_case_types, dead_code, private_interfaces)]
        #vis struct #tool_declaration

        #args_struct

        #names

        #checks
        #output_type_check
        #marked

        #[allow(private_bounds)]
        impl #dsh::Tool for #tool_instance #assumptions {
            type Args = #args_ty;
            type Output = #output_ty;
            const DEFINITION: #dsh::ToolDef = #definition;

            fn execute(
                #args: Self::Args,
                #exec_param: &#dsh::Exec,
            ) -> impl ::core::future::Future<
                Output = ::core::result::Result<Self::Output, #dsh::ToolError>,
            > + ::core::marker::Send {
                #body
            }

            #failure_schema
            #validate
            #render
            #present
            #present_call
            #default_projections
            #reads_no_exec
            #presents
            #renders
        }
    }
}

/// The tool's output type: `()`; `T` itself; or, for a type written with
/// type arguments, the output its `ToolReturn` impl names (`T` of `Result<T, E>`).
fn output_type(tool: &Tool) -> TokenStream {
    let dsh = tool.private();
    match &tool.output {
        Output::Unit | Output::Opaque(_) => quote!(()),
        Output::Plain(ty) => around(quote!(<), ty, quote!(as #dsh::ToolOutput>::Checked)),
        Output::Typed { ty, .. } => around(
            quote!(<<),
            ty,
            quote!(as #dsh::ToolReturn>::Output as #dsh::ToolOutput>::Checked),
        ),
    }
}

/// A check per type the fn names, in a `const _`, each placed at the type
/// as written (`<ReadArgs as ToolArgs>::CHECKED` at `ReadArgs`): a type
/// that cannot be what it is for is reported there, once, with its trait's
/// `on_unimplemented` message, and no note on a function of the runtime's
/// (a bound on a checking fn would add one). A return type written with
/// type arguments is checked through its `ToolReturn` projections alone,
/// both at the whole type: a type that is no `ToolReturn` fails both the
/// same way, which rustc reports once.
fn checks(tool: &Tool) -> TokenStream {
    let dsh = tool.private();
    let check = |name: &str, ty: &dyn ToTokens| {
        let name = Ident::new(name, Span::call_site());
        around(
            quote!(let _: () = <),
            &ty,
            quote!(as #dsh::#name>::CHECKED;),
        )
    };
    let mut calls = Vec::new();
    for input in &tool.inputs {
        match input {
            Input::Param(param) => {
                calls.push(check("ToolField", &param.arg.ty));
                if param.header.is_some() {
                    calls.push(header::type_check(&dsh, &param.arg.ty));
                }
            }
            Input::Exec(_, reference) => calls.push(check("ToolContext", &reference.elem)),
            Input::Args(arg) => calls.push(check("ToolArgs", &arg.ty)),
            Input::Receiver(_) => {}
        }
    }
    match &tool.output {
        Output::Plain(ty) => calls.push(check("ToolOutput", ty)),
        Output::Typed { ty, .. } => {
            let returns = |item: &str| {
                let item = Ident::new(item, Span::call_site());
                around(quote!(<), ty, quote!(as #dsh::ToolReturn>::#item))
            };
            calls.push(check("ToolOutput", &returns("Output")));
            calls.push(check("ToolFailure", &returns("Error")));
        }
        Output::Unit | Output::Opaque(_) => {}
    }
    if calls.is_empty() {
        return TokenStream::new();
    }
    quote! {
        const _: () = {
            #(#calls)*
        };
    }
}

/// What the checks establish, as the `where` clause of the `Tool` impl and
/// of the generated args struct: assumed inside them, so a type that fails
/// its check is not reported again by everything built on it. Each bound is
/// written under `for<'__dsh>`, which rustc does not check where it is
/// written, as it does a bound naming no type parameter (the error of
/// rust-lang/rust#48214); the impl of a fn whose check fails just does not
/// hold. The types are named through the same traits
/// (`<T as ToolOutput>::Checked`, which is `T`), whose item bounds carry
/// what `Tool` requires.
fn assumptions(tool: &Tool) -> TokenStream {
    let dsh = tool.private();
    let mut predicates = Vec::new();
    for input in &tool.inputs {
        match input {
            Input::Param(param) => {
                let ty = &param.arg.ty;
                predicates.push(quote!(#ty: #dsh::ToolField));
            }
            Input::Exec(_, reference) => {
                let ty = &reference.elem;
                predicates.push(quote!(#ty: #dsh::ToolContext));
            }
            Input::Args(arg) => {
                let ty = &arg.ty;
                predicates.push(quote!(#ty: #dsh::ToolArgs));
            }
            Input::Receiver(_) => {}
        }
    }
    match &tool.output {
        Output::Plain(ty) => predicates.push(quote!(#ty: #dsh::ToolOutput)),
        Output::Typed { ty, .. } => predicates.extend([
            quote!(#ty: #dsh::ToolReturn),
            quote!(<#ty as #dsh::ToolReturn>::Output: #dsh::ToolOutput),
            quote!(<#ty as #dsh::ToolReturn>::Error: #dsh::ToolFailure),
        ]),
        Output::Unit | Output::Opaque(_) => {}
    }
    where_clause(predicates)
}

/// `where for<'__dsh> P, …` (see `assumptions`), or nothing.
fn where_clause(predicates: Vec<TokenStream>) -> TokenStream {
    if predicates.is_empty() {
        return TokenStream::new();
    }
    quote!(where #(for<'__dsh> #predicates),*)
}

/// Calls the fn with each parameter in its place, and maps its future's
/// value to a `Result<Output, ToolError>` through `__private`'s generic
/// futures (`returns`, `fallible`): no `async` block per tool.
fn execute_body(tool: &Tool, locals: &Locals, types: &Types) -> TokenStream {
    let dsh = tool.private();
    let Locals { args, exec, .. } = locals;
    let whole_args = types.args_value(quote!(#args));
    let ident = &tool.item.sig.ident;
    let call_args = tool.inputs.iter().filter_map(|input| match input {
        // The context as the type the fn names it by, checked there.
        Input::Exec(_, reference) => {
            let ty = &reference.elem;
            Some(quote!(<#ty as #dsh::ToolContext>::from_exec(#exec)))
        }
        Input::Args(..) => Some(whole_args.clone()),
        Input::Param(param) => param.ident.map(|field| {
            let ty = &param.arg.ty;
            quote!(<#ty as #dsh::ToolField>::from_checked(#args.#field))
        }),
        Input::Receiver(_) => None,
    });
    let call = quote!(#ident(#(#call_args),*));
    let Output::Typed { ty, err } = &tool.output else {
        return quote!(#dsh::returns(#call));
    };
    // The error converts into `ToolError` by its type (see `__private`'s
    // `Failure`), placed at the error type as written, or at the whole return
    // type for an alias, so a type that converts in no way is reported there.
    let at: &dyn ToTokens = match err {
        Some(err) => err,
        None => ty,
    };
    let at_span = span::ends(&at).1;
    let error = Ident::new("error", Span::mixed_site().located_at(at_span));
    let convert = span::relocate(
        quote! {
            (&&&&&&&#dsh::Failure::of(&#error)).failure_kind().convert(#error)
        },
        at_span,
    );
    quote! {
        #dsh::fallible(#call, |#error| {
            #[allow(unused_imports)]
            use #dsh::{
                DynErrorKind as _, ErrorKind as _, LocalDynErrorKind as _, MessageKind as _,
                SameKind as _, TypedDisplayKind as _, TypedErrorKind as _,
            };
            #convert
        })
    }
}

/// `failure_schema`: the schema of the fn's error type, where it has one.
fn failure_schema_fn(tool: &Tool) -> Option<TokenStream> {
    let dsh = tool.private();
    let Output::Typed { ty, .. } = &tool.output else {
        return None;
    };
    Some(quote! {
        fn failure_schema() -> ::core::option::Option<#dsh::serde_json::Value> {
            #[allow(unused_imports)]
            use #dsh::{TypedSchema as _, UntypedSchema as _};
            (&&#dsh::Failure::<
                <#ty as #dsh::ToolReturn>::Error,
            >::new())
                .failure_schema()
        }
    })
}

/// A hidden constant per name the tool answers to (its name and aliases),
/// in the module's value namespace: two tools of one module that share a
/// name, or a name and an alias, define it twice, which rustc reports at the
/// second name.
fn names(tool: &Tool) -> TokenStream {
    let (name, span) = tool.name();
    let aliases = tool
        .attr
        .aliases
        .iter()
        .map(|alias| (alias.value(), alias.span()));
    let consts = std::iter::once((name, span))
        .chain(aliases)
        .map(|(name, span)| {
            let ident = Ident::new(&naming::name_item(&name), span);
            // All at the name, so that "defined multiple times" points there.
            quote_spanned! {span=>
                #[doc(hidden)]
                #[allow(non_upper_case_globals, dead_code)]
                const #ident: () = ();
            }
        });
    quote!(#(#consts)*)
}

/// `validate_input`, calling `validate = path`.
fn validate_fn(tool: &Tool, locals: &Locals, types: &Types) -> Option<TokenStream> {
    let dsh = tool.private();
    let Locals {
        args,
        exec,
        validate,
        ..
    } = locals;
    let path = tool.attr.validate.as_ref()?;
    let args_ty = &types.args;
    let args_ref = types.args_ref(quote!(#args));
    Some(quote! {
        fn validate_input(
            #args: &Self::Args,
            #exec: &#dsh::Exec,
        ) -> #dsh::Validation {
            // A mismatch reads as one error at the path, showing both signatures.
            let #validate: fn(&#args_ty, &#dsh::Exec) -> #dsh::Validation = #path;
            #validate(#args_ref, #exec)
        }
    })
}

/// `render`, calling the `#[render]` fn of `render = path` through its
/// `RenderFn` impl. `<path as RenderFn<…>>` names the path as a type, so a
/// render that does not fit the tool is reported at the path with
/// `RenderFn`'s message, and a fn without `#[render]` as "expected type,
/// found function" there.
fn render_fn(tool: &Tool, locals: &Locals, types: &Types) -> Option<TokenStream> {
    let dsh = tool.private();
    let Locals { args, value, .. } = locals;
    let (args_ty, output_ty) = (&types.args, &types.output);
    let (args_ref, value_ref) = (
        types.args_ref(quote!(#args)),
        types.output_ref(quote!(#value)),
    );
    let path = tool.attr.render.as_ref()?;
    let render = around(
        quote!(<),
        path,
        quote!(as #dsh::RenderFn<
            #args_ty,
            #output_ty,
            ::std::vec::Vec<#dsh::ContentBlock>,
        >>::call),
    );
    Some(quote! {
        fn render(
            #args: &Self::Args,
            #value: &Self::Output,
        ) -> ::std::vec::Vec<#dsh::ContentBlock> {
            #render(#args_ref, #value_ref)
        }
    })
}

/// `present`, calling the `#[present]` fn of `present = path` as `render_fn` does.
fn present_fn(tool: &Tool, locals: &Locals, types: &Types) -> Option<TokenStream> {
    let dsh = tool.private();
    let Locals { args, value, .. } = locals;
    let (args_ty, output_ty) = (&types.args, &types.output);
    let (args_ref, value_ref) = (
        types.args_ref(quote!(#args)),
        types.output_ref(quote!(#value)),
    );
    let path = tool.attr.present.as_ref()?;
    let present = around(
        quote!(<),
        path,
        quote!(as #dsh::PresentFn<
            #args_ty,
            #output_ty,
            #dsh::Card,
        >>::call),
    );
    Some(quote! {
        fn present(
            #args: &Self::Args,
            #value: &Self::Output,
        ) -> ::core::option::Option<#dsh::Card> {
            ::core::option::Option::Some(#present(#args_ref, #value_ref))
        }
    })
}

/// `present_call`, calling the `#[present]` fn of `present_call = path`,
/// which takes only the args, through its `PresentCallFn` impl.
fn present_call_fn(tool: &Tool, locals: &Locals, types: &Types) -> Option<TokenStream> {
    let dsh = tool.private();
    let Locals { args, .. } = locals;
    let args_ty = &types.args;
    let args_ref = types.args_ref(quote!(#args));
    let path = tool.attr.present_call.as_ref()?;
    let present = around(
        quote!(<),
        path,
        quote!(as #dsh::PresentCallFn<
            #args_ty,
            #dsh::Card,
        >>::call),
    );
    Some(quote! {
        fn present_call(
            #args: &Self::Args,
        ) -> ::core::option::Option<#dsh::Card> {
            ::core::option::Option::Some(#present(#args_ref))
        }
    })
}

/// The args struct of a fn visible outside its module, in a wrapper of the
/// fn's visibility that the `Tool` impl names as its `Args`: the struct may
/// be private to the module (Rust lets a `pub` fn take it, with a lint),
/// and a `Tool` impl naming it would then be private too, so the tool could
/// not be registered from another module. The wrapper reads and describes
/// itself as the struct does.
fn args_wrapper(tool: &Tool, ty: &syn::Type) -> (TokenStream, TokenStream) {
    let dsh = tool.private();
    let vis = &tool.item.vis;
    let ident = &tool.item.sig.ident;
    let name = format_ident!(
        "__{}",
        naming::args_struct(&ident.unraw().to_string()),
        span = ident.span()
    );
    let checked = around(quote!(<), ty, quote!(as #dsh::ToolArgs>::Checked));
    let doc = format!(
        " The arguments of the tool `{}`, `{}`, as its `Tool` impl names them.",
        tool.name().0,
        crate::types::spelling(ty)
    );
    let wrapper = quote! {
        #[doc = #doc]
        #[doc(hidden)]
        #[allow(non_camel_case_types, private_bounds)]
        #vis struct #name(#ty) where for<'__dsh> #ty: #dsh::ToolArgs;

        #[allow(private_bounds)]
        impl<'de> #dsh::serde::Deserialize<'de> for #name
        where
            for<'__dsh> #ty: #dsh::ToolArgs,
        {
            fn deserialize<D: #dsh::serde::Deserializer<'de>>(
                deserializer: D,
            ) -> ::core::result::Result<Self, D::Error> {
                let args = <#checked as #dsh::serde::Deserialize<'de>>::deserialize(deserializer)?;
                ::core::result::Result::Ok(#name(
                    <#ty as #dsh::ToolArgs>::from_checked_value(args),
                ))
            }
        }

        #[allow(private_bounds)]
        impl #dsh::schemars::JsonSchema for #name
        where
            for<'__dsh> #ty: #dsh::ToolArgs,
        {
            fn inline_schema() -> bool {
                <#checked as #dsh::schemars::JsonSchema>::inline_schema()
            }
            fn schema_name() -> ::std::borrow::Cow<'static, str> {
                <#checked as #dsh::schemars::JsonSchema>::schema_name()
            }
            fn schema_id() -> ::std::borrow::Cow<'static, str> {
                <#checked as #dsh::schemars::JsonSchema>::schema_id()
            }
            fn json_schema(
                generator: &mut #dsh::schemars::SchemaGenerator,
            ) -> #dsh::schemars::Schema {
                <#checked as #dsh::schemars::JsonSchema>::json_schema(generator)
            }
        }
    };
    (quote!(#name), wrapper)
}

/// The name of the args struct generated from the inline parameters.
struct ArgsName {
    ident: Ident,
    /// `ReadArgs`, what it is called unless `shadowed`.
    public: String,
    /// Whether the fn's types name a type of the user's called `public`.
    shadowed: bool,
}

/// `ReadArgs` for `read`; but where the fn's own types name a `ReadArgs`
/// (`args: Option<ReadArgs>`, `-> ReadArgs`), that is the user's type, which
/// a generated struct of the name would collide with or shadow (making the
/// field its own type): the struct then takes a name no user item has, and
/// is reached as `<read as Tool>::Args`.
fn args_struct_name(tool: &Tool) -> ArgsName {
    let ident = &tool.item.sig.ident;
    let public = naming::args_struct(&ident.unraw().to_string());
    let mut types = tool.params().map(|param| &*param.arg.ty);
    let output = match &tool.output {
        Output::Plain(ty) | Output::Typed { ty, .. } => Some(*ty),
        Output::Unit | Output::Opaque(_) => None,
    };
    let shadowed =
        types.any(|ty| names_item(ty, &public)) || output.is_some_and(|ty| names_item(ty, &public));
    let name = if shadowed {
        naming::hidden_args_struct(&public)
    } else {
        public.clone()
    };
    ArgsName {
        ident: Ident::new(&name, ident.span()),
        public,
        shadowed,
    }
}

/// The args struct generated from the inline parameters.
fn args_struct(tool: &Tool, name: &Ident) -> TokenStream {
    let dsh = tool.private();
    let vis = &tool.item.vis;
    // Each field's type is named through `ToolField`, and bounded by it as
    // the `Tool` impl's types are (see `assumptions`), so a type that cannot
    // be an argument is reported once, by its check.
    let fields = tool.params().filter_map(|param| {
        let ident = param.ident?;
        let attrs = param.field_attrs();
        let header = param.header.as_ref().map(header::schema_attr);
        let ty = around(
            quote!(<),
            &param.arg.ty,
            quote!(as #dsh::ToolField>::Checked),
        );
        Some(quote!(#(#attrs)* #header pub #ident: #ty))
    });
    let where_clause = where_clause(
        tool.params()
            .map(|param| {
                let ty = &param.arg.ty;
                quote!(#ty: #dsh::ToolField)
            })
            .collect(),
    );
    let doc = format!(
        " The arguments of the tool `{}`, one field per parameter.",
        tool.name().0
    );
    let serde_path = tool.private_str("serde");
    let schemars_path = tool.private_str("schemars");
    quote! {
        #[doc = #doc]
        #[derive(#dsh::serde::Deserialize, #dsh::schemars::JsonSchema)]
        #[allow(private_interfaces, private_bounds)]
        #[serde(crate = #serde_path)]
        #[schemars(crate = #schemars_path)]
        #vis struct #name #where_clause {
            #(#fields,)*
        }
    }
}

/// `ToolDef::builder(name, description).build()` and a builder call per key given.
fn definition(tool: &Tool) -> TokenStream {
    let dsh = tool.private();
    let attr = &tool.attr;
    let (name, span) = tool.name();
    let name = LitStr::new(&name, span);
    let description = LitStr::new(&tool.description().unwrap_or_default(), Span::call_site());
    let title = attr.title.iter().map(|title| quote!(.title(#title)));
    let version = attr
        .version
        .iter()
        .map(|version| quote!(.version(#version)));
    let aliases = (!attr.aliases.is_empty()).then(|| {
        let aliases = &attr.aliases;
        quote!(.aliases(&[#(#aliases),*]))
    });
    let scopes = (!attr.scopes.is_empty()).then(|| {
        let scopes = &attr.scopes;
        quote!(.scopes(&[#(#scopes),*]))
    });
    // A `const` block makes the array `'static` wherever the definition is built.
    let icons = (!attr.icons.is_empty()).then(|| {
        let icons = &attr.icons;
        quote! {
            .icons({
                const ICONS: &[#dsh::Icon] =
                    &[#(#dsh::Icon::new(#icons)),*];
                ICONS
            })
        }
    });
    // A flag set to `false` is left out, as off is every flag's default;
    // but `open_world = false` is a claim of its own (a closed world).
    let flags = (attr.flags.iter())
        .filter(|flag| flag.value || flag.key == "open_world")
        .map(|flag| {
            let (key, value) = (&flag.key, flag.value);
            quote!(.#key(#value))
        });
    let category = attr.category.iter().map(|choice| {
        let variant = &choice.variant;
        quote!(.category(#dsh::Category::#variant))
    });
    let output_type = attr.output_type.iter().map(|choice| {
        let variant = &choice.variant;
        quote!(.output_type(#dsh::OutputType::#variant))
    });
    let max_result_chars = attr
        .max_result_chars
        .iter()
        .map(|count| quote!(.max_result_chars(#count)));
    let timeout = attr
        .timeout_ms
        .iter()
        .map(|count| quote!(.timeout(::core::time::Duration::from_millis(#count))));
    let meta = attr.meta.iter().map(|json| quote!(.meta_json(#json)));
    let examples: Vec<&LitStr> = attr.examples.iter().map(|example| &example.json).collect();
    let examples = (!examples.is_empty()).then(|| quote!(.examples_json(&[#(#examples),*])));
    quote! {
        #dsh::ToolDef::builder(#name, #description)
            #(#title)* #(#version)* #aliases #icons #(#flags)* #scopes #(#meta)* #(#category)* #(#output_type)*
            #(#max_result_chars)* #(#timeout)* #examples
            .build()
    }
}
