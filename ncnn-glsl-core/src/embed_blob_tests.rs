//! [`blob_tokens`]: the emitted static holds the compiled words, compressed
//! into one byte-string literal, and its blob decompresses them once.

use std::path::PathBuf;

use proc_macro2::{Ident, Span, TokenStream, TokenTree};
use quote::quote;

use super::blob_tokens;
use crate::compile::CompileOptions;
use crate::reflection::Reflection;
use crate::source::{FsLoader, SourceFile};
use crate::variant::build::build;
use crate::variant::packed::{pack, unpack};
use crate::variant::Blob;
use crate::ExpandOptions;

/// Every blob of the set of `tests/shaders/NAME` (through the link
/// `test-shaders`, which the package carries).
fn compiled(name: &str) -> Vec<crate::Compiled> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("test-shaders");
    let path = dir.join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
    let source = SourceFile {
        name: name.into(),
        path: Some(path),
        text,
    };
    let options = ExpandOptions::include([dir]);
    build(source, &FsLoader, &options, &CompileOptions::default())
        .unwrap_or_else(|d| panic!("{name}: {d}"))
        .blobs
}

fn flatten(tokens: TokenStream, out: &mut Vec<TokenTree>) {
    for t in tokens {
        match t {
            TokenTree::Group(g) => flatten(g.stream(), out),
            t => out.push(t),
        }
    }
}

/// The bytes of a byte-string literal as `Literal::byte_string` writes it.
fn byte_string_value(lit: &str) -> Vec<u8> {
    let body = lit
        .strip_prefix("b\"")
        .and_then(|l| l.strip_suffix('"'))
        .unwrap_or_else(|| panic!("not a byte string: {lit}"));
    let mut out = Vec::new();
    let mut it = body.bytes();
    while let Some(b) = it.next() {
        if b != b'\\' {
            out.push(b);
            continue;
        }
        out.push(match it.next() {
            Some(b'x') => {
                let hex = [it.next().unwrap(), it.next().unwrap()];
                u8::from_str_radix(std::str::from_utf8(&hex).unwrap(), 16).unwrap()
            }
            Some(b'n') => b'\n',
            Some(b'r') => b'\r',
            Some(b't') => b'\t',
            Some(b'0') => 0,
            Some(c @ (b'\\' | b'\'' | b'"')) => c,
            other => panic!("unknown escape {other:?} in {lit}"),
        });
    }
    out
}

/// The byte string and the word count `Blob::embedded` is called with.
fn emitted(tokens: TokenStream) -> (Vec<u8>, usize) {
    let mut flat = Vec::new();
    flatten(tokens, &mut flat);
    let names: Vec<String> = flat.iter().map(|t| t.to_string()).collect();
    let call = names
        .windows(4)
        .position(|w| w == ["Blob", ":", ":", "embedded"])
        .expect("a call of Blob::embedded")
        + 4;
    let lits: Vec<String> = flat[call..]
        .iter()
        .filter_map(|t| match t {
            TokenTree::Literal(l) => Some(l.to_string()),
            _ => None,
        })
        .take(2)
        .collect();
    let count = lits.iter().filter(|l| l.starts_with("b\"")).count();
    assert_eq!(count, 1, "one byte string: {lits:?}");
    (byte_string_value(&lits[0]), lits[1].parse().unwrap())
}

#[test]
fn blob_tokens_hold_the_compiled_words_compressed() {
    let krate = quote! { ::ncnn_glsl_runtime };
    let mut blobs = 0;
    for name in [
        "seed_example.comp",
        "extension_everything.comp",
        "scale.comp",
    ] {
        for c in compiled(name) {
            let id = Ident::new(&format!("BLOB_{blobs}"), Span::call_site());
            let table = Ident::new("REFLECTIONS", Span::call_site());
            let tokens = blob_tokens(&id, &c, &table, 0, &krate);
            let text = tokens.to_string();
            assert!(
                text.starts_with(&format!("static BLOB_{blobs} :")),
                "{text:.80}"
            );
            let (bytes, words) = emitted(tokens);
            assert_eq!(words, c.spirv.len(), "{name}: word count");
            assert!(
                bytes.len() < words * 4,
                "{name}: {} bytes for {words} words",
                bytes.len()
            );
            assert_eq!(
                unpack(&bytes, words),
                Some(c.spirv.clone()),
                "{name}: words"
            );
            blobs += 1;
        }
    }
    assert!(blobs >= 3, "only {blobs} blobs");
}

/// A blob of `words` as the macro embeds them.
fn compressed(words: &[u32]) -> Blob {
    let bytes: &'static [u8] = Box::leak(pack(words).into_boxed_slice());
    // SAFETY: a test blob that is decompressed and compared, never run.
    unsafe { Blob::compressed(bytes, words.len(), Reflection::default()) }
}

#[test]
fn a_blob_is_decompressed_once() {
    let words = compiled("seed_example.comp").swap_remove(0).spirv;
    let blob = compressed(&words);
    assert_eq!(blob.spirv_len(), words.len());
    assert!(blob.embedded_bytes() < words.len() * 4);
    let first = blob.spirv();
    assert_eq!(first, &words[..]);
    let ptrs: Vec<usize> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..4)
            .map(|_| s.spawn(|| blob.spirv().as_ptr() as usize))
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert!(
        ptrs.iter().all(|&p| p == first.as_ptr() as usize),
        "{ptrs:?}"
    );
    assert_eq!(blob.spirv().as_ptr(), first.as_ptr());
}

#[test]
fn bytes_that_do_not_decompress_give_an_empty_module() {
    let words = compiled("seed_example.comp").swap_remove(0).spirv;
    let mut bytes = pack(&words);
    bytes.truncate(bytes.len() / 2);
    let bytes: &'static [u8] = Box::leak(bytes.into_boxed_slice());
    // SAFETY: never run; the test shows a broken promise gives no words.
    let blob = unsafe { Blob::compressed(bytes, words.len(), Reflection::default()) };
    assert!(blob.spirv().is_empty());
    assert_eq!(blob.spirv().as_ptr(), blob.spirv().as_ptr());
    // A word count far beyond the bytes: refused without reserving it.
    // SAFETY: as above.
    let huge = unsafe { Blob::compressed(b"not deflate", 1 << 40, Reflection::default()) };
    assert!(huge.spirv().is_empty());
}
