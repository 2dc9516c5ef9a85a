//! What `include_ncnn_shader!` expands to, as a library function over
//! `proc_macro2` so it is tested without a compiler in the loop (the
//! proc-macro crate is a shim that calls [`include_shader`]).

use std::path::{Path, PathBuf};

use proc_macro2::{Literal, TokenStream};
use quote::quote;

use crate::compile::{CompileOptions, Compiled};
use crate::expand::ExpandOptions;
use crate::options::Options;
use crate::reflection::Reflection;
use crate::source::{FsLoader, SourceFile};
use crate::variant::build::{build_with, expand_variant, BuiltSet};
use crate::variant::cache::{default_cache, Cache};
use crate::variant::table::{BlobEntry, VariantEntry};
use expansion_cache::{Call, Recorder};

mod expansion_cache;
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
    let cache = default_cache();
    include_one(
        Form::Expression,
        name,
        caller_dir,
        library_dir,
        options,
        krate,
        cache.as_ref(),
    )
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
    let cache = default_cache();
    include_one(
        Form::Module,
        name,
        caller_dir,
        library_dir,
        options,
        krate,
        cache.as_ref(),
    )
}

/// One shader's tokens in `form`, through `cache` (compiled variants and
/// whole expansions) where there is one.
fn include_one(
    form: Form,
    name: &str,
    caller_dir: &Path,
    library_dir: &Path,
    options: &ExpandOptions,
    krate: &TokenStream,
    cache: Option<&Cache>,
) -> Result<TokenStream, String> {
    let path = find_shader(name, caller_dir, library_dir)?;
    let krate_text = krate.to_string();
    let call = Call {
        form: form.name(),
        name,
        path: &path,
        caller_dir,
        library_dir,
        options,
        krate: &krate_text,
    };
    let prepared = prepare(&call, cache)?;
    expand_call(form, &call, cache, prepared, krate)
}

/// What a macro call makes of a shader.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Form {
    /// `include_ncnn_shader!("x.comp")`: an expression, `&'static VariantSet`.
    Expression,
    /// `include_ncnn_shader!(mod x = "x.comp")`: [`module_items`].
    Module,
}

impl Form {
    fn name(self) -> &'static str {
        match self {
            Form::Expression => "expression",
            Form::Module => "module",
        }
    }
}

/// A shader of a macro call, ready to become tokens: what an earlier build
/// made of it, or its set built now.
enum Prepared {
    /// The tokens' text from the expansion cache.
    Cached(String),
    /// Built now.
    Built(Box<Fresh>),
}

/// A set built for a macro call.
struct Fresh {
    set: BuiltSet,
    /// The shader it was built from.
    source: SourceFile,
    /// The options it was expanded with.
    expand: ExpandOptions,
    /// The include lookups the build made.
    lookups: Vec<expansion_cache::Lookup>,
}

/// `call`'s shader from the expansion cache where nothing it read changed,
/// else built (on any thread: no tokens are made here).
fn prepare(call: &Call, cache: Option<&Cache>) -> Result<Prepared, String> {
    if let Some(text) = cache.and_then(|c| expansion_cache::lookup(c, call)) {
        return Ok(Prepared::Cached(text));
    }
    build_file(call, cache).map(Prepared::Built)
}

/// The tokens of a prepared shader (on the macro's thread), stored in the
/// expansion cache when they were made now.
fn expand_call(
    form: Form,
    call: &Call,
    cache: Option<&Cache>,
    prepared: Prepared,
    krate: &TokenStream,
) -> Result<TokenStream, String> {
    let built = match prepared {
        Prepared::Cached(text) => match text.parse() {
            Ok(tokens) => return Ok(tokens),
            Err(_) => build_file(call, cache)?,
        },
        Prepared::Built(built) => built,
    };
    let Fresh {
        set,
        source,
        expand,
        lookups,
    } = *built;
    let tokens = match form {
        Form::Expression => tokens(call.name, &set, krate)?,
        Form::Module => module_of_set(call.name, &set, &source, &FsLoader, &expand, krate)?,
    };
    if let Some(cache) = cache {
        expansion_cache::store(cache, call, &source.text, lookups, &tokens);
    }
    Ok(tokens)
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
    module_items(name, set, tokens(name, set, krate)?, krate)
}

/// The variant set of `call`'s shader, with the source it was built from,
/// the options it was expanded with and the include lookups made; its
/// variants compiled before come from `cache`.
fn build_file(call: &Call, cache: Option<&Cache>) -> Result<Box<Fresh>, String> {
    let Call {
        path,
        caller_dir,
        library_dir,
        options,
        ..
    } = *call;
    let text = crate::source::read_text(path).map_err(|e| format!("cannot read shader: {e}"))?;
    let source = SourceFile {
        name: path.display().to_string(),
        path: Some(path.to_path_buf()),
        text,
    };
    // The shipped library is searched for includes after the caller's own directories.
    let mut expand = options.clone();
    for dir in &mut expand.include_dirs {
        *dir = caller_dir.join(&*dir);
    }
    expand.include_dirs.push(library_dir.to_path_buf());
    let recorder = Recorder::new(&FsLoader);
    let set = build_with(
        source.clone(),
        &recorder,
        &expand,
        &CompileOptions::default(),
        cache,
    )
    .map_err(|d| d.to_string())?;
    Ok(Box::new(Fresh {
        set,
        source,
        expand,
        lookups: recorder.into_lookups(),
    }))
}

/// The expression for a built set: its variants and blobs as one byte
/// table and one byte string ([`crate::variant::table`]), its reflections as
/// one more (`reflection_table`). Whatever the number of variants, rustc
/// sees three literals per set: it type-checks and const-evaluates what
/// the macro emits on every build of the calling crate, so what a variant
/// costs it, a one-shader edit of a library pays for every set.
pub fn tokens(name: &str, set: &BuiltSet, krate: &TokenStream) -> Result<TokenStream, String> {
    let files: Vec<String> = set.files.iter().map(|p| p.display().to_string()).collect();
    let (reflections, index) = reflection_table(&set.blobs, krate);
    let packed: Vec<Vec<u8>> = set
        .blobs
        .iter()
        .map(|b| crate::variant::packed::pack(&b.spirv))
        .collect();
    let blobs: Vec<BlobEntry> = set
        .blobs
        .iter()
        .zip(&packed)
        .zip(index)
        .map(|((b, bytes), reflection)| BlobEntry {
            bytes,
            words: b.spirv.len(),
            reflection,
        })
        .collect();
    let variants: Vec<VariantEntry> = set
        .variants
        .iter()
        .map(|v| VariantEntry {
            target: v.key.target,
            axes: &v.key.axes,
            blob: v.blob,
        })
        .collect();
    let n_axes = set.declaration.axes.len() + set.declaration.device.len();
    let (table, blob_bytes) = crate::variant::table::encode(n_axes, &blobs, &variants)
        .ok_or_else(|| format!("`{name}`: the set is too large to embed"))?;
    let (table, blob_bytes) = (
        Literal::byte_string(&table),
        Literal::byte_string(&blob_bytes),
    );
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
    Ok(quote! {
        {
            // Cargo rebuilds the caller when any of these files changes.
            const _: &[&[u8]] = &[#(include_bytes!(#files)),*];
            #reflections
            // SAFETY: the words this crate's compiler made at build time
            // from the shader named in the macro call, compressed by the
            // codec `Blob::spirv` decompresses, in the table `encode` wrote,
            // and their reflections in `REFLECTIONS`.
            static VARIANTS: #krate::VariantTable =
                unsafe { #krate::VariantTable::new(#table, #blob_bytes, &REFLECTIONS) };
            static SET: #krate::VariantSet = #krate::VariantSet::embedded(
                #name,
                #krate::Usage { float: #float, int8: #int8, int16: #int16, macros: #macros },
                &[#(#axes),*],
                &VARIANTS,
            );
            &SET
        }
    })
}

/// The item `static REFLECTIONS: Reflections` holding the distinct
/// reflections of `blobs` ([`crate::variant::reflections`]: one byte
/// string, not a literal per field for rustc to type-check), and the entry
/// of each blob.
fn reflection_table(blobs: &[Compiled], krate: &TokenStream) -> (TokenStream, Vec<usize>) {
    let mut distinct: Vec<Reflection> = Vec::new();
    let index = blobs
        .iter()
        .map(|b| match distinct.iter().position(|r| *r == b.reflection) {
            Some(i) => i,
            None => {
                distinct.push(b.reflection.clone());
                distinct.len() - 1
            }
        })
        .collect();
    let (bytes, len) = crate::variant::reflections::pack(&distinct);
    let (bytes, len) = (Literal::byte_string(&bytes), Literal::usize_unsuffixed(len));
    let item = quote! {
        // SAFETY: the reflections this crate's compiler made of the blobs
        // below, packed by the codec `Reflections` decodes.
        static REFLECTIONS: #krate::Reflections = unsafe { #krate::Reflections::compressed(#bytes, #len) };
    };
    (item, index)
}

#[cfg(test)]
#[path = "embed_blob_tests.rs"]
mod blob_tests;

#[cfg(test)]
#[path = "embed_reflections_tests.rs"]
mod reflections_tests;

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

fn options_tokens(o: Options, krate: &TokenStream) -> TokenStream {
    let bits = Literal::u16_unsuffixed(o.bits());
    quote! { #krate::Options::from_bits_truncate(#bits) }
}

#[cfg(test)]
#[path = "embed_options_tests.rs"]
mod options_tests;
