//! `include_ncnn_shader!`: a thin shim over `ncnn_glsl_core::embed`. It parses
//! the arguments, finds the calling crate, and turns errors into
//! `compile_error!`; everything else is in the core library, tested there.
//!
//! Use it through `ncnn_glsl_runtime::include_ncnn_shader!`, whose types the
//! expansion names.

use std::path::PathBuf;

use proc_macro::TokenStream;
use quote::{quote, quote_spanned};
use syn::parse::{Parse, ParseStream};
use syn::{Ident, LitStr, Token, Visibility};

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
/// in the shipped shader library. Cargo rebuilds the caller when the shader
/// or a file it includes changes. A shader error fails the build with the
/// shader's `file:line:column`.
#[proc_macro]
pub fn include_ncnn_shader(input: TokenStream) -> TokenStream {
    let args = match syn::parse::<Args>(input) {
        Ok(a) => a,
        Err(e) => return e.to_compile_error().into(),
    };
    let caller = std::env::var_os("CARGO_MANIFEST_DIR")
        .map(PathBuf::from)
        .unwrap_or_default();
    let library = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../shaders"));
    let krate = quote!(::ncnn_glsl_runtime::__private);
    let file = args.file.value();
    let result = match &args.module {
        None => ncnn_glsl_core::embed::include_shader(&file, &caller, &library, &krate),
        Some(_) => ncnn_glsl_core::embed::include_module(&file, &caller, &library, &krate),
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
            quote! {
                #[doc = #doc]
                #vis mod #name { #body }
            }
            .into()
        }
    }
}

/// `"FILE"`, or `VIS mod NAME = "FILE"`.
struct Args {
    module: Option<(Visibility, Ident)>,
    file: LitStr,
}

impl Parse for Args {
    fn parse(input: ParseStream) -> syn::Result<Args> {
        if input.peek(LitStr) {
            let file = input.parse()?;
            input.parse::<Option<Token![;]>>()?;
            return Ok(Args { module: None, file });
        }
        let vis: Visibility = input.parse()?;
        if !input.peek(Token![mod]) {
            return Err(input.error(
                "expected a shader file name (`\"name.comp\"`) or `mod NAME = \"name.comp\"`",
            ));
        }
        input.parse::<Token![mod]>()?;
        let name: Ident = input.parse()?;
        input.parse::<Token![=]>()?;
        let file = input.parse()?;
        input.parse::<Option<Token![;]>>()?;
        Ok(Args {
            module: Some((vis, name)),
            file,
        })
    }
}
