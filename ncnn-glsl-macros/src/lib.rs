//! `include_ncnn_shader!`: a thin shim over `ncnn_glsl_core::embed`. It parses
//! the arguments, finds the calling crate, and turns errors into
//! `compile_error!`; everything else is in the core library, tested there.
//!
//! Use it through `ncnn_glsl_runtime::include_ncnn_shader!`, whose types the
//! expansion names.

use std::path::{Path, PathBuf};

use ncnn_glsl_core::{Define, ExpandOptions};
use proc_macro::TokenStream;
use quote::{quote, quote_spanned};
use syn::parse::{Parse, ParseStream};
use syn::punctuated::Punctuated;
use syn::{bracketed, parse_macro_input, Ident, LitStr, Token, Visibility};

/// Compiles every variant of a shader at build time and embeds them.
///
/// - `include_ncnn_shader!("q8ta_pixel_shuffle.comp")` is a
///   `&'static ncnn_glsl_runtime::VariantSet`;
/// - `include_ncnn_shader!(pub mod scale = "shaders/scale.comp");` is a
///   module with that set as `SET` and a typed host side generated from the
///   reflection: `PushConstants` (the block, std430, offsets checked at
///   compile time), `Specialization` (the constants by name) and `Buffers`
///   (the bindings by name).
///
/// The file is looked up relative to the calling crate's `Cargo.toml`, then
/// in the shipped shader library (the `shaders/` this crate carries). Cargo
/// rebuilds the caller when the shader or a file it includes changes. A
/// shader error fails the build with the shader's `file:line:column`.
///
/// Optional arguments after the file, each at most once, in any order:
///
/// ```text
/// include_ncnn_shader!("shaders/scale.comp", defines = ["FOO", "BAR=2"], include = ["shaders/common"])
/// ```
///
/// - `defines`: macros defined before the shader's text, as `-D` takes them
///   (`NAME` is `1`); a name the extension defines itself is refused.
/// - `include`: directories searched for `#include` files after the
///   including file's own, relative to the calling crate's `Cargo.toml`; the
///   shipped library is searched after them.
#[proc_macro]
pub fn include_ncnn_shader(input: TokenStream) -> TokenStream {
    let args = parse_macro_input!(input as MacroArgs);
    let call = match Call::of(&args.options) {
        Ok(c) => c,
        Err(e) => return e,
    };
    let file = args.file.value();
    let result = match &args.module {
        None => ncnn_glsl_core::embed::include_shader(
            &file,
            &call.caller,
            &call.library,
            &call.options,
            &call.krate,
        ),
        Some(_) => ncnn_glsl_core::embed::include_module(
            &file,
            &call.caller,
            &call.library,
            &call.options,
            &call.krate,
        ),
    };
    let body = match result {
        Ok(tokens) => tokens,
        Err(message) => {
            // rustc prints `error: ` before the message already.
            let message = message.strip_prefix("error: ").unwrap_or(&message);
            // `;`: in the item form the error stands where items do.
            quote_spanned!(args.file.span()=> compile_error!(#message);)
        }
    };
    match args.module {
        None => body.into(),
        Some((vis, name)) => {
            let doc = format!("The shader `{file}`: its variant set and typed host side.");
            // A user may use part of the host side only.
            quote! {
                #[doc = #doc]
                #[allow(dead_code)]
                #vis mod #name { #body }
            }
            .into()
        }
    }
}

/// Compiles every shader of a directory or glob at build time into one
/// module: a module per shader (as `include_ncnn_shader!(mod ...)` makes
/// it), an enum `Shader` of the shaders and a `LIBRARY` that the runtime
/// asks for a shader by index or by name.
///
/// ```text
/// include_ncnn_library!(pub mod kernels = "shaders/**/*.comp", defines = ["FOO"], include = ["shaders/common"]);
/// ```
///
/// The pattern is relative to the calling crate's `Cargo.toml`: a directory
/// (its `*.comp` files), or a path whose last component holds `*`, after an
/// optional `**/` (any depth). A shader's name is its path below the
/// pattern's directory without the extension (`conv/3x3_pack4`), its
/// module `conv_3x3_pack4`, its enum variant `Conv3x3Pack4`. `defines` and
/// `include` apply to every shader, as in `include_ncnn_shader!`. Cargo
/// rebuilds the crate when a file read changes; a shader added to the
/// directory is seen at the next build of the crate, or at once with a
/// `build.rs` that prints `cargo:rerun-if-changed=DIR`.
#[proc_macro]
pub fn include_ncnn_library(input: TokenStream) -> TokenStream {
    let args = parse_macro_input!(input as MacroArgs);
    let Some((vis, name)) = args.module else {
        return syn::Error::new(
            args.file.span(),
            "a library is a module: `include_ncnn_library!(pub mod NAME = \"shaders/*.comp\")`",
        )
        .to_compile_error()
        .into();
    };
    let call = match Call::of(&args.options) {
        Ok(c) => c,
        Err(e) => return e,
    };
    let pattern = args.file.value();
    let body = match ncnn_glsl_core::embed::library::include_library(
        &pattern,
        &call.caller,
        &call.library,
        &call.options,
        &call.krate,
    ) {
        Ok(tokens) => tokens,
        Err(message) => {
            let message = message.strip_prefix("error: ").unwrap_or(&message);
            quote_spanned!(args.file.span()=> compile_error!(#message);)
        }
    };
    let doc = format!("The shader library `{pattern}`.");
    quote! {
        #[doc = #doc]
        #vis mod #name { #body }
    }
    .into()
}

/// What every macro of this crate works with.
struct Call {
    /// The calling crate's manifest directory.
    caller: PathBuf,
    /// The shipped shader library.
    library: PathBuf,
    /// The path of the runtime's items the expansion names.
    krate: proc_macro2::TokenStream,
    /// The defines and include directories, the directories made absolute.
    options: ExpandOptions,
}

impl Call {
    /// The call's setup, or the error at the option it is about, as the
    /// macro's expansion.
    fn of(options: &ShaderOptions) -> Result<Call, TokenStream> {
        let caller = std::env::var_os("CARGO_MANIFEST_DIR")
            .map(PathBuf::from)
            .unwrap_or_default();
        // The library travels in this crate's package (`shaders` links to
        // the workspace's `shaders/`, see Cargo.toml): the same path in the
        // workspace and in a registry's copy of the crate.
        let library = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/shaders"));
        Ok(Call {
            options: options
                .expand_options(&caller)
                .map_err(|e| TokenStream::from(e.to_compile_error()))?,
            caller,
            library,
            krate: quote!(::ncnn_glsl_runtime::__private),
        })
    }
}

/// The arguments: `"FILE"` (the expression form) or `VIS mod NAME = "FILE"`
/// (the item form), then the options.
struct MacroArgs {
    module: Option<(Visibility, Ident)>,
    file: LitStr,
    options: ShaderOptions,
}

impl Parse for MacroArgs {
    fn parse(input: ParseStream) -> syn::Result<MacroArgs> {
        let module = if input.peek(LitStr) {
            None
        } else {
            let vis: Visibility = input.parse()?;
            if !input.peek(Token![mod]) {
                return Err(input.error(
                    "expected a shader file name (`\"name.comp\"`) or `mod NAME = \"name.comp\"`",
                ));
            }
            input.parse::<Token![mod]>()?;
            let name: Ident = input.parse()?;
            input.parse::<Token![=]>()?;
            Some((vis, name))
        };
        let file = input.parse()?;
        let options = ShaderOptions::parse_after_file(input)?;
        Ok(MacroArgs {
            module,
            file,
            options,
        })
    }
}

/// What may follow the shader's file literal, in any form of the macro:
/// `, defines = ["A", "B=2"]` and `, include = ["dir"]`, each at most once,
/// in any order, with an optional trailing comma. Each error points at the
/// token it is about.
struct ShaderOptions {
    /// Checked already (name, value, no two of one name).
    defines: Vec<Define>,
    /// As written; relative to the calling crate's manifest directory.
    include: Vec<LitStr>,
}

impl ShaderOptions {
    /// Parses the rest of `input` after the file literal.
    fn parse_after_file(input: ParseStream) -> syn::Result<ShaderOptions> {
        let mut defines: Option<Vec<Define>> = None;
        let mut include: Option<Vec<LitStr>> = None;
        while !input.is_empty() {
            input.parse::<Token![,]>()?;
            if input.is_empty() {
                break;
            }
            let key: Ident = input.parse()?;
            input.parse::<Token![=]>()?;
            let content;
            bracketed!(content in input);
            let items = Punctuated::<LitStr, Token![,]>::parse_terminated(&content)?;
            let twice = |what: &str| {
                syn::Error::new(
                    key.span(),
                    format!("`{what}` is given twice: give it once, with every item"),
                )
            };
            match key.to_string().as_str() {
                "defines" => {
                    if defines.is_some() {
                        return Err(twice("defines"));
                    }
                    let mut list = Vec::new();
                    for lit in items {
                        let d = Define::parse(&lit.value())
                            .map_err(|e| syn::Error::new(lit.span(), e))?;
                        list.push(d);
                        Define::check_unique(&list).map_err(|e| syn::Error::new(lit.span(), e))?;
                    }
                    defines = Some(list);
                }
                "include" => {
                    if include.is_some() {
                        return Err(twice("include"));
                    }
                    include = Some(items.into_iter().collect());
                }
                other => {
                    return Err(syn::Error::new(
                        key.span(),
                        format!("unknown argument `{other}`: expected `defines = [...]` or `include = [...]`"),
                    ))
                }
            }
        }
        Ok(ShaderOptions {
            defines: defines.unwrap_or_default(),
            include: include.unwrap_or_default(),
        })
    }

    /// The core's options: include directories made absolute from `caller`
    /// (the calling crate's manifest directory). A directory that does not
    /// exist is an error at its literal, since a typo there would otherwise
    /// only show as an include that is not found.
    fn expand_options(&self, caller: &Path) -> syn::Result<ExpandOptions> {
        let mut include_dirs = Vec::new();
        for lit in &self.include {
            let dir = caller.join(lit.value());
            if !dir.is_dir() {
                return Err(syn::Error::new(
                    lit.span(),
                    format!(
                        "include directory `{}` is not a directory (looked for `{}`)",
                        lit.value(),
                        dir.display()
                    ),
                ));
            }
            include_dirs.push(dir);
        }
        Ok(ExpandOptions {
            defines: self.defines.clone(),
            include_dirs,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(text: &str) -> syn::Result<MacroArgs> {
        syn::parse_str(text)
    }

    fn err(text: &str) -> String {
        match args(text) {
            Ok(_) => panic!("`{text}` parsed"),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn the_file_alone_or_with_defines_and_include_in_any_order() {
        let a = args(r#""a.comp""#).unwrap();
        assert_eq!(a.file.value(), "a.comp");
        assert!(a.options.defines.is_empty() && a.options.include.is_empty());
        let a = args(r#""a.comp", defines = ["FOO", "BAR=2"], include = ["x", "y/z"],"#).unwrap();
        let names: Vec<String> = a.options.defines.iter().map(|d| d.to_string()).collect();
        assert_eq!(names, ["FOO", "BAR=2"]);
        let dirs: Vec<String> = a.options.include.iter().map(LitStr::value).collect();
        assert_eq!(dirs, ["x", "y/z"]);
        let a = args(r#""a.comp", include = [], defines = ["A",]"#).unwrap();
        assert_eq!(a.options.defines.len(), 1);
        assert!(a.options.include.is_empty());
    }

    #[test]
    fn errors_say_what_is_wrong() {
        assert_eq!(
            err(r#""a.comp", define = ["A"]"#),
            "unknown argument `define`: expected `defines = [...]` or `include = [...]`"
        );
        assert_eq!(
            err(r#""a.comp", defines = ["1X"]"#),
            "`1X` is not a macro name: a letter or `_`, then letters, digits or `_`"
        );
        assert!(err(r#""a.comp", defines = ["sfpvec4=vec4"]"#).contains("a name of the extension"));
        assert_eq!(
            err(r#""a.comp", defines = ["A=1", "A=2"]"#),
            "`A` is defined twice: `A=1` and `A=2`"
        );
        assert_eq!(
            err(r#""a.comp", defines = ["A"], defines = ["B"]"#),
            "`defines` is given twice: give it once, with every item"
        );
        assert_eq!(err(r#""a.comp", defines = [A]"#), "expected string literal");
        let not_a_file =
            "expected a shader file name (`\"name.comp\"`) or `mod NAME = \"name.comp\"`";
        assert_eq!(err(r#"42"#), not_a_file);
        assert_eq!(err(r#"pub struct X"#), not_a_file);
        assert_eq!(err(r#"mod x "a.comp""#), "expected `=`");
    }

    #[test]
    fn the_item_form_takes_a_visibility_a_name_and_the_options() {
        let a = args(r#"pub(crate) mod scale = "a.comp", defines = ["A"]"#).unwrap();
        let (vis, name) = a.module.unwrap();
        assert!(matches!(vis, Visibility::Restricted(_)));
        assert_eq!(name, "scale");
        assert_eq!(a.file.value(), "a.comp");
        assert_eq!(a.options.defines.len(), 1);
        assert!(args(r#"mod scale = "a.comp""#).unwrap().module.is_some());
    }

    #[test]
    fn include_directories_are_relative_to_the_caller_and_must_exist() {
        let here = Path::new(env!("CARGO_MANIFEST_DIR"));
        let a = args(r#""a.comp", include = ["src"]"#).unwrap();
        let o = a.options.expand_options(here).unwrap();
        assert_eq!(o.include_dirs, [here.join("src")]);
        let a = args(r#""a.comp", include = ["nope"]"#).unwrap();
        let e = a.options.expand_options(here).err().unwrap().to_string();
        assert!(
            e.starts_with("include directory `nope` is not a directory (looked for `"),
            "{e}"
        );
    }
}
