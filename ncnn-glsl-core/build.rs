//! Fingerprints the core's sources for the compile cache
//! (`src/variant/cache.rs`): its keys hold the fingerprint, so blobs made by
//! one build of the compiler are never read by a build of edited sources,
//! whose version number has not changed.

use std::path::{Path, PathBuf};

/// FNV-1a, 64 bits, from `seed`: enough to tell two states of the sources
/// apart by chance (nothing here is adversarial: whoever edits the sources
/// builds them), and it needs no dependency.
fn fnv1a(seed: u64, bytes: &[u8]) -> u64 {
    bytes.iter().fold(seed, |h, b| {
        (h ^ u64::from(*b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// Every `.rs` file under `dir`, links not followed.
fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        match entry.file_type() {
            Ok(t) if t.is_dir() => sources(&path, out),
            Ok(t) if t.is_file() && path.extension().is_some_and(|e| e == "rs") => out.push(path),
            _ => {}
        }
    }
}

fn main() {
    println!("cargo:rerun-if-changed=src");
    let mut files = Vec::new();
    sources(Path::new("src"), &mut files);
    files.sort();
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    for file in &files {
        let name = file.to_string_lossy();
        let text = std::fs::read(file).unwrap_or_default();
        for part in [name.as_bytes(), &(text.len() as u64).to_le_bytes(), &text] {
            h = fnv1a(h, part);
        }
    }
    println!("cargo:rustc-env=NCNN_GLSL_CORE_SOURCES={h:016x}");
}
