//! `spirv-val` on every SPIR-V blob the project ships or reviews:
//!
//! - every variant that `include_ncnn_shader!` embeds, for every shader a
//!   macro call in the workspace names (the shipped sets of
//!   `ncnn_glsl_q8ta::SETS` and the test shaders), read back from the
//!   embedded statics themselves;
//! - every variant listed by the reviewed artifacts under `shaders/variants/`
//!   (`cargo xtask regen-variants`, whose `--check` in CI builds the shipped
//!   sets and compares the files): each manifest must describe the set the
//!   macro embeds, variant by variant and blob by blob (sizes and hashes), so
//!   the reviewed blobs are the embedded ones validated above. The shipped
//!   sets are not built again here.
//!
//! Each blob is checked with the Vulkan environment its SPIR-V version needs
//! (`ncnn_glsl_testkit::tools::spirv_target_env`).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use ncnn_glsl_core::variant::manifest::{fnv1a64, Manifest};
use ncnn_glsl_core::variant::Blob;
use ncnn_glsl_q8ta::SETS;
use ncnn_glsl_runtime::{include_ncnn_shader, VariantSet};
use ncnn_glsl_testkit::shaders::workspace_root;
use ncnn_glsl_testkit::tools::{spirv_val_auto, tool_available};

static SEED: &VariantSet = include_ncnn_shader!("shaders/seed_example.comp");
static SCALE: &VariantSet = include_ncnn_shader!("shaders/scale.comp");
/// The store-cost program's shaders (`bench/src/bin/store_cost.rs`).
static STORE_ST1: &VariantSet = include_ncnn_shader!("../bench/shaders/store_st1.comp");
static STORE_PLAIN_RMW: &VariantSet = include_ncnn_shader!("../bench/shaders/store_plain_rmw.comp");
static STORE_WORD: &VariantSet = include_ncnn_shader!("../bench/shaders/store_word.comp");
static STORE_QUAD: &VariantSet = include_ncnn_shader!("../bench/shaders/store_quad.comp");
/// The benchmarks' copy shader (`ncnn_glsl_bench::copy`).
static BENCH_COPY: &VariantSet = include_ncnn_shader!("../bench/shaders/bench_copy.comp");

/// Every embedded set this test validates, with the file its macro call names,
/// relative to the workspace root.
fn embedded_sets() -> Vec<(&'static VariantSet, PathBuf)> {
    let mut out: Vec<(&'static VariantSet, PathBuf)> = SETS
        .iter()
        // Named without a directory: found in the shipped library.
        .map(|s| (*s, Path::new("shaders").join(s.name)))
        .collect();
    for set in [SEED, SCALE] {
        out.push((set, Path::new("tests").join(set.name)));
    }
    for (set, file) in [
        (BENCH_COPY, "bench_copy.comp"),
        (STORE_ST1, "store_st1.comp"),
        (STORE_PLAIN_RMW, "store_plain_rmw.comp"),
        (STORE_WORD, "store_word.comp"),
        (STORE_QUAD, "store_quad.comp"),
    ] {
        out.push((set, Path::new("bench/shaders").join(file)));
    }
    out
}

/// Macro calls whose shader is not in the workspace: they are built and
/// checked elsewhere (the reason is the value).
const NOT_HERE: &[(&str, &str)] = &[(
    "tests/downstream/src/main.rs",
    "the downstream crate of tests/tests/downstream.rs, built by cargo in that test \
     against the packaged crates (its library shader is one of the runtime's sets)",
)];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        let name = p.file_name().unwrap().to_string_lossy().into_owned();
        if p.is_dir() {
            if !matches!(name.as_str(), "target" | "fuzz" | ".git" | "snapshots") {
                rust_files(&p, out);
            }
        } else if name.ends_with(".rs") {
            out.push(p);
        }
    }
}

/// The crate directory of a source file: the nearest ancestor with a `Cargo.toml`.
fn crate_dir(file: &Path) -> PathBuf {
    let mut d = file.parent().unwrap().to_path_buf();
    while !d.join("Cargo.toml").exists() {
        d = d.parent().unwrap().to_path_buf();
    }
    d
}

#[test]
fn every_macro_call_in_the_workspace_is_a_set_validated_here() {
    let root = workspace_root().canonicalize().unwrap();
    let validated: BTreeSet<PathBuf> = embedded_sets()
        .iter()
        .map(|(_, p)| root.join(p).canonicalize().unwrap())
        .collect();
    let mut files = Vec::new();
    rust_files(&root, &mut files);
    let mut calls = 0;
    for f in files {
        let rel = f
            .strip_prefix(&root)
            .unwrap()
            .to_string_lossy()
            .into_owned();
        let text = std::fs::read_to_string(&f).unwrap();
        for line in text.lines() {
            let t = line.trim_start();
            if t.starts_with("//") {
                continue;
            }
            let Some(at) = t.find("include_ncnn_shader!(\"") else {
                continue;
            };
            let arg = &t[at + "include_ncnn_shader!(\"".len()..];
            let arg = &arg[..arg.find('"').unwrap()];
            calls += 1;
            if NOT_HERE.iter().any(|(file, _)| *file == rel) {
                continue;
            }
            // The macro's lookup: the calling crate's directory, then the
            // library the macros crate carries (a link to `shaders/`).
            let library = root.join("ncnn-glsl-macros/shaders");
            let resolved = [crate_dir(&f).join(arg), library.join(arg)]
                .into_iter()
                .find(|p| p.exists())
                .unwrap_or_else(|| panic!("{rel}: `{arg}` resolves to no file"))
                .canonicalize()
                .unwrap();
            assert!(
                validated.contains(&resolved),
                "{rel}: include_ncnn_shader!(\"{arg}\") embeds a set this test does not \
                 validate; add it to embedded_sets()"
            );
        }
    }
    assert!(
        calls >= 6,
        "found only {calls} macro calls: the scan is broken"
    );
}

#[test]
fn every_embedded_blob_passes_spirv_val() {
    if !tool_available("spirv-val") {
        return;
    }
    let mut seen: BTreeMap<u64, String> = BTreeMap::new();
    let mut failures = Vec::new();
    let mut variants = 0;
    for (set, _) in embedded_sets() {
        for v in set.variants() {
            variants += 1;
            let h = fnv1a64(v.blob.spirv());
            if seen.contains_key(&h) {
                continue;
            }
            let who = format!("{} ({}, axes {:?})", set.name, v.target, v.axes);
            match spirv_val_auto(v.blob.spirv()) {
                Ok(_) => {}
                Err(e) => failures.push(format!("{who}: {e}")),
            }
            seen.insert(h, who);
        }
    }
    eprintln!(
        "{variants} embedded variants, {} distinct blobs validated",
        seen.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    assert!(!seen.is_empty());
}

/// The reviewed artifacts under `shaders/variants/` describe the sets the
/// macro embeds (`ncnn_glsl_q8ta::SETS`), without building them again:
/// `cargo xtask regen-variants --check` (CI) is what builds each shipped set
/// through the core and compares the artifacts, text by text; here each
/// manifest must match its embedded set variant by variant (mode, device
/// bits, axes, SPIR-V size and hash, requirements, which variants share a
/// blob), and list exactly the GLSL files beside it. So every reviewed blob
/// is an embedded one, which [`every_embedded_blob_passes_spirv_val`]
/// validates, and a change to a shipped shader's SPIR-V fails here until the
/// artifacts are regenerated.
#[test]
fn the_variant_artifacts_describe_the_embedded_sets() {
    let root = workspace_root();
    let shader_dir = root.join("shaders");
    let variants_dir = shader_dir.join("variants");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&variants_dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    let shipped_sources: BTreeSet<String> = std::fs::read_dir(&shader_dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "comp"))
        .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
        .collect();
    let dir_names: BTreeSet<String> = dirs
        .iter()
        .map(|d| d.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        dir_names, shipped_sources,
        "shaders/variants/ must hold one directory per shipped shader"
    );
    let embedded_names: BTreeSet<String> = SETS
        .iter()
        .map(|s| {
            Path::new(s.name)
                .file_stem()
                .unwrap()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    assert_eq!(
        embedded_names, shipped_sources,
        "ncnn_glsl_q8ta::SETS must embed every shipped shader, once"
    );
    let mut variants = 0;
    for dir in dirs {
        let manifest: Manifest =
            serde_json::from_str(&std::fs::read_to_string(dir.join("manifest.json")).unwrap())
                .unwrap_or_else(|e| panic!("{}: bad manifest.json: {e}", dir.display()));
        let shader = manifest.shader.as_str();
        let mut on_disk: BTreeSet<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        on_disk.remove("manifest.json");
        let listed: BTreeSet<String> = manifest.variants.iter().map(|v| v.glsl.clone()).collect();
        assert_eq!(
            on_disk,
            listed,
            "{}: the GLSL files are not the manifest's",
            dir.display()
        );
        let set = SETS
            .iter()
            .find(|s| Path::new(s.name).file_name().unwrap() == shader)
            .unwrap_or_else(|| panic!("{shader} is not in q8ta::SETS"));
        assert_eq!(set.usage, manifest.usage, "{shader}: usage");
        let axes: Vec<(String, Vec<i64>, bool)> = set
            .axes
            .iter()
            .map(|a| (a.name.to_string(), a.values.to_vec(), a.device))
            .collect();
        let listed_axes: Vec<(String, Vec<i64>, bool)> = manifest
            .axes
            .iter()
            .map(|a| (a.name.clone(), a.values.clone(), a.device))
            .collect();
        assert_eq!(axes, listed_axes, "{shader}: axes");
        assert_eq!(
            set.variants().len(),
            manifest.variants.len(),
            "{shader}: variant count"
        );
        // The manifest's blob indices, in the embedded set: one static each.
        let mut blobs: Vec<Option<&Blob>> = vec![None; manifest.distinct_blobs];
        for (ev, entry) in set.variants().iter().zip(&manifest.variants) {
            let key = entry.key.as_str();
            variants += 1;
            let bits = ev.target.bits.names();
            assert_eq!(ev.target.options, entry.mode, "{shader} {key}: mode");
            assert_eq!(bits, entry.device_bits, "{shader} {key}: device bits");
            assert_eq!(ev.axes.len(), set.axes.len(), "{shader} {key}: axes");
            let axes: BTreeMap<String, i64> = set
                .axes
                .iter()
                .map(|a| a.name.to_string())
                .zip(ev.axes.iter().copied())
                .collect();
            assert_eq!(axes, entry.axes, "{shader} {key}: axes");
            assert_eq!(
                (
                    ev.blob.spirv().len() * 4,
                    format!("{:016x}", fnv1a64(ev.blob.spirv()))
                ),
                (entry.spirv_bytes, entry.spirv_fnv1a64.clone()),
                "{shader} {key}: the embedded blob differs from the manifest's"
            );
            assert_eq!(
                ev.blob.reflection().requirements,
                entry.requirements,
                "{shader} {key}: requirements"
            );
            let slot = blobs.get_mut(entry.blob).unwrap_or_else(|| {
                panic!(
                    "{shader} {key}: blob {} of {}",
                    entry.blob, manifest.distinct_blobs
                )
            });
            match slot {
                None => *slot = Some(ev.blob),
                Some(b) => assert!(
                    std::ptr::eq(*b, ev.blob),
                    "{shader} {key}: blob {} is two blobs in the embedded set",
                    entry.blob
                ),
            }
        }
        let blobs: Vec<&Blob> = blobs
            .into_iter()
            .enumerate()
            .map(|(i, b)| b.unwrap_or_else(|| panic!("{shader}: blob {i} unused")))
            .collect();
        for (i, a) in blobs.iter().enumerate() {
            for (j, b) in blobs.iter().enumerate().skip(i + 1) {
                assert!(
                    !std::ptr::eq(*a, *b),
                    "{shader}: blobs {i} and {j} are one in the embedded set"
                );
            }
        }
        assert_eq!(
            blobs.iter().map(|b| b.spirv().len() * 4).sum::<usize>(),
            manifest.spirv_bytes,
            "{shader}: SPIR-V bytes"
        );
    }
    eprintln!("{variants} variants of the artifacts are the embedded ones");
}
