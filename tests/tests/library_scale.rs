//! The generated shader library (`tests/library/shaders/`, 255 ncnn-style
//! shaders in 11 families, `tests/library/README.md`) at scale:
//!
//! - every variant set builds through the core
//!   (`ncnn_glsl_core::variant::build::build`) and `spirv-val` accepts every
//!   distinct blob, each with the Vulkan environment its SPIR-V version needs
//!   (`ncnn_glsl_testkit::tools::spirv_target_env`). The whole library, 2,867
//!   variants and 1,593 distinct blobs, took 14 s on two loaded cores: well
//!   within CI's budget for it (60 s), so CI runs all of it, not a sample;
//! - the library form over one family: `include_ncnn_library!` compiles the
//!   50 `unary` shaders into one module and indexes them by name.
//!
//! The runtime's `library_scale` test runs a sample of the library on the
//! device against glslang.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use ncnn_glsl_core::variant::build::build;
use ncnn_glsl_core::variant::manifest::fnv1a64;
use ncnn_glsl_core::{CompileOptions, MemoryLoader, SourceFile};
use ncnn_glsl_runtime::{include_ncnn_library, VariantSet};
use ncnn_glsl_testkit::shaders::workspace_root;
use ncnn_glsl_testkit::tools::{spirv_val_auto, tool_available};

include_ncnn_library!(mod unary = "library/shaders/unary/*.comp");

/// Every shader of the library, `family/name.comp`, sorted.
fn library() -> Vec<String> {
    let root = workspace_root().join("tests/library/shaders");
    let mut out = Vec::new();
    for family in std::fs::read_dir(&root).unwrap() {
        let family = family.unwrap().path();
        if !family.is_dir() {
            continue;
        }
        for f in std::fs::read_dir(&family).unwrap() {
            let f = f.unwrap().path();
            if f.extension().is_some_and(|x| x == "comp") {
                out.push(format!(
                    "{}/{}",
                    family.file_name().unwrap().to_string_lossy(),
                    f.file_name().unwrap().to_string_lossy()
                ));
            }
        }
    }
    out.sort();
    out
}

/// What validating some shaders found.
#[derive(Default)]
struct Tally {
    sets: usize,
    variants: usize,
    /// Distinct blobs across the sets, by hash (a blob two sets share is
    /// validated once).
    blobs: BTreeSet<u64>,
    failures: Vec<String>,
}

/// Builds the set of every shader in `files` (paths below
/// `tests/library/shaders/`) and runs `spirv-val` on each distinct blob, on
/// two threads (the build runs its own compile workers besides).
fn validate(files: &[String]) -> (Tally, Duration) {
    let start = Instant::now();
    let root = workspace_root().join("tests/library/shaders");
    let next = Mutex::new(0usize);
    let tally = Mutex::new(Tally::default());
    std::thread::scope(|scope| {
        for _ in 0..2 {
            scope.spawn(|| loop {
                let k = {
                    let mut n = next.lock().unwrap();
                    *n += 1;
                    *n - 1
                };
                let Some(file) = files.get(k) else { break };
                let path: PathBuf = root.join(file);
                let source = SourceFile {
                    name: format!("tests/library/shaders/{file}"),
                    text: std::fs::read_to_string(&path)
                        .unwrap_or_else(|e| panic!("{}: {e}", path.display())),
                    path: Some(path),
                };
                let set = match build(
                    source,
                    &MemoryLoader::default(),
                    &Default::default(),
                    &CompileOptions::default(),
                ) {
                    Ok(set) => set,
                    Err(d) => {
                        tally
                            .lock()
                            .unwrap()
                            .failures
                            .push(format!("{file} does not build:\n{d}"));
                        continue;
                    }
                };
                let mut failures = Vec::new();
                let mut fresh = Vec::new();
                for (b, blob) in set.blobs.iter().enumerate() {
                    let h = fnv1a64(&blob.spirv);
                    if tally.lock().unwrap().blobs.contains(&h) {
                        continue;
                    }
                    if let Err(e) = spirv_val_auto(&blob.spirv) {
                        // The variants that use the blob, to name it.
                        let keys: Vec<String> = set
                            .variants
                            .iter()
                            .filter(|v| v.blob == b)
                            .map(|v| format!("{} {:?}", v.key.target, v.key.axes))
                            .collect();
                        failures.push(format!("{file} ({}): {e}", keys.join(", ")));
                    }
                    fresh.push(h);
                }
                let mut t = tally.lock().unwrap();
                t.sets += 1;
                t.variants += set.variants.len();
                t.blobs.extend(fresh);
                t.failures.extend(failures);
            });
        }
    });
    (tally.into_inner().unwrap(), start.elapsed())
}

fn check(what: &str, files: &[String]) {
    if !tool_available("spirv-val") {
        return;
    }
    let (t, time) = validate(files);
    eprintln!(
        "{what}: {} sets, {} variants, {} distinct blobs validated in {time:.1?}",
        t.sets,
        t.variants,
        t.blobs.len()
    );
    assert!(
        t.failures.is_empty(),
        "{} failures:\n\n{}",
        t.failures.len(),
        t.failures.join("\n\n")
    );
    assert_eq!(t.sets, files.len(), "every set built");
    assert!(t.variants >= t.sets && !t.blobs.is_empty());
}

/// The whole library: every set builds, every distinct blob is valid.
#[test]
fn every_variant_of_the_library_passes_spirv_val() {
    let files = library();
    let families: BTreeSet<&str> = files.iter().map(|f| f.split('/').next().unwrap()).collect();
    assert_eq!(families.len(), 11, "the library's families: {families:?}");
    assert!(files.len() >= 255, "{} shaders", files.len());
    check("the whole library", &files);
}

/// Whether `a` and `b` hold the same variants, blob by blob.
fn same(a: &VariantSet, b: &VariantSet) -> bool {
    a.name == b.name
        && a.variants().len() == b.variants().len()
        && a.variants().iter().zip(b.variants()).all(|(x, y)| {
            x.target == y.target && x.axes == y.axes && x.blob.spirv() == y.blob.spirv()
        })
}

#[test]
fn the_unary_family_compiles_as_one_library() {
    use unary::{Shader, LIBRARY};
    assert_eq!(LIBRARY.len(), 50);
    assert_eq!(Shader::ALL.len(), 50);
    // Named by file, below the pattern's directory.
    let on_disk: Vec<String> = library()
        .into_iter()
        .filter_map(|f| Some(f.strip_prefix("unary/")?.strip_suffix(".comp")?.to_string()))
        .collect();
    let names: Vec<&str> = Shader::ALL.iter().map(|s| s.name()).collect();
    assert_eq!(names, on_disk);
    for (k, s) in Shader::ALL.iter().enumerate() {
        assert!(!s.name().contains('/'), "{}", s.name());
        assert_eq!(s.index(), k);
        assert_eq!(LIBRARY.index_of(s.name()).unwrap(), k);
        assert!(std::ptr::eq(s.set(), LIBRARY.sets[k]));
        assert!(!s.set().variants().is_empty(), "{}", s.name());
    }
    let relu4 = LIBRARY.by_name("relu_pack4").unwrap();
    assert!(std::ptr::eq(relu4, unary::relu_pack4::SET));
    assert!(same(relu4, unary::relu_pack4::SET));
    assert!(!same(relu4, unary::relu_pack1::SET));
    assert!(LIBRARY.by_name("unary/relu_pack4").is_err());
}
