//! The tokens of a checked `#[tool]` fn: the fn as written, a type named after
//! it, and that type's `Tool` impl.

use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, format_ident, quote};
use syn::ext::IdentExt;
use syn::{Ident, LitStr};

use super::ast::{Input, Output, Tool, is_field_attr};
use crate::fallback;
use crate::naming::pascal_case;
use crate::span::{self, around};

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

pub(crate) fn expand(tool: &Tool) -> TokenStream {
    let mut item = tool.item.clone();
    fallback::strip_param_attrs(&mut item.sig, |attr| !is_field_attr(attr));
    let vis = &item.vis;
    let ident = &item.sig.ident;
    let locals = Locals::new();
    let Locals { args, exec, .. } = &locals;

    let (args_ty, args_struct) = match tool.args() {
        Some(arg) => {
            let ty = &arg.ty;
            (quote!(#ty), TokenStream::new())
        }
        None => {
            let pascal = pascal_case(&ident.unraw().to_string());
            let name = format_ident!("{pascal}Args", span = ident.span());
            let args_struct = args_struct(tool, &name);
            (quote!(#name), args_struct)
        }
    };
    let output_ty = match tool.output.ty() {
        Some(ty) => quote!(#ty),
        None => quote!(()),
    };
    let takes_exec = tool
        .inputs
        .iter()
        .any(|input| matches!(input, Input::Exec(..)));
    let exec_param = if takes_exec { quote!(#exec) } else { quote!(_) };
    let body = execute_body(tool, &locals);
    let definition = definition(tool);
    let validate = validate_fn(tool, &locals);
    let render = render_fn(tool, &locals);
    let present = present_fn(tool, &locals);
    let present_call = present_call_fn(tool, &locals);
    // With none of the three, the registry can project without the args.
    let default_projections = (render.is_none() && present.is_none() && present_call.is_none())
        .then(|| {
            quote!(
                const DEFAULT_PROJECTIONS: bool = true;
            )
        });
    let presents = present.is_some().then(|| {
        quote!(
            const PRESENTS: bool = true;
        )
    });
    let checks = checks(tool);
    let doc = format!(
        " The tool `{}`: register it with `registry.register::<{ident}>()`.",
        tool.name().0
    );

    quote! {
        #item

        #[doc = #doc]
        #[allow(non_camel_case_types, dead_code)]
        #vis struct #ident {}

        #args_struct

        #checks

        impl ::dsh_sdk::__private::Tool for #ident {
            type Args = #args_ty;
            type Output = #output_ty;
            const DEFINITION: ::dsh_sdk::__private::ToolDef = #definition;

            fn execute(
                #args: Self::Args,
                #exec_param: &::dsh_sdk::__private::Exec,
            ) -> impl ::core::future::Future<
                Output = ::core::result::Result<Self::Output, ::dsh_sdk::__private::ToolError>,
            > + ::core::marker::Send {
                async move { #body }
            }

            #validate
            #render
            #present
            #present_call
            #default_projections
            #presents
        }
    }
}

/// Calls the fn with each parameter in its place, and makes its return
/// value a `Result<Output, ToolError>`.
fn execute_body(tool: &Tool, locals: &Locals) -> TokenStream {
    let Locals { args, exec, .. } = locals;
    let ident = &tool.item.sig.ident;
    let call_args = tool.inputs.iter().filter_map(|input| match input {
        Input::Exec(..) => Some(quote!(#exec)),
        Input::Args(..) => Some(quote!(#args)),
        Input::Param(param, _) => param.ident.map(|field| quote!(#args.#field)),
        Input::Receiver(_) => None,
    });
    let call = quote!(#ident(#(#call_args),*).await);
    let Output::Result { ty, err, .. } = &tool.output else {
        return quote!(::core::result::Result::Ok(#call));
    };
    // The error converts into `ToolError` here. The conversion is placed at
    // the error type, or at the whole return type for `io::Result<T>`, so a
    // type that does not convert is reported there, once.
    let at: &dyn ToTokens = match err {
        Some(err) => err,
        None => ty,
    };
    let result = Ident::new("result", span::ends(&at).1);
    let result_at = span::call(quote!(::core::convert::identity), quote!(#result), &at);
    let into_result = span::call(quote!(::dsh_sdk::__private::into_result), result_at, &at);
    quote!(let #result = #call; #into_result)
}

/// `validate_input`, calling `validate = path`.
fn validate_fn(tool: &Tool, locals: &Locals) -> Option<TokenStream> {
    let Locals {
        args,
        exec,
        validate,
        ..
    } = locals;
    let path = tool.attr.validate.as_ref()?;
    Some(quote! {
        fn validate_input(
            #args: &Self::Args,
            #exec: &::dsh_sdk::__private::Exec,
        ) -> ::dsh_sdk::__private::Validation {
            // A mismatch reads as one error at the path, showing both signatures.
            let #validate: fn(&Self::Args, &::dsh_sdk::__private::Exec) -> ::dsh_sdk::__private::Validation = #path;
            #validate(#args, #exec)
        }
    })
}

/// `render`, calling the `#[render]` fn of `render = path` through its
/// `RenderFn` impl. `<path as RenderFn<…>>` names the path as a type, so a
/// render that does not fit the tool is reported at the path with
/// `RenderFn`'s message, and a fn without `#[render]` as "expected type,
/// found function" there.
fn render_fn(tool: &Tool, locals: &Locals) -> Option<TokenStream> {
    let Locals { args, value, .. } = locals;
    let path = tool.attr.render.as_ref()?;
    let render = around(
        quote!(<),
        path,
        quote!(as ::dsh_sdk::__private::RenderFn<
            Self::Args,
            Self::Output,
            ::std::vec::Vec<::dsh_sdk::__private::ContentBlock>,
        >>::call),
    );
    Some(quote! {
        fn render(
            #args: &Self::Args,
            #value: &Self::Output,
        ) -> ::std::vec::Vec<::dsh_sdk::__private::ContentBlock> {
            #render(#args, #value)
        }
    })
}

/// `present`, calling the `#[present]` fn of `present = path` as `render_fn` does.
fn present_fn(tool: &Tool, locals: &Locals) -> Option<TokenStream> {
    let Locals { args, value, .. } = locals;
    let path = tool.attr.present.as_ref()?;
    let present = around(
        quote!(<),
        path,
        quote!(as ::dsh_sdk::__private::PresentFn<
            Self::Args,
            Self::Output,
            ::dsh_sdk::__private::Card,
        >>::call),
    );
    Some(quote! {
        fn present(
            #args: &Self::Args,
            #value: &Self::Output,
        ) -> ::core::option::Option<::dsh_sdk::__private::Card> {
            ::core::option::Option::Some(#present(#args, #value))
        }
    })
}

/// `present_call`, calling the `#[present]` fn of `present_call = path`,
/// which takes only the args, through its `PresentCallFn` impl.
fn present_call_fn(tool: &Tool, locals: &Locals) -> Option<TokenStream> {
    let Locals { args, .. } = locals;
    let path = tool.attr.present_call.as_ref()?;
    let present = around(
        quote!(<),
        path,
        quote!(as ::dsh_sdk::__private::PresentCallFn<
            Self::Args,
            ::dsh_sdk::__private::Card,
        >>::call),
    );
    Some(quote! {
        fn present_call(
            #args: &Self::Args,
        ) -> ::core::option::Option<::dsh_sdk::__private::Card> {
            ::core::option::Option::Some(#present(#args))
        }
    })
}

/// The args struct generated from the inline parameters.
fn args_struct(tool: &Tool, name: &Ident) -> TokenStream {
    let vis = &tool.item.vis;
    let fields = tool.params().filter_map(|param| {
        let ident = param.ident?;
        let attrs = param.field_attrs();
        let ty = &param.arg.ty;
        Some(quote!(#(#attrs)* pub #ident: #ty))
    });
    let doc = format!(
        " The arguments of the tool `{}`, one field per parameter.",
        tool.name().0
    );
    quote! {
        #[doc = #doc]
        #[derive(::dsh_sdk::__private::serde::Deserialize, ::dsh_sdk::__private::schemars::JsonSchema)]
        #[serde(crate = "::dsh_sdk::__private::serde")]
        #[schemars(crate = "::dsh_sdk::__private::schemars")]
        #vis struct #name {
            #(#fields,)*
        }
    }
}

/// `ToolDef::new(name, description)` and a builder call per key given.
fn definition(tool: &Tool) -> TokenStream {
    let attr = &tool.attr;
    let (name, span) = tool.name();
    let name = LitStr::new(&name, span);
    let description = LitStr::new(&tool.description().unwrap_or_default(), Span::call_site());
    let title = attr.title.iter().map(|title| quote!(.title(#title)));
    let aliases = (!attr.aliases.is_empty()).then(|| {
        let aliases = &attr.aliases;
        quote!(.aliases(&[#(#aliases),*]))
    });
    let flags = attr.flags.iter().filter(|flag| flag.value).map(|flag| {
        let key = &flag.key;
        quote!(.#key(true))
    });
    let category = attr.category.iter().map(|choice| {
        let variant = &choice.variant;
        quote!(.category(::dsh_sdk::__private::Category::#variant))
    });
    let output_type = attr.output_type.iter().map(|choice| {
        let variant = &choice.variant;
        quote!(.output_type(::dsh_sdk::__private::OutputType::#variant))
    });
    let max_result_chars = attr
        .max_result_chars
        .iter()
        .map(|count| quote!(.max_result_chars(#count)));
    let timeout = attr
        .timeout_ms
        .iter()
        .map(|count| quote!(.timeout(::core::time::Duration::from_millis(#count))));
    quote! {
        ::dsh_sdk::__private::ToolDef::new(#name, #description)
            #(#title)* #aliases #(#flags)* #(#category)* #(#output_type)*
            #(#max_result_chars)* #(#timeout)*
    }
}

/// The bounds on the args and output types, each checked at the type as
/// written so the error points there and reads as the runtime's
/// `#[diagnostic::on_unimplemented]` message.
///
/// Inline parameters get no check of their own: the derives on the generated
/// struct already report a type that is not `Deserialize + JsonSchema` at the
/// parameter's type, and a second check would only repeat them. The error
/// type is checked where `execute` converts it (see `expand`), since that
/// conversion would report it anyway.
fn checks(tool: &Tool) -> TokenStream {
    let mut checks = TokenStream::new();
    if let Some(arg) = tool.args() {
        checks.extend(around(
            quote!(::dsh_sdk::__private::assert_args::<),
            &arg.ty,
            quote!(>();),
        ));
    }
    if let Some(ty) = tool.output.ty() {
        checks.extend(around(
            quote!(::dsh_sdk::__private::assert_output::<),
            ty,
            quote!(>();),
        ));
    }
    if checks.is_empty() {
        return checks;
    }
    quote!(const _: () = { #checks };)
}
