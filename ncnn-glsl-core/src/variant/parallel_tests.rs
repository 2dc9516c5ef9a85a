//! Set builds on several compile workers and through the compile cache:
//! the same set (texts, blobs, variants, errors) as one worker without a
//! cache, whatever order the compiles finish in, each distinct text
//! compiled once, and none compiled again from a warm cache.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use super::build::{build_in, BuiltSet};
use super::cache::Cache;
use super::jobs::{CompileFn, Compiler};
use crate::compile::{compile, CompileOptions, Compiled};
use crate::diag::Diagnostics;
use crate::expand::{ExpandOptions, Expanded};
use crate::source::{FsLoader, MemoryLoader, SourceFile};

/// Builds `source` with `workers` workers, `cache` and `compile`.
fn build_by(
    source: &SourceFile,
    expand: &ExpandOptions,
    workers: usize,
    cache: Option<&Cache>,
    compile: &CompileFn<'_>,
) -> Result<BuiltSet, Diagnostics> {
    let compiler = Compiler {
        options: &CompileOptions::default(),
        cache,
        workers: Some(workers),
        compile,
    };
    let loader = MemoryLoader { files: Vec::new() };
    match source.path {
        Some(_) => build_in(source.clone(), &FsLoader, expand, &compiler),
        None => build_in(source.clone(), &loader, expand, &compiler),
    }
}

/// [`compile`], late by a few milliseconds that depend on the text, so the
/// workers finish in an order unlike the one the texts were handed over in.
fn shuffled(e: &Expanded, options: &CompileOptions) -> Result<Compiled, Diagnostics> {
    let spread = e
        .text()
        .bytes()
        .fold(0u32, |h, b| h.wrapping_mul(31) ^ u32::from(b));
    std::thread::sleep(Duration::from_micros(u64::from(spread % 4) * 700));
    compile(e, options)
}

/// Everything of two builds that must agree, as text where it has no `==`.
fn assert_same(a: &Result<BuiltSet, Diagnostics>, b: &Result<BuiltSet, Diagnostics>, what: &str) {
    match (a, b) {
        (Ok(a), Ok(b)) => {
            assert_eq!(a.name, b.name, "{what}");
            assert_eq!(a.declaration, b.declaration, "{what}");
            assert_eq!(a.usage, b.usage, "{what}");
            assert_eq!(a.texts, b.texts, "{what}: texts");
            assert_eq!(a.blobs, b.blobs, "{what}: blobs");
            assert_eq!(a.variants, b.variants, "{what}: variants");
            assert_eq!(a.excluded, b.excluded, "{what}");
            assert_eq!(
                format!("{:?}", a.left_out),
                format!("{:?}", b.left_out),
                "{what}"
            );
            assert_eq!(a.files, b.files, "{what}");
        }
        (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string(), "{what}: errors"),
        (a, b) => panic!(
            "{what}: one build fails, the other not: {:?} / {:?}",
            a.is_ok(),
            b.is_ok()
        ),
    }
}

/// The `.comp` files of the corpus and of the shipped library, sorted.
fn real_shaders() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files: Vec<PathBuf> = ["tests/corpus", "shaders"]
        .iter()
        .flat_map(|d| std::fs::read_dir(root.join(d)).into_iter().flatten())
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "comp"))
        .collect();
    files.sort();
    files
}

fn source_of(path: &Path) -> SourceFile {
    SourceFile {
        name: path.file_name().unwrap().to_string_lossy().into_owned(),
        path: Some(path.to_path_buf()),
        text: crate::source::read_text(path).unwrap(),
    }
}

#[test]
fn several_workers_build_the_sets_of_real_shaders_as_one_does() {
    let files = real_shaders();
    assert!(files.len() >= 40, "{} shaders found", files.len());
    let (mut texts, mut variants) = (0, 0);
    for path in &files {
        let source = source_of(path);
        let expand = ExpandOptions::include([path.parent().unwrap().to_path_buf()]);
        let one = build_by(&source, &expand, 1, None, &compile);
        let compiles = AtomicUsize::new(0);
        let counted = |e: &Expanded, o: &CompileOptions| {
            compiles.fetch_add(1, Ordering::Relaxed);
            shuffled(e, o)
        };
        let several = build_by(&source, &expand, 3, None, &counted);
        assert_same(&one, &several, &source.name);
        let set = one.unwrap_or_else(|d| panic!("{}: {d}", source.name));
        // Each distinct text compiled once, however many variants share it.
        assert_eq!(
            compiles.load(Ordering::Relaxed),
            set.texts.len(),
            "{}",
            source.name
        );
        texts += set.texts.len();
        variants += set.variants.len();
    }
    assert!(texts < variants, "{texts} texts for {variants} variants");
}

/// A set whose variants fail in some modes and axis values, with two
/// different errors: the report is the same, in the same order, for any
/// number of workers.
#[test]
fn failures_are_reported_alike_by_any_number_of_workers() {
    let text = "#version 450
#pragma ncnn_glsl axis BAD 0 1 2 3
layout (local_size_x = 64) in;
layout (binding = 0) buffer b_blob { sfp b[]; };
void main() {
    int i = int(gl_GlobalInvocationID.x);
#if BAD == 1
    b[i] = undeclared_one;
#elif BAD == 3 && NCNN_fp16_storage
    b[i] = undeclared_three;
#else
    b[i] = b[i];
#endif
}
";
    let source = SourceFile {
        name: "bad.comp".into(),
        path: None,
        text: text.into(),
    };
    let expand = ExpandOptions::default();
    let one = build_by(&source, &expand, 1, None, &compile);
    let report = one
        .as_ref()
        .err()
        .map(ToString::to_string)
        .unwrap_or_default();
    assert!(
        report.contains("undeclared_one") && report.contains("undeclared_three"),
        "{report}"
    );
    for workers in [2, 5] {
        let several = build_by(&source, &expand, workers, None, &shuffled);
        assert_same(&one, &several, &format!("{workers} workers"));
    }
}

/// A second build over the same cache compiles nothing and builds the
/// same set as a build without a cache; so does a third with one worker.
#[test]
fn a_warm_cache_builds_the_same_set_without_compiling() {
    let shipped = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shaders");
    let path = shipped.join("q8ta_pixel_shuffle_baseline.comp");
    let source = source_of(&path);
    let expand = ExpandOptions::include([shipped]);
    let uncached = build_by(&source, &expand, 1, None, &compile);
    let dir = std::env::temp_dir().join(format!("ncnn-glsl-warm-cache-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let compiles = AtomicUsize::new(0);
    let counted = |e: &Expanded, o: &CompileOptions| {
        compiles.fetch_add(1, Ordering::Relaxed);
        compile(e, o)
    };
    let cold = Cache::new(&dir, dir.with_extension("key"));
    let first = build_by(&source, &expand, 3, Some(&cold), &counted);
    assert_same(&uncached, &first, "cold cache");
    let texts = first.as_ref().unwrap().texts.len();
    assert!(texts > 10, "{texts}");
    assert_eq!(compiles.load(Ordering::Relaxed), texts);
    assert_eq!(cold.stats().writes, texts);
    for workers in [3, 1] {
        let warm = Cache::new(&dir, dir.with_extension("key"));
        let again = build_by(&source, &expand, workers, Some(&warm), &counted);
        assert_same(&uncached, &again, "warm cache");
        assert_eq!(
            compiles.load(Ordering::Relaxed),
            texts,
            "nothing compiled again"
        );
        assert_eq!((warm.stats().hits, warm.stats().misses), (texts, 0));
    }
    let _ = std::fs::remove_dir_all(&dir);
}
