//! [`tokens`]: a set is emitted as byte tables that decode to its variants
//! and their compiled words; a blob decompresses its words once.

use std::path::PathBuf;

use proc_macro2::{TokenStream, TokenTree};
use quote::quote;

use super::tokens;
use crate::compile::CompileOptions;
use crate::reflection::Reflection;
use crate::source::{FsLoader, SourceFile};
use crate::variant::build::{build, BuiltSet};
use crate::variant::packed::pack;
use crate::variant::{Blob, Reflections, VariantTable};
use crate::ExpandOptions;

/// The set of `tests/shaders/NAME` (through the link `test-shaders`, which
/// the package carries).
fn built(name: &str) -> BuiltSet {
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

/// The first two literals after the call of `TYPE::FUNCTION` in `flat`.
fn call_literals(flat: &[TokenTree], ty: &str, function: &str) -> (String, String) {
    let names: Vec<String> = flat.iter().map(|t| t.to_string()).collect();
    let call = names
        .windows(4)
        .position(|w| w == [ty, ":", ":", function])
        .unwrap_or_else(|| panic!("a call of {ty}::{function}"))
        + 4;
    let lits: Vec<String> = flat[call..]
        .iter()
        .filter_map(|t| match t {
            TokenTree::Literal(l) => Some(l.to_string()),
            _ => None,
        })
        .take(2)
        .collect();
    (lits[0].clone(), lits[1].clone())
}

fn leak(bytes: Vec<u8>) -> &'static [u8] {
    Box::leak(bytes.into_boxed_slice())
}

#[test]
fn a_set_is_emitted_as_tables_that_decode_to_its_variants() {
    let krate = quote! { ::ncnn_glsl_runtime };
    let mut checked = 0;
    for name in [
        "seed_example.comp",
        "extension_everything.comp",
        "scale.comp",
    ] {
        let set = built(name);
        let mut flat = Vec::new();
        flatten(tokens(name, &set, &krate).unwrap(), &mut flat);
        let (reflections, json_len) = call_literals(&flat, "Reflections", "compressed");
        let (table, blob_bytes) = call_literals(&flat, "VariantTable", "new");
        // SAFETY: the tables the macro would embed for our compiler's
        // blobs; they are decompressed and compared, never run.
        let reflections: &'static Reflections = Box::leak(Box::new(unsafe {
            Reflections::compressed(
                leak(byte_string_value(&reflections)),
                json_len.parse().unwrap(),
            )
        }));
        // SAFETY: as above.
        let table: &'static VariantTable = Box::leak(Box::new(unsafe {
            VariantTable::new(
                leak(byte_string_value(&table)),
                leak(byte_string_value(&blob_bytes)),
                reflections,
            )
        }));
        let variants = table.variants();
        assert_eq!(variants.len(), set.variants.len(), "{name}");
        let packed: usize = set.blobs.iter().map(|b| pack(&b.spirv).len()).sum();
        let words: usize = set.blobs.iter().map(|b| b.spirv.len()).sum();
        assert!(
            packed < words * 4,
            "{name}: {packed} bytes for {words} words"
        );
        for (v, ours) in variants.iter().zip(&set.variants) {
            assert_eq!(v.target, ours.key.target, "{name}");
            assert_eq!(v.axes, ours.key.axes, "{name}");
            let compiled = &set.blobs[ours.blob];
            assert_eq!(v.blob.spirv(), compiled.spirv, "{name}: words");
            assert_eq!(*v.blob.reflection(), compiled.reflection, "{name}");
            checked += 1;
        }
    }
    assert!(checked >= 3, "only {checked} variants");
}

/// A blob of `words` as the macro embeds them.
fn compressed(words: &[u32]) -> Blob {
    let bytes: &'static [u8] = Box::leak(pack(words).into_boxed_slice());
    // SAFETY: a test blob that is decompressed and compared, never run.
    unsafe { Blob::compressed(bytes, words.len(), Reflection::default()) }
}

#[test]
fn a_blob_is_decompressed_once() {
    let words = built("seed_example.comp").blobs.swap_remove(0).spirv;
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
    let words = built("seed_example.comp").blobs.swap_remove(0).spirv;
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
