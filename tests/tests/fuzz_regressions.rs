//! Inputs the fuzzer (`fuzz/`, see fuzz/README.md) found, minimized, run
//! through the same entry points the fuzz targets call, without a fuzzer.
//!
//! Every file under `tests/fuzz-regressions/` is named after its target
//! (`preprocess-*`, `compile-*`, `variant_build-*`, `splice-*`,
//! `includes-*`, `large-*`, `device-*`) and must come
//! back without a contract violation, each within [`TIME_LIMIT`] (the
//! timeouts among them took 30 s to 200 s before their fixes).

#[path = "../../fuzz/src/entry.rs"]
mod entry;

use std::path::{Path, PathBuf};

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz-regressions")
}

fn run_file(path: &Path) -> Result<entry::Notes, String> {
    let data = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let name = path.file_name().unwrap().to_string_lossy().into_owned();
    let target = name.split('-').next().unwrap();
    let run = match target {
        "preprocess" => entry::run_preprocess,
        "compile" => entry::run_compile,
        "variant_build" => entry::run_variant_build,
        "splice" => entry::run_splice,
        "includes" => entry::run_includes,
        "large" => entry::run_large,
        "blob_words" => entry::run_blob_words,
        "item_form" => entry::run_item_form,
        "device" => entry::run_device,
        other => panic!("{name}: unknown fuzz target `{other}`"),
    };
    // A panic escaping the entry point fails the test on its own.
    run(&data)
}

/// A contract bound (an input that hangs), not a speed target: the slowest
/// input takes well under a second.
const TIME_LIMIT: std::time::Duration = std::time::Duration::from_secs(10);

#[test]
fn every_fixed_crash_input_passes() {
    let mut names: Vec<PathBuf> = std::fs::read_dir(dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file() && p.extension().is_none_or(|x| x != "md"))
        .collect();
    names.sort();
    let mut failed = Vec::new();
    for p in &names {
        let t = std::time::Instant::now();
        if let Err(v) = run_file(p) {
            failed.push(format!("{}: {v}", p.display()));
        }
        if t.elapsed() > TIME_LIMIT {
            failed.push(format!("{}: took {:?}", p.display(), t.elapsed()));
        }
    }
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}

#[test]
fn the_entry_points_take_empty_and_header_only_inputs() {
    for data in [&b""[..], b"\x00", b"\xff\xff\xff", b"\xff\xff\xff\xff"] {
        entry::run_preprocess(data).unwrap();
        entry::run_compile(data).unwrap();
        entry::run_variant_build(data).unwrap();
        entry::run_splice(data).unwrap();
        entry::run_includes(data).unwrap();
        entry::run_large(data).unwrap();
        entry::run_device(data).unwrap();
    }
}

/// The seeds of the targets that have their own (`fuzz/seeds-<target>/`)
/// pass, and the include tree's seeds reach what they are for.
#[test]
fn the_seeds_pass_and_the_include_seeds_reach_the_loader() {
    let fuzz = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz");
    for (target, run) in [
        ("includes", entry::run_includes as fn(&[u8]) -> _),
        ("large", entry::run_large),
        ("device", entry::run_device),
    ] {
        for e in std::fs::read_dir(fuzz.join(format!("seeds-{target}"))).unwrap() {
            let p = e.unwrap().path();
            let data = std::fs::read(&p).unwrap();
            if let Err(v) = run(&data) {
                panic!("{}: {v}", p.display());
            }
        }
    }
    let seed = |name: &str| std::fs::read(fuzz.join("seeds-includes").join(name)).unwrap();
    let outcome = |name: &str| entry::includes_result(&seed(name)).unwrap();
    if let Err(d) = outcome("tree") {
        panic!("the tree seed should compile:\n{d}");
    }
    let d = outcome("outside").unwrap_err().to_string();
    assert!(d.contains("outside the including file's directory"), "{d}");
    assert!(!d.contains(entry::OUTSIDE_MARKER), "{d}");
    let d = outcome("error-inside").unwrap_err();
    let s = d.0[0].span.as_ref().unwrap();
    assert!(s.file.ends_with("d/e/f.h") && s.line == 2, "{d}");
    if let Err(d) = outcome("dotdot") {
        panic!("the dotdot seed should compile:\n{d}");
    }
}
