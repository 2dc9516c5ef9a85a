//! Inputs the fuzzer (`fuzz/`, see fuzz/README.md) found, minimized, run
//! through the same entry points the fuzz targets call, without a fuzzer.
//!
//! Every file under `tests/fuzz-regressions/` is named after its target
//! (`preprocess-*`, `compile-*`, `variant_build-*`, `splice-*`) and must come
//! back without a contract violation. Inputs of bugs not fixed yet have their
//! own `#[ignore]`d test below, and live under `tests/fuzz-regressions/open/`.

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
        other => panic!("{name}: unknown fuzz target `{other}`"),
    };
    // A panic escaping the entry point fails the test on its own.
    run(&data)
}

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
        if let Err(v) = run_file(p) {
            failed.push(format!("{}: {v}", p.display()));
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
    }
}
