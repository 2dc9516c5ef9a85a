//! What `include_ncnn_shader!` expands to, as a library function over
//! `proc_macro2` so it is tested without a compiler in the loop (the
//! proc-macro crate is a shim that calls [`include_shader`]).

use std::path::{Path, PathBuf};

use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};

use crate::compile::{CompileOptions, Compiled};
use crate::expand::ExpandOptions;
use crate::options::Options;
use crate::reflection::{Reflection, ScalarValue, Str};
use crate::source::{FsLoader, SourceFile};
use crate::target::Target;
use crate::variant::build::{build_with, expand_variant, BuiltSet};
use crate::variant::cache::{default_cache_dir, Cache};

pub mod library;
mod module;
pub use module::module_items;

/// Where `name` is found: relative to the calling crate's manifest directory,
/// then in the shipped shader library. The error lists both places.
pub fn find_shader(name: &str, caller_dir: &Path, library_dir: &Path) -> Result<PathBuf, String> {
    let candidates = [caller_dir.join(name), library_dir.join(name)];
    candidates
        .iter()
        .find(|p| p.is_file())
        .cloned()
        .ok_or_else(|| {
            format!(
                "cannot find shader `{name}`: looked for `{}` and `{}`",
                candidates[0].display(),
                candidates[1].display()
            )
        })
}

/// Builds the variant set of shader `name` and returns the expression that
/// embeds it: a `&'static VariantSet` of the crate at path `krate`. `Err`
/// holds the whole diagnostic text for `compile_error!`.
///
/// `options` holds the macro's `defines` and `include` directories; a
/// relative directory is taken from `caller_dir`. The shipped library is
/// searched after them, and the files found through any of them are among
/// the files the expansion makes Cargo watch.
pub fn include_shader(
    name: &str,
    caller_dir: &Path,
    library_dir: &Path,
    options: &ExpandOptions,
    krate: &TokenStream,
) -> Result<TokenStream, String> {
    let (set, _, _) = build_shader(name, caller_dir, library_dir, options)?;
    Ok(tokens(name, &set, krate))
}

/// The item form: the items of `VIS mod NAME { ... }` for shader `name`
/// (the set and its typed host side, [`module_items`]).
pub fn include_module(
    name: &str,
    caller_dir: &Path,
    library_dir: &Path,
    options: &ExpandOptions,
    krate: &TokenStream,
) -> Result<TokenStream, String> {
    let (set, source, expand) = build_shader(name, caller_dir, library_dir, options)?;
    module_of_set(name, &set, &source, &FsLoader, &expand, krate)
}

/// The item form's items for a set built from `source` (read through
/// `loader`, expanded with `options`): what [`include_module`] returns after
/// finding and building the shader. The fuzz target `item_form` runs it on
/// sets built in memory.
pub fn module_of_set(
    name: &str,
    set: &BuiltSet,
    source: &SourceFile,
    loader: &dyn crate::source::Loader,
    options: &ExpandOptions,
    krate: &TokenStream,
) -> Result<TokenStream, String> {
    // A name Rust cannot take is a shader error at its declaration, found in
    // the first variant's expansion (the names are the same in every one).
    let refused = module::refused_names(set);
    if !refused.is_empty() {
        let first = set.variants.first().map(|v| &v.key);
        let expanded = first
            .and_then(|key| expand_variant(source, &set.declaration, key, loader, options).ok());
        return Err(module::placed(&refused, expanded.as_ref()).to_string());
    }
    module_items(name, set, tokens(name, set, krate), krate)
}

/// The variant set of shader `name`, found as [`find_shader`] says, with
/// the source it was built from and the options it was expanded with.
fn build_shader(
    name: &str,
    caller_dir: &Path,
    library_dir: &Path,
    options: &ExpandOptions,
) -> Result<(BuiltSet, SourceFile, ExpandOptions), String> {
    let path = find_shader(name, caller_dir, library_dir)?;
    build_file(path, caller_dir, library_dir, options)
}

/// The variant set of the shader at `path`, as [`build_shader`] makes it.
fn build_file(
    path: PathBuf,
    caller_dir: &Path,
    library_dir: &Path,
    options: &ExpandOptions,
) -> Result<(BuiltSet, SourceFile, ExpandOptions), String> {
    let text = crate::source::read_text(&path).map_err(|e| format!("cannot read shader: {e}"))?;
    let source = SourceFile {
        name: path.display().to_string(),
        path: Some(path.clone()),
        text,
    };
    // The shipped library is searched for includes after the caller's own directories.
    let mut expand = options.clone();
    for dir in &mut expand.include_dirs {
        *dir = caller_dir.join(&*dir);
    }
    expand.include_dirs.push(library_dir.to_path_buf());
    // Every macro call of a crate runs again on any edit of it: the
    // variants compiled before come from the cache in the target directory.
    let cache = default_cache_dir().map(Cache::new);
    let set = build_with(
        source.clone(),
        &FsLoader,
        &expand,
        &CompileOptions::default(),
        cache.as_ref(),
    )
    .map_err(|d| d.to_string())?;
    Ok((set, source, expand))
}

/// The expression for a built set.
pub fn tokens(name: &str, set: &BuiltSet, krate: &TokenStream) -> TokenStream {
    let files: Vec<String> = set.files.iter().map(|p| p.display().to_string()).collect();
    let blobs = set
        .blobs
        .iter()
        .enumerate()
        .map(|(i, b)| blob_tokens(&format_ident!("BLOB_{}", i), b, krate));
    let variants = set.variants.iter().map(|v| {
        let target = target_tokens(v.key.target, krate);
        let axes = v.key.axes.iter().map(|a| int_tokens(*a));
        let blob = format_ident!("BLOB_{}", v.blob);
        quote! { #krate::Variant { target: #target, axes: &[#(#axes),*], blob: &#blob } }
    });
    let n = set.variants.len();
    let axes = set
        .declaration
        .axes
        .iter()
        .map(|a| (a, false))
        .chain(set.declaration.device.iter().map(|a| (a, true)))
        .map(|(a, device)| {
            let n = &a.name;
            let values = a.values.iter().map(|v| int_tokens(*v));
            let outcomes = match &a.outcomes {
                None => quote! { None },
                Some(o) => {
                    let undefined = option_tokens(o.undefined);
                    let from = o.from.iter().map(|(f, b)| {
                        let (f, b) = (int_tokens(*f), option_tokens(*b));
                        quote! { (#f, #b) }
                    });
                    quote! { Some(#krate::Outcomes { undefined: #undefined, from: &[#(#from),*] }) }
                }
            };
            quote! {
                #krate::AxisInfo {
                    name: #n, values: &[#(#values),*], device: #device, outcomes: #outcomes,
                }
            }
        });
    let u = set.usage;
    let (float, int8, int16) = (u.float, u.int8, u.int16);
    let macros = options_tokens(u.macros, krate);
    quote! {
        {
            // Cargo rebuilds the caller when any of these files changes.
            const _: &[&[u8]] = &[#(include_bytes!(#files)),*];
            #(#blobs)*
            static VARIANTS: [#krate::Variant; #n] = [#(#variants),*];
            static SET: #krate::VariantSet = #krate::VariantSet {
                name: #name,
                usage: #krate::Usage { float: #float, int8: #int8, int16: #int16, macros: #macros },
                axes: &[#(#axes),*],
                variants: &VARIANTS,
            };
            &SET
        }
    }
}

/// The item `static ID: Blob` of one compiled blob, its SPIR-V compressed
/// ([`crate::variant::packed::pack`]) into one byte-string literal: one
/// token however large the blob, where a literal per word would be
/// thousands for rustc to parse. `krate` is the path of the crate whose
/// `Blob` and `reflection` the item names.
pub fn blob_tokens(
    id: &proc_macro2::Ident,
    compiled: &Compiled,
    krate: &TokenStream,
) -> TokenStream {
    let bytes = Literal::byte_string(&crate::variant::packed::pack(&compiled.spirv));
    let words = Literal::usize_unsuffixed(compiled.spirv.len());
    let reflection = reflection_tokens(&compiled.reflection, krate);
    quote! {
        // SAFETY: the words and reflection of this crate's compiler, made
        // at build time from the shader named in the macro call, and
        // compressed by the codec `Blob::spirv` decompresses.
        static #id: #krate::Blob = unsafe { #krate::Blob::compressed(#bytes, #words, #reflection) };
    }
}

#[cfg(test)]
#[path = "embed_blob_tests.rs"]
mod blob_tests;

/// An `i64` literal; `i64::MIN` ([`UNDEFINED`](crate::variant::UNDEFINED))
/// has no literal of its own.
fn int_tokens(v: i64) -> TokenStream {
    match v {
        i64::MIN => quote! { i64::MIN },
        v => {
            let l = Literal::i64_unsuffixed(v);
            quote! { #l }
        }
    }
}

fn option_tokens(v: Option<i64>) -> TokenStream {
    match v {
        Some(v) => {
            let v = int_tokens(v);
            quote! { Some(#v) }
        }
        None => quote! { None },
    }
}

fn str_tokens(s: &str) -> TokenStream {
    quote! { ::std::borrow::Cow::Borrowed(#s) }
}

fn strs_tokens(v: &[Str]) -> TokenStream {
    let items = v.iter().map(|s| str_tokens(s));
    quote! { ::std::borrow::Cow::Borrowed(&[#(#items),*]) }
}

/// A `Reflection` literal whose slices and strings are borrowed `'static` data.
fn reflection_tokens(r: &Reflection, krate: &TokenStream) -> TokenStream {
    let bindings = r.bindings.iter().map(|b| {
        let (set, binding, min_size, stride) = (b.set, b.binding, b.min_size, b.array_stride);
        let kind = format_ident!("{}", format!("{:?}", b.kind));
        let access = format_ident!("{}", format!("{:?}", b.access));
        let name = str_tokens(&b.name);
        let instance = match &b.instance {
            Some(i) => {
                let i = str_tokens(i);
                quote! { Some(#i) }
            }
            None => quote! { None },
        };
        quote! {
            #krate::reflection::Binding {
                set: #set, binding: #binding,
                kind: #krate::reflection::BindingKind::#kind,
                access: #krate::reflection::Access::#access,
                name: #name, instance: #instance, min_size: #min_size, array_stride: #stride,
            }
        }
    });
    let specs = r.spec_constants.iter().map(|c| {
        let id = c.id;
        let name = str_tokens(&c.name);
        let ty = str_tokens(&c.ty);
        let default = match c.default {
            None => quote! { None },
            Some(ScalarValue::Bool(v)) => quote! { Some(#krate::reflection::ScalarValue::Bool(#v)) },
            Some(ScalarValue::Int(v)) => quote! { Some(#krate::reflection::ScalarValue::Int(#v)) },
            Some(ScalarValue::Uint(v)) => quote! { Some(#krate::reflection::ScalarValue::Uint(#v)) },
            Some(ScalarValue::Float(v)) => {
                let bits = v.to_bits();
                quote! { Some(#krate::reflection::ScalarValue::Float(f64::from_bits(#bits))) }
            }
        };
        quote! { #krate::reflection::SpecConstant { id: #id, name: #name, ty: #ty, default: #default } }
    });
    let push = r.push_constant_size;
    let members = r.push_constants.iter().map(|m| {
        let (name, offset, size) = (str_tokens(&m.name), m.offset, m.size);
        let t = &m.ty;
        let scalar = format_ident!("{}", format!("{:?}", t.scalar));
        let (rows, columns, column_stride) = (t.rows, t.columns, t.column_stride);
        let (array_len, array_stride, glsl) = (t.array_len, t.array_stride, str_tokens(&t.glsl));
        quote! {
            #krate::reflection::PushMember {
                name: #name, offset: #offset, size: #size,
                ty: #krate::reflection::MemberType {
                    scalar: #krate::reflection::MemberScalar::#scalar,
                    rows: #rows, columns: #columns, column_stride: #column_stride,
                    array_len: #array_len, array_stride: #array_stride, glsl: #glsl,
                },
            }
        }
    });
    let [lx, ly, lz] = r.local_size;
    let ids = r.local_size_spec_ids.iter().map(|i| match i {
        Some(i) => quote! { Some(#i) },
        None => quote! { None },
    });
    let req = &r.requirements;
    let (features, extensions) = (strs_tokens(&req.features), strs_tokens(&req.extensions));
    let (caps, exts) = (
        strs_tokens(&req.spirv_capabilities),
        strs_tokens(&req.spirv_extensions),
    );
    quote! {
        #krate::reflection::Reflection {
            bindings: ::std::borrow::Cow::Borrowed(&[#(#bindings),*]),
            push_constant_size: #push,
            push_constants: ::std::borrow::Cow::Borrowed(&[#(#members),*]),
            local_size: [#lx, #ly, #lz],
            local_size_spec_ids: [#(#ids),*],
            spec_constants: ::std::borrow::Cow::Borrowed(&[#(#specs),*]),
            requirements: #krate::reflection::Requirements {
                features: #features,
                extensions: #extensions,
                spirv_capabilities: #caps,
                spirv_extensions: #exts,
            },
        }
    }
}

fn options_tokens(o: Options, krate: &TokenStream) -> TokenStream {
    let bits = Literal::u16_unsuffixed(o.bits());
    quote! { #krate::Options::from_bits_truncate(#bits) }
}

fn target_tokens(t: Target, krate: &TokenStream) -> TokenStream {
    let options = options_tokens(t.options, krate);
    let b = t.bits;
    let (s16, u16, i16, i64) = (b.storage16, b.uniform16, b.int16, b.int64);
    quote! {
        #krate::Target {
            options: #options,
            bits: #krate::DeviceBits { storage16: #s16, uniform16: #u16, int16: #i16, int64: #i64 },
        }
    }
}

#[cfg(test)]
#[path = "embed_options_tests.rs"]
mod options_tests;
