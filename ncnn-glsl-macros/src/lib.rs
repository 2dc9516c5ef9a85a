//! `include_ncnn_shader!`: a thin shim over `ncnn_glsl_core::embed`. It parses
//! the file name, finds the calling crate, and turns errors into
//! `compile_error!`; everything else is in the core library, tested there.
//!
//! Use it through `ncnn_glsl_runtime::include_ncnn_shader!`, whose types the
//! expansion names.

use std::path::PathBuf;

use proc_macro::TokenStream;
use quote::{quote, quote_spanned};
use syn::{parse_macro_input, LitStr};

/// Compiles every variant of a shader at build time and embeds them:
/// `include_ncnn_shader!("q8ta_pixel_shuffle.comp")` is a
/// `&'static ncnn_glsl_runtime::VariantSet`.
///
/// The file is looked up relative to the calling crate's `Cargo.toml`, then
/// in the shipped shader library (the `shaders/` this crate carries). Cargo
/// rebuilds the caller when the shader or a file it includes changes. A
/// shader error fails the build with the shader's `file:line:column`.
#[proc_macro]
pub fn include_ncnn_shader(input: TokenStream) -> TokenStream {
    let lit = parse_macro_input!(input as LitStr);
    let caller = std::env::var_os("CARGO_MANIFEST_DIR")
        .map(PathBuf::from)
        .unwrap_or_default();
    // The library travels in this crate's package (`shaders` links to the
    // workspace's `shaders/`, see Cargo.toml): the same path in the
    // workspace and in a registry's copy of the crate.
    let library = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/shaders"));
    let krate = quote!(::ncnn_glsl_runtime::__private);
    let result = ncnn_glsl_core::embed::include_shader(&lit.value(), &caller, &library, &krate);
    match result {
        Ok(tokens) => tokens.into(),
        Err(message) => {
            // rustc prints `error: ` before the message already.
            let message = message.strip_prefix("error: ").unwrap_or(&message);
            quote_spanned!(lit.span()=> compile_error!(#message)).into()
        }
    }
}
