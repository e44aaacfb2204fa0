//! The path the generated code names the runtime by: `::dsh_kit`, or what
//! `crate = "…"` says when the runtime is a dependency under another name
//! (`[dependencies] tools = { package = "dsh-kit" }`), as serde's and
//! schemars' own `crate` keys do.

use proc_macro2::TokenStream;
use quote::{ToTokens, quote};
use syn::parse::Parser;
use syn::{Attribute, Expr, ExprLit, ExprPath, Lit, Path};

use crate::ctxt::Ctxt;

/// Where the runtime's items are: `<path>::__private::…`.
#[derive(Clone)]
pub(crate) struct Runtime {
    /// `None`: `::dsh_kit`.
    path: Option<Path>,
}

/// What a `crate` value that is not a path gets told.
pub(crate) const CRATE_EXPECTED: &str = "`crate` takes the path dsh-kit is reached by: `crate = \"my_dsh\"` (its name in your Cargo.toml, with `-` written `_`)";

impl Runtime {
    /// `::dsh_kit`.
    pub(crate) const DEFAULT: Runtime = Runtime { path: None };

    /// The runtime at `value`: `crate = "my_dsh"`, `crate = "::my_dsh"`, or
    /// the path written bare, `crate = my_dsh`.
    pub(crate) fn from_value(value: &Expr) -> syn::Result<Runtime> {
        let path = match value {
            Expr::Lit(ExprLit {
                lit: Lit::Str(lit), ..
            }) => lit
                .parse::<Path>()
                .map_err(|_| syn::Error::new(lit.span(), CRATE_EXPECTED))?,
            Expr::Path(ExprPath {
                qself: None, path, ..
            }) => path.clone(),
            other => return Err(syn::Error::new_spanned(other, CRATE_EXPECTED)),
        };
        if path
            .segments
            .iter()
            .any(|segment| !segment.arguments.is_none())
        {
            return Err(syn::Error::new_spanned(&path, CRATE_EXPECTED));
        }
        Ok(Runtime { path: Some(path) })
    }

    /// The runtime a derive's `#[dsh(crate = "…")]` names, reporting every
    /// other key, and a second `crate`, to `cx`.
    pub(crate) fn from_attrs(cx: &Ctxt, attrs: &[Attribute]) -> Runtime {
        let mut found: Option<Runtime> = None;
        for attr in attrs.iter().filter(|attr| attr.path().is_ident("dsh")) {
            let result = attr.parse_nested_meta(|meta| {
                if !meta.path.is_ident("crate") {
                    return Err(meta.error("`#[dsh(…)]` takes one key: `crate = \"my_dsh\"`"));
                }
                let value: Expr = meta.value()?.parse()?;
                let runtime = Runtime::from_value(&value)?;
                if found.is_some() {
                    return Err(meta.error("`crate` is given twice: keep one"));
                }
                found = Some(runtime);
                Ok(())
            });
            if let Err(error) = result {
                cx.push(error);
            }
        }
        found.unwrap_or(Runtime::DEFAULT)
    }

    /// The runtime `#[render(crate = "…")]` or `#[present(crate = "…")]`
    /// names, from the tokens inside the attribute; `attr` names it in errors.
    pub(crate) fn from_args(cx: &Ctxt, attr: &str, args: TokenStream) -> Runtime {
        let mut found: Option<Runtime> = None;
        let parser = syn::meta::parser(|meta| {
            if !meta.path.is_ident("crate") {
                return Err(meta.error(format!(
                    "`#[{attr}]` takes no arguments: write `#[{attr}]` (its one key, `crate = \"my_dsh\"`, is for dsh-kit under another name)"
                )));
            }
            let value: Expr = meta.value()?.parse()?;
            let runtime = Runtime::from_value(&value)?;
            if found.is_some() {
                return Err(meta.error("`crate` is given twice: keep one"));
            }
            found = Some(runtime);
            Ok(())
        });
        if let Err(error) = parser.parse2(args) {
            cx.push(error);
        }
        found.unwrap_or(Runtime::DEFAULT)
    }

    /// `<path>::__private`, where every generated item is named.
    pub(crate) fn private(&self) -> TokenStream {
        match &self.path {
            None => quote!(::dsh_kit::__private),
            Some(path) => quote!(#path::__private),
        }
    }

    /// `<path>::<module>`, for the public modules a derive names (`elicit`).
    pub(crate) fn public(&self, module: &str) -> TokenStream {
        let module = syn::Ident::new(module, proc_macro2::Span::call_site());
        match &self.path {
            None => quote!(::dsh_kit::#module),
            Some(path) => quote!(#path::#module),
        }
    }

    /// `<path>::__private::<item>` as a string, for the `crate = "…"` keys
    /// of serde's and schemars' derives.
    pub(crate) fn private_str(&self, item: &str) -> String {
        let path = match &self.path {
            None => "::dsh_kit".to_owned(),
            Some(path) => path.to_token_stream().to_string().replace(' ', ""),
        };
        format!("{path}::__private::{item}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn runtime(value: &str) -> syn::Result<Runtime> {
        Runtime::from_value(&syn::parse_str::<Expr>(value).unwrap())
    }

    #[test]
    fn strings_and_bare_paths_name_the_runtime() {
        assert_eq!(
            Runtime::DEFAULT.private_str("serde"),
            "::dsh_kit::__private::serde"
        );
        assert_eq!(
            runtime("\"my_dsh\"").unwrap().private_str("serde"),
            "my_dsh::__private::serde"
        );
        assert_eq!(
            runtime("::tools").unwrap().private().to_string(),
            ":: tools :: __private"
        );
        assert_eq!(
            runtime("\"crate::dsh\"").unwrap().private_str("schemars"),
            "crate::dsh::__private::schemars"
        );
    }

    #[test]
    fn anything_else_is_refused_with_the_fix() {
        for bad in ["\"not a path\"", "3", "\"a<b>\"", "[\"x\"]"] {
            let error = runtime(bad).err().unwrap().to_string();
            assert_eq!(error, CRATE_EXPECTED, "{bad}");
        }
    }
}
